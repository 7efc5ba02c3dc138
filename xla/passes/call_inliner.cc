#include "xla/passes/call_inliner.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "xla/passes/name_uniquer.h"

namespace xla {
namespace {

// Calls nest no deeper than this; deeper means a cycle the verifier missed.
constexpr int kMaxRounds = 64;

// Copies the callee's instructions in front of `call` and makes the call's
// users use the copy of the callee's root.
Status InlineCall(HloInstruction* call, NameUniquer* names) {
  HloComputation* caller = call->parent();
  const HloComputation* callee = call->to_apply();
  if (callee == nullptr) return InvalidArgument("call " + call->name() + " has no computation");
  if (callee->num_parameters() != call->operand_count()) {
    return InvalidArgument("call " + call->name() + " passes " +
                           std::to_string(call->operand_count()) + " operands to " +
                           callee->name() + ", which takes " +
                           std::to_string(callee->num_parameters()));
  }
  std::unordered_map<const HloInstruction*, HloInstruction*> copy;
  for (const HloInstruction* instr : callee->MakeInstructionPostOrder()) {
    if (instr->opcode() == HloOpcode::kParameter) {
      copy[instr] = call->operand(instr->parameter_number());
      continue;
    }
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* op : instr->operands()) operands.push_back(copy.at(op));
    copy[instr] = caller->AddInstruction(
        instr->CloneWithNewOperands(instr->shape(), std::move(operands),
                                    names->Unique(instr->name())));
  }
  RETURN_IF_ERROR(call->ReplaceAllUsesWith(copy.at(callee->root_instruction())));
  return caller->RemoveInstruction(call);
}

}  // namespace

StatusOr<bool> CallInliner::Run(HloModule* module) {
  bool changed = false;
  std::vector<HloComputation*> computations = module->computations();
  for (HloComputation* comp : computations) {
    NameUniquer names(*comp);
    // A callee's own calls were inlined first when it precedes its callers,
    // as parsed modules order them; the rounds cover any other order.
    for (int round = 0;; ++round) {
      std::vector<HloInstruction*> calls;
      for (HloInstruction* instr : comp->instructions()) {
        if (instr->opcode() == HloOpcode::kCall) calls.push_back(instr);
      }
      if (calls.empty()) break;
      if (round == kMaxRounds) {
        return InvalidArgument("calls in " + comp->name() + " nest deeper than " +
                               std::to_string(kMaxRounds) + " levels");
      }
      for (HloInstruction* call : calls) RETURN_IF_ERROR(InlineCall(call, &names));
      changed = true;
    }
    if (changed) comp->SortInstructionsInPostOrder();
  }
  changed |= module->RemoveUnreachableComputations();
  return changed;
}

}  // namespace xla
