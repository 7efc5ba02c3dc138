#include "xla/passes/constant_folding.h"

#include <vector>

#include "xla/hlo/evaluator/evaluator.h"

namespace xla {
namespace {

bool Foldable(const HloInstruction* instr) {
  switch (instr->opcode()) {
    case HloOpcode::kConstant: case HloOpcode::kParameter: case HloOpcode::kWhile:
    case HloOpcode::kBroadcast: case HloOpcode::kIota: case HloOpcode::kTuple:
      return false;
    default:
      break;
  }
  if (HasSideEffect(instr->opcode()) || !instr->shape().IsArray() ||
      instr->shape().element_count() > HloConstantFolding::kMaxElements) {
    return false;
  }
  for (const HloInstruction* op : instr->operands()) {
    if (op->opcode() != HloOpcode::kConstant) return false;
  }
  return true;
}

}  // namespace

StatusOr<bool> HloConstantFolding::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* comp : module->computations()) {
    bool folded = false;
    // Post order: an instruction's operands are folded before it is visited,
    // so whole constant chains fold in one run.
    for (HloInstruction* instr : comp->MakeInstructionPostOrder()) {
      if (!Foldable(instr)) continue;
      std::vector<const Literal*> operands;
      for (const HloInstruction* op : instr->operands()) operands.push_back(&op->literal());
      StatusOr<Literal> value = EvaluateInstruction(*instr, operands);
      if (!value.ok()) continue;  // not implemented by the evaluator: leave it
      auto constant = HloInstruction::CreateConstant(std::move(value).value(), instr->name());
      *constant->mutable_shape() = instr->shape();  // keep the layout
      HloInstruction* replacement = comp->AddInstruction(std::move(constant));
      RETURN_IF_ERROR(instr->ReplaceAllUsesWith(replacement));
      RETURN_IF_ERROR(comp->RemoveInstruction(instr));
      folded = true;
    }
    if (folded) comp->SortInstructionsInPostOrder();  // the constants were appended
    changed |= folded;
  }
  return changed;
}

}  // namespace xla
