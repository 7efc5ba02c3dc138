// Dot, convolution, cholesky, triangular-solve and fft. Accumulation is in
// double (complex<double>, or wrapping int64 for integer results), which is
// at least as accurate as any backend; the corpus tolerances allow for the
// difference in summation order.
#include <cmath>
#include <complex>

#include "xla/hlo/evaluator/evaluator_internal.h"
#include "xla/hlo/ir/instruction.h"

namespace xla::eval {
namespace {

using cd = std::complex<double>;

// Accumulates products in the widest type of the result's kind.
struct Accumulator {
  PrimitiveType type;
  double real = 0;
  cd complex = 0;
  uint64_t integer = 0;  // wraps like two's complement arithmetic
  void Add(const Literal& a, int64_t i, const Literal& b, int64_t j) {
    if (IsComplex(type)) complex += a.GetAsComplex(i) * b.GetAsComplex(j);
    else if (IsInteger(type) || type == PrimitiveType::PRED) {
      integer += static_cast<uint64_t>(a.GetAsInt64(i)) * static_cast<uint64_t>(b.GetAsInt64(j));
    } else real += a.GetAsDouble(i) * b.GetAsDouble(j);
  }
  void Store(Literal* out, int64_t i) const {
    if (IsComplex(type)) out->SetFromComplex(i, complex);
    else if (type == PrimitiveType::PRED) out->Set<bool>(i, integer != 0);
    else if (IsInteger(type)) out->SetFromInt64(i, static_cast<int64_t>(integer));
    else out->SetFromDouble(i, real);
  }
};

Literal Dot(const HloInstruction& instr, const Literal& lhs, const Literal& rhs) {
  const DotDimensionNumbers& d = instr.dot_dimension_numbers();
  Literal out(instr.shape());
  const auto& ld = lhs.shape().dimensions();
  const auto& rd = rhs.shape().dimensions();
  std::vector<bool> l_used(ld.size(), false), r_used(rd.size(), false);
  for (int64_t x : d.lhs_batch_dimensions) l_used[x] = true;
  for (int64_t x : d.lhs_contracting_dimensions) l_used[x] = true;
  for (int64_t x : d.rhs_batch_dimensions) r_used[x] = true;
  for (int64_t x : d.rhs_contracting_dimensions) r_used[x] = true;
  std::vector<int64_t> l_free, r_free, contract_dims;
  for (size_t i = 0; i < ld.size(); ++i) if (!l_used[i]) l_free.push_back(i);
  for (size_t i = 0; i < rd.size(); ++i) if (!r_used[i]) r_free.push_back(i);
  for (int64_t x : d.lhs_contracting_dimensions) contract_dims.push_back(ld[x]);
  const size_t nb = d.lhs_batch_dimensions.size();
  std::vector<int64_t> li(ld.size()), ri(rd.size());
  ForEachIndex(instr.shape().dimensions(), [&](const std::vector<int64_t>& o) {
    for (size_t k = 0; k < nb; ++k) {
      li[d.lhs_batch_dimensions[k]] = o[k];
      ri[d.rhs_batch_dimensions[k]] = o[k];
    }
    for (size_t k = 0; k < l_free.size(); ++k) li[l_free[k]] = o[nb + k];
    for (size_t k = 0; k < r_free.size(); ++k) ri[r_free[k]] = o[nb + l_free.size() + k];
    Accumulator acc{instr.shape().element_type()};
    ForEachIndex(contract_dims, [&](const std::vector<int64_t>& c) {
      for (size_t k = 0; k < c.size(); ++k) {
        li[d.lhs_contracting_dimensions[k]] = c[k];
        ri[d.rhs_contracting_dimensions[k]] = c[k];
      }
      acc.Add(lhs, LinearIndex(ld, li), rhs, LinearIndex(rd, ri));
    });
    acc.Store(&out, LinearIndex(instr.shape().dimensions(), o));
  });
  return out;
}

Literal Convolution(const HloInstruction& instr, const Literal& in, const Literal& kernel) {
  const ConvolutionDimensionNumbers& d = instr.convolution_dimension_numbers();
  Literal out(instr.shape());
  const auto& id = in.shape().dimensions();
  const auto& kd = kernel.shape().dimensions();
  const auto& od = instr.shape().dimensions();
  const size_t ns = d.input_spatial_dimensions.size();
  const int64_t fgc = instr.feature_group_count(), bgc = instr.batch_group_count();
  const int64_t k_in = kd[d.kernel_input_feature_dimension];
  const int64_t k_out = kd[d.kernel_output_feature_dimension];
  const int64_t out_per_fgroup = k_out / fgc, out_per_bgroup = k_out / bgc;
  const int64_t out_batch = od[d.output_batch_dimension];
  std::vector<int64_t> kspatial(ns);
  for (size_t s = 0; s < ns; ++s) kspatial[s] = kd[d.kernel_spatial_dimensions[s]];
  std::vector<int64_t> ii(id.size()), ki(kd.size());
  ForEachIndex(od, [&](const std::vector<int64_t>& o) {
    const int64_t b = o[d.output_batch_dimension];
    const int64_t f = o[d.output_feature_dimension];
    const int64_t fgroup = f / out_per_fgroup;
    const int64_t in_batch = (f / out_per_bgroup) * out_batch + b;
    Accumulator acc{instr.shape().element_type()};
    ForEachIndex(kspatial, [&](const std::vector<int64_t>& w) {
      for (size_t s = 0; s < ns; ++s) {
        const WindowDimension& wd = instr.window().dimensions[s];
        int64_t p = o[d.output_spatial_dimensions[s]] * wd.stride + w[s] * wd.window_dilation -
                    wd.padding_low;
        if (p < 0 || p % wd.base_dilation != 0) return;
        p /= wd.base_dilation;
        if (p >= id[d.input_spatial_dimensions[s]]) return;
        ii[d.input_spatial_dimensions[s]] = p;
        ki[d.kernel_spatial_dimensions[s]] = wd.window_reversal ? kspatial[s] - 1 - w[s] : w[s];
      }
      ii[d.input_batch_dimension] = in_batch;
      ki[d.kernel_output_feature_dimension] = f;
      for (int64_t c = 0; c < k_in; ++c) {
        ii[d.input_feature_dimension] = fgroup * k_in + c;
        ki[d.kernel_input_feature_dimension] = c;
        acc.Add(in, LinearIndex(id, ii), kernel, LinearIndex(kd, ki));
      }
    });
    acc.Store(&out, LinearIndex(od, o));
  });
  return out;
}

// Batched n x n matrices: calls fn(base linear offset) per matrix.
void ForEachMatrix(const Shape& s, const std::function<void(int64_t)>& fn) {
  int64_t rows = s.dimensions(s.rank() - 2), cols = s.dimensions(s.rank() - 1);
  int64_t count = rows * cols == 0 ? 0 : s.element_count() / (rows * cols);
  for (int64_t m = 0; m < count; ++m) fn(m * rows * cols);
}

Literal Cholesky(const HloInstruction& instr, const Literal& a) {
  Literal out(instr.shape());
  const int64_t n = a.shape().dimensions(a.shape().rank() - 1);
  const bool lower = instr.cholesky_lower();
  ForEachMatrix(a.shape(), [&](int64_t base) {
    // Work on L (lower); for upper, A = U^H U with U = L^H.
    std::vector<cd> l(n * n, 0.0);
    auto A = [&](int64_t i, int64_t j) {
      return lower ? a.GetAsComplex(base + i * n + j) : std::conj(a.GetAsComplex(base + j * n + i));
    };
    for (int64_t j = 0; j < n; ++j) {
      cd diag = A(j, j);
      for (int64_t k = 0; k < j; ++k) diag -= l[j * n + k] * std::conj(l[j * n + k]);
      double djj = std::sqrt(diag.real());
      l[j * n + j] = djj;
      for (int64_t i = j + 1; i < n; ++i) {
        cd v = A(i, j);
        for (int64_t k = 0; k < j; ++k) v -= l[i * n + k] * std::conj(l[j * n + k]);
        l[i * n + j] = v / djj;
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        cd v = lower ? l[i * n + j] : std::conj(l[j * n + i]);
        out.SetFromComplex(base + i * n + j, v);
      }
    }
  });
  return out;
}

Literal TriangularSolve(const HloInstruction& instr, const Literal& a, const Literal& b) {
  const TriangularSolveOptions& opt = instr.triangular_solve_options();
  Literal out(instr.shape());
  const Shape& bs = b.shape();
  const int64_t m = bs.dimensions(bs.rank() - 2), nc = bs.dimensions(bs.rank() - 1);
  const int64_t n = a.shape().dimensions(a.shape().rank() - 1);
  const int64_t a_size = n * n, b_size = m * nc;
  const int64_t count = b_size == 0 ? 0 : bs.element_count() / b_size;
  for (int64_t batch = 0; batch < count; ++batch) {
    // op(A), keeping only the referenced triangle.
    std::vector<cd> M(a_size, 0.0);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        bool in_tri = opt.lower ? j <= i : j >= i;
        cd v = in_tri ? a.GetAsComplex(batch * a_size + i * n + j) : cd(0);
        if (i == j && opt.unit_diagonal) v = 1.0;
        switch (opt.transpose_a) {
          case TriangularSolveTranspose::kNoTranspose: M[i * n + j] = v; break;
          case TriangularSolveTranspose::kTranspose: M[j * n + i] = v; break;
          case TriangularSolveTranspose::kAdjoint: M[j * n + i] = std::conj(v); break;
        }
      }
    }
    bool m_lower = opt.lower == (opt.transpose_a == TriangularSolveTranspose::kNoTranspose);
    std::vector<cd> X(b_size);
    for (int64_t i = 0; i < b_size; ++i) X[i] = b.GetAsComplex(batch * b_size + i);
    if (opt.left_side) {
      // M X = B, column by column.
      for (int64_t c = 0; c < nc; ++c) {
        for (int64_t s = 0; s < n; ++s) {
          int64_t i = m_lower ? s : n - 1 - s;
          cd v = X[i * nc + c];
          for (int64_t k = 0; k < n; ++k) {
            if (k != i && (m_lower ? k < i : k > i)) v -= M[i * n + k] * X[k * nc + c];
          }
          X[i * nc + c] = v / M[i * n + i];
        }
      }
    } else {
      // X M = B, row by row: x_j = (b_j - sum_{k != j} x_k M[k][j]) / M[j][j].
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t s = 0; s < n; ++s) {
          int64_t j = m_lower ? n - 1 - s : s;
          cd v = X[r * nc + j];
          for (int64_t k = 0; k < n; ++k) {
            if (k != j && (m_lower ? k > j : k < j)) v -= X[r * nc + k] * M[k * n + j];
          }
          X[r * nc + j] = v / M[j * n + j];
        }
      }
    }
    for (int64_t i = 0; i < b_size; ++i) out.SetFromComplex(batch * b_size + i, X[i]);
  }
  return out;
}

