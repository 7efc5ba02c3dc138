/* PJRT C API: the boundary between jaxlib and every hardware plugin.
 *
 * OpenXLA's PJRT C API, written for this project from its documented layout:
 * names, field order, types, enum values and the order of the PJRT_Api table
 * are PJRT's, so a plugin built against OpenXLA's header (libtpu, the CUDA and
 * ROCm PJRT plugins, OpenXLA's CPU plugin, any vendor's) loads in our jaxlib,
 * and any PJRT client drives our plugins. PJRT's rules:
 *   - a plugin exports `const PJRT_Api* GetPjrtApi(void)`;
 *   - every argument struct starts with struct_size (the caller's
 *     <Name>_STRUCT_SIZE) and extension_start; the callee reads only fields
 *     inside the caller's size, so either side may be some minors older;
 *   - fields and slots are only appended; the major version is 0;
 *   - NULL means success, else a PJRT_Error the caller destroys; `out`
 *     objects belong to the caller, queried strings and arrays live as long
 *     as the object they describe;
 *   - optional features are extensions chained from extension_start;
 *   - program format "hlo" is a serialized HloModuleProto; compile options
 *     are a serialized CompileOptionsProto.
 * C only: no C++ types, no STL, no Python.
 */
#ifndef XLA_PJRT_C_PJRT_C_API_H_
#define XLA_PJRT_C_PJRT_C_API_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The bytes of `type` up to and including `last_field`: what a caller built
 * against this header puts in struct_size (never sizeof, which would count
 * trailing padding an older callee might take for a field). */
#define PJRT_STRUCT_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

#define PJRT_DEFINE_STRUCT_TRAITS(type, last_field) \
  enum { type##_STRUCT_SIZE = PJRT_STRUCT_SIZE(type, last_field) }

#ifdef __cplusplus
extern "C" {
#endif

/* The table below is the 0.114 layout (138 functions); OpenXLA's CPU plugin
 * (0.115) and libtpu (0.117) export tables of the same length. */
#define PJRT_API_MAJOR 0
#define PJRT_API_MINOR 114

/* Whether a plugin's table (perhaps of an older minor version) has slot `fn`. */
#define PJRT_API_HAS(api, fn) \
  ((api)->struct_size >= PJRT_STRUCT_SIZE(PJRT_Api, fn) && (api)->fn != NULL)

/* -------------------------------- Extensions ------------------------------ */

typedef enum {
  PJRT_Extension_Type_Gpu_Custom_Call = 0,
  PJRT_Extension_Type_Profiler = 1,
  PJRT_Extension_Type_Custom_Partitioner = 2,
  PJRT_Extension_Type_Stream = 3,
  PJRT_Extension_Type_Layouts = 4,
  PJRT_Extension_Type_FFI = 5,
  PJRT_Extension_Type_MemoryDescriptions = 6,
  PJRT_Extension_Type_Triton = 7,
  PJRT_Extension_Type_RawBuffer = 8,
  PJRT_Extension_Type_PhaseCompile = 9,
  PJRT_Extension_Type_Example = 10,
  PJRT_Extension_Type_Unknown = 11,
  PJRT_Extension_Type_CrossHostTransfers = 12,
  PJRT_Extension_Type_ExecutableMetadata = 13,
  PJRT_Extension_Type_Callback = 14,
  PJRT_Extension_Type_HostAllocator = 15,
  PJRT_Extension_Type_TpuTopology = 16,
  PJRT_Extension_Type_TpuExecutable = 17,
  PJRT_Extension_Type_Megascale = 18,
  PJRT_Extension_Type_Shardings = 19,
  PJRT_Extension_Type_AbiVersion = 20,
  PJRT_Extension_Type_Collectives = 21,
  PJRT_Extension_Type_MultiSlice = 22,
  PJRT_Extension_Type_HostMemoryAllocator = 23,
  PJRT_Extension_Type_XlaTransform = 24,
} PJRT_Extension_Type;

typedef struct PJRT_Extension_Base {
  size_t struct_size;
  PJRT_Extension_Type type;
  struct PJRT_Extension_Base* next; /* NULL ends the chain */
} PJRT_Extension_Base;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Extension_Base, next);

/* --------------------------------- Version -------------------------------- */

typedef struct PJRT_Api_Version {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  int major_version; /* the PJRT_API_MAJOR the plugin was built with */
  int minor_version; /* the PJRT_API_MINOR the plugin was built with */
} PJRT_Api_Version;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Api_Version, minor_version);

/* ---------------------------------- Errors -------------------------------- */

typedef struct PJRT_Error PJRT_Error;

typedef struct PJRT_Error_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Error* error; /* may be NULL */
} PJRT_Error_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_Destroy_Args, error);
typedef void PJRT_Error_Destroy(PJRT_Error_Destroy_Args* args);

typedef struct PJRT_Error_Message_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  const char* message; /* out; lives as long as `error` */
  size_t message_size; /* out */
} PJRT_Error_Message_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_Message_Args, message_size);
typedef void PJRT_Error_Message(PJRT_Error_Message_Args* args);

/* abseil's canonical status codes. */
typedef enum {
  PJRT_Error_Code_OK = 0,
  PJRT_Error_Code_CANCELLED = 1,
  PJRT_Error_Code_UNKNOWN = 2,
  PJRT_Error_Code_INVALID_ARGUMENT = 3,
  PJRT_Error_Code_DEADLINE_EXCEEDED = 4,
  PJRT_Error_Code_NOT_FOUND = 5,
  PJRT_Error_Code_ALREADY_EXISTS = 6,
  PJRT_Error_Code_PERMISSION_DENIED = 7,
  PJRT_Error_Code_RESOURCE_EXHAUSTED = 8,
  PJRT_Error_Code_FAILED_PRECONDITION = 9,
  PJRT_Error_Code_ABORTED = 10,
  PJRT_Error_Code_OUT_OF_RANGE = 11,
  PJRT_Error_Code_UNIMPLEMENTED = 12,
  PJRT_Error_Code_INTERNAL = 13,
  PJRT_Error_Code_UNAVAILABLE = 14,
  PJRT_Error_Code_DATA_LOSS = 15,
  PJRT_Error_Code_UNAUTHENTICATED = 16,
} PJRT_Error_Code;

typedef struct PJRT_Error_GetCode_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  PJRT_Error_Code code; /* out */
} PJRT_Error_GetCode_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_GetCode_Args, code);
typedef PJRT_Error* PJRT_Error_GetCode(PJRT_Error_GetCode_Args* args);

/* Lets a callback the caller hands to a plugin report an error in the
 * plugin's own PJRT_Error type; `message` is copied. */
typedef PJRT_Error* (*PJRT_CallbackError)(PJRT_Error_Code code, const char* message,
                                          size_t message_size);

/* ------------------------------- Named values ----------------------------- */

typedef enum {
  PJRT_NamedValue_kString = 0,
  PJRT_NamedValue_kInt64 = 1,
  PJRT_NamedValue_kInt64List = 2,
  PJRT_NamedValue_kFloat = 3,
  PJRT_NamedValue_kBool = 4,
} PJRT_NamedValue_Type;

typedef struct PJRT_NamedValue {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* name;
  size_t name_size;
  PJRT_NamedValue_Type type;
  union {
    const char* string_value;
    int64_t int64_value;
    const int64_t* int64_array_value;
    float float_value;
    bool bool_value;
  };
  size_t value_size; /* string or list length; 1 for a scalar */
} PJRT_NamedValue;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_NamedValue, value_size);

/* --------------------------------- Plugin --------------------------------- */

typedef struct PJRT_Plugin_Initialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
} PJRT_Plugin_Initialize_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Plugin_Initialize_Args, extension_start);
/* Called once, before anything else. */
typedef PJRT_Error* PJRT_Plugin_Initialize(PJRT_Plugin_Initialize_Args* args);

