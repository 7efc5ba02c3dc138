// Loads a PJRT plugin shared object (ours or anyone's) by path and checks its
// C API table.
#ifndef JAXLIB_C_API_LOADER_H_
#define JAXLIB_C_API_LOADER_H_

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "xla/pjrt/c/pjrt_c_api.h"
#include "xla/pjrt/c/pjrt_c_api_host_extensions.h"

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

// The oldest PJRT minor version jaxlib drives: 0.57 put the table in its
// present order.
constexpr int kMinPluginMinor = 57;

// Named values a plugin returns (plugin, device or topology attributes), with
// names and strings made valid UTF-8.
std::map<std::string, AttributeValue> AttributesOf(const PJRT_NamedValue* values, size_t count);

// Throws PluginLoadError naming the file and the reason.
std::shared_ptr<Plugin> LoadPlugin(const std::string& path);

// Throws XlaRuntimeError (UNIMPLEMENTED) naming `feature` when the plugin's
// table has no function in `slot_offset` (offsetof(PJRT_Api, <function>)).
void RequireFunction(const Plugin& plugin, size_t slot_offset, const char* feature);

// The plugin's extension of `type` (a PJRT_Extension_Type value, or one of
// ours) as struct `T`, or null when the chain has none at least `min_size`
// bytes long. Types are compared as integers: a chain may hold types newer
// than this header's enum.
template <typename T>
const T* FindExtension(const PJRT_Api* api, uint32_t type, size_t min_size) {
  if (api->struct_size < PJRT_STRUCT_SIZE(PJRT_Api, extension_start)) return nullptr;
  for (PJRT_Extension_Base* e = api->extension_start; e != nullptr; e = e->next) {
    if (PJRT_ExtensionTypeOf(e) == type && e->struct_size >= min_size) {
      return reinterpret_cast<const T*>(e);
    }
  }
  return nullptr;
}

// The size jaxlib declares in an argument struct: the header's
// PJRT_<Name>_STRUCT_SIZE (the end of the last field this header knows), never
// sizeof, which would also count trailing padding a plugin built against an
// older header might read as a field. Specialized for each struct jaxlib passes,
// so a struct missing here fails to compile instead of getting a wrong size.
template <typename T>
struct PjrtStructSize;

