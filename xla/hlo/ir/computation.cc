#include "xla/hlo/ir/computation.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace xla {

HloComputation::HloComputation(std::string name) : name_(std::move(name)) {}

HloComputation::~HloComputation() {
  // Instructions point at each other; clear the links before they are freed
  // so no destructor touches a deleted neighbour.
  for (HloInstruction* instr : instructions_) {
    instr->operands_.clear();
    instr->users_.clear();
  }
}

HloInstruction* HloComputation::AddInstruction(std::unique_ptr<HloInstruction> instruction) {
  HloInstruction* raw = instruction.get();
  raw->parent_ = this;
  if (raw->opcode() == HloOpcode::kParameter && raw->parameter_number() >= 0) {
    size_t n = static_cast<size_t>(raw->parameter_number());
    if (n >= parameters_.size()) parameters_.resize(n + 1, nullptr);
    if (parameters_[n] == nullptr) parameters_[n] = raw;
  }
  owned_.push_back(std::move(instruction));
  instructions_.push_back(raw);
  return raw;
}

Status HloComputation::RemoveInstruction(HloInstruction* instruction) {
  if (instruction->user_count() != 0) {
    return FailedPrecondition("cannot remove " + instruction->name() + ": it still has users");
  }
  if (instruction == root_) {
    return FailedPrecondition("cannot remove " + instruction->name() + ": it is the root");
  }
  auto it = std::find(instructions_.begin(), instructions_.end(), instruction);
  if (it == instructions_.end()) {
    return NotFound(instruction->name() + " is not in computation " + name_);
  }
  if (instruction->opcode() == HloOpcode::kParameter) {
    return FailedPrecondition("cannot remove parameter " + instruction->name());
  }
  instruction->DetachFromOperands();
  size_t pos = it - instructions_.begin();
  instructions_.erase(it);
  owned_.erase(owned_.begin() + pos);
  return OkStatus();
}

void HloComputation::SortInstructionsInPostOrder() {
  std::vector<HloInstruction*> order = MakeInstructionPostOrder();
  std::unordered_map<const HloInstruction*, std::unique_ptr<HloInstruction>> by_pointer;
  for (auto& owned : owned_) by_pointer[owned.get()] = std::move(owned);
  owned_.clear();
  for (HloInstruction* instr : order) owned_.push_back(std::move(by_pointer[instr]));
  instructions_ = std::move(order);
}

std::vector<HloInstruction*> HloComputation::MakeInstructionPostOrder() const {
  std::vector<HloInstruction*> order;
  order.reserve(instructions_.size());
  std::unordered_set<const HloInstruction*> done;
  // Seeded in list order, each seed's operands emitted first (iterative DFS,
  // so deep chains cannot overflow the stack). A list that is already
  // def-before-use, like parsed text, comes back unchanged; instructions a
  // pass appended are pulled in front of their first user.
  for (HloInstruction* seed : instructions_) {
    if (!done.insert(seed).second) continue;
    std::vector<std::pair<HloInstruction*, size_t>> stack = {{seed, 0}};
    while (!stack.empty()) {
      auto& [instr, next] = stack.back();
      if (next < instr->operands().size()) {
        HloInstruction* op = instr->operand(next++);
        if (done.insert(op).second) stack.push_back({op, 0});
      } else {
        order.push_back(instr);
        stack.pop_back();
      }
    }
  }
  return order;
}

HloInstruction* HloComputation::GetInstructionWithName(const std::string& name) const {
  for (HloInstruction* instr : instructions_) {
    if (instr->name() == name) return instr;
  }
  return nullptr;
}

}  // namespace xla