typedef struct PJRT_Plugin_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_NamedValue* attributes; /* out; live for the process */
  size_t num_attributes;             /* out */
} PJRT_Plugin_Attributes_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Plugin_Attributes_Args, num_attributes);
typedef PJRT_Error* PJRT_Plugin_Attributes(PJRT_Plugin_Attributes_Args* args);

/* --------------------------------- Events --------------------------------- */

typedef struct PJRT_Event PJRT_Event;

typedef struct PJRT_Event_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
} PJRT_Event_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Destroy_Args, event);
typedef PJRT_Error* PJRT_Event_Destroy(PJRT_Event_Destroy_Args* args);

typedef struct PJRT_Event_IsReady_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  bool is_ready; /* out */
} PJRT_Event_IsReady_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_IsReady_Args, is_ready);
typedef PJRT_Error* PJRT_Event_IsReady(PJRT_Event_IsReady_Args* args);

/* The event's error (a new PJRT_Error the caller destroys) once it is ready. */
typedef struct PJRT_Event_Error_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
} PJRT_Event_Error_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Error_Args, event);
typedef PJRT_Error* PJRT_Event_Error(PJRT_Event_Error_Args* args);

/* Blocks until the event is ready; returns its error. */
typedef struct PJRT_Event_Await_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
} PJRT_Event_Await_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Await_Args, event);
typedef PJRT_Error* PJRT_Event_Await(PJRT_Event_Await_Args* args);

/* Runs once the event is ready, perhaps on a plugin thread, perhaps at once
 * in the caller's thread; it owns (and must destroy) `error`. */
typedef void (*PJRT_Event_OnReadyCallback)(PJRT_Error* error, void* user_arg);

typedef struct PJRT_Event_OnReady_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  PJRT_Event_OnReadyCallback callback;
  void* user_arg;
} PJRT_Event_OnReady_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_OnReady_Args, user_arg);
typedef PJRT_Error* PJRT_Event_OnReady(PJRT_Event_OnReady_Args* args);

/* ------------------------------ Opaque objects ---------------------------- */

typedef struct PJRT_Client PJRT_Client;
typedef struct PJRT_Device PJRT_Device;
typedef struct PJRT_Memory PJRT_Memory;
typedef struct PJRT_DeviceDescription PJRT_DeviceDescription;
typedef struct PJRT_TopologyDescription PJRT_TopologyDescription;
typedef struct PJRT_Executable PJRT_Executable;
typedef struct PJRT_LoadedExecutable PJRT_LoadedExecutable;
typedef struct PJRT_Buffer PJRT_Buffer;
typedef struct PJRT_ExecuteContext PJRT_ExecuteContext;
typedef struct PJRT_SerializedExecutable PJRT_SerializedExecutable;
typedef struct PJRT_SerializedTopology PJRT_SerializedTopology;
typedef struct PJRT_SerializedCompileOptions PJRT_SerializedCompileOptions;
typedef struct PJRT_SerializedDeviceAssignment PJRT_SerializedDeviceAssignment;

/* ------------------------------ Key-value store ---------------------------
 * A client of a multi-process group meets its peers through a store the
 * caller lends at client creation. The callbacks are thread-safe; get blocks
 * up to timeout_in_ms; try_get answers NOT_FOUND at once. */

typedef void (*PJRT_KeyValueGetCallback_ValueDeleter)(char* value);

typedef struct PJRT_KeyValueGetCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key;
  size_t key_size;
  int timeout_in_ms;
  PJRT_CallbackError* callback_error;
  void* user_arg;
  char* value;       /* out; released with value_deleter_callback */
  size_t value_size; /* out */
  PJRT_KeyValueGetCallback_ValueDeleter value_deleter_callback; /* out */
} PJRT_KeyValueGetCallback_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_KeyValueGetCallback_Args, value_deleter_callback);
typedef PJRT_Error* (*PJRT_KeyValueGetCallback)(PJRT_KeyValueGetCallback_Args* args);

typedef struct PJRT_KeyValueTryGetCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key;
  size_t key_size;
  PJRT_CallbackError* callback_error;
  void* user_arg;
  char* value;       /* out */
  size_t value_size; /* out */
  PJRT_KeyValueGetCallback_ValueDeleter value_deleter_callback; /* out */
} PJRT_KeyValueTryGetCallback_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_KeyValueTryGetCallback_Args, value_deleter_callback);
typedef PJRT_Error* (*PJRT_KeyValueTryGetCallback)(PJRT_KeyValueTryGetCallback_Args* args);

typedef struct PJRT_KeyValuePutCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key;
  size_t key_size;
  const char* value; /* borrowed for the call */
  size_t value_size;
  PJRT_CallbackError* callback_error;
  void* user_arg;
} PJRT_KeyValuePutCallback_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_KeyValuePutCallback_Args, user_arg);
typedef PJRT_Error* (*PJRT_KeyValuePutCallback)(PJRT_KeyValuePutCallback_Args* args);

/* --------------------------------- Client --------------------------------- */

typedef struct PJRT_Client_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_NamedValue* create_options;
  size_t num_options;
  PJRT_KeyValueGetCallback kv_get_callback; /* NULL: a single-process client */
  void* kv_get_user_arg;
  PJRT_KeyValuePutCallback kv_put_callback;
  void* kv_put_user_arg;
  PJRT_Client* client; /* out */
  PJRT_KeyValueTryGetCallback kv_try_get_callback;
  void* kv_try_get_user_arg;
} PJRT_Client_Create_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Create_Args, kv_try_get_user_arg);
typedef PJRT_Error* PJRT_Client_Create(PJRT_Client_Create_Args* args);

typedef struct PJRT_Client_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
} PJRT_Client_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Destroy_Args, client);
typedef PJRT_Error* PJRT_Client_Destroy(PJRT_Client_Destroy_Args* args);

typedef struct PJRT_Client_PlatformName_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* platform_name; /* out: "cpu", "cuda", "tpu", ... */
  size_t platform_name_size; /* out */
} PJRT_Client_PlatformName_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_PlatformName_Args, platform_name_size);
typedef PJRT_Error* PJRT_Client_PlatformName(PJRT_Client_PlatformName_Args* args);

typedef struct PJRT_Client_ProcessIndex_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int process_index; /* out */
} PJRT_Client_ProcessIndex_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_ProcessIndex_Args, process_index);
typedef PJRT_Error* PJRT_Client_ProcessIndex(PJRT_Client_ProcessIndex_Args* args);

typedef struct PJRT_Client_PlatformVersion_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* platform_version; /* out */
  size_t platform_version_size; /* out */
} PJRT_Client_PlatformVersion_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_PlatformVersion_Args, platform_version_size);
typedef PJRT_Error* PJRT_Client_PlatformVersion(PJRT_Client_PlatformVersion_Args* args);

typedef struct PJRT_Client_Devices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Device* const* devices; /* out: every process's devices */
  size_t num_devices;          /* out */
} PJRT_Client_Devices_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Devices_Args, num_devices);
typedef PJRT_Error* PJRT_Client_Devices(PJRT_Client_Devices_Args* args);

typedef struct PJRT_Client_AddressableDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Device* const* addressable_devices; /* out: this process's devices */
  size_t num_addressable_devices;          /* out */
} PJRT_Client_AddressableDevices_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_AddressableDevices_Args, num_addressable_devices);
typedef PJRT_Error* PJRT_Client_AddressableDevices(PJRT_Client_AddressableDevices_Args* args);

typedef struct PJRT_Client_LookupDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int id;              /* global device id */
  PJRT_Device* device; /* out */
} PJRT_Client_LookupDevice_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_LookupDevice_Args, device);
typedef PJRT_Error* PJRT_Client_LookupDevice(PJRT_Client_LookupDevice_Args* args);

