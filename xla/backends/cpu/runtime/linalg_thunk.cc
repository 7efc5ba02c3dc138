#include "xla/backends/cpu/runtime/linalg_thunk.h"

#include <cstring>
#include <limits>

#include "Eigen/Cholesky"
#include "Eigen/Core"

namespace xla::cpu {
namespace {

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MatrixMap = Eigen::Map<Matrix<T>>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const Matrix<T>>;

template <typename T>
void Cholesky(const CholeskyThunk::Params& p, const T* in, T* out) {
  const int64_t n = p.n;
  for (int64_t b = 0; b < p.batch; ++b) {
    ConstMatrixMap<T> a(in + b * n * n, n, n);
    MatrixMap<T> l(out + b * n * n, n, n);
    if (out != in) l = a;
    bool ok;
    if (p.lower) {
      Eigen::LLT<Matrix<T>, Eigen::Lower> llt(a);
      ok = llt.info() == Eigen::Success;
      if (ok) l.template triangularView<Eigen::Lower>() = llt.matrixL();
    } else {
      Eigen::LLT<Matrix<T>, Eigen::Upper> llt(a);
      ok = llt.info() == Eigen::Success;
      if (ok) l.template triangularView<Eigen::Upper>() = llt.matrixU();
    }
    if (!ok) l.setConstant(std::numeric_limits<T>::quiet_NaN());
  }
}

// Solves with the `Mode` triangle of `a` (already transposed if asked).
template <int Mode, typename A, typename B>
void Solve(const A& a, B& x, bool left) {
  if (left) {
    a.template triangularView<Mode>().solveInPlace(x);
  } else {
    a.template triangularView<Mode>().template solveInPlace<Eigen::OnTheRight>(x);
  }
}

template <typename T>
void TriangularSolve(const TriangularSolveThunk::Params& p, const T* a_data, const T* b_data,
                     T* out) {
  const TriangularSolveOptions& o = p.options;
  const int64_t k = o.left_side ? p.m : p.n;  // a is [k, k]
  const bool transpose = o.transpose_a != TriangularSolveTranspose::kNoTranspose;
  // Transposing turns the lower triangle into the upper one.
  const bool lower = o.lower != transpose;
  for (int64_t b = 0; b < p.batch; ++b) {
    ConstMatrixMap<T> a(a_data + b * k * k, k, k);
    MatrixMap<T> x(out + b * p.m * p.n, p.m, p.n);
    if (out != b_data) x = ConstMatrixMap<T>(b_data + b * p.m * p.n, p.m, p.n);
    // Real types only: the adjoint is the transpose.
    auto run = [&](const auto& m) {
      if (lower) {
        if (o.unit_diagonal) Solve<Eigen::UnitLower>(m, x, o.left_side);
        else Solve<Eigen::Lower>(m, x, o.left_side);
      } else {
        if (o.unit_diagonal) Solve<Eigen::UnitUpper>(m, x, o.left_side);
        else Solve<Eigen::Upper>(m, x, o.left_side);
      }
    };
    if (transpose) run(a.transpose());
    else run(a);
  }
}

}  // namespace

Status CholeskyThunk::Run(const ThunkParams& params) const {
  const void* in = params.buffers[p_.input_slot];
  void* out = params.buffers[p_.output_slot];
  if (p_.type == PrimitiveType::F32) {
    Cholesky(p_, static_cast<const float*>(in), static_cast<float*>(out));
  } else {
    Cholesky(p_, static_cast<const double*>(in), static_cast<double*>(out));
  }
  return OkStatus();
}

Status TriangularSolveThunk::Run(const ThunkParams& params) const {
  const void* a = params.buffers[p_.a_slot];
  const void* b = params.buffers[p_.b_slot];
  void* out = params.buffers[p_.output_slot];
  if (p_.type == PrimitiveType::F32) {
    TriangularSolve(p_, static_cast<const float*>(a), static_cast<const float*>(b),
                    static_cast<float*>(out));
  } else {
    TriangularSolve(p_, static_cast<const double*>(a), static_cast<const double*>(b),
                    static_cast<double*>(out));
  }
  return OkStatus();
}

}  // namespace xla::cpu
