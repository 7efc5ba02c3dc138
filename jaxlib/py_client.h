#ifndef JAXLIB_PY_CLIENT_H_
#define JAXLIB_PY_CLIENT_H_

#include <nanobind/nanobind.h>

namespace jax {

void RegisterClient(nanobind::module_& m);

}  // namespace jax

#endif  // JAXLIB_PY_CLIENT_H_