typedef struct PJRT_Client_LookupAddressableDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int local_hardware_id;
  PJRT_Device* addressable_device; /* out */
} PJRT_Client_LookupAddressableDevice_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_LookupAddressableDevice_Args, addressable_device);
typedef PJRT_Error* PJRT_Client_LookupAddressableDevice(
    PJRT_Client_LookupAddressableDevice_Args* args);

typedef struct PJRT_Client_AddressableMemories_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Memory* const* addressable_memories; /* out */
  size_t num_addressable_memories;          /* out */
} PJRT_Client_AddressableMemories_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_AddressableMemories_Args, num_addressable_memories);
typedef PJRT_Error* PJRT_Client_AddressableMemories(PJRT_Client_AddressableMemories_Args* args);

/* A program: "hlo" (a serialized HloModuleProto), "hlo_with_config" (a
 * serialized HloModuleProtoWithConfig) or "mlir" (StableHLO). */
typedef struct PJRT_Program {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  char* code; /* for OptimizedProgram: NULL asks for code_size only */
  size_t code_size;
  const char* format;
  size_t format_size;
} PJRT_Program;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Program, format_size);

typedef struct PJRT_Client_Compile_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const PJRT_Program* program;
  const char* compile_options; /* a serialized CompileOptionsProto */
  size_t compile_options_size;
  PJRT_LoadedExecutable* executable; /* out */
} PJRT_Client_Compile_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Compile_Args, executable);
typedef PJRT_Error* PJRT_Client_Compile(PJRT_Client_Compile_Args* args);

/* Device ids for a replicas x partitions computation, replica-major, written
 * into the caller's array of default_assignment_size ints. */
typedef struct PJRT_Client_DefaultDeviceAssignment_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int num_replicas;
  int num_partitions;
  size_t default_assignment_size;
  int* default_assignment; /* out (caller-owned) */
} PJRT_Client_DefaultDeviceAssignment_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_DefaultDeviceAssignment_Args, default_assignment);
typedef PJRT_Error* PJRT_Client_DefaultDeviceAssignment(
    PJRT_Client_DefaultDeviceAssignment_Args* args);

typedef enum {
  PJRT_Buffer_Type_INVALID = 0,
  PJRT_Buffer_Type_PRED = 1,
  PJRT_Buffer_Type_S8 = 2,
  PJRT_Buffer_Type_S16 = 3,
  PJRT_Buffer_Type_S32 = 4,
  PJRT_Buffer_Type_S64 = 5,
  PJRT_Buffer_Type_U8 = 6,
  PJRT_Buffer_Type_U16 = 7,
  PJRT_Buffer_Type_U32 = 8,
  PJRT_Buffer_Type_U64 = 9,
  PJRT_Buffer_Type_F16 = 10,
  PJRT_Buffer_Type_F32 = 11,
  PJRT_Buffer_Type_F64 = 12,
  PJRT_Buffer_Type_BF16 = 13,
  PJRT_Buffer_Type_C64 = 14,
  PJRT_Buffer_Type_C128 = 15,
  PJRT_Buffer_Type_F8E5M2 = 16,
  PJRT_Buffer_Type_F8E4M3FN = 17,
  PJRT_Buffer_Type_F8E4M3B11FNUZ = 18,
  PJRT_Buffer_Type_F8E5M2FNUZ = 19,
  PJRT_Buffer_Type_F8E4M3FNUZ = 20,
  PJRT_Buffer_Type_S4 = 21,
  PJRT_Buffer_Type_U4 = 22,
  PJRT_Buffer_Type_TOKEN = 23,
  PJRT_Buffer_Type_S2 = 24,
  PJRT_Buffer_Type_U2 = 25,
  PJRT_Buffer_Type_F8E4M3 = 26,
  PJRT_Buffer_Type_F8E3M4 = 27,
  PJRT_Buffer_Type_F8E8M0FNU = 28,
  PJRT_Buffer_Type_F4E2M1FN = 29,
  PJRT_Buffer_Type_S1 = 30,
  PJRT_Buffer_Type_U1 = 31,
  PJRT_Buffer_Type_F6E2M3FN = 32,
  PJRT_Buffer_Type_F6E3M2FN = 33,
} PJRT_Buffer_Type;

typedef enum {
  /* The data is copied before the call returns. */
  PJRT_HostBufferSemantics_kImmutableOnlyDuringCall = 0,
  /* The data stays valid, unchanged, until done_with_host_buffer is ready. */
  PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes = 1,
  /* The buffer may alias the data, which stays valid and unchanged until
   * done_with_host_buffer is ready. */
  PJRT_HostBufferSemantics_kImmutableZeroCopy = 2,
  PJRT_HostBufferSemantics_kMutableZeroCopy = 3,
} PJRT_HostBufferSemantics;

typedef enum {
  PJRT_Buffer_MemoryLayout_Type_Tiled = 0,
  PJRT_Buffer_MemoryLayout_Type_Strides = 1,
} PJRT_Buffer_MemoryLayout_Type;

typedef struct PJRT_Buffer_MemoryLayout_Tiled {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* minor_to_major;
  size_t minor_to_major_size;
  const int64_t* tile_dims;     /* all tiles' dimensions, concatenated */
  const size_t* tile_dim_sizes; /* the rank of each tile */
  size_t num_tiles;
} PJRT_Buffer_MemoryLayout_Tiled;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_MemoryLayout_Tiled, num_tiles);

typedef struct PJRT_Buffer_MemoryLayout_Strides {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* byte_strides;
  size_t num_byte_strides;
} PJRT_Buffer_MemoryLayout_Strides;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_MemoryLayout_Strides, num_byte_strides);

typedef struct PJRT_Buffer_MemoryLayout {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  union {
    PJRT_Buffer_MemoryLayout_Tiled tiled;
    PJRT_Buffer_MemoryLayout_Strides strides;
  };
  PJRT_Buffer_MemoryLayout_Type type;
} PJRT_Buffer_MemoryLayout;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_MemoryLayout, type);

typedef struct PJRT_Client_BufferFromHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const void* data;
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  const int64_t* byte_strides; /* NULL: dense, major-to-minor */
  size_t num_byte_strides;
  PJRT_HostBufferSemantics host_buffer_semantics;
  PJRT_Device* device;                     /* used when `memory` is NULL */
  PJRT_Memory* memory;                     /* NULL: the device's default memory */
  PJRT_Buffer_MemoryLayout* device_layout; /* NULL: the default layout */
  PJRT_Event* done_with_host_buffer;       /* out: ready when `data` is free again */
  PJRT_Buffer* buffer;                     /* out */
} PJRT_Client_BufferFromHostBuffer_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_BufferFromHostBuffer_Args, buffer);
typedef PJRT_Error* PJRT_Client_BufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args);

typedef struct PJRT_Client_TopologyDescription_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_TopologyDescription* topology; /* out; owned by the client */
} PJRT_Client_TopologyDescription_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_TopologyDescription_Args, topology);
typedef PJRT_Error* PJRT_Client_TopologyDescription(PJRT_Client_TopologyDescription_Args* args);

/* ---------------------------- Device descriptions ------------------------- */

typedef struct PJRT_DeviceDescription_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  int id; /* out: global id */
} PJRT_DeviceDescription_Id_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_Id_Args, id);
typedef PJRT_Error* PJRT_DeviceDescription_Id(PJRT_DeviceDescription_Id_Args* args);

typedef struct PJRT_DeviceDescription_ProcessIndex_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  int process_index; /* out */
} PJRT_DeviceDescription_ProcessIndex_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_ProcessIndex_Args, process_index);
typedef PJRT_Error* PJRT_DeviceDescription_ProcessIndex(
    PJRT_DeviceDescription_ProcessIndex_Args* args);

