/* The plugin C API: the only thing that crosses a plugin boundary.
 *
 * A plugin shared object exports one symbol, GetPjrtApi, returning a table of
 * function pointers (PJRT_Api). Rules that keep old and new callers and plugins
 * working together:
 *   - every argument struct starts with `struct_size`; the caller sets it to the
 *     size it was compiled with (PJRT_<Name>_Args_STRUCT_SIZE), and the callee
 *     reads only fields that fit inside it;
 *   - fields and functions are only ever appended; a minor version bump marks
 *     each addition, a major bump (a break) is refused by the loader;
 *   - errors are opaque PJRT_Error objects owned by the caller, who destroys them
 *     with PJRT_Error_Destroy; a NULL PJRT_Error* means success;
 *   - fields marked `// out` are written by the callee; every pointer says who
 *     owns it and how long it lives.
 * This header is C only: no C++ types, no STL, no Python.
 */
#ifndef XLA_PJRT_C_PJRT_C_API_H_
#define XLA_PJRT_C_PJRT_C_API_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What each minor version appended to PJRT_Api:
 *   1.0  everything up to and including PJRT_LoadedExecutable_Execute
 *   1.1  PJRT_LoadedExecutable_Serialize
 *   1.2  PJRT_Buffer_IncreaseExternalReferenceCount,
 *        PJRT_Buffer_DecreaseExternalReferenceCount
 *   1.3  no new functions: PJRT_Client_BufferFromHostBuffer_Args gained
 *        host_buffer_semantics, done_with_host_buffer and done_user_data
 *        (zero-copy host buffers)
 *   1.4  no new functions: PJRT_Client_Create_Args gained the key-value callbacks
 *        (kv_get_callback, kv_put_callback and their user args) through which a
 *        client of a multi-process group meets its peers
 * A caller checks PJRT_API_HAS before calling a function newer than 1.0. */
#define PJRT_API_MAJOR 1
#define PJRT_API_MINOR 4

/* Size of a struct up to and including `last_field`: what a caller built
 * against this header version fills in. */
#define PJRT_STRUCT_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

#define PJRT_DEFINE_STRUCT_TRAITS(type, last_field) \
  enum { type##_STRUCT_SIZE = PJRT_STRUCT_SIZE(type, last_field) }

/* Whether a plugin's table (possibly from an older minor version) holds `fn`. */
#define PJRT_API_HAS(api, fn) ((api)->struct_size >= PJRT_STRUCT_SIZE(PJRT_Api, fn))

/* ------------------------------- Extensions ------------------------------- */

typedef enum {
  PJRT_Extension_Type_CustomCall = 0,
  PJRT_Extension_Type_Collectives = 1,
  PJRT_Extension_Type_Profiler = 2,
  PJRT_Extension_Type_HostCallback = 3,
} PJRT_Extension_Type;

/* Optional features hang off PJRT_Api.extension_start as a linked list. */
typedef struct PJRT_Extension_Base {
  size_t struct_size;
  PJRT_Extension_Type type;
  struct PJRT_Extension_Base* next;  /* NULL ends the chain */
} PJRT_Extension_Base;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Extension_Base, next);

/* --------------------------- Host callbacks extension ---------------------
 * Lets the process that loaded the plugin run its own code in the middle of a
 * computation. The caller registers a function and gets an index; an HLO
 * `custom-call` with custom_call_target="xla_ffi_python_cpu_callback",
 * api_version=API_VERSION_TYPED_FFI and backend_config={index = N : ui64}
 * then calls function N at run time with pointers to its operand buffers and
 * to its (already allocated) result buffers, dense row-major. The function
 * may be called from any runtime thread, and concurrently for several
 * devices. It returns true on success; on failure it writes a NUL-terminated
 * message into `error` (at most `error_size` bytes) and returns false, which
 * fails the execution with that message. */
typedef bool PJRT_HostCallback_Function(void* user_data, const void* const* operands,
                                        size_t num_operands, void* const* results,
                                        size_t num_results, char* error, size_t error_size);

typedef struct PJRT_HostCallback_Register_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_HostCallback_Function* callback;
  void* user_data;  /* borrowed; must stay valid until unregistered */
  uint64_t index;   /* out: the backend_config index that names this callback */
} PJRT_HostCallback_Register_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_HostCallback_Register_Args, index);

