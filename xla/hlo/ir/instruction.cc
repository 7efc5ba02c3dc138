#include "xla/hlo/ir/instruction.h"

#include <algorithm>

#include "xla/hlo/ir/computation.h"

namespace xla {

HloInstruction::~HloInstruction() = default;

std::unique_ptr<HloInstruction> HloInstruction::Create(HloOpcode opcode, const Shape& shape,
                                                       std::vector<HloInstruction*> operands,
                                                       std::string name) {
  std::unique_ptr<HloInstruction> instr(new HloInstruction(opcode, shape));
  instr->name_ = std::move(name);
  for (HloInstruction* op : operands) instr->AppendOperand(op);
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateParameter(int64_t number, const Shape& shape,
                                                                std::string name) {
  auto instr = Create(HloOpcode::kParameter, shape, {}, std::move(name));
  instr->parameter_number_ = number;
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateConstant(Literal literal, std::string name) {
  auto instr = Create(HloOpcode::kConstant, literal.shape(), {}, std::move(name));
  instr->set_literal(std::move(literal));
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateGetTupleElement(HloInstruction* tuple,
                                                                      int64_t index,
                                                                      std::string name) {
  Shape shape = tuple->shape().tuple_shapes(static_cast<int>(index));
  auto instr = Create(HloOpcode::kGetTupleElement, shape, {tuple}, std::move(name));
  instr->tuple_index_ = index;
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CloneWithNewOperands(
    const Shape& shape, std::vector<HloInstruction*> operands, std::string name) const {
  auto c = Create(opcode_, shape, std::move(operands), std::move(name));
  c->called_computations_ = called_computations_;
  c->parameter_number_ = parameter_number_;
  c->tuple_index_ = tuple_index_;
  if (literal_) c->literal_ = std::make_unique<Literal>(*literal_);
  c->dimensions_ = dimensions_;
  c->slice_starts_ = slice_starts_;
  c->slice_limits_ = slice_limits_;
  c->slice_strides_ = slice_strides_;
  c->dynamic_slice_sizes_ = dynamic_slice_sizes_;
  c->padding_config_ = padding_config_;
  c->window_ = window_;
  c->has_window_ = has_window_;
  c->dot_dims_ = dot_dims_;
  c->conv_dims_ = conv_dims_;
  c->feature_group_count_ = feature_group_count_;
  c->batch_group_count_ = batch_group_count_;
  c->operand_precision_ = operand_precision_;
  c->gather_dims_ = gather_dims_;
  c->gather_slice_sizes_ = gather_slice_sizes_;
  c->scatter_dims_ = scatter_dims_;
  c->indices_are_sorted_ = indices_are_sorted_;
  c->unique_indices_ = unique_indices_;
  c->comparison_direction_ = comparison_direction_;
  c->comparison_type_ = comparison_type_;
  c->iota_dimension_ = iota_dimension_;
  c->fft_type_ = fft_type_;
  c->fft_length_ = fft_length_;
  c->rng_algorithm_ = rng_algorithm_;
  c->rng_distribution_ = rng_distribution_;
  c->custom_call_target_ = custom_call_target_;
  c->backend_config_ = backend_config_;
  c->custom_call_has_side_effect_ = custom_call_has_side_effect_;
  c->api_version_ = api_version_;
  c->fusion_kind_ = fusion_kind_;
  c->is_stable_ = is_stable_;
  c->k_ = k_;
  c->largest_ = largest_;
  c->tri_options_ = tri_options_;
  c->cholesky_lower_ = cholesky_lower_;
  c->exponent_bits_ = exponent_bits_;
  c->mantissa_bits_ = mantissa_bits_;
  c->replica_groups_ = replica_groups_;
  c->channel_id_ = channel_id_;
  c->use_global_device_ids_ = use_global_device_ids_;
  c->source_target_pairs_ = source_target_pairs_;
  return c;
}

const Literal& HloInstruction::literal() const {
  static const Literal* const kEmpty = new Literal();
  return literal_ ? *literal_ : *kEmpty;
}

void HloInstruction::set_literal(Literal literal) {
  literal_ = std::make_unique<Literal>(std::move(literal));
}

void HloInstruction::set_slice(std::vector<SliceDimension> dims) {
  slice_starts_.clear();
  slice_limits_.clear();
  slice_strides_.clear();
  for (const SliceDimension& d : dims) {
    slice_starts_.push_back(d.start);
    slice_limits_.push_back(d.limit);
    slice_strides_.push_back(d.stride);
  }
}

void HloInstruction::AddUser(HloInstruction* user) {
  if (std::find(users_.begin(), users_.end(), user) == users_.end()) users_.push_back(user);
}

void HloInstruction::RemoveUser(HloInstruction* user) {
  auto it = std::find(users_.begin(), users_.end(), user);
  if (it != users_.end()) users_.erase(it);
}

void HloInstruction::AppendOperand(HloInstruction* operand) {
  operands_.push_back(operand);
  operand->AddUser(this);
}

void HloInstruction::ReplaceOperandWith(int64_t i, HloInstruction* new_operand) {
  HloInstruction* old = operands_[i];
  if (old == new_operand) return;
  operands_[i] = new_operand;
  new_operand->AddUser(this);
  // `old` stays a user-of relation only if another operand slot still uses it.
  if (std::find(operands_.begin(), operands_.end(), old) == operands_.end()) old->RemoveUser(this);
}

Status HloInstruction::ReplaceAllUsesWith(HloInstruction* replacement) {
  if (replacement == this) return OkStatus();
  if (!shape_.Compatible(replacement->shape())) {
    return InvalidArgument("cannot replace " + name_ + " (" + shape_.ToString() + ") with " +
                           replacement->name() + " (" + replacement->shape().ToString() +
                           "): shapes differ");
  }
  std::vector<HloInstruction*> users = users_;
  for (HloInstruction* user : users) {
    for (int64_t i = 0; i < user->operand_count(); ++i) {
      if (user->operands_[i] == this) user->ReplaceOperandWith(i, replacement);
    }
  }
  if (parent_ != nullptr && parent_->root_instruction() == this) {
    parent_->set_root_instruction(replacement);
  }
  return OkStatus();
}

void HloInstruction::DetachFromOperands() {
  for (HloInstruction* op : operands_) op->RemoveUser(this);
  operands_.clear();
}

bool HloInstruction::IdenticalIgnoringName(const HloInstruction& other) const {
  if (opcode_ != other.opcode_ || !(shape_ == other.shape_) || operands_ != other.operands_ ||
      called_computations_ != other.called_computations_ ||
      parameter_number_ != other.parameter_number_) {
    return false;
  }
  if (opcode_ == HloOpcode::kConstant && !(literal() == other.literal())) return false;
  // Every other attribute is printed by AttributesToString, so equal text
  // means equal attributes; one definition of "the attributes" to maintain.
  return AttributesToString() == other.AttributesToString();
}

}  // namespace xla
