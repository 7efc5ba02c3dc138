// The one place that decides which attributes each opcode prints, and in
// what order (the order JAX 0.10.2 output uses). The parser accepts
// attributes in any order, so this order only matters for byte-identical text.
#include "xla/hlo/ir/printer.h"

#include <string>

#include "xla/hlo/ir/module.h"

namespace xla {
namespace {

std::string Braced(const std::vector<int64_t>& v) { return "{" + JoinInts(v) + "}"; }

std::string QuoteString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

class AttrWriter {
 public:
  void Add(const std::string& name, const std::string& value) {
    out_ += ", " + name + "=" + value;
  }
  void AddInts(const std::string& name, const std::vector<int64_t>& v) { Add(name, Braced(v)); }
  void AddIntsIfAny(const std::string& name, const std::vector<int64_t>& v) {
    if (!v.empty()) AddInts(name, v);
  }
  void AddTrue(const std::string& name, bool v) {
    if (v) Add(name, "true");
  }
  void AddComputation(const std::string& name, const HloComputation* c) {
    Add(name, c ? c->name() : "<null>");
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

void AddCollectiveAttributes(const HloInstruction& instr, AttrWriter* w) {
  if (instr.channel_id()) w->Add("channel_id", std::to_string(*instr.channel_id()));
  if (instr.opcode() == HloOpcode::kCollectivePermute) return;  // uses source_target_pairs
  std::string groups = "{";
  for (size_t i = 0; i < instr.replica_groups().size(); ++i) {
    if (i > 0) groups += ",";
    groups += Braced(instr.replica_groups()[i]);
  }
  w->Add("replica_groups", groups + "}");
}

}  // namespace

std::string HloInstruction::AttributesToString() const {
  AttrWriter w;
  switch (opcode_) {
    case HloOpcode::kGetTupleElement:
      w.Add("index", std::to_string(tuple_index_));
      break;
    case HloOpcode::kBroadcast: case HloOpcode::kTranspose: case HloOpcode::kReverse:
    case HloOpcode::kConcatenate:
      w.AddInts("dimensions", dimensions_);
      break;
    case HloOpcode::kReduce: case HloOpcode::kMap:
      w.AddInts("dimensions", dimensions_);
      w.AddComputation("to_apply", to_apply());
      break;
    case HloOpcode::kSort:
      w.AddInts("dimensions", dimensions_);
      w.AddTrue("is_stable", is_stable_);
      w.AddComputation("to_apply", to_apply());
      break;
    case HloOpcode::kCompare:
      w.Add("direction", std::string(xla::ToString(comparison_direction_)));
      if (comparison_type_ != ComparisonType::kDefault) {
        w.Add("type", std::string(xla::ToString(comparison_type_)));
      }
      break;
    case HloOpcode::kSlice: {
      std::string s = "{";
      for (size_t i = 0; i < slice_starts_.size(); ++i) {
        if (i > 0) s += ", ";
        s += "[" + std::to_string(slice_starts_[i]) + ":" + std::to_string(slice_limits_[i]);
        if (slice_strides_[i] != 1) s += ":" + std::to_string(slice_strides_[i]);
        s += "]";
      }
      w.Add("slice", s + "}");
      break;
    }
    case HloOpcode::kIota:
      w.Add("iota_dimension", std::to_string(iota_dimension_));
      break;
    case HloOpcode::kDynamicSlice:
      w.AddInts("dynamic_slice_sizes", dynamic_slice_sizes_);
      break;
    case HloOpcode::kPad:
      w.Add("padding", padding_config_.ToString());
      break;
    case HloOpcode::kReduceWindow:
      w.Add("window", window_.ToString());
      w.AddComputation("to_apply", to_apply());
      break;
    case HloOpcode::kSelectAndScatter:
      w.Add("window", window_.ToString());
      w.AddComputation("select", select());
      w.AddComputation("scatter", scatter());
      break;
    case HloOpcode::kConvolution:
      if (has_window_) w.Add("window", window_.ToString());
      w.Add("dim_labels", conv_dims_.ToString());
      if (feature_group_count_ != 1) w.Add("feature_group_count", std::to_string(feature_group_count_));
      if (batch_group_count_ != 1) w.Add("batch_group_count", std::to_string(batch_group_count_));
      break;
    case HloOpcode::kDot:
      w.AddIntsIfAny("lhs_batch_dims", dot_dims_.lhs_batch_dimensions);
      w.AddIntsIfAny("lhs_contracting_dims", dot_dims_.lhs_contracting_dimensions);
      w.AddIntsIfAny("rhs_batch_dims", dot_dims_.rhs_batch_dimensions);
      w.AddIntsIfAny("rhs_contracting_dims", dot_dims_.rhs_contracting_dimensions);
      break;
    case HloOpcode::kGather:
      w.AddInts("offset_dims", gather_dims_.offset_dims);
      w.AddInts("collapsed_slice_dims", gather_dims_.collapsed_slice_dims);
      w.AddInts("start_index_map", gather_dims_.start_index_map);
      w.AddIntsIfAny("operand_batching_dims", gather_dims_.operand_batching_dims);
      w.AddIntsIfAny("start_indices_batching_dims", gather_dims_.start_indices_batching_dims);
      w.Add("index_vector_dim", std::to_string(gather_dims_.index_vector_dim));
      w.AddInts("slice_sizes", gather_slice_sizes_);
      w.AddTrue("indices_are_sorted", indices_are_sorted_);
      break;
    case HloOpcode::kScatter:
      w.AddInts("update_window_dims", scatter_dims_.update_window_dims);
      w.AddInts("inserted_window_dims", scatter_dims_.inserted_window_dims);
      w.AddInts("scatter_dims_to_operand_dims", scatter_dims_.scatter_dims_to_operand_dims);
      w.AddIntsIfAny("input_batching_dims", scatter_dims_.input_batching_dims);
      w.AddIntsIfAny("scatter_indices_batching_dims", scatter_dims_.scatter_indices_batching_dims);
      w.Add("index_vector_dim", std::to_string(scatter_dims_.index_vector_dim));
      w.AddTrue("indices_are_sorted", indices_are_sorted_);
      w.AddTrue("unique_indices", unique_indices_);
      w.AddComputation("to_apply", to_apply());
      break;
    case HloOpcode::kCall:
      w.AddComputation("to_apply", to_apply());
      break;
    case HloOpcode::kWhile:
      w.AddComputation("condition", while_condition());
      w.AddComputation("body", while_body());
      break;
    case HloOpcode::kConditional: {
      bool pred_form = !operands_.empty() && operands_[0]->shape().element_type() == PrimitiveType::PRED &&
                       called_computations_.size() == 2;
      if (pred_form) {
        w.AddComputation("true_computation", called_computations_[0]);
        w.AddComputation("false_computation", called_computations_[1]);
      } else {
        std::string s = "{";
        for (size_t i = 0; i < called_computations_.size(); ++i) {
          if (i > 0) s += ", ";
          s += called_computations_[i]->name();
        }
        w.Add("branch_computations", s + "}");
      }
      break;
    }
    case HloOpcode::kFft:
      w.Add("fft_type", std::string(xla::ToString(fft_type_)));
      w.AddInts("fft_length", fft_length_);
      break;
    case HloOpcode::kRngBitGenerator:
      w.Add("algorithm", std::string(xla::ToString(rng_algorithm_)));
      break;
    case HloOpcode::kRng:
      w.Add("distribution", std::string(xla::ToString(rng_distribution_)));
      break;
    case HloOpcode::kTriangularSolve:
      w.AddTrue("left_side", tri_options_.left_side);
      w.AddTrue("lower", tri_options_.lower);
      w.AddTrue("unit_diagonal", tri_options_.unit_diagonal);
      w.Add("transpose_a", std::string(xla::ToString(tri_options_.transpose_a)));
      break;
    case HloOpcode::kCholesky:
      w.AddTrue("lower", cholesky_lower_);
      break;
    case HloOpcode::kReducePrecision:
      w.Add("exponent_bits", std::to_string(exponent_bits_));
      w.Add("mantissa_bits", std::to_string(mantissa_bits_));
      break;
    case HloOpcode::kTopK:
      w.Add("k", std::to_string(k_));
      w.Add("largest", largest_ ? "true" : "false");
      break;
    case HloOpcode::kCustomCall:
      w.Add("custom_call_target", QuoteString(custom_call_target_));
      w.AddTrue("custom_call_has_side_effect", custom_call_has_side_effect_);
      if (!api_version_.empty()) w.Add("api_version", api_version_);
      if (!called_computations_.empty()) {
        std::string s = "{";
        for (size_t i = 0; i < called_computations_.size(); ++i) {
          s += (i ? ", " : "") + called_computations_[i]->name();
        }
        w.Add("called_computations", s + "}");
      }
      break;
    case HloOpcode::kFusion:
      w.Add("kind", fusion_kind_);
      w.AddComputation("calls", to_apply());
      break;
    case HloOpcode::kAllReduce: case HloOpcode::kReduceScatter:
      AddCollectiveAttributes(*this, &w);
      if (opcode_ == HloOpcode::kReduceScatter) w.AddInts("dimensions", dimensions_);
      w.AddTrue("use_global_device_ids", use_global_device_ids_);
      w.AddComputation("to_apply", to_apply());
      break;
    case HloOpcode::kAllGather: case HloOpcode::kAllToAll:
      AddCollectiveAttributes(*this, &w);
      if (!dimensions_.empty()) w.AddInts("dimensions", dimensions_);
      w.AddTrue("use_global_device_ids", use_global_device_ids_);
      break;
    case HloOpcode::kCollectivePermute: {
      AddCollectiveAttributes(*this, &w);
      std::string s = "{";
      for (size_t i = 0; i < source_target_pairs_.size(); ++i) {
        if (i > 0) s += ",";
        s += "{" + std::to_string(source_target_pairs_[i].first) + "," +
             std::to_string(source_target_pairs_[i].second) + "}";
      }
      w.Add("source_target_pairs", s + "}");
      break;
    }
    default:
      break;
  }
  if ((opcode_ == HloOpcode::kDot || opcode_ == HloOpcode::kConvolution) &&
      !operand_precision_.empty()) {
    std::string s = "{";
    for (size_t i = 0; i < operand_precision_.size(); ++i) s += (i ? "," : "") + operand_precision_[i];
    w.Add("operand_precision", s + "}");
  }
  if (!backend_config_.empty()) w.Add("backend_config", QuoteString(backend_config_));
  return w.Take();
}

std::string HloInstruction::ToString() const {
  std::string out = name_ + " = " + shape_.ToString() + " " + std::string(HloOpcodeString(opcode_)) + "(";
  if (opcode_ == HloOpcode::kParameter) {
    out += std::to_string(parameter_number_);
  } else if (opcode_ == HloOpcode::kConstant) {
    out += literal().ToStringWithoutShape();
  } else {
    for (size_t i = 0; i < operands_.size(); ++i) {
      if (i > 0) out += ", ";
      out += operands_[i]->name();
    }
  }
  return out + ")" + AttributesToString();
}

std::string HloComputation::ToString() const {
  std::string out;
  if (parent_ != nullptr && parent_->entry_computation() == this) out += "ENTRY ";
  out += name_ + " {\n";
  for (const HloInstruction* instr : MakeInstructionPostOrder()) {
    out += instr == root_ ? "  ROOT " : "  ";
    out += instr->ToString() + "\n";
  }
  return out + "}\n";
}

std::string HloModule::ToString() const {
  std::string out = "HloModule " + name_;
  // XLA's order: aliasing first, then the entry layout.
  if (!aliases_.empty()) {
    out += ", input_output_alias={ ";
    for (size_t i = 0; i < aliases_.size(); ++i) {
      const InputOutputAlias& a = aliases_[i];
      if (i > 0) out += ", ";
      out += Braced(a.output_index) + ": (" + std::to_string(a.parameter_number) + ", " +
             Braced(a.parameter_index) + ", " + (a.must_alias ? "must-alias" : "may-alias") + ")";
    }
    out += " }";
  }
  if (!donors_.empty()) {
    out += ", buffer_donor={ ";
    for (size_t i = 0; i < donors_.size(); ++i) {
      if (i > 0) out += ", ";
      out += "(" + std::to_string(donors_[i].parameter_number) + ", " +
             Braced(donors_[i].parameter_index) + ")";
    }
    out += " }";
  }
  if (layout_) out += ", entry_computation_layout={" + layout_->ToString() + "}";
  if (config_.replica_count != 1) out += ", replica_count=" + std::to_string(config_.replica_count);
  if (config_.num_partitions != 1) out += ", num_partitions=" + std::to_string(config_.num_partitions);
  out += "\n";
  for (const HloComputation* c : computations_) out += "\n" + c->ToString();
  return out + "\n";
}

std::string ToString(const HloModule& module) { return module.ToString(); }
std::string ToString(const HloComputation& computation) { return computation.ToString(); }
std::string ToString(const HloInstruction& instruction) { return instruction.ToString(); }

}  // namespace xla
