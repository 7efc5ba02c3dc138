// Each LAPACK-style kernel is checked by reconstruction (A from its factors)
// in real and complex types.
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "Eigen/Core"
#include "xla/backends/cpu/runtime/linalg/decompositions.h"
#include "xla/hlo/testing/check.h"

namespace xla::cpu {
namespace {

template <typename T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <typename T>
Mat<T> Random(int64_t rows, int64_t cols, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> dist;
  Mat<T> m(rows, cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      if constexpr (std::is_floating_point_v<T>) {
        m(i, j) = static_cast<T>(dist(gen));
      } else {
        m(i, j) = T(dist(gen), dist(gen));
      }
    }
  }
  return m;
}

template <typename T>
bool Near(const Mat<T>& a, const Mat<T>& b, double tol) {
  return a.rows() == b.rows() && a.cols() == b.cols() && (a - b).norm() <= tol * (1 + b.norm());
}

template <typename T>
Mat<T> Spd(int64_t n, unsigned seed) {
  Mat<T> m = Random<T>(n, n, seed);
  return m * m.adjoint() + Mat<T>::Identity(n, n) * T(n);
}

template <typename T>
void CheckPotrf(double tol) {
  const int64_t n = 37;  // larger than Eigen's block size
  Mat<T> a = Spd<T>(n, 1);
  for (bool lower : {true, false}) {
    Mat<T> f = a;
    EXPECT_EQ(Potrf(n, lower, f.data()), 0);
    if (lower) {
      Mat<T> l = f.template triangularView<Eigen::Lower>();
      EXPECT_TRUE(Near<T>(l * l.adjoint(), a, tol));
      // The other triangle is left as it was.
      EXPECT_TRUE(f(0, n - 1) == a(0, n - 1));
    } else {
      Mat<T> u = f.template triangularView<Eigen::Upper>();
      EXPECT_TRUE(Near<T>(u.adjoint() * u, a, tol));
    }
  }
  Mat<T> bad = a;
  bad(2, 2) = T(-1000);
  EXPECT_EQ(Potrf(n, true, bad.data()), 3);  // the leading 3x3 minor is not positive definite
}

TEST(PotrfReconstructs) {
  CheckPotrf<double>(1e-12);
  CheckPotrf<float>(1e-5);
  CheckPotrf<std::complex<double>>(1e-12);
}

template <typename T>
void CheckTrsm(double tol) {
  const int64_t m = 5, n = 3;
  for (bool left : {true, false}) {
    const int64_t k = left ? m : n;
    for (bool lower : {true, false}) {
      for (char trans : {'N', 'T', 'C'}) {
        for (bool unit : {false, true}) {
          Mat<T> a = Random<T>(k, k, 2) + Mat<T>::Identity(k, k) * T(4);
          Mat<T> tri = lower ? Mat<T>(a.template triangularView<Eigen::Lower>())
                             : Mat<T>(a.template triangularView<Eigen::Upper>());
          if (unit) tri.diagonal().setOnes();
          Mat<T> op = trans == 'N' ? tri : trans == 'T' ? Mat<T>(tri.transpose()) : Mat<T>(tri.adjoint());
          Mat<T> b = Random<T>(m, n, 3);
          Mat<T> x = b;
          Trsm(m, n, left, lower, trans, unit, a.data(), x.data());
          EXPECT_TRUE(Near<T>(left ? Mat<T>(op * x) : Mat<T>(x * op), b, tol));
        }
      }
    }
  }
}

TEST(TrsmAllModes) {
  CheckTrsm<double>(1e-12);
  CheckTrsm<std::complex<float>>(1e-5);
}

template <typename T>
void CheckGetrf(int64_t m, int64_t n, double tol) {
  const int64_t k = std::min(m, n);
  Mat<T> a = Random<T>(m, n, 4);
  Mat<T> f = a;
  std::vector<int32_t> ipiv(k);
  EXPECT_EQ(Getrf(m, n, f.data(), ipiv.data()), 0);
  Mat<T> l = Mat<T>::Identity(m, k);
  l.template triangularView<Eigen::StrictlyLower>() = f.leftCols(k);
  Mat<T> u = f.topRows(k).template triangularView<Eigen::Upper>();
  Mat<T> pa = a;
  for (int64_t j = 0; j < k; ++j) {
    EXPECT_TRUE(ipiv[j] >= j + 1 && ipiv[j] <= m);  // 1-based, never above the diagonal
    pa.row(j).swap(pa.row(ipiv[j] - 1));
  }
  EXPECT_TRUE(Near<T>(l * u, pa, tol));
  // Partial pivoting keeps |L| <= 1.
  EXPECT_TRUE(l.cwiseAbs().maxCoeff() <= 1 + 1e-6);
}

TEST(GetrfReconstructs) {
  CheckGetrf<double>(6, 6, 1e-12);
  CheckGetrf<double>(3, 5, 1e-12);
  CheckGetrf<double>(5, 3, 1e-12);
  CheckGetrf<float>(40, 40, 1e-5);
  CheckGetrf<std::complex<double>>(4, 4, 1e-12);
  Mat<double> singular(2, 2);
  singular << 1, 2, 2, 4;
  int32_t ipiv[2];
  EXPECT_EQ(Getrf<double>(2, 2, singular.data(), ipiv), 2);
  EXPECT_EQ(ipiv[0], 2);
}

template <typename T>
void CheckQr(int64_t m, int64_t n, double tol) {
  const int64_t k = std::min(m, n);
  Mat<T> a = Random<T>(m, n, 5);
  Mat<T> f = a;
  std::vector<T> tau(k);
  Geqrf(m, n, f.data(), tau.data());
  Mat<T> r = f.topRows(k).template triangularView<Eigen::Upper>();
  // Reduced Q: the first k columns of the reflectors' product.
  Mat<T> q = f.leftCols(k);
  Orgqr(m, k, k, q.data(), tau.data());
  EXPECT_TRUE(Near<T>(q * r, a, tol));
  EXPECT_TRUE(Near<T>(q.adjoint() * q, Mat<T>::Identity(k, k), tol));
  // Complete Q from the reflectors padded to [m, m].
  Mat<T> full = Mat<T>::Zero(m, m);
  full.leftCols(k) = f.leftCols(k);
  Orgqr(m, m, k, full.data(), tau.data());
  EXPECT_TRUE(Near<T>(full.adjoint() * full, Mat<T>::Identity(m, m), tol));
  EXPECT_TRUE(Near<T>(Mat<T>(full.leftCols(k)), q, tol));
}

TEST(GeqrfOrgqrReconstruct) {
  CheckQr<double>(6, 4, 1e-12);
  CheckQr<double>(4, 6, 1e-12);
  CheckQr<float>(5, 5, 1e-5);
  CheckQr<std::complex<double>>(5, 3, 1e-12);
}

template <typename T>
void CheckSyevd(double tol) {
  const int64_t n = 6;
  Mat<T> a = Random<T>(n, n, 6);
  a = (a + Mat<T>(a.adjoint())).eval();
  for (bool lower : {true, false}) {
    Mat<T> stored = a;
    // Only the named triangle may be read: spoil the other one.
    if (lower) stored.template triangularView<Eigen::StrictlyUpper>().setConstant(T(99));
    else stored.template triangularView<Eigen::StrictlyLower>().setConstant(T(99));
    std::vector<Real<T>> w(n);
    EXPECT_EQ(Syevd(n, lower, true, stored.data(), w.data()), 0);
    for (int64_t i = 1; i < n; ++i) EXPECT_TRUE(w[i - 1] <= w[i]);
    Mat<T> d = Mat<T>::Zero(n, n);
    for (int64_t i = 0; i < n; ++i) d(i, i) = T(w[i]);
    EXPECT_TRUE(Near<T>(stored * d * stored.adjoint(), a, tol));
  }
}

TEST(SyevdReconstructs) {
  CheckSyevd<double>(1e-12);
  CheckSyevd<float>(1e-5);
  CheckSyevd<std::complex<double>>(1e-12);
}

template <typename T>
void CheckGesdd(int64_t m, int64_t n, double tol) {
  const int64_t k = std::min(m, n);
  Mat<T> a = Random<T>(m, n, 7);
  std::vector<Real<T>> s(k);
  Mat<T> u(m, k), vt(k, n);
  EXPECT_EQ(Gesdd(m, n, 'S', a.data(), s.data(), u.data(), vt.data()), 0);
  for (int64_t i = 1; i < k; ++i) EXPECT_TRUE(s[i - 1] >= s[i]);
  Mat<T> sd = Mat<T>::Zero(k, k);
  for (int64_t i = 0; i < k; ++i) sd(i, i) = T(s[i]);
  EXPECT_TRUE(Near<T>(u * sd * vt, a, tol));
  Mat<T> uf(m, m), vtf(n, n);
  EXPECT_EQ(Gesdd(m, n, 'A', a.data(), s.data(), uf.data(), vtf.data()), 0);
  EXPECT_TRUE(Near<T>(uf.adjoint() * uf, Mat<T>::Identity(m, m), tol));
  EXPECT_TRUE(Near<T>(vtf * vtf.adjoint(), Mat<T>::Identity(n, n), tol));
  EXPECT_TRUE(Near<T>(Mat<T>(uf.leftCols(k)) * sd * Mat<T>(vtf.topRows(k)), a, tol));
}

TEST(GesddReconstructs) {
  CheckGesdd<double>(5, 3, 1e-12);
  CheckGesdd<double>(3, 5, 1e-12);
  CheckGesdd<float>(20, 18, 1e-5);  // large enough for divide and conquer
  CheckGesdd<std::complex<double>>(4, 4, 1e-12);
  Mat<double> bad = Mat<double>::Zero(2, 2);
  bad(0, 0) = NAN;
  double s[2], u[4], vt[4];
  EXPECT_TRUE(Gesdd<double>(2, 2, 'S', bad.data(), s, u, vt) != 0);
}

// A constant matrix (rank 1, all other singular values equal): Eigen 3.4's
// divide and conquer reports success with NaNs at 512x512; the result must be
// the true decomposition all the same.
TEST(GesddOfAConstantMatrix) {
  for (int64_t n : {64, 512}) {
    Mat<float> a = Mat<float>::Constant(n, n, 0.1f);
    std::vector<float> s(n);
    Mat<float> u(n, n), vt(n, n);
    EXPECT_EQ(Gesdd<float>(n, n, 'S', a.data(), s.data(), u.data(), vt.data()), 0);
    EXPECT_TRUE(std::abs(s[0] - 0.1f * n) <= 1e-4f * n);
    for (int64_t i = 1; i < n; ++i) EXPECT_TRUE(std::abs(s[i]) < 1e-4f);
    Mat<float> sd = Mat<float>::Zero(n, n);
    for (int64_t i = 0; i < n; ++i) sd(i, i) = s[i];
    EXPECT_TRUE(Near<float>(u * sd * vt, a, 1e-4));
    EXPECT_TRUE(Near<float>(u.transpose() * u, Mat<float>::Identity(n, n), 1e-4));
  }
}

// Empty matrices are valid LAPACK inputs: nothing to compute, info 0.
TEST(EmptyMatrices) {
  double a[1] = {0}, tau[1], s[1], w[1];
  int32_t ipiv[1];
  EXPECT_EQ(Potrf<double>(0, true, a), 0);
  EXPECT_EQ(Getrf<double>(3, 0, a, ipiv), 0);
  Geqrf<double>(0, 2, a, tau);
  EXPECT_EQ(Syevd<double>(0, true, true, a, w), 0);
  Mat<double> u(3, 3), vt(0, 0);
  EXPECT_EQ(Gesdd<double>(3, 0, 'A', a, s, u.data(), vt.data()), 0);
  EXPECT_TRUE(Near<double>(u, Mat<double>::Identity(3, 3), 0));
  EXPECT_EQ(Gesdd<double>(0, 3, 'S', a, s, u.data(), vt.data()), 0);
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