typedef struct PJRT_DeviceDescription_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  size_t num_attributes;             /* out */
  const PJRT_NamedValue* attributes; /* out; live as long as the device */
} PJRT_DeviceDescription_Attributes_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_Attributes_Args, attributes);
typedef PJRT_Error* PJRT_DeviceDescription_Attributes(PJRT_DeviceDescription_Attributes_Args* args);

typedef struct PJRT_DeviceDescription_Kind_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* device_kind; /* out: "cpu", "TPU v5 lite", ... */
  size_t device_kind_size; /* out */
} PJRT_DeviceDescription_Kind_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_Kind_Args, device_kind_size);
typedef PJRT_Error* PJRT_DeviceDescription_Kind(PJRT_DeviceDescription_Kind_Args* args);

typedef struct PJRT_DeviceDescription_DebugString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* debug_string; /* out */
  size_t debug_string_size; /* out */
} PJRT_DeviceDescription_DebugString_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_DebugString_Args, debug_string_size);
typedef PJRT_Error* PJRT_DeviceDescription_DebugString(
    PJRT_DeviceDescription_DebugString_Args* args);

typedef struct PJRT_DeviceDescription_ToString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* to_string; /* out: what str(device) prints */
  size_t to_string_size; /* out */
} PJRT_DeviceDescription_ToString_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_ToString_Args, to_string_size);
typedef PJRT_Error* PJRT_DeviceDescription_ToString(PJRT_DeviceDescription_ToString_Args* args);

/* --------------------------------- Devices -------------------------------- */

typedef struct PJRT_Device_GetDescription_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_DeviceDescription* device_description; /* out; owned by the device */
} PJRT_Device_GetDescription_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_GetDescription_Args, device_description);
typedef PJRT_Error* PJRT_Device_GetDescription(PJRT_Device_GetDescription_Args* args);

typedef struct PJRT_Device_IsAddressable_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  bool is_addressable; /* out */
} PJRT_Device_IsAddressable_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_IsAddressable_Args, is_addressable);
typedef PJRT_Error* PJRT_Device_IsAddressable(PJRT_Device_IsAddressable_Args* args);

typedef struct PJRT_Device_LocalHardwareId_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int local_hardware_id; /* out; -1 when not addressable */
} PJRT_Device_LocalHardwareId_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_LocalHardwareId_Args, local_hardware_id);
typedef PJRT_Error* PJRT_Device_LocalHardwareId(PJRT_Device_LocalHardwareId_Args* args);

typedef struct PJRT_Device_AddressableMemories_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_Memory* const* memories; /* out */
  size_t num_memories;          /* out */
} PJRT_Device_AddressableMemories_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_AddressableMemories_Args, num_memories);
typedef PJRT_Error* PJRT_Device_AddressableMemories(PJRT_Device_AddressableMemories_Args* args);

typedef struct PJRT_Device_DefaultMemory_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_Memory* memory; /* out */
} PJRT_Device_DefaultMemory_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_DefaultMemory_Args, memory);
typedef PJRT_Error* PJRT_Device_DefaultMemory(PJRT_Device_DefaultMemory_Args* args);

/* bytes_in_use is always set; each other statistic only with its _is_set. */
typedef struct PJRT_Device_MemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int64_t bytes_in_use;
  int64_t peak_bytes_in_use;
  bool peak_bytes_in_use_is_set;
  int64_t num_allocs;
  bool num_allocs_is_set;
  int64_t largest_alloc_size;
  bool largest_alloc_size_is_set;
  int64_t bytes_limit;
  bool bytes_limit_is_set;
  int64_t bytes_reserved;
  bool bytes_reserved_is_set;
  int64_t peak_bytes_reserved;
  bool peak_bytes_reserved_is_set;
  int64_t bytes_reservable_limit;
  bool bytes_reservable_limit_is_set;
  int64_t largest_free_block_bytes;
  bool largest_free_block_bytes_is_set;
  int64_t pool_bytes;
  bool pool_bytes_is_set;
  int64_t peak_pool_bytes;
  bool peak_pool_bytes_is_set;
  int64_t peak_allocated_bytes;
  bool peak_allocated_bytes_is_set;
} PJRT_Device_MemoryStats_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_MemoryStats_Args, peak_allocated_bytes_is_set);
typedef PJRT_Error* PJRT_Device_MemoryStats(PJRT_Device_MemoryStats_Args* args);

/* -------------------------------- Memories -------------------------------- */

typedef struct PJRT_Memory_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  int id; /* out */
} PJRT_Memory_Id_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_Id_Args, id);
typedef PJRT_Error* PJRT_Memory_Id(PJRT_Memory_Id_Args* args);

typedef struct PJRT_Memory_Kind_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  const char* kind; /* out: "device", "pinned_host", "unpinned_host", ... */
  size_t kind_size; /* out */
} PJRT_Memory_Kind_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_Kind_Args, kind_size);
typedef PJRT_Error* PJRT_Memory_Kind(PJRT_Memory_Kind_Args* args);

typedef struct PJRT_Memory_Kind_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  int kind_id; /* out */
} PJRT_Memory_Kind_Id_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_Kind_Id_Args, kind_id);
typedef PJRT_Error* PJRT_Memory_Kind_Id(PJRT_Memory_Kind_Id_Args* args);

typedef struct PJRT_Memory_DebugString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  const char* debug_string; /* out */
  size_t debug_string_size; /* out */
} PJRT_Memory_DebugString_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_DebugString_Args, debug_string_size);
typedef PJRT_Error* PJRT_Memory_DebugString(PJRT_Memory_DebugString_Args* args);

typedef struct PJRT_Memory_ToString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  const char* to_string; /* out */
  size_t to_string_size; /* out */
} PJRT_Memory_ToString_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_ToString_Args, to_string_size);
typedef PJRT_Error* PJRT_Memory_ToString(PJRT_Memory_ToString_Args* args);

typedef struct PJRT_Memory_AddressableByDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  PJRT_Device* const* devices; /* out */
  size_t num_devices;          /* out */
} PJRT_Memory_AddressableByDevices_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_AddressableByDevices_Args, num_devices);
typedef PJRT_Error* PJRT_Memory_AddressableByDevices(PJRT_Memory_AddressableByDevices_Args* args);

/* ------------------------------- Executables ------------------------------
 * A PJRT_Executable is a compiled program; a PJRT_LoadedExecutable is one
 * loaded onto a client's devices, ready to run. */

typedef struct PJRT_Executable_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
} PJRT_Executable_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_Destroy_Args, executable);
typedef PJRT_Error* PJRT_Executable_Destroy(PJRT_Executable_Destroy_Args* args);

typedef struct PJRT_Executable_Name_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  const char* executable_name; /* out */
  size_t executable_name_size; /* out */
} PJRT_Executable_Name_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_Name_Args, executable_name_size);
typedef PJRT_Error* PJRT_Executable_Name(PJRT_Executable_Name_Args* args);

typedef struct PJRT_Executable_NumReplicas_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_replicas; /* out */
} PJRT_Executable_NumReplicas_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_NumReplicas_Args, num_replicas);
typedef PJRT_Error* PJRT_Executable_NumReplicas(PJRT_Executable_NumReplicas_Args* args);

typedef struct PJRT_Executable_NumPartitions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_partitions; /* out */
} PJRT_Executable_NumPartitions_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_NumPartitions_Args, num_partitions);
typedef PJRT_Error* PJRT_Executable_NumPartitions(PJRT_Executable_NumPartitions_Args* args);

typedef struct PJRT_Executable_NumOutputs_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs; /* out: flattened outputs per device */
} PJRT_Executable_NumOutputs_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_NumOutputs_Args, num_outputs);
typedef PJRT_Error* PJRT_Executable_NumOutputs(PJRT_Executable_NumOutputs_Args* args);

