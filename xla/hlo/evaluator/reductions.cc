// Ops that apply a called computation across elements: reduce,
// reduce-window, select-and-scatter, scatter, sort; plus topk.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "xla/hlo/evaluator/evaluator_internal.h"
#include "xla/hlo/ir/instruction.h"

namespace xla::eval {
namespace {

Literal ScalarOf(const Literal& l, int64_t i) {
  Literal s(Shape::Scalar(l.shape().element_type()));
  CopyElement(l, i, &s, 0);
  return s;
}

// Applies a (2n)-ary scalar computation. Recognizes the common
// "ROOT op(p0, p1)" reducer and computes it directly instead of
// interpreting the computation for every element.
class Reducer {
 public:
  Reducer(const HloComputation* comp, const CallFn& call) : comp_(comp), call_(call) {
    const HloInstruction* root = comp->root_instruction();
    if (comp->num_parameters() == 2 && IsElementwiseBinary(root->opcode()) &&
        root->opcode() != HloOpcode::kCompare && root->operand_count() == 2 &&
        root->operand(0)->opcode() == HloOpcode::kParameter &&
        root->operand(1)->opcode() == HloOpcode::kParameter &&
        root->operand(0) != root->operand(1)) {
      fast_op_ = root->opcode();
      swapped_ = root->operand(0)->parameter_number() == 1;
    }
  }

  // accs and vals are n scalars each; returns n scalars.
  StatusOr<std::vector<Literal>> Apply(const std::vector<Literal>& accs, const std::vector<Literal>& vals) {
    if (fast_op_) {
      ASSIGN_OR_RETURN(Literal r, swapped_ ? EvalScalarBinary(*fast_op_, vals[0], accs[0], nullptr)
                                           : EvalScalarBinary(*fast_op_, accs[0], vals[0], nullptr));
      std::vector<Literal> out;
      out.push_back(std::move(r));
      return out;
    }
    std::vector<const Literal*> args;
    for (const Literal& a : accs) args.push_back(&a);
    for (const Literal& v : vals) args.push_back(&v);
    ASSIGN_OR_RETURN(Literal r, call_(*comp_, args));
    if (r.IsTuple()) return std::move(*r.mutable_tuple_elements());
    std::vector<Literal> out;
    out.push_back(std::move(r));
    return out;
  }

