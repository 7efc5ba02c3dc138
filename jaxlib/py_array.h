#ifndef JAXLIB_PY_ARRAY_H_
#define JAXLIB_PY_ARRAY_H_

#include <nanobind/nanobind.h>

namespace jax {

void RegisterArray(nanobind::module_& m);

}  // namespace jax

#endif  // JAXLIB_PY_ARRAY_H_