typedef struct PJRT_HostCallback_Unregister_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  uint64_t index;
} PJRT_HostCallback_Unregister_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_HostCallback_Unregister_Args, index);

struct PJRT_Error;
typedef struct PJRT_Error* PJRT_HostCallback_Register(PJRT_HostCallback_Register_Args* args);
typedef struct PJRT_Error* PJRT_HostCallback_Unregister(PJRT_HostCallback_Unregister_Args* args);

typedef struct PJRT_HostCallback_Extension {
  PJRT_Extension_Base base;  /* type == PJRT_Extension_Type_HostCallback */
  PJRT_HostCallback_Register* register_callback;
  PJRT_HostCallback_Unregister* unregister_callback;
} PJRT_HostCallback_Extension;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_HostCallback_Extension, unregister_callback);

/* The target name host-callback custom-calls use. */
#define PJRT_HOST_CALLBACK_TARGET "xla_ffi_python_cpu_callback"

/* ---------------------------- Custom-call extension -----------------------
 * Registers a native function of the calling process as an HLO custom-call
 * target of this plugin: a `custom-call` with custom_call_target="<name>"
 * then calls it. api_version 0 is XLA's original untyped CPU convention,
 *   void function(void* out, const void** in);
 * `in` points to the operand buffers, and `out` is the result buffer, or, for
 * a tuple result, an array of pointers to the result buffers (all dense,
 * row-major). The call must use api_version=API_VERSION_ORIGINAL (the default).
 * The function may run on any runtime thread, concurrently for several
 * devices. Registering the same function under the same name again succeeds;
 * another function under a taken name fails with ALREADY_EXISTS. Functions
 * stay registered for the life of the process. */
typedef struct PJRT_CustomCall_Register_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* name;
  size_t name_size;
  int api_version;
  void* function;
} PJRT_CustomCall_Register_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CustomCall_Register_Args, function);

typedef struct PJRT_Error* PJRT_CustomCall_Register(PJRT_CustomCall_Register_Args* args);

typedef struct PJRT_CustomCall_Extension {
  PJRT_Extension_Base base;  /* type == PJRT_Extension_Type_CustomCall */
  PJRT_CustomCall_Register* register_custom_call;
} PJRT_CustomCall_Extension;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CustomCall_Extension, register_custom_call);

/* -------------------------------- Versions -------------------------------- */

typedef struct PJRT_Api_Version {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  int major_version;
  int minor_version;
} PJRT_Api_Version;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Api_Version, minor_version);

/* --------------------------------- Errors --------------------------------- */

/* Codes follow abseil's canonical codes. */
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

typedef struct PJRT_Error PJRT_Error;

typedef struct PJRT_Error_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Error* error;  /* owned; destroyed by the call */
} PJRT_Error_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_Destroy_Args, error);
typedef void PJRT_Error_Destroy(PJRT_Error_Destroy_Args* args);

typedef struct PJRT_Error_Message_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  const char* message;  /* out; owned by `error`, lives as long as it */
  size_t message_size;  /* out */
} PJRT_Error_Message_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_Message_Args, message_size);
typedef void PJRT_Error_Message(PJRT_Error_Message_Args* args);

typedef struct PJRT_Error_GetCode_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  PJRT_Error_Code code;  /* out */
} PJRT_Error_GetCode_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_GetCode_Args, code);
typedef PJRT_Error* PJRT_Error_GetCode(PJRT_Error_GetCode_Args* args);

/* ------------------------------ Named values ------------------------------ */

typedef enum {
  PJRT_NamedValue_kString = 0,
  PJRT_NamedValue_kInt64 = 1,
  PJRT_NamedValue_kInt64List = 2,
  PJRT_NamedValue_kFloat = 3,
  PJRT_NamedValue_kBool = 4,
} PJRT_NamedValue_Type;

/* Options and attributes travel as lists of named values. */
typedef struct PJRT_NamedValue {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* name;  /* not NUL-terminated necessarily: use name_size */
  size_t name_size;
  PJRT_NamedValue_Type type;
  union {
    const char* string_value;
    int64_t int64_value;
    const int64_t* int64_array_value;
    float float_value;
    bool bool_value;
  };
  size_t value_size;  /* string length or list length; 1 for scalars */
} PJRT_NamedValue;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_NamedValue, value_size);

