#include "xla/passes/dce.h"

#include <vector>

namespace xla {

namespace {
bool IsDead(const HloInstruction* instr) {
  return instr->user_count() == 0 && instr != instr->parent()->root_instruction() &&
         instr->opcode() != HloOpcode::kParameter && !HasSideEffect(instr->opcode());
}
}  // namespace

StatusOr<bool> HloDCE::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* comp : module->computations()) {
    // Users come after their operands in post order, so walking it backwards
    // frees whole dead chains in one sweep.
    std::vector<HloInstruction*> order = comp->MakeInstructionPostOrder();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      if (!IsDead(*it)) continue;
      RETURN_IF_ERROR(comp->RemoveInstruction(*it));
      changed = true;
    }
  }
  changed |= module->RemoveUnreachableComputations();
  return changed;
}

}  // namespace xla
