// The custom-call target "xla_ffi_python_cpu_callback": calls a host function
// registered through the C API host-callback extension (the index is the
// typed-FFI attribute `index` of backend_config) with the operand and result
// buffers of the call.
#ifndef XLA_BACKENDS_CPU_RUNTIME_HOST_CALLBACK_THUNK_H_
#define XLA_BACKENDS_CPU_RUNTIME_HOST_CALLBACK_THUNK_H_

#include <memory>

#include "xla/backends/cpu/runtime/custom_call_registry.h"
#include "xla/backends/cpu/runtime/thunk.h"
#include "xla/pjrt/c/pjrt_c_api_host_extensions.h"
#include "xla/status.h"

namespace xla::cpu {

// Checks the call names a registered callback and builds its thunk.
StatusOr<std::shared_ptr<const Thunk>> MakeHostCallbackThunk(const CustomCallArgs& args);

// The factory under the target name, for the thunk builder.
const CustomCallFactory& HostCallbackFactory();

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_HOST_CALLBACK_THUNK_H_
