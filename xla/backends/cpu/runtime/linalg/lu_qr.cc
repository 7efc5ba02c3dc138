// LU with partial pivoting (getrf) and Householder QR (geqrf, orgqr), as plain
// loops over Eigen maps (LAPACK's pivot and reflector conventions).
#include <algorithm>
#include <cmath>
#include <complex>

#include "Eigen/Core"
#include "xla/backends/cpu/runtime/linalg/decompositions.h"
#include "xla/backends/cpu/runtime/linalg/eigen_maps.h"

namespace xla::cpu {

namespace {

// LAPACK picks pivots by |re| + |im| (cheaper than the modulus, same for reals).
template <typename T>
Real<T> Abs1(const T& x) {
  return std::abs(std::real(x)) + std::abs(std::imag(x));
}

template <typename T>
T Conj(const T& x) {
  return Eigen::numext::conj(x);
}

}  // namespace

template <typename T>
int32_t Getrf(int64_t m, int64_t n, T* data, int32_t* ipiv) {
  MatrixMap<T> a(data, m, n);
  int32_t info = 0;
  const int64_t k = std::min(m, n);
  for (int64_t j = 0; j < k; ++j) {
    int64_t p = j;
    Real<T> best = Abs1(a(j, j));
    for (int64_t i = j + 1; i < m; ++i) {
      Real<T> v = Abs1(a(i, j));
      if (v > best) {
        best = v;
        p = i;
      }
    }
    ipiv[j] = static_cast<int32_t>(p + 1);
    if (a(p, j) != T(0)) {
      if (p != j) a.row(p).swap(a.row(j));
      a.col(j).tail(m - j - 1) /= a(j, j);
    } else if (info == 0) {
      info = static_cast<int32_t>(j + 1);
    }
    a.bottomRightCorner(m - j - 1, n - j - 1).noalias() -=
        a.col(j).tail(m - j - 1) * a.row(j).tail(n - j - 1);
  }
  return info;
}

template <typename T>
void Geqrf(int64_t m, int64_t n, T* data, T* tau) {
  using R = Real<T>;
  MatrixMap<T> a(data, m, n);
  const int64_t k = std::min(m, n);
  for (int64_t j = 0; j < k; ++j) {
    auto x = a.col(j).tail(m - j - 1);
    const T alpha = a(j, j);
    const R xnorm = x.norm();
    if (xnorm == R(0) && std::imag(alpha) == R(0)) {
      tau[j] = T(0);  // H = I: the column is already reduced
      continue;
    }
    const R beta = -std::copysign(std::hypot(std::real(alpha), std::imag(alpha), xnorm),
                                  std::real(alpha));
    const T t = (T(beta) - alpha) / T(beta);
    x *= T(1) / (alpha - T(beta));
    a(j, j) = T(beta);
    tau[j] = t;
    if (j + 1 < n) {
      // Apply H^H = I - conj(tau) v v^H, v = [1; x], to the trailing columns.
      auto c = a.block(j, j + 1, m - j, n - j - 1);
      RowVector<T> w = c.row(0) + x.adjoint() * c.bottomRows(m - j - 1);
      c.row(0) -= Conj(t) * w;
      c.bottomRows(m - j - 1) -= (Conj(t) * x) * w;
    }
  }
}

template <typename T>
void Orgqr(int64_t m, int64_t n, int64_t k, T* data, const T* tau) {
  MatrixMap<T> a(data, m, n);
  ColMatrix<T> q = ColMatrix<T>::Identity(m, n);
  // Q = H(0) ... H(k-1) I: apply the reflectors last to first.
  for (int64_t j = k - 1; j >= 0; --j) {
    auto v = a.col(j).tail(m - j - 1);
    auto c = q.bottomRows(m - j);
    RowVector<T> w = c.row(0) + v.adjoint() * c.bottomRows(m - j - 1);
    c.row(0) -= tau[j] * w;
    c.bottomRows(m - j - 1) -= (tau[j] * v) * w;
  }
  a = q;
}

#define XLA_INSTANTIATE(T)                                                             \
  template int32_t Getrf<T>(int64_t, int64_t, T*, int32_t*); \
  template void Geqrf<T>(int64_t, int64_t, T*, T*); \
  template void Orgqr<T>(int64_t, int64_t, int64_t, T*, const T*);
XLA_INSTANTIATE(float)
XLA_INSTANTIATE(double)
XLA_INSTANTIATE(std::complex<float>)
XLA_INSTANTIATE(std::complex<double>)
#undef XLA_INSTANTIATE

}  // namespace xla::cpu
