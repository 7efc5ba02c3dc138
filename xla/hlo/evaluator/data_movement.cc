// Ops that move elements without arithmetic: broadcast, reshape, transpose,
// reverse, slice, dynamic-slice, dynamic-update-slice, concatenate, pad,
// iota, gather. Everything works on raw elements via CopyElement, so one
// implementation serves every element type.
#include <algorithm>
#include <cstring>

#include "xla/hlo/evaluator/evaluator_internal.h"
#include "xla/hlo/ir/instruction.h"

namespace xla::eval {
namespace {

int64_t Clamp(int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); }

Literal Gather(const HloInstruction& instr, const Literal& operand, const Literal& indices) {
  Literal out(instr.shape());
  const GatherDimensionNumbers& g = instr.gather_dimension_numbers();
  const auto& sizes = instr.gather_slice_sizes();
  const Shape& os = operand.shape();
  const Shape& is = indices.shape();
  const int out_rank = instr.shape().rank();
  std::vector<bool> is_offset(out_rank, false);
  for (int64_t d : g.offset_dims) is_offset[d] = true;
  // Operand dims that appear in the offset part of the output, in order.
  std::vector<bool> dropped(os.rank(), false);
  for (int64_t d : g.collapsed_slice_dims) dropped[d] = true;
  for (int64_t d : g.operand_batching_dims) dropped[d] = true;
  std::vector<int64_t> window_dims;
  for (int d = 0; d < os.rank(); ++d) if (!dropped[d]) window_dims.push_back(d);
  const bool implicit_vector = g.index_vector_dim == is.rank();
  auto batch_pos = [&](int64_t indices_dim) {
    return indices_dim < g.index_vector_dim ? indices_dim : indices_dim - 1;
  };
  std::vector<int64_t> batch(out_rank), offset, in_index(os.rank()), idx_index(is.rank());
  ForEachIndex(instr.shape().dimensions(), [&](const std::vector<int64_t>& o) {
    batch.clear();
    offset.clear();
    for (int d = 0; d < out_rank; ++d) (is_offset[d] ? offset : batch).push_back(o[d]);
    std::fill(in_index.begin(), in_index.end(), 0);
    // Start indices from the index vector at this batch position.
    for (size_t k = 0; k < g.start_index_map.size(); ++k) {
      int b = 0;
      for (int j = 0; j < is.rank(); ++j) {
        idx_index[j] = (!implicit_vector && j == g.index_vector_dim) ? static_cast<int64_t>(k) : batch[b++];
      }
      in_index[g.start_index_map[k]] = indices.GetAsInt64(LinearIndex(is.dimensions(), idx_index));
    }
    for (size_t i = 0; i < g.operand_batching_dims.size(); ++i) {
      in_index[g.operand_batching_dims[i]] = batch[batch_pos(g.start_indices_batching_dims[i])];
    }
    for (int d = 0; d < os.rank(); ++d) in_index[d] = Clamp(in_index[d], 0, os.dimensions(d) - sizes[d]);
    for (size_t k = 0; k < window_dims.size(); ++k) in_index[window_dims[k]] += offset[k];
    CopyElement(operand, LinearIndex(os.dimensions(), in_index), &out,
                LinearIndex(instr.shape().dimensions(), o));
  });
  return out;
}

}  // namespace

