// Hermitian eigendecomposition (syevd, heevd) with Eigen's self-adjoint solver.
#include <complex>

#include "Eigen/Core"
#include "Eigen/Eigenvalues"
#include "xla/backends/cpu/runtime/linalg/decompositions.h"
#include "xla/backends/cpu/runtime/linalg/eigen_maps.h"

namespace xla::cpu {

template <typename T>
int32_t Syevd(int64_t n, bool lower, bool vectors, T* data, Real<T>* w) {
  if (n == 0) return 0;  // the solver does not accept empty matrices
  MatrixMap<T> a(data, n, n);
  ColMatrix<T> h(n, n);
  if (lower) {
    h = a.template selfadjointView<Eigen::Lower>();
  } else {
    h = a.template selfadjointView<Eigen::Upper>();
  }
  Eigen::SelfAdjointEigenSolver<ColMatrix<T>> solver(
      h, vectors ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success) return 1;
  Eigen::Map<Eigen::Matrix<Real<T>, Eigen::Dynamic, 1>>(w, n) = solver.eigenvalues();
  if (vectors) a = solver.eigenvectors();
  return 0;
}

#define XLA_INSTANTIATE(T)                                                             \
  template int32_t Syevd<T>(int64_t, bool, bool, T*, Real<T>*);
XLA_INSTANTIATE(float)
XLA_INSTANTIATE(double)
XLA_INSTANTIATE(std::complex<float>)
XLA_INSTANTIATE(std::complex<double>)
#undef XLA_INSTANTIATE

}  // namespace xla::cpu
