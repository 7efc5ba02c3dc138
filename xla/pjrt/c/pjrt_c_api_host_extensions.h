/* Two extensions of this project's plugins, chained from PJRT_Api's
 * extension_start like any PJRT extension. Their type ids lie far outside
 * PJRT_Extension_Type's range, so a client that does not know them skips
 * them, and a plugin that is not ours simply lacks them (jaxlib then says the
 * feature is unavailable on that plugin).
 *
 * Host callbacks: the process that loaded the plugin runs its own code in the
 * middle of a computation. The caller registers a function and gets an index;
 * an HLO `custom-call` with custom_call_target="xla_ffi_python_cpu_callback",
 * api_version=API_VERSION_TYPED_FFI and backend_config={index = N : ui64} then
 * calls function N at run time with pointers to its operand buffers and to its
 * (already allocated) result buffers, dense row-major. The function may run on
 * any runtime thread, concurrently for several devices. It returns true on
 * success; on failure it writes a NUL-terminated message into `error` (at most
 * `error_size` bytes) and returns false, which fails the execution.
 *
 * Custom calls: a native function of the calling process becomes an HLO
 * custom-call target. api_version 0 is XLA's original untyped CPU convention,
 *   void function(void* out, const void** in);
 * `in` points to the operand buffers and `out` is the result buffer or, for a
 * tuple result, an array of pointers to the result buffers (all dense,
 * row-major). Registering the same function under the same name again
 * succeeds; another function under a taken name fails with ALREADY_EXISTS.
 * Functions stay registered for the life of the process.
 */
#ifndef XLA_PJRT_C_PJRT_C_API_HOST_EXTENSIONS_H_
#define XLA_PJRT_C_PJRT_C_API_HOST_EXTENSIONS_H_

#include <string.h>

#include "xla/pjrt/c/pjrt_c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "JA" in the high bytes: ids of this project's own extensions. They lie
 * outside PJRT_Extension_Type's enumerators (as do the ids of extensions newer
 * than a reader's header), so the type field is read and written as the 32-bit
 * integer it is, never as an enum value. */
#define PJRT_EXTENSION_JAX_HOST_CALLBACK 0x4A410001u
#define PJRT_EXTENSION_JAX_CUSTOM_CALL 0x4A410002u

static inline uint32_t PJRT_ExtensionTypeOf(const PJRT_Extension_Base* e) {
  uint32_t type;
  memcpy(&type, &e->type, sizeof type);
  return type;
}

static inline void PJRT_SetExtensionType(PJRT_Extension_Base* e, uint32_t type) {
  memcpy(&e->type, &type, sizeof type);
}

/* The target name host-callback custom-calls use. */
#define PJRT_HOST_CALLBACK_TARGET "xla_ffi_python_cpu_callback"

typedef bool PJRT_HostCallback_Function(void* user_data, const void* const* operands,
                                        size_t num_operands, void* const* results,
                                        size_t num_results, char* error, size_t error_size);

typedef struct PJRT_HostCallback_Register_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_HostCallback_Function* callback;
  void* user_data; /* borrowed; must stay valid until unregistered */
  uint64_t index;  /* out: the backend_config index that names this callback */
} PJRT_HostCallback_Register_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_HostCallback_Register_Args, index);

typedef struct PJRT_HostCallback_Unregister_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  uint64_t index;
} PJRT_HostCallback_Unregister_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_HostCallback_Unregister_Args, index);

typedef PJRT_Error* PJRT_HostCallback_Register(PJRT_HostCallback_Register_Args* args);
typedef PJRT_Error* PJRT_HostCallback_Unregister(PJRT_HostCallback_Unregister_Args* args);

typedef struct PJRT_HostCallback_Extension {
  PJRT_Extension_Base base; /* type PJRT_EXTENSION_JAX_HOST_CALLBACK */
  PJRT_HostCallback_Register* register_callback;
  PJRT_HostCallback_Unregister* unregister_callback;
} PJRT_HostCallback_Extension;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_HostCallback_Extension, unregister_callback);

typedef struct PJRT_CustomCall_Register_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* name;
  size_t name_size;
  int api_version;
  void* function;
} PJRT_CustomCall_Register_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CustomCall_Register_Args, function);

typedef PJRT_Error* PJRT_CustomCall_Register(PJRT_CustomCall_Register_Args* args);

typedef struct PJRT_CustomCall_Extension {
  PJRT_Extension_Base base; /* type PJRT_EXTENSION_JAX_CUSTOM_CALL */
  PJRT_CustomCall_Register* register_custom_call;
} PJRT_CustomCall_Extension;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CustomCall_Extension, register_custom_call);

#ifdef __cplusplus
}
#endif

#endif /* XLA_PJRT_C_PJRT_C_API_HOST_EXTENSIONS_H_ */
