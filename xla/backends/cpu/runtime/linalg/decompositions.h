// LAPACK-style matrix decompositions on Eigen, for float, double,
// complex<float> and complex<double> (explicitly instantiated in this folder's
// sources, one per family). This header includes nothing of ours and nothing of
// Eigen, so the expensive instantiations compile once and never again when the
// runtime's headers change.
//
// Conventions follow LAPACK: ipiv is 1-based, info is 0 on success, > 0 for a
// singular pivot (getrf), a non-positive-definite minor (potrf) or no
// convergence (syevd, gesdd). All matrices are row-major [rows, cols].
#ifndef XLA_BACKENDS_CPU_RUNTIME_LINALG_DECOMPOSITIONS_H_
#define XLA_BACKENDS_CPU_RUNTIME_LINALG_DECOMPOSITIONS_H_

#include <complex>
#include <cstdint>
#include <type_traits>

namespace xla::cpu {

template <typename T>
struct RealOf {
  using type = T;
};
template <typename T>
struct RealOf<std::complex<T>> {
  using type = T;
};
template <typename T>
using Real = typename RealOf<T>::type;

// Cholesky of the `lower` (else upper) triangle of a [n, n] in place; the
// other triangle is left as it was. Returns info.
template <typename T>
int32_t Potrf(int64_t n, bool lower, T* a);

// Solves op(A) X = B (left) or X op(A) = B (right) in place of b [m, n] with
// the named triangle of a. trans: 'N', 'T' or 'C'.
template <typename T>
void Trsm(int64_t m, int64_t n, bool left, bool lower, char trans, bool unit_diagonal,
          const T* a, T* b);

// LU with partial pivoting of a [m, n] in place; ipiv has min(m, n) entries.
template <typename T>
int32_t Getrf(int64_t m, int64_t n, T* a, int32_t* ipiv);

// Householder QR of a [m, n] in place: R on and above the diagonal, the
// reflectors' vectors (implicit leading 1) below it; tau has min(m, n) entries.
template <typename T>
void Geqrf(int64_t m, int64_t n, T* a, T* tau);

// Overwrites a [m, n] (n <= m), holding k reflectors as Geqrf leaves them,
// with the first n columns of Q = H(0) H(1) ... H(k-1).
template <typename T>
void Orgqr(int64_t m, int64_t n, int64_t k, T* a, const T* tau);

// Eigendecomposition of the Hermitian matrix whose `lower` (else upper)
// triangle a [n, n] holds: eigenvalues ascending in w; with `vectors`, a is
// overwritten with the eigenvectors as columns. Returns info.
template <typename T>
int32_t Syevd(int64_t n, bool lower, bool vectors, T* a, Real<T>* w);

// SVD of a [m, n]: s (min(m, n), descending); for mode 'A' u is [m, m] and vt
// [n, n], for 'S' u is [m, k] and vt [k, n]; for 'N' u and vt are not touched.
template <typename T>
int32_t Gesdd(int64_t m, int64_t n, char mode, const T* a, Real<T>* s, T* u, T* vt);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_LINALG_DECOMPOSITIONS_H_
