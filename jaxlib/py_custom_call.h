#ifndef JAXLIB_PY_CUSTOM_CALL_H_
#define JAXLIB_PY_CUSTOM_CALL_H_

#include <nanobind/nanobind.h>

namespace jax {

// Binds `_custom_calls_supported(plugin)` and
// `_register_custom_call_target(plugin, name, capsule, api_version)`: native
// functions (PyCapsules holding a function pointer) handed to a plugin through
// the C API custom-call extension, so HLO custom-calls can name them.
void RegisterCustomCalls(nanobind::module_& m);

}  // namespace jax

#endif  // JAXLIB_PY_CUSTOM_CALL_H_
