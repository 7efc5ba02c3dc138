// Cholesky factorisation (potrf) and triangular solves (trsm).
#include <complex>

#include "Eigen/Cholesky"
#include "Eigen/Core"
#include "xla/backends/cpu/runtime/linalg/decompositions.h"
#include "xla/backends/cpu/runtime/linalg/eigen_maps.h"

namespace xla::cpu {

template <typename T>
int32_t Potrf(int64_t n, bool lower, T* data) {
  MatrixMap<T> a(data, n, n);
  // The factorisation works on a lower triangle: for 'U', A's lower triangle
  // is the adjoint of its upper one and U = L^H.
  ColMatrix<T> l(n, n);
  if (lower) {
    l = a;
  } else {
    l = a.adjoint();
  }
  Eigen::Index failed = Eigen::internal::llt_inplace<T, Eigen::Lower>::blocked(l);
  if (failed >= 0) return static_cast<int32_t>(failed + 1);
  if (lower) {
    a.template triangularView<Eigen::Lower>() = l.template triangularView<Eigen::Lower>();
  } else {
    a.template triangularView<Eigen::Upper>() = l.adjoint().template triangularView<Eigen::Upper>();
  }
  return 0;
}

namespace {

template <int Mode, typename A, typename B>
void SolveTriangle(const A& a, B& x, bool left) {
  if (left) {
    a.template triangularView<Mode>().solveInPlace(x);
  } else {
    a.template triangularView<Mode>().template solveInPlace<Eigen::OnTheRight>(x);
  }
}

template <typename A, typename B>
void SolveWith(const A& op_a, B& x, bool left, bool lower, bool unit_diagonal) {
  if (lower) {
    if (unit_diagonal) SolveTriangle<Eigen::UnitLower>(op_a, x, left);
    else SolveTriangle<Eigen::Lower>(op_a, x, left);
  } else {
    if (unit_diagonal) SolveTriangle<Eigen::UnitUpper>(op_a, x, left);
    else SolveTriangle<Eigen::Upper>(op_a, x, left);
  }
}

}  // namespace

template <typename T>
void Trsm(int64_t m, int64_t n, bool left, bool lower, char trans, bool unit_diagonal,
          const T* a_data, T* b_data) {
  const int64_t k = left ? m : n;
  ConstMatrixMap<T> a(a_data, k, k);
  MatrixMap<T> x(b_data, m, n);
  // Transposing moves the stored triangle to the other side.
  const bool op_lower = trans == 'N' ? lower : !lower;
  if (trans == 'N') {
    SolveWith(a, x, left, op_lower, unit_diagonal);
  } else if (trans == 'T') {
    SolveWith(a.transpose(), x, left, op_lower, unit_diagonal);
  } else {
    SolveWith(a.adjoint(), x, left, op_lower, unit_diagonal);
  }
}

#define XLA_INSTANTIATE(T)                                                             \
  template int32_t Potrf<T>(int64_t, bool, T*); \
  template void Trsm<T>(int64_t, int64_t, bool, bool, char, bool, const T*, T*);
XLA_INSTANTIATE(float)
XLA_INSTANTIATE(double)
XLA_INSTANTIATE(std::complex<float>)
XLA_INSTANTIATE(std::complex<double>)
#undef XLA_INSTANTIATE

}  // namespace xla::cpu