/* ---------------------------------- Plugin -------------------------------- */

typedef struct PJRT_Plugin_Initialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
} PJRT_Plugin_Initialize_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Plugin_Initialize_Args, extension_start);
/* Called once after loading, before any other call. */
typedef PJRT_Error* PJRT_Plugin_Initialize(PJRT_Plugin_Initialize_Args* args);

typedef struct PJRT_Plugin_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_NamedValue* attributes;  /* out; owned by the plugin, static */
  size_t num_attributes;              /* out */
} PJRT_Plugin_Attributes_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Plugin_Attributes_Args, num_attributes);
/* Attributes include "plugin_version" (string), "platform_names" (string,
 * comma separated), "c_api_major"/"c_api_minor" (int64). */
typedef PJRT_Error* PJRT_Plugin_Attributes(PJRT_Plugin_Attributes_Args* args);

/* ---------------------------------- Events -------------------------------- */

typedef struct PJRT_Event PJRT_Event;

typedef struct PJRT_Event_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;  /* owned; destroyed by the call */
} PJRT_Event_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Destroy_Args, event);
typedef PJRT_Error* PJRT_Event_Destroy(PJRT_Event_Destroy_Args* args);

typedef struct PJRT_Event_IsReady_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  bool is_ready;  /* out */
} PJRT_Event_IsReady_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_IsReady_Args, is_ready);
typedef PJRT_Error* PJRT_Event_IsReady(PJRT_Event_IsReady_Args* args);

typedef struct PJRT_Event_Await_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
} PJRT_Event_Await_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Await_Args, event);
/* Blocks until ready; returns the event's error, if any (caller owns it). */
typedef PJRT_Error* PJRT_Event_Await(PJRT_Event_Await_Args* args);

/* ---------------------------------- Client -------------------------------- */

typedef struct PJRT_Client PJRT_Client;
typedef struct PJRT_Device PJRT_Device;
typedef struct PJRT_Memory PJRT_Memory;
typedef struct PJRT_Buffer PJRT_Buffer;
typedef struct PJRT_LoadedExecutable PJRT_LoadedExecutable;

/* 1.4. The key-value store of a multi-process group (the coordinator that the
 * processes' launcher or jax.distributed runs), as the caller lends it to a client.
 * Both return true on success; on failure they write a NUL-terminated message into
 * `error` (at most `error_size` bytes). The get callback blocks until `key` is set or
 * `timeout_ms` passes, and hands the value to `sink` (which copies it during the
 * call). They may be called from any thread of the plugin. */
typedef void PJRT_KeyValueSink(void* sink_arg, const char* value, size_t value_size);
typedef bool PJRT_KeyValueGetCallback(void* user_arg, const char* key, size_t key_size,
                                      int64_t timeout_ms, PJRT_KeyValueSink* sink,
                                      void* sink_arg, char* error, size_t error_size);
typedef bool PJRT_KeyValuePutCallback(void* user_arg, const char* key, size_t key_size,
                                      const char* value, size_t value_size, char* error,
                                      size_t error_size);

typedef struct PJRT_Client_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_NamedValue* create_options;  /* borrowed for the call */
  size_t num_options;
  PJRT_Client* client;  /* out; owned by the caller: PJRT_Client_Destroy */
  /* 1.4. NULL for a single-process client. With the "num_nodes" option > 1 the
   * plugin uses them to meet its peers; the caller keeps the user args valid until
   * the client is destroyed. */
  PJRT_KeyValueGetCallback* kv_get_callback;
  void* kv_get_user_arg;
  PJRT_KeyValuePutCallback* kv_put_callback;
  void* kv_put_user_arg;
} PJRT_Client_Create_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Create_Args, kv_put_user_arg);
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
  const char* platform_name;  /* out; owned by the client */
  size_t platform_name_size;  /* out */
} PJRT_Client_PlatformName_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_PlatformName_Args, platform_name_size);
typedef PJRT_Error* PJRT_Client_PlatformName(PJRT_Client_PlatformName_Args* args);

typedef struct PJRT_Client_PlatformVersion_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* platform_version;  /* out; owned by the client */
  size_t platform_version_size;  /* out */
} PJRT_Client_PlatformVersion_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_PlatformVersion_Args, platform_version_size);
typedef PJRT_Error* PJRT_Client_PlatformVersion(PJRT_Client_PlatformVersion_Args* args);

