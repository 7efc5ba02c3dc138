#include "jaxlib/c_api_loader.h"

#include <dlfcn.h>
#include <elf.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <vector>

#include <iterator>
#include <mutex>
#include <string>

#include "jaxlib/status_casters.h"
#include "xla/pjrt/c/utf8.h"

namespace jax {
namespace {

const char* CodeName(int code) {
  static const char* kNames[] = {
      "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
      "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
  if (code < 0 || code > 16) return "UNKNOWN";
  return kNames[code];
}

std::map<std::string, AttributeValue> ReadAttributes(const PJRT_Api* api) {
  auto args = PjrtArgs<PJRT_Plugin_Attributes_Args>();
  ThrowIfError(api, api->PJRT_Plugin_Attributes(&args));
  return AttributesOf(args.attributes, args.num_attributes);
}

// dlopen maps a file's segments without checking that the file holds them, so
// a truncated library faults (SIGBUS) instead of failing. Check first that every
// loadable segment and the section table lie inside the file.
void CheckElfIsComplete(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    throw PluginLoadError("cannot open plugin library " + path + ": " + std::strerror(errno));
  }
  auto fail = [&](const std::string& why) {
    std::fclose(f);
    throw PluginLoadError("plugin library " + path + " is not a usable shared object: " + why +
                          " (is the file truncated or corrupt? reinstall the plugin wheel)");
  };
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  Elf64_Ehdr eh;
  if (size < static_cast<long>(sizeof(eh)) || std::fread(&eh, sizeof(eh), 1, f) != 1) {
    fail("file of " + std::to_string(size) + " bytes is too short for an ELF header");
  }
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) fail("no ELF magic number");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) fail("not a 64-bit ELF file");
  if (eh.e_type != ET_DYN) fail("not a shared object (ELF type " + std::to_string(eh.e_type) + ")");
  const unsigned long long shend =
      static_cast<unsigned long long>(eh.e_shoff) + 1ull * eh.e_shnum * eh.e_shentsize;
  if (shend > static_cast<unsigned long long>(size)) {
    fail("section table ends at byte " + std::to_string(shend) + " but the file has " +
         std::to_string(size) + " bytes");
  }
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  if (std::fseek(f, static_cast<long>(eh.e_phoff), SEEK_SET) != 0 ||
      (eh.e_phnum > 0 && std::fread(ph.data(), sizeof(Elf64_Phdr), ph.size(), f) != ph.size())) {
    fail("cannot read the program headers");
  }
  for (const Elf64_Phdr& p : ph) {
    if (p.p_type == PT_LOAD && p.p_offset + p.p_filesz > static_cast<unsigned long long>(size)) {
      fail("a loadable segment ends at byte " + std::to_string(p.p_offset + p.p_filesz) +
           " but the file has " + std::to_string(size) + " bytes");
    }
  }
  std::fclose(f);
}

// The functions jaxlib calls without asking first; a plugin may leave any
// other slot empty, as real PJRT plugins do.
#define JAXLIB_REQUIRED_FUNCTIONS(V)                                                         \
  V(PJRT_Error_Destroy) V(PJRT_Error_Message) V(PJRT_Error_GetCode)                         \
  V(PJRT_Plugin_Initialize) V(PJRT_Plugin_Attributes) V(PJRT_Event_Destroy)                 \
  V(PJRT_Event_Await) V(PJRT_Event_OnReady) V(PJRT_Client_Create) V(PJRT_Client_Destroy)    \
  V(PJRT_Client_PlatformName) V(PJRT_Client_ProcessIndex) V(PJRT_Client_PlatformVersion)    \
  V(PJRT_Client_Devices) V(PJRT_Client_Compile) V(PJRT_Client_BufferFromHostBuffer)         \
  V(PJRT_DeviceDescription_Id) V(PJRT_DeviceDescription_ProcessIndex)                       \
  V(PJRT_DeviceDescription_Kind) V(PJRT_DeviceDescription_DebugString)                      \
  V(PJRT_DeviceDescription_ToString) V(PJRT_Device_GetDescription)                          \
  V(PJRT_Device_IsAddressable) V(PJRT_Device_LocalHardwareId)                               \
  V(PJRT_Executable_Destroy) V(PJRT_Executable_NumOutputs)                                  \
  V(PJRT_LoadedExecutable_Destroy) V(PJRT_LoadedExecutable_GetExecutable)                   \
  V(PJRT_LoadedExecutable_AddressableDevices) V(PJRT_LoadedExecutable_Execute)              \
  V(PJRT_Buffer_Destroy) V(PJRT_Buffer_ElementType) V(PJRT_Buffer_Dimensions)               \
  V(PJRT_Buffer_OnDeviceSizeInBytes) V(PJRT_Buffer_Device) V(PJRT_Buffer_Delete)            \
  V(PJRT_Buffer_IsDeleted) V(PJRT_Buffer_ToHostBuffer) V(PJRT_Buffer_ReadyEvent)

