// Singular value decomposition (gesdd) with Eigen's divide-and-conquer SVD.
#include <algorithm>
#include <cmath>
#include <complex>

#include "Eigen/Core"
#include "Eigen/SVD"
#include "xla/backends/cpu/runtime/linalg/decompositions.h"
#include "xla/backends/cpu/runtime/linalg/eigen_maps.h"

namespace xla::cpu {

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
  if (svd.info() != Eigen::Success) return 1;
  Eigen::Map<Eigen::Matrix<Real<T>, Eigen::Dynamic, 1>>(s, k) = svd.singularValues();
  if (mode == 'A') {
    MatrixMap<T>(u, m, m) = svd.matrixU();
    MatrixMap<T>(vt, n, n) = svd.matrixV().adjoint();
  } else if (mode == 'S') {
    MatrixMap<T>(u, m, k) = svd.matrixU();
    MatrixMap<T>(vt, k, n) = svd.matrixV().adjoint();
  }
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