typedef struct PJRT_Client_ProcessIndex_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int process_index;  /* out */
} PJRT_Client_ProcessIndex_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_ProcessIndex_Args, process_index);
typedef PJRT_Error* PJRT_Client_ProcessIndex(PJRT_Client_ProcessIndex_Args* args);

typedef struct PJRT_Client_Devices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Device* const* devices;  /* out; owned by the client */
  size_t num_devices;           /* out */
} PJRT_Client_Devices_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Devices_Args, num_devices);
typedef PJRT_Error* PJRT_Client_Devices(PJRT_Client_Devices_Args* args);
typedef PJRT_Error* PJRT_Client_AddressableDevices(PJRT_Client_Devices_Args* args);

typedef enum {
  PJRT_Buffer_Type_INVALID = 0,
  PJRT_Buffer_Type_PRED,
  PJRT_Buffer_Type_S8, PJRT_Buffer_Type_S16, PJRT_Buffer_Type_S32, PJRT_Buffer_Type_S64,
  PJRT_Buffer_Type_U8, PJRT_Buffer_Type_U16, PJRT_Buffer_Type_U32, PJRT_Buffer_Type_U64,
  PJRT_Buffer_Type_F16, PJRT_Buffer_Type_F32, PJRT_Buffer_Type_F64,
  PJRT_Buffer_Type_BF16,
  PJRT_Buffer_Type_C64, PJRT_Buffer_Type_C128,
  /* 8-bit floats, one byte per element (ml_dtypes' float8_* layouts). */
  PJRT_Buffer_Type_F8E5M2, PJRT_Buffer_Type_F8E4M3FN, PJRT_Buffer_Type_F8E4M3B11FNUZ,
  PJRT_Buffer_Type_F8E5M2FNUZ, PJRT_Buffer_Type_F8E4M3FNUZ,
  /* 4-bit integers, one byte per element (the low 4 bits, as ml_dtypes stores them). */
  PJRT_Buffer_Type_S4, PJRT_Buffer_Type_U4,
  PJRT_Buffer_Type_TOKEN,
  /* 2-bit integers (reserved). */
  PJRT_Buffer_Type_S2, PJRT_Buffer_Type_U2,
  PJRT_Buffer_Type_F8E4M3, PJRT_Buffer_Type_F8E3M4,
} PJRT_Buffer_Type;

typedef struct PJRT_Client_Compile_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* format;       /* "hlo": XLA HLO text */
  size_t format_size;
  const char* code;         /* borrowed for the call */
  size_t code_size;
  const PJRT_NamedValue* compile_options;  /* e.g. "num_replicas", "num_partitions" */
  size_t num_options;
  PJRT_Device* const* devices;  /* devices to load onto, in replica order */
  size_t num_devices;
  PJRT_LoadedExecutable* executable;  /* out; owned by the caller */
} PJRT_Client_Compile_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Compile_Args, executable);
typedef PJRT_Error* PJRT_Client_Compile(PJRT_Client_Compile_Args* args);

/* 1.3. How long the plugin may read the caller's host memory. */
typedef enum {
  /* Copied before the call returns (what every plugin before 1.3 does). */
  PJRT_HostBufferSemantics_kImmutableOnlyDuringCall = 0,
  /* The plugin may use the memory as the buffer's own, without copying, and
   * read it until it calls done_with_host_buffer; it never writes it. The
   * caller keeps it valid and unchanged until then. A plugin that cannot use
   * this memory in place (layout, alignment, device memory) copies it. */
  PJRT_HostBufferSemantics_kImmutableZeroCopy = 1,
} PJRT_HostBufferSemantics;