// In-place 1-D DFT along `axis` of a dense complex array with dims `dims`.
void DftAxis(std::vector<cd>* data, const std::vector<int64_t>& dims, size_t axis, bool inverse) {
  const int64_t n = dims[axis];
  if (n == 0) return;
  std::vector<int64_t> outer = dims;
  outer[axis] = 1;
  std::vector<int64_t> idx;
  std::vector<cd> line(n), result(n);
  ForEachIndex(outer, [&](const std::vector<int64_t>& o) {
    idx = o;
    for (int64_t k = 0; k < n; ++k) {
      idx[axis] = k;
      line[k] = (*data)[LinearIndex(dims, idx)];
    }
    const double sign = inverse ? 1.0 : -1.0;
    for (int64_t k = 0; k < n; ++k) {
      cd sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        double angle = sign * 2.0 * M_PI * static_cast<double>((j * k) % n) / static_cast<double>(n);
        sum += line[j] * cd(std::cos(angle), std::sin(angle));
      }
      result[k] = inverse ? sum / static_cast<double>(n) : sum;
    }
    for (int64_t k = 0; k < n; ++k) {
      idx[axis] = k;
      (*data)[LinearIndex(dims, idx)] = result[k];
    }
  });
}

Literal Fft(const HloInstruction& instr, const Literal& in) {
  const auto& len = instr.fft_length();
  const size_t rank = in.shape().rank();
  const size_t first_axis = rank - len.size();
  const FftType type = instr.fft_type();
  Literal out(instr.shape());
  // Work on the full (un-halved) complex array.
  std::vector<int64_t> dims = in.shape().dimensions();
  dims.back() = len.back();
  int64_t full_count = 1;
  for (int64_t x : dims) full_count *= x;
  std::vector<cd> data(full_count);
  const auto& in_dims = in.shape().dimensions();
  if (type == FftType::kIrfft) {
    // numpy's irfftn: inverse DFT over the leading fft axes on the half
    // spectrum, then a Hermitian c2r transform along the last axis.
    std::vector<cd> half(in.element_count());
    for (int64_t i = 0; i < in.element_count(); ++i) half[i] = in.GetAsComplex(i);
    for (size_t ax = first_axis; ax + 1 < rank; ++ax) DftAxis(&half, in_dims, ax, true);
    const int64_t n = len.back(), h = in_dims.back();
    ForEachIndex(dims, [&](const std::vector<int64_t>& o) {
      std::vector<int64_t> src = o;
      int64_t k = o.back();
      bool conj = k >= h;
      if (conj) src.back() = (n - k) % n;
      cd v = src.back() < h ? half[LinearIndex(in_dims, src)] : cd(0);
      data[LinearIndex(dims, o)] = conj ? std::conj(v) : v;
    });
    DftAxis(&data, dims, rank - 1, true);
    for (int64_t i = 0; i < out.element_count(); ++i) out.SetFromDouble(i, data[i].real());
    return out;
  }
  for (int64_t i = 0; i < in.element_count(); ++i) data[i] = in.GetAsComplex(i);
  const bool inverse = type == FftType::kIfft;
  for (size_t ax = first_axis; ax < rank; ++ax) DftAxis(&data, dims, ax, inverse);
  if (type == FftType::kRfft) {
    const auto& od = instr.shape().dimensions();
    ForEachIndex(od, [&](const std::vector<int64_t>& o) {
      out.SetFromComplex(LinearIndex(od, o), data[LinearIndex(dims, o)]);
    });
  } else {
    for (int64_t i = 0; i < out.element_count(); ++i) out.SetFromComplex(i, data[i]);
  }
  return out;
}

}  // namespace

StatusOr<Literal> EvalLinalg(const HloInstruction& instr, const std::vector<const Literal*>& ops) {
  switch (instr.opcode()) {
    case HloOpcode::kDot: return Dot(instr, *ops[0], *ops[1]);
    case HloOpcode::kConvolution: return Convolution(instr, *ops[0], *ops[1]);
    case HloOpcode::kCholesky: return Cholesky(instr, *ops[0]);
    case HloOpcode::kTriangularSolve: return TriangularSolve(instr, *ops[0], *ops[1]);
    case HloOpcode::kFft: return Fft(instr, *ops[0]);
    default:
      return Unimplemented("evaluator: " + std::string(HloOpcodeString(instr.opcode())));
  }
}

}  // namespace xla::eval
