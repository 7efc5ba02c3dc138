// Loads a plugin shared object by path and checks its C API table.
#ifndef JAXLIB_C_API_LOADER_H_
#define JAXLIB_C_API_LOADER_H_

#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "xla/pjrt/c/pjrt_c_api.h"

namespace jax {

using AttributeValue = std::variant<std::string, int64_t, std::vector<int64_t>, double, bool>;

// A loaded plugin library. Libraries are never unloaded: clients, buffers and
// executables may outlive every Python reference to the plugin object.
struct Plugin {
  std::string path;
  const PJRT_Api* api = nullptr;
  int api_minor = 0;  // the C API minor version the plugin was built for
  std::map<std::string, AttributeValue> attributes;
};

// Throws PluginLoadError naming the file and the reason.
std::shared_ptr<Plugin> LoadPlugin(const std::string& path);

// Throws XlaRuntimeError (UNIMPLEMENTED) saying which C API version `feature`
// needs, when the plugin was built for an older minor version than that.
void RequireMinorVersion(const Plugin& plugin, int minor, const char* feature);

// The plugin's extension of `type` (PJRT_Extension_Type_*) as struct `T`, or
// null when the chain has none at least `min_size` bytes long.
template <typename T>
const T* FindExtension(const PJRT_Api* api, PJRT_Extension_Type type, size_t min_size) {
  for (PJRT_Extension_Base* e = api->extension_start; e != nullptr; e = e->next) {
    if (e->type == type && e->struct_size >= min_size) return reinterpret_cast<const T*>(e);
  }
  return nullptr;
}

// Converts a PJRT_Error into an XlaRuntimeError (and destroys it); no-op for NULL.
void ThrowIfError(const PJRT_Api* api, PJRT_Error* error);

}  // namespace jax

#endif  // JAXLIB_C_API_LOADER_H_
