#include "xla/passes/cse.h"

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace xla {
namespace {

// A cheap hash over what IdenticalIgnoringName compares first; collisions
// are resolved by the full comparison.
size_t Hash(const HloInstruction* instr) {
  size_t h = static_cast<size_t>(instr->opcode());
  for (const HloInstruction* op : instr->operands()) {
    h = h * 31 + std::hash<const void*>()(op);
  }
  for (int64_t d : instr->shape().dimensions()) h = h * 31 + static_cast<size_t>(d);
  return h;
}

}  // namespace

StatusOr<bool> HloCSE::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* comp : module->computations()) {
    std::unordered_multimap<size_t, HloInstruction*> seen;
    // Post order: an instruction's operands are already canonical when it is
    // visited, so chains of duplicates collapse in one pass.
    for (HloInstruction* instr : comp->MakeInstructionPostOrder()) {
      if (instr->opcode() == HloOpcode::kParameter || HasSideEffect(instr->opcode())) continue;
      size_t h = Hash(instr);
      HloInstruction* twin = nullptr;
      auto range = seen.equal_range(h);
      for (auto it = range.first; it != range.second; ++it) {
        if (it->second->IdenticalIgnoringName(*instr)) {
          twin = it->second;
          break;
        }
      }
      if (twin == nullptr) {
        seen.emplace(h, instr);
        continue;
      }
      RETURN_IF_ERROR(instr->ReplaceAllUsesWith(twin));
      RETURN_IF_ERROR(comp->RemoveInstruction(instr));
      changed = true;
    }
  }
  return changed;
}

}  // namespace xla
