#ifndef JAXLIB_PY_TOPOLOGY_H_
#define JAXLIB_PY_TOPOLOGY_H_

#include <nanobind/nanobind.h>

namespace jax {

// Compile-only topologies and the compile-only clients made from them.
void RegisterTopology(nanobind::module_& m);

}  // namespace jax

#endif  // JAXLIB_PY_TOPOLOGY_H_
