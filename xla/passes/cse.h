// HloCSE: common subexpression elimination within each computation.
//
// Two instructions are merged when they have the same opcode, shape
// (including layout), operands (by identity), called computations and
// attributes; constants must hold equal literals. The later one's users move
// to the earlier one, and the later one is deleted. Parameters and
// instructions with side effects are never merged. It does not merge
// structurally identical computations, and it does not reorder operands of
// commutative ops (add(a,b) and add(b,a) stay distinct).
#ifndef XLA_PASSES_CSE_H_
#define XLA_PASSES_CSE_H_

#include "xla/passes/hlo_pass.h"

namespace xla {

class HloCSE : public HloPassInterface {
 public:
  std::string_view name() const override { return "cse"; }
  StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_PASSES_CSE_H_
