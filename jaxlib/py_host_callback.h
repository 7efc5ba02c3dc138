#ifndef JAXLIB_PY_HOST_CALLBACK_H_
#define JAXLIB_PY_HOST_CALLBACK_H_

#include <nanobind/nanobind.h>

namespace jax {

// Binds `_register_host_callback` and `_host_callbacks_supported`: Python
// callables that a plugin's compiled programs call back through the C API
// host-callback extension.
void RegisterHostCallbacks(nanobind::module_& m);

}  // namespace jax

#endif  // JAXLIB_PY_HOST_CALLBACK_H_
