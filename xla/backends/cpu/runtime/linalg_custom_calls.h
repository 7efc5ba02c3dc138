// The custom-call targets real JAX's CPU lowering emits for linear algebra,
// run by the decompositions in linalg/decompositions.h:
//
//   lapack_{s,d,c,z}potrf_ffi  (a) -> (factor, info)             uplo
//   lapack_{s,d,c,z}trsm_ffi   (a, b) -> x                       side, uplo, trans_x, diag
//   lapack_{s,d,c,z}getrf_ffi  (a) -> (lu, ipiv, info)
//   lapack_{s,d,c,z}geqrf_ffi  (a) -> (packed, tau)
//   lapack_{s,d}orgqr_ffi, lapack_{c,z}ungqr_ffi  (packed, tau) -> q
//   lapack_{s,d}syevd_ffi, lapack_{c,z}heevd_ffi  (a) -> (v, w, info)  mode, uplo
//   lapack_{s,d,c,z}gesdd_ffi  (a) -> (a, s, u, vt, info)          mode
//
// Every operand carries leading batch dimensions; info is s32[batch...].
// Character attributes are ASCII codes ('L' = 76, 'U' = 85, 'N' = 78,
// 'T' = 84, 'C' = 67, 'V' = 86, 'A' = 65, 'S' = 83, 'R' = 82).
#ifndef XLA_BACKENDS_CPU_RUNTIME_LINALG_CUSTOM_CALLS_H_
#define XLA_BACKENDS_CPU_RUNTIME_LINALG_CUSTOM_CALLS_H_

namespace xla::cpu {

class CustomCallRegistry;

// Registers every lapack_*_ffi target above: checks shapes and attributes when
// the call is compiled, and runs the batch (in parallel) in a thunk.
void RegisterLinalgCustomCalls(CustomCallRegistry* registry);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_LINALG_CUSTOM_CALLS_H_