void CheckRequiredFunctions(const PJRT_Api* api, const std::string& path) {
  std::string missing;
#define JAXLIB_CHECK_PRESENT(fn) \
  if (!PJRT_API_HAS(api, fn)) missing += std::string(missing.empty() ? "" : ", ") + #fn;
  JAXLIB_REQUIRED_FUNCTIONS(JAXLIB_CHECK_PRESENT)
#undef JAXLIB_CHECK_PRESENT
  if (!missing.empty()) {
    throw PluginLoadError("plugin library " + path + " lacks C API functions jaxlib needs: " +
                          missing + "; the plugin is incomplete or built against another C API");
  }
}

}  // namespace

std::map<std::string, AttributeValue> AttributesOf(const PJRT_NamedValue* values, size_t count) {
  std::map<std::string, AttributeValue> out;
  for (size_t i = 0; i < count; ++i) {
    const PJRT_NamedValue& v = values[i];
    std::string name = xla::ToValidUtf8(std::string_view(v.name, v.name_size));
    switch (v.type) {
      case PJRT_NamedValue_kString:
        out[name] = xla::ToValidUtf8(std::string_view(v.string_value, v.value_size));
        break;
      case PJRT_NamedValue_kInt64: out[name] = v.int64_value; break;
      case PJRT_NamedValue_kInt64List:
        out[name] = std::vector<int64_t>(v.int64_array_value, v.int64_array_value + v.value_size);
        break;
      case PJRT_NamedValue_kFloat: out[name] = static_cast<double>(v.float_value); break;
      case PJRT_NamedValue_kBool: out[name] = v.bool_value; break;
    }
  }
  return out;
}

void ThrowIfError(const PJRT_Api* api, PJRT_Error* error) {
  if (error == nullptr) return;
  auto margs = PjrtArgs<PJRT_Error_Message_Args>();
  margs.error = error;
  api->PJRT_Error_Message(&margs);
  // Python decodes the message strictly; a plugin must not turn an error into a
  // decoding failure.
  std::string message = xla::ToValidUtf8(std::string_view(margs.message, margs.message_size));
  auto cargs = PjrtArgs<PJRT_Error_GetCode_Args>();
  cargs.error = error;
  PJRT_Error* code_error = api->PJRT_Error_GetCode(&cargs);
  int code = code_error == nullptr ? static_cast<int>(cargs.code) : 2;
  auto dargs = PjrtArgs<PJRT_Error_Destroy_Args>();
  dargs.error = error;
  api->PJRT_Error_Destroy(&dargs);
  if (code_error != nullptr) {
    dargs.error = code_error;
    api->PJRT_Error_Destroy(&dargs);
  }
  throw XlaRuntimeError(std::string(CodeName(code)) + ": " + message);
}