typedef struct PJRT_Executable_SizeOfGeneratedCodeInBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  int64_t size_in_bytes; /* out */
} PJRT_Executable_SizeOfGeneratedCodeInBytes_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args, size_in_bytes);
typedef PJRT_Error* PJRT_Executable_SizeOfGeneratedCodeInBytes(
    PJRT_Executable_SizeOfGeneratedCodeInBytes_Args* args);

typedef struct PJRT_Executable_GetCostAnalysis_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_properties;             /* out */
  const PJRT_NamedValue* properties; /* out; live as long as the executable */
} PJRT_Executable_GetCostAnalysis_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_GetCostAnalysis_Args, properties);
typedef PJRT_Error* PJRT_Executable_GetCostAnalysis(PJRT_Executable_GetCostAnalysis_Args* args);

typedef struct PJRT_Executable_OutputMemoryKinds_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;                   /* out */
  const char* const* memory_kinds;      /* out */
  const size_t* memory_kind_sizes;      /* out */
} PJRT_Executable_OutputMemoryKinds_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_OutputMemoryKinds_Args, memory_kind_sizes);
typedef PJRT_Error* PJRT_Executable_OutputMemoryKinds(PJRT_Executable_OutputMemoryKinds_Args* args);

typedef struct PJRT_Executable_ParameterMemoryKinds_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_parameters;                /* out */
  const char* const* memory_kinds;      /* out */
  const size_t* memory_kind_sizes;      /* out */
} PJRT_Executable_ParameterMemoryKinds_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_ParameterMemoryKinds_Args, memory_kind_sizes);
typedef PJRT_Error* PJRT_Executable_ParameterMemoryKinds(
    PJRT_Executable_ParameterMemoryKinds_Args* args);

/* The optimized program, in two calls: with program->code NULL the callee
 * sets code_size (and format); then with a caller buffer of that size it
 * writes the bytes. */
typedef struct PJRT_Executable_OptimizedProgram_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  PJRT_Program* program; /* in/out */
} PJRT_Executable_OptimizedProgram_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_OptimizedProgram_Args, program);
typedef PJRT_Error* PJRT_Executable_OptimizedProgram(PJRT_Executable_OptimizedProgram_Args* args);

typedef struct PJRT_Executable_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Executable* executable;
  const char* serialized_bytes; /* out; owned by serialized_executable */
  size_t serialized_bytes_size; /* out */
  PJRT_SerializedExecutable* serialized_executable; /* out */
  void (*serialized_executable_deleter)(PJRT_SerializedExecutable* exec); /* out */
} PJRT_Executable_Serialize_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_Serialize_Args, serialized_executable_deleter);
typedef PJRT_Error* PJRT_Executable_Serialize(PJRT_Executable_Serialize_Args* args);

typedef struct PJRT_Executable_OutputElementTypes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  PJRT_Buffer_Type* output_types; /* out */
  size_t num_output_types;        /* out */
} PJRT_Executable_OutputElementTypes_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_OutputElementTypes_Args, num_output_types);
typedef PJRT_Error* PJRT_Executable_OutputElementTypes(
    PJRT_Executable_OutputElementTypes_Args* args);

typedef struct PJRT_Executable_OutputDimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;       /* out */
  const int64_t* dims;      /* out: every output's dimensions, concatenated */
  const size_t* dim_sizes;  /* out: the rank of each output */
} PJRT_Executable_OutputDimensions_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_OutputDimensions_Args, dim_sizes);
typedef PJRT_Error* PJRT_Executable_OutputDimensions(PJRT_Executable_OutputDimensions_Args* args);

typedef struct PJRT_Executable_Fingerprint_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  const char* executable_fingerprint; /* out */
  size_t executable_fingerprint_size; /* out */
} PJRT_Executable_Fingerprint_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_Fingerprint_Args, executable_fingerprint_size);
typedef PJRT_Error* PJRT_Executable_Fingerprint(PJRT_Executable_Fingerprint_Args* args);

typedef struct PJRT_Executable_GetCompiledMemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  int64_t generated_code_size_in_bytes; /* out */
  int64_t argument_size_in_bytes;       /* out */
  int64_t output_size_in_bytes;         /* out */
  int64_t alias_size_in_bytes;          /* out */
  int64_t temp_size_in_bytes;           /* out */
  int64_t host_generated_code_size_in_bytes;
  int64_t host_argument_size_in_bytes;
  int64_t host_output_size_in_bytes;
  int64_t host_alias_size_in_bytes;
  int64_t host_temp_size_in_bytes;
  int64_t peak_memory_in_bytes;
  int64_t total_size_in_bytes;
  int64_t total_allocation_bytes;
  int64_t indefinite_allocations;
  int64_t peak_unpadded_heap_bytes;
} PJRT_Executable_GetCompiledMemoryStats_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_GetCompiledMemoryStats_Args, peak_unpadded_heap_bytes);
typedef PJRT_Error* PJRT_Executable_GetCompiledMemoryStats(
    PJRT_Executable_GetCompiledMemoryStats_Args* args);

typedef struct PJRT_Executable_GetCompileOptions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  const char* serialized_bytes; /* out: a CompileOptionsProto */
  size_t serialized_bytes_size; /* out */
  PJRT_SerializedCompileOptions* serialized_compile_options; /* out */
  void (*serialized_compile_options_deleter)(PJRT_SerializedCompileOptions* options); /* out */
} PJRT_Executable_GetCompileOptions_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_GetCompileOptions_Args,
                          serialized_compile_options_deleter);
typedef PJRT_Error* PJRT_Executable_GetCompileOptions(PJRT_Executable_GetCompileOptions_Args* args);

/* --------------------------- Loaded executables --------------------------- */

typedef struct PJRT_LoadedExecutable_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
} PJRT_LoadedExecutable_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Destroy_Args, executable);
typedef PJRT_Error* PJRT_LoadedExecutable_Destroy(PJRT_LoadedExecutable_Destroy_Args* args);

/* The compiled program behind a loaded one; the caller destroys it with
 * PJRT_Executable_Destroy. */
typedef struct PJRT_LoadedExecutable_GetExecutable_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* loaded_executable;
  PJRT_Executable* executable; /* out */
} PJRT_LoadedExecutable_GetExecutable_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_GetExecutable_Args, executable);
typedef PJRT_Error* PJRT_LoadedExecutable_GetExecutable(
    PJRT_LoadedExecutable_GetExecutable_Args* args);

typedef struct PJRT_LoadedExecutable_AddressableDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  PJRT_Device* const* addressable_devices; /* out: in execution order */
  size_t num_addressable_devices;          /* out */
} PJRT_LoadedExecutable_AddressableDevices_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_AddressableDevices_Args, num_addressable_devices);
typedef PJRT_Error* PJRT_LoadedExecutable_AddressableDevices(
    PJRT_LoadedExecutable_AddressableDevices_Args* args);

typedef struct PJRT_LoadedExecutable_Delete_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
} PJRT_LoadedExecutable_Delete_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Delete_Args, executable);
typedef PJRT_Error* PJRT_LoadedExecutable_Delete(PJRT_LoadedExecutable_Delete_Args* args);

typedef struct PJRT_LoadedExecutable_IsDeleted_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  bool is_deleted; /* out */
} PJRT_LoadedExecutable_IsDeleted_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_IsDeleted_Args, is_deleted);
typedef PJRT_Error* PJRT_LoadedExecutable_IsDeleted(PJRT_LoadedExecutable_IsDeleted_Args* args);

typedef struct PJRT_SendCallbackInfo PJRT_SendCallbackInfo;
typedef struct PJRT_RecvCallbackInfo PJRT_RecvCallbackInfo;
typedef struct PJRT_MultiSlice_Config PJRT_MultiSlice_Config;
typedef struct PJRT_HloOutputCallbackInfo PJRT_HloOutputCallbackInfo;

