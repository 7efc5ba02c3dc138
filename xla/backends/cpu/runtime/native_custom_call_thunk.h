// Custom-call targets registered through the C API custom-call extension: a
// native function of the process that loaded the plugin, called with XLA's
// original untyped CPU convention, function(out, ins).
#ifndef XLA_BACKENDS_CPU_RUNTIME_NATIVE_CUSTOM_CALL_THUNK_H_
#define XLA_BACKENDS_CPU_RUNTIME_NATIVE_CUSTOM_CALL_THUNK_H_

#include <memory>
#include <string>

#include "xla/backends/cpu/runtime/custom_call_registry.h"
#include "xla/backends/cpu/runtime/thunk.h"
#include "xla/status.h"

namespace xla::cpu {

// The factory of a registered target, empty when `target` is not registered.
// `api_version` is the instruction's as the text spells it ("" = absent);
// `tuple_result` whether its result is a tuple (passed as an array of buffers).
CustomCallFactory NativeCustomCallFactory(const std::string& target,
                                          const std::string& api_version, bool tuple_result);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_NATIVE_CUSTOM_CALL_THUNK_H_