std::shared_ptr<Plugin> LoadPlugin(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<Plugin>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = loaded.find(path); it != loaded.end()) return it->second;

  CheckElfIsComplete(path);
  // RTLD_LOCAL: each plugin keeps its private copy of XLA and LLVM to itself.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw PluginLoadError("cannot load plugin library " + path + ": " +
                          (why ? why : "unknown dlopen error"));
  }
  dlerror();
  auto get_api = reinterpret_cast<PJRT_GetPjrtApi_Fn>(dlsym(handle, "GetPjrtApi"));
  if (get_api == nullptr) {
    throw PluginLoadError("plugin library " + path +
                          " does not export GetPjrtApi, so it is not a plugin of this C API");
  }
  const PJRT_Api* api = get_api();
  if (api == nullptr) {
    throw PluginLoadError("GetPjrtApi() of " + path + " returned NULL");
  }
  if (api->struct_size < PJRT_STRUCT_SIZE(PJRT_Api, pjrt_api_version)) {
    throw PluginLoadError("plugin library " + path + " returned a C API table of " +
                          std::to_string(api->struct_size) + " bytes, too small to be PJRT's");
  }
  const int major = api->pjrt_api_version.major_version;
  const int minor = api->pjrt_api_version.minor_version;
  const std::string version = std::to_string(major) + "." + std::to_string(minor);
  const std::string supported = std::to_string(PJRT_API_MAJOR) + "." +
                                std::to_string(kMinPluginMinor) + " or newer (this jaxlib "
                                "was built with " + std::to_string(PJRT_API_MAJOR) + "." +
                                std::to_string(PJRT_API_MINOR) + ")";
  if (major != PJRT_API_MAJOR || minor < kMinPluginMinor) {
    throw PluginLoadError("plugin library " + path + " implements PJRT C API " + version +
                          ", but this jaxlib drives PJRT C API " + supported +
                          ". Install a newer build of the plugin.");
  }
  CheckRequiredFunctions(api, path);
  auto init = PjrtArgs<PJRT_Plugin_Initialize_Args>();
  ThrowIfError(api, api->PJRT_Plugin_Initialize(&init));

  auto plugin = std::make_shared<Plugin>();
  plugin->path = path;
  plugin->api = api;
  plugin->api_minor = minor;
  plugin->attributes = ReadAttributes(api);
  loaded[path] = plugin;
  return plugin;
}

void RequireFunction(const Plugin& plugin, size_t slot_offset, const char* feature) {
  const PJRT_Api* api = plugin.api;
  void (*fn)() = nullptr;
  if (slot_offset + sizeof(fn) <= api->struct_size) {
    std::memcpy(&fn, reinterpret_cast<const char*>(api) + slot_offset, sizeof(fn));
  }
  if (fn != nullptr) return;
  throw XlaRuntimeError("UNIMPLEMENTED: " + std::string(feature) + " is not supported by the "
                        "plugin library " + plugin.path + " (PJRT C API " +
                        std::to_string(api->pjrt_api_version.major_version) + "." +
                        std::to_string(plugin.api_minor) + ")");
}

PJRT_Error_Code ConsumeErrorCode(const PJRT_Api* api, PJRT_Error* error) {
  auto code = PjrtArgs<PJRT_Error_GetCode_Args>();
  code.error = error;
  PJRT_Error* code_error = api->PJRT_Error_GetCode(&code);
  auto destroy = PjrtArgs<PJRT_Error_Destroy_Args>();
  destroy.error = error;
  api->PJRT_Error_Destroy(&destroy);
  if (code_error != nullptr) {
    destroy.error = code_error;
    api->PJRT_Error_Destroy(&destroy);
    return PJRT_Error_Code_UNKNOWN;
  }
  return code.code;
}

void DestroyEvent(const PJRT_Api* api, PJRT_Event* event) {
  if (event == nullptr) return;
  auto destroy = PjrtArgs<PJRT_Event_Destroy_Args>();
  destroy.event = event;
  PJRT_Error* error = api->PJRT_Event_Destroy(&destroy);
  if (error != nullptr) ConsumeErrorCode(api, error);
}

void AwaitAndDestroy(const PJRT_Api* api, PJRT_Event* event) {
  if (event == nullptr) return;
  auto wait = PjrtArgs<PJRT_Event_Await_Args>();
  wait.event = event;
  PJRT_Error* error = api->PJRT_Event_Await(&wait);
  DestroyEvent(api, event);
  ThrowIfError(api, error);
}

}  // namespace jax