typedef struct PJRT_ExecuteOptions {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_SendCallbackInfo** send_callbacks; /* [device][op] */
  PJRT_RecvCallbackInfo** recv_callbacks; /* [device][op] */
  size_t num_send_ops;
  size_t num_recv_ops;
  int launch_id; /* the same in every process for one multi-process launch */
  /* Arguments the program may alias but that must not be donated. */
  const int64_t* non_donatable_input_indices;
  size_t num_non_donatable_input_indices;
  PJRT_ExecuteContext* context;
  const char* call_location;
  size_t num_tasks;
  int* task_ids;
  int64_t* incarnation_ids;
  const PJRT_MultiSlice_Config* multi_slice_config;
  bool use_major_to_minor_data_layout_for_callbacks;
  PJRT_HloOutputCallbackInfo* hlo_output_callbacks;
  size_t num_hlo_output_callbacks;
} PJRT_ExecuteOptions;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_ExecuteOptions, num_hlo_output_callbacks);

/* Runs on num_devices devices: argument_lists[d][i] is argument i on device
 * d, in the order of PJRT_LoadedExecutable_AddressableDevices (or the one
 * execute_device); output_lists[d] is a caller array of NumOutputs slots the
 * callee fills with new buffers. A buffer the program donates (its module's
 * input_output_alias or buffer_donor) is consumed. */
typedef struct PJRT_LoadedExecutable_Execute_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  PJRT_ExecuteOptions* options;
  PJRT_Buffer* const* const* argument_lists;
  size_t num_devices;
  size_t num_args;
  PJRT_Buffer** const* output_lists;   /* in/out */
  PJRT_Event** device_complete_events; /* in/out: NULL or num_devices slots */
  PJRT_Device* execute_device;         /* NULL: the executable's devices */
} PJRT_LoadedExecutable_Execute_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Execute_Args, execute_device);
typedef PJRT_Error* PJRT_LoadedExecutable_Execute(PJRT_LoadedExecutable_Execute_Args* args);

typedef struct PJRT_LoadOptions PJRT_LoadOptions;

typedef struct PJRT_Executable_DeserializeAndLoad_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* serialized_executable;
  size_t serialized_executable_size;
  PJRT_LoadedExecutable* loaded_executable; /* out */
  const char* overridden_serialized_compile_options;
  size_t overridden_serialized_compile_options_size;
  PJRT_LoadOptions* load_options;
} PJRT_Executable_DeserializeAndLoad_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_DeserializeAndLoad_Args, load_options);
typedef PJRT_Error* PJRT_Executable_DeserializeAndLoad(
    PJRT_Executable_DeserializeAndLoad_Args* args);

typedef struct PJRT_LoadedExecutable_Fingerprint_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  const char* executable_fingerprint; /* out */
  size_t executable_fingerprint_size; /* out */
} PJRT_LoadedExecutable_Fingerprint_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Fingerprint_Args, executable_fingerprint_size);
typedef PJRT_Error* PJRT_LoadedExecutable_Fingerprint(PJRT_LoadedExecutable_Fingerprint_Args* args);

typedef struct PJRT_LoadedExecutable_GetDeviceAssignment_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  const char* serialized_bytes; /* out: a DeviceAssignmentProto */
  size_t serialized_bytes_size; /* out */
  PJRT_SerializedDeviceAssignment* serialized_device_assignment; /* out */
  void (*serialized_device_assignment_deleter)(PJRT_SerializedDeviceAssignment* da); /* out */
} PJRT_LoadedExecutable_GetDeviceAssignment_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_GetDeviceAssignment_Args,
                          serialized_device_assignment_deleter);
typedef PJRT_Error* PJRT_LoadedExecutable_GetDeviceAssignment(
    PJRT_LoadedExecutable_GetDeviceAssignment_Args* args);

/* --------------------------------- Buffers -------------------------------- */

typedef struct PJRT_Buffer_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
} PJRT_Buffer_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Destroy_Args, buffer);
typedef PJRT_Error* PJRT_Buffer_Destroy(PJRT_Buffer_Destroy_Args* args);

typedef struct PJRT_Buffer_ElementType_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Buffer_Type type; /* out */
} PJRT_Buffer_ElementType_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_ElementType_Args, type);
typedef PJRT_Error* PJRT_Buffer_ElementType(PJRT_Buffer_ElementType_Args* args);

typedef struct PJRT_Buffer_Dimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  const int64_t* dims; /* out; live as long as the buffer */
  size_t num_dims;     /* out */
} PJRT_Buffer_Dimensions_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Dimensions_Args, num_dims);
typedef PJRT_Error* PJRT_Buffer_Dimensions(PJRT_Buffer_Dimensions_Args* args);

typedef struct PJRT_Buffer_UnpaddedDimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  const int64_t* unpadded_dims; /* out */
  size_t num_dims;              /* out */
} PJRT_Buffer_UnpaddedDimensions_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_UnpaddedDimensions_Args, num_dims);
typedef PJRT_Error* PJRT_Buffer_UnpaddedDimensions(PJRT_Buffer_UnpaddedDimensions_Args* args);

typedef struct PJRT_Buffer_DynamicDimensionIndices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  const size_t* dynamic_dim_indices; /* out */
  size_t num_dynamic_dims;           /* out */
} PJRT_Buffer_DynamicDimensionIndices_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_DynamicDimensionIndices_Args, num_dynamic_dims);
typedef PJRT_Error* PJRT_Buffer_DynamicDimensionIndices(
    PJRT_Buffer_DynamicDimensionIndices_Args* args);

typedef struct PJRT_Buffer_GetMemoryLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Buffer_MemoryLayout layout; /* out */
} PJRT_Buffer_GetMemoryLayout_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_GetMemoryLayout_Args, layout);
typedef PJRT_Error* PJRT_Buffer_GetMemoryLayout(PJRT_Buffer_GetMemoryLayout_Args* args);

typedef struct PJRT_Buffer_OnDeviceSizeInBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  size_t on_device_size_in_bytes; /* out */
} PJRT_Buffer_OnDeviceSizeInBytes_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_OnDeviceSizeInBytes_Args, on_device_size_in_bytes);
typedef PJRT_Error* PJRT_Buffer_OnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args);

typedef struct PJRT_Buffer_Device_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Device* device; /* out */
} PJRT_Buffer_Device_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Device_Args, device);
typedef PJRT_Error* PJRT_Buffer_Device(PJRT_Buffer_Device_Args* args);

typedef struct PJRT_Buffer_Memory_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Memory* memory; /* out */
} PJRT_Buffer_Memory_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Memory_Args, memory);
typedef PJRT_Error* PJRT_Buffer_Memory(PJRT_Buffer_Memory_Args* args);

/* Frees the device memory; the handle stays valid until destroyed. */
typedef struct PJRT_Buffer_Delete_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
} PJRT_Buffer_Delete_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Delete_Args, buffer);
typedef PJRT_Error* PJRT_Buffer_Delete(PJRT_Buffer_Delete_Args* args);

typedef struct PJRT_Buffer_IsDeleted_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  bool is_deleted; /* out */
} PJRT_Buffer_IsDeleted_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_IsDeleted_Args, is_deleted);
typedef PJRT_Error* PJRT_Buffer_IsDeleted(PJRT_Buffer_IsDeleted_Args* args);

typedef struct PJRT_Buffer_CopyToDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Device* dst_device;
  PJRT_Buffer* dst_buffer; /* out */
} PJRT_Buffer_CopyToDevice_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_CopyToDevice_Args, dst_buffer);
typedef PJRT_Error* PJRT_Buffer_CopyToDevice(PJRT_Buffer_CopyToDevice_Args* args);