StatusOr<Literal> EvalDataMovement(const HloInstruction& instr, const std::vector<const Literal*>& ops) {
  const Shape& shape = instr.shape();
  const std::vector<int64_t>& out_dims = shape.dimensions();
  Literal out(shape);
  switch (instr.opcode()) {
    case HloOpcode::kReshape: case HloOpcode::kBitcast: case HloOpcode::kCopy:
      if (out.size_bytes() > 0) std::memcpy(out.mutable_untyped_data(), ops[0]->untyped_data(), out.size_bytes());
      return out;
    case HloOpcode::kBroadcast: {
      const Literal& in = *ops[0];
      std::vector<int64_t> in_index(in.shape().rank());
      ForEachIndex(out_dims, [&](const std::vector<int64_t>& o) {
        for (size_t k = 0; k < in_index.size(); ++k) in_index[k] = o[instr.dimensions(k)];
        CopyElement(in, LinearIndex(in.shape().dimensions(), in_index), &out, LinearIndex(out_dims, o));
      });
      return out;
    }
    case HloOpcode::kTranspose: {
      const Literal& in = *ops[0];
      std::vector<int64_t> in_index(in.shape().rank());
      ForEachIndex(out_dims, [&](const std::vector<int64_t>& o) {
        for (size_t k = 0; k < o.size(); ++k) in_index[instr.dimensions(k)] = o[k];
        CopyElement(in, LinearIndex(in.shape().dimensions(), in_index), &out, LinearIndex(out_dims, o));
      });
      return out;
    }
    case HloOpcode::kReverse: {
      const Literal& in = *ops[0];
      std::vector<int64_t> in_index;
      ForEachIndex(out_dims, [&](const std::vector<int64_t>& o) {
        in_index = o;
        for (int64_t d : instr.dimensions()) in_index[d] = out_dims[d] - 1 - o[d];
        CopyElement(in, LinearIndex(out_dims, in_index), &out, LinearIndex(out_dims, o));
      });
      return out;
    }
    case HloOpcode::kSlice: {
      const Literal& in = *ops[0];
      std::vector<int64_t> in_index(out_dims.size());
      ForEachIndex(out_dims, [&](const std::vector<int64_t>& o) {
        for (size_t k = 0; k < o.size(); ++k) {
          in_index[k] = instr.slice_starts()[k] + o[k] * instr.slice_strides()[k];
        }
        CopyElement(in, LinearIndex(in.shape().dimensions(), in_index), &out, LinearIndex(out_dims, o));
      });
      return out;
    }
    case HloOpcode::kDynamicSlice: case HloOpcode::kDynamicUpdateSlice: {
      const bool update = instr.opcode() == HloOpcode::kDynamicUpdateSlice;
      const Literal& in = *ops[0];
      const std::vector<int64_t>& in_dims = in.shape().dimensions();
      const std::vector<int64_t>& window = update ? ops[1]->shape().dimensions() : out_dims;
      const size_t first = update ? 2 : 1;
      std::vector<int64_t> start(in_dims.size());
      for (size_t k = 0; k < start.size(); ++k) {
        // Starts are clamped so the window stays inside the operand.
        start[k] = Clamp(ScalarIndex(*ops[first + k]), 0, in_dims[k] - window[k]);
      }
      std::vector<int64_t> in_index(in_dims.size());
      if (update) {
        out = in;
        ForEachIndex(window, [&](const std::vector<int64_t>& u) {
          for (size_t k = 0; k < u.size(); ++k) in_index[k] = start[k] + u[k];
          CopyElement(*ops[1], LinearIndex(window, u), &out, LinearIndex(in_dims, in_index));
        });
      } else {
        ForEachIndex(out_dims, [&](const std::vector<int64_t>& o) {
          for (size_t k = 0; k < o.size(); ++k) in_index[k] = start[k] + o[k];
          CopyElement(in, LinearIndex(in_dims, in_index), &out, LinearIndex(out_dims, o));
        });
      }
      return out;
    }
    case HloOpcode::kConcatenate: {
      const int64_t cd = instr.dimensions(0);
      int64_t base = 0;
      std::vector<int64_t> out_index;
      for (const Literal* in : ops) {
        const std::vector<int64_t>& in_dims = in->shape().dimensions();
        ForEachIndex(in_dims, [&](const std::vector<int64_t>& i) {
          out_index = i;
          out_index[cd] += base;
          CopyElement(*in, LinearIndex(in_dims, i), &out, LinearIndex(out_dims, out_index));
        });
        base += in_dims[cd];
      }
      return out;
    }
    case HloOpcode::kPad: {
      const Literal& in = *ops[0];
      for (int64_t i = 0; i < out.element_count(); ++i) CopyElement(*ops[1], 0, &out, i);
      const auto& pd = instr.padding_config().dimensions;
      std::vector<int64_t> out_index(out_dims.size());
      ForEachIndex(in.shape().dimensions(), [&](const std::vector<int64_t>& i) {
        for (size_t k = 0; k < i.size(); ++k) {
          out_index[k] = pd[k].edge_padding_low + i[k] * (pd[k].interior_padding + 1);
          if (out_index[k] < 0 || out_index[k] >= out_dims[k]) return;  // cut by negative padding
        }
        CopyElement(in, LinearIndex(in.shape().dimensions(), i), &out, LinearIndex(out_dims, out_index));
      });
      return out;
    }
    case HloOpcode::kIota: {
      const int64_t d = instr.iota_dimension();
      ForEachIndex(out_dims, [&](const std::vector<int64_t>& o) {
        int64_t i = LinearIndex(out_dims, o);
        if (IsFloatingPoint(shape.element_type()) || IsComplex(shape.element_type())) {
          out.SetFromDouble(i, static_cast<double>(o[d]));
        } else {
          out.SetFromInt64(i, o[d]);
        }
      });
      return out;
    }
    case HloOpcode::kGather:
      return Gather(instr, *ops[0], *ops[1]);
    default:
      return Unimplemented("evaluator: " + std::string(HloOpcodeString(instr.opcode())));
  }
}

}  // namespace xla::eval
