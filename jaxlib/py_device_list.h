// DeviceList: an immutable, hashable sequence of devices of one client.
//
// Shardings hold one, and jit's cache keys hash and compare them on every
// call, so the hash is computed once and equality compares device pointers.
#ifndef JAXLIB_PY_DEVICE_LIST_H_
#define JAXLIB_PY_DEVICE_LIST_H_

#include <nanobind/nanobind.h>

namespace jax {

void RegisterDeviceList(nanobind::module_& m);

}  // namespace jax

#endif  // JAXLIB_PY_DEVICE_LIST_H_
