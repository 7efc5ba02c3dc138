// The cached-call fast path of jit.
//
// `JitFunction` is the base class of jax's jitted-function objects. Calling one
// flattens the positional arguments, computes their signature (tree structure,
// each leaf's dtype, shape and weak type, the x64 flag) and, when the signature has
// an entry and every leaf is a plain array on the entry's device, runs the cached
// executable on the leaf buffers and unflattens the outputs, without entering
// Python. Anything else (a miss, keyword arguments, the calling thread staging a
// computation, tracers, numpy values, sharded or pmap-stacked arrays, another
// device) calls the subclass's `_call_python(args, kwargs)`, which fills the cache
// through `_fast_insert` once it has compiled a plain single-device executable.
// Once a cached executable runs, its errors are raised as they are: the call is
// never retried on the general path (the run may have consumed donated arrays).
//
// jax configures it through `configure` (its array class and the public
// attributes read), `set_thread_staging` (per thread, from core's trace state)
// and `set_x64` (process-wide, from the config flag).
#ifndef JAXLIB_JIT_FAST_PATH_H_
#define JAXLIB_JIT_FAST_PATH_H_

#include <nanobind/nanobind.h>

namespace jax {

void RegisterJitFastPath(nanobind::module_& m);

}  // namespace jax

#endif  // JAXLIB_JIT_FAST_PATH_H_