/* Copies to host memory; with dst NULL only sets dst_size. The copy is done
 * when `event` is ready. */
typedef struct PJRT_Buffer_ToHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* src;
  PJRT_Buffer_MemoryLayout* host_layout; /* NULL: dense, major-to-minor */
  void* dst;
  size_t dst_size;   /* in/out */
  PJRT_Event* event; /* out */
} PJRT_Buffer_ToHostBuffer_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_ToHostBuffer_Args, event);
typedef PJRT_Error* PJRT_Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args);

typedef struct PJRT_Buffer_IsOnCpu_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  bool is_on_cpu; /* out */
} PJRT_Buffer_IsOnCpu_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_IsOnCpu_Args, is_on_cpu);
typedef PJRT_Error* PJRT_Buffer_IsOnCpu(PJRT_Buffer_IsOnCpu_Args* args);

typedef struct PJRT_Buffer_ReadyEvent_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Event* event; /* out */
} PJRT_Buffer_ReadyEvent_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_ReadyEvent_Args, event);
typedef PJRT_Error* PJRT_Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args* args);

typedef struct PJRT_Buffer_UnsafePointer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  uintptr_t buffer_pointer; /* out */
} PJRT_Buffer_UnsafePointer_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_UnsafePointer_Args, buffer_pointer);
typedef PJRT_Error* PJRT_Buffer_UnsafePointer(PJRT_Buffer_UnsafePointer_Args* args);

/* While an external reference is held, the buffer's memory stays where it is
 * (even after PJRT_Buffer_Delete) and no execution reuses it. */
typedef struct PJRT_Buffer_IncreaseExternalReferenceCount_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
} PJRT_Buffer_IncreaseExternalReferenceCount_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_IncreaseExternalReferenceCount_Args, buffer);
typedef PJRT_Error* PJRT_Buffer_IncreaseExternalReferenceCount(
    PJRT_Buffer_IncreaseExternalReferenceCount_Args* args);

typedef struct PJRT_Buffer_DecreaseExternalReferenceCount_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
} PJRT_Buffer_DecreaseExternalReferenceCount_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_DecreaseExternalReferenceCount_Args, buffer);
typedef PJRT_Error* PJRT_Buffer_DecreaseExternalReferenceCount(
    PJRT_Buffer_DecreaseExternalReferenceCount_Args* args);

typedef struct PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  void* device_memory_ptr; /* out */
} PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args, device_memory_ptr);
typedef PJRT_Error* PJRT_Buffer_OpaqueDeviceMemoryDataPointer(
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args* args);

typedef struct PJRT_Buffer_CopyToMemory_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Memory* dst_memory;
  PJRT_Buffer* dst_buffer; /* out */
} PJRT_Buffer_CopyToMemory_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_CopyToMemory_Args, dst_buffer);
typedef PJRT_Error* PJRT_Buffer_CopyToMemory(PJRT_Buffer_CopyToMemory_Args* args);

/* Topologies and compiling for them (needs the types above). */
#include "xla/pjrt/c/pjrt_c_api_topology.h"  /* IWYU pragma: export */

/* --------------------------------- The table ------------------------------ */

#define PJRT_API_SLOT(fn) fn* fn
/* A slot whose argument struct (PJRT_<Name>_Args) this project does not use
 * yet: it keeps its place, and takes the struct as an untyped pointer. */
#define PJRT_API_SLOT_BY_NAME(fn) PJRT_Error* (*fn)(void* args)

