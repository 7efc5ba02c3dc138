#include "xla/backends/tpu/bf16_dot_rewriter.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "xla/hlo/ir/computation.h"

namespace xla::tpu {
namespace {

bool AsksForFullPrecision(const HloInstruction& op) {
  for (std::string p : op.operand_precision()) {
    std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return std::tolower(c); });
    if (p == "high" || p == "highest") return true;
  }
  return false;
}

bool IsDefaultPrecisionF32Product(const HloInstruction& op) {
  if (op.opcode() != HloOpcode::kDot && op.opcode() != HloOpcode::kConvolution) return false;
  if (op.shape().element_type() != PrimitiveType::F32) return false;
  for (const HloInstruction* operand : op.operands()) {
    if (operand->shape().element_type() != PrimitiveType::F32) return false;
  }
  return !AsksForFullPrecision(op);
}

// A name not yet used in `computation`: "<base>", else "<base>.1", ".2", ...
std::string UniqueName(const HloComputation& computation, const std::string& base) {
  std::string name = base;
  for (int i = 1; computation.GetInstructionWithName(name) != nullptr; ++i) {
    name = base + "." + std::to_string(i);
  }
  return name;
}

// The bf16 value of `operand`: the bf16 it was converted from, or a new convert.
HloInstruction* AsBf16(HloComputation* computation, HloInstruction* operand,
                       std::map<HloInstruction*, HloInstruction*>* converted) {
  if (operand->opcode() == HloOpcode::kConvert &&
      operand->operand(0)->shape().element_type() == PrimitiveType::BF16) {
    return operand->operand(0);
  }
  auto it = converted->find(operand);
  if (it != converted->end()) return it->second;
  Shape shape = operand->shape();
  shape.set_element_type(PrimitiveType::BF16);
  HloInstruction* convert = computation->AddInstruction(HloInstruction::Create(
      HloOpcode::kConvert, shape, {operand}, UniqueName(*computation, operand->name() + ".bf16")));
  (*converted)[operand] = convert;
  return convert;
}

}  // namespace

StatusOr<bool> Bf16DotRewriter::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    std::map<HloInstruction*, HloInstruction*> converted;  // f32 value -> its bf16 convert
    const std::vector<HloInstruction*> instructions = computation->instructions();
    for (HloInstruction* op : instructions) {
      if (!IsDefaultPrecisionF32Product(*op)) continue;
      for (int64_t i = 0; i < op->operand_count(); ++i) {
        op->ReplaceOperandWith(i, AsBf16(computation, op->operand(i), &converted));
      }
      changed = true;
    }
    // The converts were appended; put them back before their users.
    if (!converted.empty()) computation->SortInstructionsInPostOrder();
  }
  return changed;
}

}  // namespace xla::tpu
