// HloConstantFolding: replaces an instruction whose operands are all
// constants by the constant the reference evaluator computes for it.
//
// It does not fold: parameters, ops with side effects, while loops (they
// might not terminate), broadcast and iota (folding only makes constants
// bigger), tuple-shaped results, results of more than kMaxElements elements,
// or ops the evaluator does not implement (those are left alone, not errors).
// Dead operands are left for DCE.
#ifndef XLA_PASSES_CONSTANT_FOLDING_H_
#define XLA_PASSES_CONSTANT_FOLDING_H_

#include <cstdint>

#include "xla/passes/hlo_pass.h"

namespace xla {

class HloConstantFolding : public HloPassInterface {
 public:
  static constexpr int64_t kMaxElements = int64_t{1} << 16;
  std::string_view name() const override { return "constant-folding"; }
  StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_PASSES_CONSTANT_FOLDING_H_