typedef struct PJRT_Client_BufferFromHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const void* data;            /* borrowed; how long: host_buffer_semantics */
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  const int64_t* byte_strides; /* NULL: dense row-major */
  size_t num_byte_strides;
  PJRT_Device* device;
  PJRT_Buffer* buffer;         /* out; owned by the caller */
  /* 1.3. A caller built against 1.3 whose struct_size covers these fields
   * gets done_with_host_buffer(done_user_data) called exactly once, when the
   * plugin no longer reads `data`: at once (before or after returning) if it
   * copied or the call failed, else when the buffer's memory is released
   * (after PJRT_Buffer_Delete or _Destroy and any running executions and
   * external references). It may be called from any thread. A plugin before
   * 1.3 ignores these fields and never calls it; check the plugin's minor
   * version before relying on it. */
  PJRT_HostBufferSemantics host_buffer_semantics;
  void (*done_with_host_buffer)(void* user_data); /* may be NULL */
  void* done_user_data;
} PJRT_Client_BufferFromHostBuffer_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_BufferFromHostBuffer_Args, done_user_data);
typedef PJRT_Error* PJRT_Client_BufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args);

/* ---------------------------------- Device -------------------------------- */

typedef struct PJRT_Device_Info_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int id;                     /* out: global id */
  int process_index;          /* out */
  int local_hardware_id;      /* out */
  const char* kind;           /* out; owned by the device, e.g. "cpu" */
  size_t kind_size;           /* out */
  const char* debug_string;   /* out; owned by the device, e.g. "cpu:0" */
  size_t debug_string_size;   /* out */
  bool is_addressable;        /* out */
} PJRT_Device_Info_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_Info_Args, is_addressable);
typedef PJRT_Error* PJRT_Device_Info(PJRT_Device_Info_Args* args);

typedef struct PJRT_Device_Memories_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_Memory* const* memories;  /* out; owned by the client */
  size_t num_memories;           /* out */
  PJRT_Memory* default_memory;   /* out */
} PJRT_Device_Memories_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_Memories_Args, default_memory);
typedef PJRT_Error* PJRT_Device_Memories(PJRT_Device_Memories_Args* args);

typedef struct PJRT_Memory_Info_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  int id;                  /* out */
  const char* kind;        /* out; owned by the client, e.g. "device" */
  size_t kind_size;        /* out */
} PJRT_Memory_Info_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_Info_Args, kind_size);
typedef PJRT_Error* PJRT_Memory_Info(PJRT_Memory_Info_Args* args);

typedef struct PJRT_Device_MemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int64_t bytes_in_use;       /* out */
  int64_t peak_bytes_in_use;  /* out */
  int64_t num_allocs;         /* out */
} PJRT_Device_MemoryStats_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_MemoryStats_Args, num_allocs);
typedef PJRT_Error* PJRT_Device_MemoryStats(PJRT_Device_MemoryStats_Args* args);

/* ---------------------------------- Buffer -------------------------------- */

typedef struct PJRT_Buffer_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;  /* owned; destroyed by the call */
} PJRT_Buffer_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Destroy_Args, buffer);
typedef PJRT_Error* PJRT_Buffer_Destroy(PJRT_Buffer_Destroy_Args* args);

typedef struct PJRT_Buffer_Info_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Buffer_Type type;       /* out */
  const int64_t* dims;         /* out; owned by the buffer */
  size_t num_dims;             /* out */
  size_t on_device_size;       /* out: bytes */
  PJRT_Device* device;         /* out; owned by the client */
  bool is_deleted;             /* out */
} PJRT_Buffer_Info_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Info_Args, is_deleted);
typedef PJRT_Error* PJRT_Buffer_Info(PJRT_Buffer_Info_Args* args);

typedef struct PJRT_Buffer_ToHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* src;
  void* dst;          /* caller-owned, dense row-major; NULL: only report dst_size */
  size_t dst_size;    /* in: capacity; out: bytes needed */
  PJRT_Event* event;  /* out; owned by the caller; NULL when done synchronously */
} PJRT_Buffer_ToHostBuffer_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_ToHostBuffer_Args, event);
typedef PJRT_Error* PJRT_Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args);

typedef struct PJRT_Buffer_Delete_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;  /* frees device memory; the handle stays valid */
} PJRT_Buffer_Delete_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Delete_Args, buffer);
typedef PJRT_Error* PJRT_Buffer_Delete(PJRT_Buffer_Delete_Args* args);

typedef struct PJRT_Buffer_ReadyEvent_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Event* event;  /* out; owned by the caller */
} PJRT_Buffer_ReadyEvent_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_ReadyEvent_Args, event);
typedef PJRT_Error* PJRT_Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args* args);

