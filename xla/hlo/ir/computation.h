// HloComputation: a named list of instructions with parameters and a root.
//
// The computation owns its instructions. instructions() is in insertion
// order, which for parsed modules is the text order (definitions before
// uses). Passes may append instructions that earlier ones use; walk
// MakeInstructionPostOrder() when def-before-use matters.
#ifndef XLA_HLO_IR_COMPUTATION_H_
#define XLA_HLO_IR_COMPUTATION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xla/hlo/ir/instruction.h"
#include "xla/status.h"

namespace xla {

class HloModule;

class HloComputation {
 public:
  explicit HloComputation(std::string name);
  ~HloComputation();
  HloComputation(const HloComputation&) = delete;
  HloComputation& operator=(const HloComputation&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  HloModule* parent() const { return parent_; }

  // Takes ownership and returns the raw pointer. A kParameter is also
  // registered at parameter_instruction(parameter_number()).
  HloInstruction* AddInstruction(std::unique_ptr<HloInstruction> instruction);
  // Deletes an instruction that has no users and is not the root; it is
  // detached from its operands first.
  Status RemoveInstruction(HloInstruction* instruction);

  const std::vector<HloInstruction*>& instructions() const { return instructions_; }
  int64_t instruction_count() const { return static_cast<int64_t>(instructions_.size()); }
  HloInstruction* root_instruction() const { return root_; }
  void set_root_instruction(HloInstruction* root) { root_ = root; }

  // Indexed by parameter number. Slots never filled are nullptr (the verifier
  // rejects such gaps).
  int64_t num_parameters() const { return static_cast<int64_t>(parameters_.size()); }
  HloInstruction* parameter_instruction(int64_t i) const { return parameters_[i]; }
  const std::vector<HloInstruction*>& parameter_instructions() const { return parameters_; }

  // Every instruction once, operands before users, otherwise in list order
  // (so a def-before-use list is returned unchanged). The printer and the
  // evaluator walk this order.
  std::vector<HloInstruction*> MakeInstructionPostOrder() const;
  // Reorders the instruction list into MakeInstructionPostOrder(), so that a
  // pass that appended instructions leaves a def-before-use list again.
  void SortInstructionsInPostOrder();
  // Nullptr when absent.
  HloInstruction* GetInstructionWithName(const std::string& name) const;

  // "name {\n  ...\n}" (defined in printer.cc).
  std::string ToString() const;

 private:
  friend class HloModule;
  std::string name_;
  HloModule* parent_ = nullptr;
  std::vector<std::unique_ptr<HloInstruction>> owned_;
  std::vector<HloInstruction*> instructions_;  // same order as owned_
  std::vector<HloInstruction*> parameters_;
  HloInstruction* root_ = nullptr;
};

}  // namespace xla

#endif  // XLA_HLO_IR_COMPUTATION_H_
