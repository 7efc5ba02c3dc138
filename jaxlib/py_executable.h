#ifndef JAXLIB_PY_EXECUTABLE_H_
#define JAXLIB_PY_EXECUTABLE_H_

#include <nanobind/nanobind.h>

namespace jax {

void RegisterExecutable(nanobind::module_& m);

}  // namespace jax

#endif  // JAXLIB_PY_EXECUTABLE_H_