typedef struct PJRT_Buffer_UnsafePointer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  uintptr_t buffer_pointer;  /* out: host address when the memory is host memory */
} PJRT_Buffer_UnsafePointer_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_UnsafePointer_Args, buffer_pointer);
typedef PJRT_Error* PJRT_Buffer_UnsafePointer(PJRT_Buffer_UnsafePointer_Args* args);

/* 1.2. While a caller holds an external reference, the buffer's memory stays
 * valid at the address PJRT_Buffer_UnsafePointer gave, even if the buffer is
 * deleted (or donated: a referenced buffer is never aliased by an output); it
 * is freed when the last reference is dropped. The buffer handle must outlive
 * its references. Used for zero-copy views of host memory (numpy, DLPack).
 * Backends whose memory is not host memory return UNIMPLEMENTED. */
typedef struct PJRT_Buffer_IncreaseExternalReferenceCount_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;  /* FAILED_PRECONDITION if it has been deleted */
} PJRT_Buffer_IncreaseExternalReferenceCount_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_IncreaseExternalReferenceCount_Args, buffer);
typedef PJRT_Error* PJRT_Buffer_IncreaseExternalReferenceCount(
    PJRT_Buffer_IncreaseExternalReferenceCount_Args* args);

typedef struct PJRT_Buffer_DecreaseExternalReferenceCount_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;  /* FAILED_PRECONDITION if it holds no external reference */
} PJRT_Buffer_DecreaseExternalReferenceCount_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_DecreaseExternalReferenceCount_Args, buffer);
typedef PJRT_Error* PJRT_Buffer_DecreaseExternalReferenceCount(
    PJRT_Buffer_DecreaseExternalReferenceCount_Args* args);

/* ---------------------------- Loaded executable --------------------------- */

typedef struct PJRT_LoadedExecutable_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;  /* owned; destroyed by the call */
} PJRT_LoadedExecutable_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Destroy_Args, executable);
typedef PJRT_Error* PJRT_LoadedExecutable_Destroy(PJRT_LoadedExecutable_Destroy_Args* args);

typedef struct PJRT_LoadedExecutable_Info_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  size_t num_outputs;                 /* out: flattened outputs per device */
  size_t num_replicas;                /* out */
  PJRT_Device* const* devices;        /* out; owned by the executable */
  size_t num_devices;                 /* out */
  const char* optimized_hlo;          /* out; owned by the executable: HLO text after passes */
  size_t optimized_hlo_size;          /* out */
  int64_t generated_code_size;        /* out: bytes */
  int64_t temp_size;                  /* out: bytes of temporaries */
  int64_t argument_size;              /* out */
  int64_t output_size;                /* out */
  int64_t alias_size;                 /* out */
} PJRT_LoadedExecutable_Info_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Info_Args, alias_size);
typedef PJRT_Error* PJRT_LoadedExecutable_Info(PJRT_LoadedExecutable_Info_Args* args);

typedef struct PJRT_LoadedExecutable_Execute_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  /* argument_lists[d][i]: argument i on device d (num_devices lists of num_args). */
  PJRT_Buffer* const* const* argument_lists;
  size_t num_devices;
  size_t num_args;
  /* Arguments whose buffers the executable may reuse for outputs (donation).
   * Donated buffers are deleted by the call. */
  const int64_t* donated_args;
  size_t num_donated_args;
  /* Caller-allocated: num_devices arrays of num_outputs slots, filled with
   * buffers the caller then owns. */
  PJRT_Buffer** const* output_lists;  /* out */
  PJRT_Event** device_complete_events; /* out, optional (NULL: not wanted) */
} PJRT_LoadedExecutable_Execute_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Execute_Args, device_complete_events);
typedef PJRT_Error* PJRT_LoadedExecutable_Execute(PJRT_LoadedExecutable_Execute_Args* args);

typedef struct PJRT_LoadedExecutable_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  const char* serialized;     /* out; valid until serialized_deleter is called */
  size_t serialized_size;     /* out */
  void* serialized_opaque;    /* out: pass to serialized_deleter */
  void (*serialized_deleter)(void* opaque);  /* out */
} PJRT_LoadedExecutable_Serialize_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Serialize_Args, serialized_deleter);
typedef PJRT_Error* PJRT_LoadedExecutable_Serialize(PJRT_LoadedExecutable_Serialize_Args* args);

