// Helpers shared by the accelerator clients: opening vendor drivers at run time.
#ifndef XLA_BACKENDS_GPU_DRIVER_UTIL_H_
#define XLA_BACKENDS_GPU_DRIVER_UTIL_H_

#include <dlfcn.h>

#include <string>
#include <variant>
#include <vector>

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

struct OpenedLibrary {
  void* handle = nullptr;
  std::string name;  // the one of the candidates that loaded
};

// Opens the first of `libraries` that loads (a plain name, then versioned
// ones); the error names them all, with the loader's reason for the first.
inline StatusOr<OpenedLibrary> OpenFirstDriver(const std::vector<std::string>& libraries,
                                       const std::string& what, const std::string& fix) {
  std::string first_error;
  for (const std::string& library : libraries) {
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) return OpenedLibrary{handle, library};
    const char* why = dlerror();
    if (first_error.empty()) first_error = why ? why : "unknown error";
  }
  std::string names;
  for (const std::string& library : libraries) names += (names.empty() ? "" : " or ") + library;
  return FailedPrecondition(what + " needs the library " + names + ", which could not be loaded (" +
                            first_error + "). " + fix);
}

// Resolves `symbol` of an opened library into `*fn`; the error names the
// library and the symbol.
template <typename Fn>
Status ResolveSymbol(void* library, const std::string& library_name, const char* symbol, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(library, symbol));
  if (*fn == nullptr) {
    return FailedPrecondition(library_name + " lacks " + symbol +
                              "; the installed version is too old or broken");
  }
  return OkStatus();
}

inline bool OptionSet(const Options& options, const std::string& name) {
  auto it = options.find(name);
  return it != options.end() && std::holds_alternative<bool>(it->second) &&
         std::get<bool>(it->second);
}

}  // namespace driver_util
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_DRIVER_UTIL_H_
