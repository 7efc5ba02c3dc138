// Helpers shared by the accelerator clients: opening vendor drivers at run time.
#ifndef XLA_BACKENDS_GPU_DRIVER_UTIL_H_
#define XLA_BACKENDS_GPU_DRIVER_UTIL_H_

#include <dlfcn.h>

#include <string>
#include <variant>

#include "xla/pjrt/client.h"

namespace xla {
namespace driver_util {

// Opens a driver library; the error names the file and how to get it.
inline StatusOr<void*> OpenDriver(const char* library, const std::string& what, const std::string& fix) {
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return FailedPrecondition(what + " needs the driver library " + library +
                              ", which could not be loaded (" + (why ? why : "unknown error") +
                              "). " + fix);
  }
  return handle;
}

inline bool OptionSet(const Options& options, const std::string& name) {
  auto it = options.find(name);
  return it != options.end() && std::holds_alternative<bool>(it->second) &&
         std::get<bool>(it->second);
}

}  // namespace driver_util
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_DRIVER_UTIL_H_
