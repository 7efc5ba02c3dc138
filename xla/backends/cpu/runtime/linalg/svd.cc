// Singular value decomposition (gesdd) with Eigen's divide-and-conquer SVD, and
// its one-sided Jacobi SVD where that fails.
#include <algorithm>
#include <cmath>
#include <complex>

#include "Eigen/Core"
#include "Eigen/SVD"
#include "xla/backends/cpu/runtime/linalg/decompositions.h"
#include "xla/backends/cpu/runtime/linalg/eigen_maps.h"

namespace xla::cpu {

namespace {

template <typename Svd>
bool Finite(const Svd& svd, char mode) {
  if (!svd.singularValues().allFinite()) return false;
  return mode == 'N' || (svd.matrixU().allFinite() && svd.matrixV().allFinite());
}

template <typename Svd, typename T>
void Store(const Svd& svd, int64_t m, int64_t n, int64_t k, char mode, Real<T>* s, T* u, T* vt) {
  Eigen::Map<Eigen::Matrix<Real<T>, Eigen::Dynamic, 1>>(s, k) = svd.singularValues();
  if (mode == 'A') {
    MatrixMap<T>(u, m, m) = svd.matrixU();
    MatrixMap<T>(vt, n, n) = svd.matrixV().adjoint();
  } else if (mode == 'S') {
    MatrixMap<T>(u, m, k) = svd.matrixU();
    MatrixMap<T>(vt, k, n) = svd.matrixV().adjoint();
  }
}

}  // namespace

template <typename T>
int32_t Gesdd(int64_t m, int64_t n, char mode, const T* data, Real<T>* s, T* u, T* vt) {
  const int64_t k = std::min(m, n);
  unsigned int options = 0;
  if (mode == 'A') options = Eigen::ComputeFullU | Eigen::ComputeFullV;
  if (mode == 'S') options = Eigen::ComputeThinU | Eigen::ComputeThinV;
  if (k == 0) {  // no singular values; a complete basis is the identity (BDCSVD rejects this)
    if (mode == 'A') {
      MatrixMap<T>(u, m, m).setIdentity();
      MatrixMap<T>(vt, n, n).setIdentity();
    }
    return 0;
  }
  ColMatrix<T> a = ConstMatrixMap<T>(data, m, n);
  if (!a.allFinite()) return 1;
  Eigen::BDCSVD<ColMatrix<T>> svd(a, options);
  if (svd.info() == Eigen::Success && Finite(svd, mode)) {
    Store(svd, m, n, k, mode, s, u, vt);
    return 0;
  }
  // Eigen 3.4's divide and conquer can report success with NaNs on matrices of
  // many equal singular values (a constant 512x512 one, rank 1); one-sided
  // Jacobi is slower but has no such case.
  Eigen::JacobiSVD<ColMatrix<T>> jacobi(a, options);
  if (jacobi.info() != Eigen::Success || !Finite(jacobi, mode)) return 1;
  Store(jacobi, m, n, k, mode, s, u, vt);
  return 0;
}

#define XLA_INSTANTIATE(T)                                                             \
  template int32_t Gesdd<T>(int64_t, int64_t, char, const T*, Real<T>*, T*, T*);
XLA_INSTANTIATE(float)
XLA_INSTANTIATE(double)
XLA_INSTANTIATE(std::complex<float>)
XLA_INSTANTIATE(std::complex<double>)
#undef XLA_INSTANTIATE

}  // namespace xla::cpu