typedef struct PJRT_Api {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Api_Version pjrt_api_version;
  PJRT_API_SLOT(PJRT_Error_Destroy);
  PJRT_API_SLOT(PJRT_Error_Message);
  PJRT_API_SLOT(PJRT_Error_GetCode);
  PJRT_API_SLOT(PJRT_Plugin_Initialize);
  PJRT_API_SLOT(PJRT_Plugin_Attributes);
  PJRT_API_SLOT(PJRT_Event_Destroy);
  PJRT_API_SLOT(PJRT_Event_IsReady);
  PJRT_API_SLOT(PJRT_Event_Error);
  PJRT_API_SLOT(PJRT_Event_Await);
  PJRT_API_SLOT(PJRT_Event_OnReady);
  PJRT_API_SLOT(PJRT_Client_Create);
  PJRT_API_SLOT(PJRT_Client_Destroy);
  PJRT_API_SLOT(PJRT_Client_PlatformName);
  PJRT_API_SLOT(PJRT_Client_ProcessIndex);
  PJRT_API_SLOT(PJRT_Client_PlatformVersion);
  PJRT_API_SLOT(PJRT_Client_Devices);
  PJRT_API_SLOT(PJRT_Client_AddressableDevices);
  PJRT_API_SLOT(PJRT_Client_LookupDevice);
  PJRT_API_SLOT(PJRT_Client_LookupAddressableDevice);
  PJRT_API_SLOT(PJRT_Client_AddressableMemories);
  PJRT_API_SLOT(PJRT_Client_Compile);
  PJRT_API_SLOT(PJRT_Client_DefaultDeviceAssignment);
  PJRT_API_SLOT(PJRT_Client_BufferFromHostBuffer);
  PJRT_API_SLOT(PJRT_DeviceDescription_Id);
  PJRT_API_SLOT(PJRT_DeviceDescription_ProcessIndex);
  PJRT_API_SLOT(PJRT_DeviceDescription_Attributes);
  PJRT_API_SLOT(PJRT_DeviceDescription_Kind);
  PJRT_API_SLOT(PJRT_DeviceDescription_DebugString);
  PJRT_API_SLOT(PJRT_DeviceDescription_ToString);
  PJRT_API_SLOT(PJRT_Device_GetDescription);
  PJRT_API_SLOT(PJRT_Device_IsAddressable);
  PJRT_API_SLOT(PJRT_Device_LocalHardwareId);
  PJRT_API_SLOT(PJRT_Device_AddressableMemories);
  PJRT_API_SLOT(PJRT_Device_DefaultMemory);
  PJRT_API_SLOT(PJRT_Device_MemoryStats);
  PJRT_API_SLOT(PJRT_Memory_Id);
  PJRT_API_SLOT(PJRT_Memory_Kind);
  PJRT_API_SLOT(PJRT_Memory_DebugString);
  PJRT_API_SLOT(PJRT_Memory_ToString);
  PJRT_API_SLOT(PJRT_Memory_AddressableByDevices);
  PJRT_API_SLOT(PJRT_Executable_Destroy);
  PJRT_API_SLOT(PJRT_Executable_Name);
  PJRT_API_SLOT(PJRT_Executable_NumReplicas);
  PJRT_API_SLOT(PJRT_Executable_NumPartitions);
  PJRT_API_SLOT(PJRT_Executable_NumOutputs);
  PJRT_API_SLOT(PJRT_Executable_SizeOfGeneratedCodeInBytes);
  PJRT_API_SLOT(PJRT_Executable_GetCostAnalysis);
  PJRT_API_SLOT(PJRT_Executable_OutputMemoryKinds);
  PJRT_API_SLOT(PJRT_Executable_OptimizedProgram);
  PJRT_API_SLOT(PJRT_Executable_Serialize);
  PJRT_API_SLOT(PJRT_LoadedExecutable_Destroy);
  PJRT_API_SLOT(PJRT_LoadedExecutable_GetExecutable);
  PJRT_API_SLOT(PJRT_LoadedExecutable_AddressableDevices);
  PJRT_API_SLOT(PJRT_LoadedExecutable_Delete);
  PJRT_API_SLOT(PJRT_LoadedExecutable_IsDeleted);
  PJRT_API_SLOT(PJRT_LoadedExecutable_Execute);
  PJRT_API_SLOT(PJRT_Executable_DeserializeAndLoad);
  PJRT_API_SLOT(PJRT_LoadedExecutable_Fingerprint);
  PJRT_API_SLOT(PJRT_Buffer_Destroy);
  PJRT_API_SLOT(PJRT_Buffer_ElementType);
  PJRT_API_SLOT(PJRT_Buffer_Dimensions);
  PJRT_API_SLOT(PJRT_Buffer_UnpaddedDimensions);
  PJRT_API_SLOT(PJRT_Buffer_DynamicDimensionIndices);
  PJRT_API_SLOT(PJRT_Buffer_GetMemoryLayout);
  PJRT_API_SLOT(PJRT_Buffer_OnDeviceSizeInBytes);
  PJRT_API_SLOT(PJRT_Buffer_Device);
  PJRT_API_SLOT(PJRT_Buffer_Memory);
  PJRT_API_SLOT(PJRT_Buffer_Delete);
  PJRT_API_SLOT(PJRT_Buffer_IsDeleted);
  PJRT_API_SLOT(PJRT_Buffer_CopyToDevice);
  PJRT_API_SLOT(PJRT_Buffer_ToHostBuffer);
  PJRT_API_SLOT(PJRT_Buffer_IsOnCpu);
  PJRT_API_SLOT(PJRT_Buffer_ReadyEvent);
  PJRT_API_SLOT(PJRT_Buffer_UnsafePointer);
  PJRT_API_SLOT(PJRT_Buffer_IncreaseExternalReferenceCount);
  PJRT_API_SLOT(PJRT_Buffer_DecreaseExternalReferenceCount);
  PJRT_API_SLOT(PJRT_Buffer_OpaqueDeviceMemoryDataPointer);
  PJRT_API_SLOT_BY_NAME(PJRT_CopyToDeviceStream_Destroy);
  PJRT_API_SLOT_BY_NAME(PJRT_CopyToDeviceStream_AddChunk);
  PJRT_API_SLOT_BY_NAME(PJRT_CopyToDeviceStream_TotalBytes);
  PJRT_API_SLOT_BY_NAME(PJRT_CopyToDeviceStream_GranuleSize);
  PJRT_API_SLOT_BY_NAME(PJRT_CopyToDeviceStream_CurrentBytes);
  PJRT_API_SLOT(PJRT_TopologyDescription_Create);
  PJRT_API_SLOT(PJRT_TopologyDescription_Destroy);
  PJRT_API_SLOT(PJRT_TopologyDescription_PlatformName);
  PJRT_API_SLOT(PJRT_TopologyDescription_PlatformVersion);
  PJRT_API_SLOT(PJRT_TopologyDescription_GetDeviceDescriptions);
  PJRT_API_SLOT(PJRT_TopologyDescription_Serialize);
  PJRT_API_SLOT(PJRT_TopologyDescription_Attributes);
  PJRT_API_SLOT(PJRT_Compile);
  PJRT_API_SLOT(PJRT_Executable_OutputElementTypes);
  PJRT_API_SLOT(PJRT_Executable_OutputDimensions);
  PJRT_API_SLOT(PJRT_Buffer_CopyToMemory);
  PJRT_API_SLOT_BY_NAME(PJRT_Client_CreateViewOfDeviceBuffer);
  PJRT_API_SLOT(PJRT_Executable_Fingerprint);
  PJRT_API_SLOT(PJRT_Client_TopologyDescription);
  PJRT_API_SLOT(PJRT_Executable_GetCompiledMemoryStats);
  PJRT_API_SLOT(PJRT_Memory_Kind_Id);
  PJRT_API_SLOT_BY_NAME(PJRT_ExecuteContext_Create);
  PJRT_API_SLOT_BY_NAME(PJRT_ExecuteContext_Destroy);
  PJRT_API_SLOT_BY_NAME(PJRT_Buffer_CopyRawToHost);
  PJRT_API_SLOT_BY_NAME(PJRT_AsyncHostToDeviceTransferManager_Destroy);
  PJRT_API_SLOT_BY_NAME(PJRT_AsyncHostToDeviceTransferManager_TransferData);
  PJRT_API_SLOT_BY_NAME(PJRT_Client_CreateBuffersForAsyncHostToDevice);
  PJRT_API_SLOT_BY_NAME(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer);
  PJRT_API_SLOT_BY_NAME(PJRT_AsyncHostToDeviceTransferManager_Device);
  PJRT_API_SLOT_BY_NAME(PJRT_AsyncHostToDeviceTransferManager_BufferCount);
  PJRT_API_SLOT_BY_NAME(PJRT_AsyncHostToDeviceTransferManager_BufferSize);
  PJRT_API_SLOT_BY_NAME(PJRT_AsyncHostToDeviceTransferManager_SetBufferError);
  PJRT_API_SLOT_BY_NAME(PJRT_AsyncHostToDeviceTransferManager_AddMetadata);
  PJRT_API_SLOT_BY_NAME(PJRT_Client_DmaMap);
  PJRT_API_SLOT_BY_NAME(PJRT_Client_DmaUnmap);
  PJRT_API_SLOT_BY_NAME(PJRT_Client_CreateUninitializedBuffer);
  PJRT_API_SLOT_BY_NAME(PJRT_Client_UpdateGlobalProcessInfo);
  PJRT_API_SLOT_BY_NAME(PJRT_TopologyDescription_Deserialize);
  PJRT_API_SLOT_BY_NAME(PJRT_Client_CreateAliasBuffer);
  PJRT_API_SLOT_BY_NAME(PJRT_Client_FulfillAliasBuffer);
  PJRT_API_SLOT(PJRT_LoadedExecutable_GetDeviceAssignment);
  PJRT_API_SLOT_BY_NAME(PJRT_Client_CreateErrorBuffer);
  PJRT_API_SLOT_BY_NAME(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral);
  PJRT_API_SLOT_BY_NAME(PJRT_Buffer_CopyRawToHostFuture);
  PJRT_API_SLOT_BY_NAME(PJRT_Device_PoisonExecution);
  PJRT_API_SLOT_BY_NAME(PJRT_Device_CreateAsyncTrackingEvent);
  PJRT_API_SLOT_BY_NAME(PJRT_AsyncTrackingEvent_Destroy);
  PJRT_API_SLOT(PJRT_Executable_GetCompileOptions);
  PJRT_API_SLOT_BY_NAME(PJRT_Buffer_DonateWithControlDependency);
  PJRT_API_SLOT_BY_NAME(PJRT_Event_Create);
  PJRT_API_SLOT_BY_NAME(PJRT_Event_Set);
  PJRT_API_SLOT_BY_NAME(PJRT_Device_GetAttributes);
  PJRT_API_SLOT_BY_NAME(PJRT_Client_Load);
  PJRT_API_SLOT_BY_NAME(PJRT_LoadedExecutable_AddressableDeviceLogicalIds);
  PJRT_API_SLOT_BY_NAME(PJRT_Buffer_Bitcast);
  PJRT_API_SLOT_BY_NAME(PJRT_Error_ForEachPayload);
  PJRT_API_SLOT_BY_NAME(PJRT_TopologyDescription_Fingerprint);
  PJRT_API_SLOT(PJRT_Executable_ParameterMemoryKinds);
  PJRT_API_SLOT_BY_NAME(PJRT_Device_ClearMemoryStats);
  PJRT_API_SLOT_BY_NAME(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace);
  PJRT_API_SLOT_BY_NAME(PJRT_TopologyDescription_GetMemorySpaceKindIds);
} PJRT_Api;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Api, PJRT_TopologyDescription_GetMemorySpaceKindIds);

#undef PJRT_API_SLOT
#undef PJRT_API_SLOT_BY_NAME

/* The one symbol every plugin exports. */
typedef const PJRT_Api* (*PJRT_GetPjrtApi_Fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* XLA_PJRT_C_PJRT_C_API_H_ */