typedef struct PJRT_Client_DeserializeAndLoad_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* serialized;   /* borrowed for the call */
  size_t serialized_size;
  PJRT_Device* const* devices;
  size_t num_devices;
  PJRT_LoadedExecutable* executable;  /* out; owned by the caller */
} PJRT_Client_DeserializeAndLoad_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_DeserializeAndLoad_Args, executable);
typedef PJRT_Error* PJRT_Client_DeserializeAndLoad(PJRT_Client_DeserializeAndLoad_Args* args);

/* ------------------------------- The table -------------------------------- */

#define _PJRT_API_STRUCT_FIELD(fn_type) fn_type* fn_type

typedef struct PJRT_Api {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Api_Version pjrt_api_version;

  _PJRT_API_STRUCT_FIELD(PJRT_Error_Destroy);
  _PJRT_API_STRUCT_FIELD(PJRT_Error_Message);
  _PJRT_API_STRUCT_FIELD(PJRT_Error_GetCode);

  _PJRT_API_STRUCT_FIELD(PJRT_Plugin_Initialize);
  _PJRT_API_STRUCT_FIELD(PJRT_Plugin_Attributes);

  _PJRT_API_STRUCT_FIELD(PJRT_Event_Destroy);
  _PJRT_API_STRUCT_FIELD(PJRT_Event_IsReady);
  _PJRT_API_STRUCT_FIELD(PJRT_Event_Await);

  _PJRT_API_STRUCT_FIELD(PJRT_Client_Create);
  _PJRT_API_STRUCT_FIELD(PJRT_Client_Destroy);
  _PJRT_API_STRUCT_FIELD(PJRT_Client_PlatformName);
  _PJRT_API_STRUCT_FIELD(PJRT_Client_PlatformVersion);
  _PJRT_API_STRUCT_FIELD(PJRT_Client_ProcessIndex);
  _PJRT_API_STRUCT_FIELD(PJRT_Client_Devices);
  _PJRT_API_STRUCT_FIELD(PJRT_Client_AddressableDevices);
  _PJRT_API_STRUCT_FIELD(PJRT_Client_Compile);
  _PJRT_API_STRUCT_FIELD(PJRT_Client_BufferFromHostBuffer);
  _PJRT_API_STRUCT_FIELD(PJRT_Client_DeserializeAndLoad);

  _PJRT_API_STRUCT_FIELD(PJRT_Device_Info);
  _PJRT_API_STRUCT_FIELD(PJRT_Device_Memories);
  _PJRT_API_STRUCT_FIELD(PJRT_Device_MemoryStats);
  _PJRT_API_STRUCT_FIELD(PJRT_Memory_Info);

  _PJRT_API_STRUCT_FIELD(PJRT_Buffer_Destroy);
  _PJRT_API_STRUCT_FIELD(PJRT_Buffer_Info);
  _PJRT_API_STRUCT_FIELD(PJRT_Buffer_ToHostBuffer);
  _PJRT_API_STRUCT_FIELD(PJRT_Buffer_Delete);
  _PJRT_API_STRUCT_FIELD(PJRT_Buffer_ReadyEvent);
  _PJRT_API_STRUCT_FIELD(PJRT_Buffer_UnsafePointer);

  _PJRT_API_STRUCT_FIELD(PJRT_LoadedExecutable_Destroy);
  _PJRT_API_STRUCT_FIELD(PJRT_LoadedExecutable_Info);
  _PJRT_API_STRUCT_FIELD(PJRT_LoadedExecutable_Execute);
  _PJRT_API_STRUCT_FIELD(PJRT_LoadedExecutable_Serialize);
  /* 1.2 */
  _PJRT_API_STRUCT_FIELD(PJRT_Buffer_IncreaseExternalReferenceCount);
  _PJRT_API_STRUCT_FIELD(PJRT_Buffer_DecreaseExternalReferenceCount);
} PJRT_Api;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Api, PJRT_Buffer_DecreaseExternalReferenceCount);

#undef _PJRT_API_STRUCT_FIELD

/* The one exported symbol of every plugin. */
typedef const PJRT_Api* (*PJRT_GetPjrtApi_Fn)(void);

#ifdef __cplusplus
}
#endif

#endif  /* XLA_PJRT_C_PJRT_C_API_H_ */