 private:
  const HloComputation* comp_;
  const CallFn& call_;
  std::optional<HloOpcode> fast_op_;
  bool swapped_ = false;
};

Literal PackResults(const Shape& shape, std::vector<Literal> outs) {
  if (!shape.IsTuple()) return std::move(outs[0]);
  return Literal::MakeTuple(std::move(outs));
}

StatusOr<Literal> Reduce(const HloInstruction& instr, const std::vector<const Literal*>& ops,
                         const CallFn& call) {
  const size_t n = ops.size() / 2;
  const Shape& in_shape = ops[0]->shape();
  std::vector<Shape> out_shapes = instr.shape().IsTuple() ? instr.shape().tuple_shapes()
                                                          : std::vector<Shape>{instr.shape()};
  std::vector<Literal> outs;
  for (size_t k = 0; k < n; ++k) {
    outs.emplace_back(out_shapes[k]);
    for (int64_t i = 0; i < outs[k].element_count(); ++i) CopyElement(*ops[n + k], 0, &outs[k], i);
  }
  std::vector<bool> reduced(in_shape.rank(), false);
  for (int64_t d : instr.dimensions()) reduced[d] = true;
  Reducer reducer(instr.to_apply(), call);
  std::vector<int64_t> out_index;
  Status status;
  std::vector<Literal> accs(n), vals(n);
  ForEachIndex(in_shape.dimensions(), [&](const std::vector<int64_t>& i) {
    if (!status.ok()) return;
    out_index.clear();
    for (int d = 0; d < in_shape.rank(); ++d) if (!reduced[d]) out_index.push_back(i[d]);
    int64_t oi = LinearIndex(out_shapes[0].dimensions(), out_index);
    int64_t ii = LinearIndex(in_shape.dimensions(), i);
    for (size_t k = 0; k < n; ++k) {
      accs[k] = ScalarOf(outs[k], oi);
      vals[k] = ScalarOf(*ops[k], ii);
    }
    StatusOr<std::vector<Literal>> r = reducer.Apply(accs, vals);
    if (!r.ok()) { status = r.status(); return; }
    for (size_t k = 0; k < n; ++k) CopyElement((*r)[k], 0, &outs[k], oi);
  });
  RETURN_IF_ERROR(status);
  return PackResults(instr.shape(), std::move(outs));
}

// Visits the operand positions covered by window `o` (skipping padding and
// the holes of base dilation), calling fn(linear operand index).
void ForEachWindowElement(const Window& window, const std::vector<int64_t>& in_dims,
                          const std::vector<int64_t>& o, const std::function<void(int64_t)>& fn) {
  std::vector<int64_t> wdims;
  for (const WindowDimension& w : window.dimensions) wdims.push_back(w.size);
  std::vector<int64_t> pos(in_dims.size());
  ForEachIndex(wdims, [&](const std::vector<int64_t>& w) {
    for (size_t d = 0; d < in_dims.size(); ++d) {
      const WindowDimension& wd = window.dimensions[d];
      int64_t wi = wd.window_reversal ? wd.size - 1 - w[d] : w[d];
      int64_t p = o[d] * wd.stride + wi * wd.window_dilation - wd.padding_low;
      if (p < 0 || p % wd.base_dilation != 0) return;
      p /= wd.base_dilation;
      if (p >= in_dims[d]) return;
      pos[d] = p;
    }
    fn(LinearIndex(in_dims, pos));
  });
}

StatusOr<Literal> ReduceWindow(const HloInstruction& instr, const std::vector<const Literal*>& ops,
                               const CallFn& call) {
  const size_t n = ops.size() / 2;
  std::vector<Shape> out_shapes = instr.shape().IsTuple() ? instr.shape().tuple_shapes()
                                                          : std::vector<Shape>{instr.shape()};
  std::vector<Literal> outs;
  for (size_t k = 0; k < n; ++k) outs.emplace_back(out_shapes[k]);
  Reducer reducer(instr.to_apply(), call);
  Status status;
  const std::vector<int64_t>& in_dims = ops[0]->shape().dimensions();
  std::vector<Literal> accs(n), vals(n);
  ForEachIndex(out_shapes[0].dimensions(), [&](const std::vector<int64_t>& o) {
    for (size_t k = 0; k < n; ++k) accs[k] = ScalarOf(*ops[n + k], 0);
    ForEachWindowElement(instr.window(), in_dims, o, [&](int64_t ii) {
      if (!status.ok()) return;
      for (size_t k = 0; k < n; ++k) vals[k] = ScalarOf(*ops[k], ii);
      StatusOr<std::vector<Literal>> r = reducer.Apply(accs, vals);
      if (!r.ok()) { status = r.status(); return; }
      accs = std::move(*r);
    });
    int64_t oi = LinearIndex(out_shapes[0].dimensions(), o);
    for (size_t k = 0; k < n; ++k) CopyElement(accs[k], 0, &outs[k], oi);
  });
  RETURN_IF_ERROR(status);
  return PackResults(instr.shape(), std::move(outs));
}

StatusOr<Literal> SelectAndScatter(const HloInstruction& instr, const std::vector<const Literal*>& ops,
                                   const CallFn& call) {
  const Literal& operand = *ops[0];
  const Literal& source = *ops[1];
  Literal out(instr.shape());
  for (int64_t i = 0; i < out.element_count(); ++i) CopyElement(*ops[2], 0, &out, i);
  Reducer scatter(instr.scatter(), call);
  Status status;
  const std::vector<int64_t>& in_dims = operand.shape().dimensions();
  ForEachIndex(source.shape().dimensions(), [&](const std::vector<int64_t>& s) {
    int64_t selected = -1;
    ForEachWindowElement(instr.window(), in_dims, s, [&](int64_t ii) {
      if (!status.ok()) return;
      if (selected < 0) {
        selected = ii;
        return;
      }
      Literal a = ScalarOf(operand, selected), b = ScalarOf(operand, ii);
      StatusOr<Literal> keep = call(*instr.select(), {&a, &b});
      if (!keep.ok()) { status = keep.status(); return; }
      if (!keep->Get<bool>(0)) selected = ii;
    });
    if (selected < 0 || !status.ok()) return;
    std::vector<Literal> acc, val;
    acc.push_back(ScalarOf(out, selected));
    val.push_back(ScalarOf(source, LinearIndex(source.shape().dimensions(), s)));
    StatusOr<std::vector<Literal>> r = scatter.Apply(acc, val);
    if (!r.ok()) { status = r.status(); return; }
    CopyElement((*r)[0], 0, &out, selected);
  });
  RETURN_IF_ERROR(status);
  return out;
}

StatusOr<Literal> Scatter(const HloInstruction& instr, const std::vector<const Literal*>& ops,
                          const CallFn& call) {
  const size_t n = (ops.size() - 1) / 2;
  const Literal& indices = *ops[n];
  const ScatterDimensionNumbers& s = instr.scatter_dimension_numbers();
  std::vector<Literal> outs;
  for (size_t k = 0; k < n; ++k) outs.push_back(*ops[k]);
  const Shape& os = ops[0]->shape();
  const Shape& us = ops[n + 1]->shape();
  const Shape& is = indices.shape();
  std::vector<bool> is_window(us.rank(), false);
  for (int64_t d : s.update_window_dims) is_window[d] = true;
  std::vector<bool> not_window(os.rank(), false);
  for (int64_t d : s.inserted_window_dims) not_window[d] = true;
  for (int64_t d : s.input_batching_dims) not_window[d] = true;
  std::vector<int64_t> window_dims;
  for (int d = 0; d < os.rank(); ++d) if (!not_window[d]) window_dims.push_back(d);
  // Window extent per operand dimension, for the all-or-nothing bounds check.
  std::vector<int64_t> extent(os.rank(), 1);
  for (size_t k = 0; k < window_dims.size(); ++k) extent[window_dims[k]] = us.dimensions(s.update_window_dims[k]);
  const bool implicit_vector = s.index_vector_dim == is.rank();
  auto batch_pos = [&](int64_t d) { return d < s.index_vector_dim ? d : d - 1; };
  Reducer reducer(instr.to_apply(), call);
  Status status;
  std::vector<int64_t> batch, window, start(os.rank()), idx_index(is.rank()), in_index(os.rank());
  std::vector<Literal> accs(n), vals(n);
  ForEachIndex(us.dimensions(), [&](const std::vector<int64_t>& u) {
    if (!status.ok()) return;
    batch.clear();
    window.clear();
    for (int d = 0; d < us.rank(); ++d) (is_window[d] ? window : batch).push_back(u[d]);
    std::fill(start.begin(), start.end(), 0);
    for (size_t k = 0; k < s.scatter_dims_to_operand_dims.size(); ++k) {
      int b = 0;
      for (int j = 0; j < is.rank(); ++j) {
        idx_index[j] = (!implicit_vector && j == s.index_vector_dim) ? static_cast<int64_t>(k) : batch[b++];
      }
      start[s.scatter_dims_to_operand_dims[k]] = indices.GetAsInt64(LinearIndex(is.dimensions(), idx_index));
    }
    for (size_t i = 0; i < s.input_batching_dims.size(); ++i) {
      start[s.input_batching_dims[i]] = batch[batch_pos(s.scatter_indices_batching_dims[i])];
    }
    // Updates whose window does not fit in the operand are dropped.
    for (int d = 0; d < os.rank(); ++d) {
      if (start[d] < 0 || start[d] > os.dimensions(d) - extent[d]) return;
    }
    in_index = start;
    for (size_t k = 0; k < window_dims.size(); ++k) in_index[window_dims[k]] += window[k];
    int64_t oi = LinearIndex(os.dimensions(), in_index);
    int64_t ui = LinearIndex(us.dimensions(), u);
    for (size_t k = 0; k < n; ++k) {
      accs[k] = ScalarOf(outs[k], oi);
      vals[k] = ScalarOf(*ops[n + 1 + k], ui);
    }
    StatusOr<std::vector<Literal>> r = reducer.Apply(accs, vals);
    if (!r.ok()) { status = r.status(); return; }
    for (size_t k = 0; k < n; ++k) CopyElement((*r)[k], 0, &outs[k], oi);
  });
  RETURN_IF_ERROR(status);
  return PackResults(instr.shape(), std::move(outs));
}

StatusOr<Literal> Sort(const HloInstruction& instr, const std::vector<const Literal*>& ops,
                       const CallFn& call) {
  const std::vector<int64_t>& dims = ops[0]->shape().dimensions();
  const int64_t sd = instr.dimensions(0);
  std::vector<Literal> outs;
  for (const Literal* op : ops) outs.push_back(*op);
  std::vector<int64_t> row_dims = dims;
  row_dims[sd] = 1;
  Status status;
  ForEachIndex(row_dims, [&](const std::vector<int64_t>& r) {
    if (!status.ok()) return;
    std::vector<int64_t> pos(dims[sd]);
    std::iota(pos.begin(), pos.end(), 0);
    std::vector<int64_t> index = r;
    auto linear = [&](int64_t p) {
      index[sd] = p;
      return LinearIndex(dims, index);
    };
    // Comparator args: (op0[a], op0[b], op1[a], op1[b], ...).
    std::stable_sort(pos.begin(), pos.end(), [&](int64_t a, int64_t b) {
      if (!status.ok()) return false;
      std::vector<Literal> args;
      for (const Literal* op : ops) {
        args.push_back(ScalarOf(*op, linear(a)));
        args.push_back(ScalarOf(*op, linear(b)));
      }
      std::vector<const Literal*> ptrs;
      for (const Literal& l : args) ptrs.push_back(&l);
      StatusOr<Literal> less = call(*instr.to_apply(), ptrs);
      if (!less.ok()) { status = less.status(); return false; }
      return less->Get<bool>(0);
    });
    for (size_t k = 0; k < ops.size(); ++k) {
      for (int64_t p = 0; p < dims[sd]; ++p) {
        int64_t src = linear(pos[p]);
        CopyElement(*ops[k], src, &outs[k], linear(p));
      }
    }
  });
  RETURN_IF_ERROR(status);
  return PackResults(instr.shape(), std::move(outs));
}

StatusOr<Literal> TopK(const HloInstruction& instr, const Literal& in) {
  const std::vector<int64_t>& dims = in.shape().dimensions();
  const int64_t n = dims.back(), k = instr.k();
  const int64_t rows = n == 0 ? 0 : in.element_count() / n;
  Literal values(instr.shape().tuple_shapes(0)), indices(instr.shape().tuple_shapes(1));
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> pos(n);
    std::iota(pos.begin(), pos.end(), 0);
    // NaN counts as the largest value; ties keep the lower index first.
    auto key = [&](int64_t p) {
      double v = in.GetAsDouble(r * n + p);
      if (IsInteger(in.shape().element_type())) v = static_cast<double>(in.GetAsInt64(r * n + p));
      return v;
    };
    std::stable_sort(pos.begin(), pos.end(), [&](int64_t a, int64_t b) {
      double x = key(a), y = key(b);
      if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && !std::isnan(y);
      return instr.largest() ? x > y : x < y;
    });
    for (int64_t j = 0; j < k; ++j) {
      CopyElement(in, r * n + pos[j], &values, r * k + j);
      indices.Set<int32_t>(r * k + j, static_cast<int32_t>(pos[j]));
    }
  }
  std::vector<Literal> outs;
  outs.push_back(std::move(values));
  outs.push_back(std::move(indices));
  return Literal::MakeTuple(std::move(outs));
}

}  // namespace

StatusOr<Literal> EvalReduction(const HloInstruction& instr, const std::vector<const Literal*>& ops,
                                const CallFn& call) {
  switch (instr.opcode()) {
    case HloOpcode::kReduce: return Reduce(instr, ops, call);
    case HloOpcode::kReduceWindow: return ReduceWindow(instr, ops, call);
    case HloOpcode::kSelectAndScatter: return SelectAndScatter(instr, ops, call);
    case HloOpcode::kScatter: return Scatter(instr, ops, call);
    case HloOpcode::kSort: return Sort(instr, ops, call);
    case HloOpcode::kTopK: return TopK(instr, *ops[0]);
    default:
      return Unimplemented("evaluator: " + std::string(HloOpcodeString(instr.opcode())));
  }
}

}  // namespace xla::eval