#define JAXLIB_PJRT_ARGS(T) \
  template <>               \
  struct PjrtStructSize<T> { static constexpr size_t value = T##_STRUCT_SIZE; };
JAXLIB_PJRT_ARGS(PJRT_Buffer_DecreaseExternalReferenceCount_Args)
JAXLIB_PJRT_ARGS(PJRT_Buffer_Delete_Args)
JAXLIB_PJRT_ARGS(PJRT_Buffer_Destroy_Args)
JAXLIB_PJRT_ARGS(PJRT_Buffer_Device_Args)
JAXLIB_PJRT_ARGS(PJRT_Buffer_Dimensions_Args)
JAXLIB_PJRT_ARGS(PJRT_Buffer_ElementType_Args)
JAXLIB_PJRT_ARGS(PJRT_Buffer_IncreaseExternalReferenceCount_Args)
JAXLIB_PJRT_ARGS(PJRT_Buffer_IsOnCpu_Args)
JAXLIB_PJRT_ARGS(PJRT_Buffer_IsDeleted_Args)
JAXLIB_PJRT_ARGS(PJRT_Buffer_OnDeviceSizeInBytes_Args)
JAXLIB_PJRT_ARGS(PJRT_Buffer_ReadyEvent_Args)
JAXLIB_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args)
JAXLIB_PJRT_ARGS(PJRT_Buffer_UnsafePointer_Args)
JAXLIB_PJRT_ARGS(PJRT_Client_BufferFromHostBuffer_Args)
JAXLIB_PJRT_ARGS(PJRT_Client_Compile_Args)
JAXLIB_PJRT_ARGS(PJRT_Client_Create_Args)
JAXLIB_PJRT_ARGS(PJRT_Client_Destroy_Args)
JAXLIB_PJRT_ARGS(PJRT_Client_Devices_Args)
JAXLIB_PJRT_ARGS(PJRT_Client_PlatformName_Args)
JAXLIB_PJRT_ARGS(PJRT_Client_PlatformVersion_Args)
JAXLIB_PJRT_ARGS(PJRT_Client_ProcessIndex_Args)
JAXLIB_PJRT_ARGS(PJRT_DeviceDescription_DebugString_Args)
JAXLIB_PJRT_ARGS(PJRT_DeviceDescription_Id_Args)
JAXLIB_PJRT_ARGS(PJRT_DeviceDescription_Kind_Args)
JAXLIB_PJRT_ARGS(PJRT_DeviceDescription_ProcessIndex_Args)
JAXLIB_PJRT_ARGS(PJRT_DeviceDescription_ToString_Args)
JAXLIB_PJRT_ARGS(PJRT_Device_AddressableMemories_Args)
JAXLIB_PJRT_ARGS(PJRT_Device_DefaultMemory_Args)
JAXLIB_PJRT_ARGS(PJRT_Device_GetDescription_Args)
JAXLIB_PJRT_ARGS(PJRT_Device_IsAddressable_Args)
JAXLIB_PJRT_ARGS(PJRT_Device_LocalHardwareId_Args)
JAXLIB_PJRT_ARGS(PJRT_Device_MemoryStats_Args)
JAXLIB_PJRT_ARGS(PJRT_Error_Destroy_Args)
JAXLIB_PJRT_ARGS(PJRT_Error_GetCode_Args)
JAXLIB_PJRT_ARGS(PJRT_Error_Message_Args)
JAXLIB_PJRT_ARGS(PJRT_Event_Await_Args)
JAXLIB_PJRT_ARGS(PJRT_Event_Destroy_Args)
JAXLIB_PJRT_ARGS(PJRT_Event_OnReady_Args)
JAXLIB_PJRT_ARGS(PJRT_Executable_DeserializeAndLoad_Args)
JAXLIB_PJRT_ARGS(PJRT_Executable_Destroy_Args)
JAXLIB_PJRT_ARGS(PJRT_Executable_GetCompiledMemoryStats_Args)
JAXLIB_PJRT_ARGS(PJRT_Executable_NumOutputs_Args)
JAXLIB_PJRT_ARGS(PJRT_Executable_NumReplicas_Args)
JAXLIB_PJRT_ARGS(PJRT_Executable_OptimizedProgram_Args)
JAXLIB_PJRT_ARGS(PJRT_Executable_Serialize_Args)
JAXLIB_PJRT_ARGS(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args)
JAXLIB_PJRT_ARGS(PJRT_ExecuteOptions)
JAXLIB_PJRT_ARGS(PJRT_KeyValueGetCallback_Args)
JAXLIB_PJRT_ARGS(PJRT_KeyValuePutCallback_Args)
JAXLIB_PJRT_ARGS(PJRT_LoadedExecutable_AddressableDevices_Args)
JAXLIB_PJRT_ARGS(PJRT_LoadedExecutable_Destroy_Args)
JAXLIB_PJRT_ARGS(PJRT_LoadedExecutable_Execute_Args)
JAXLIB_PJRT_ARGS(PJRT_LoadedExecutable_GetExecutable_Args)
JAXLIB_PJRT_ARGS(PJRT_Memory_Id_Args)
JAXLIB_PJRT_ARGS(PJRT_Memory_Kind_Args)
JAXLIB_PJRT_ARGS(PJRT_NamedValue)
JAXLIB_PJRT_ARGS(PJRT_Plugin_Attributes_Args)
JAXLIB_PJRT_ARGS(PJRT_Plugin_Initialize_Args)
JAXLIB_PJRT_ARGS(PJRT_Program)
#undef JAXLIB_PJRT_ARGS

// A zeroed argument struct `T` with its struct_size filled in.
template <typename T>
T PjrtArgs() {
  T args{};
  args.struct_size = PjrtStructSize<T>::value;
  return args;
}

// Converts a PJRT_Error into an XlaRuntimeError (and destroys it); no-op for NULL.
void ThrowIfError(const PJRT_Api* api, PJRT_Error* error);

// The error's code, and destroys it (for callers that branch on the code).
PJRT_Error_Code ConsumeErrorCode(const PJRT_Api* api, PJRT_Error* error);

// Waits for `event` and destroys it; throws its error. No-op for NULL.
void AwaitAndDestroy(const PJRT_Api* api, PJRT_Event* event);
void DestroyEvent(const PJRT_Api* api, PJRT_Event* event);

}  // namespace jax

#endif  // JAXLIB_C_API_LOADER_H_
