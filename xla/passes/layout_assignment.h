// DefaultLayoutAssignment: every array in the module gets the row-major layout.
//
// The CPU and GPU backends keep every buffer dense and row-major (minor_to_major
// {rank-1, ..., 0}, no tiles): buffers cross the C API in that order, and the
// kernel planners index logical elements that way. HLO text may nevertheless
// carry other layouts (a parameter f32[2,3]{0,1}, a layout-changing copy, an
// entry_computation_layout asking for column-major results). Layouts do not
// change what an op computes, only where its elements live, so this pass
// assigns the default layout to every instruction, every tuple element and the
// entry computation layout. A copy that only changed layouts becomes a copy of
// identical shapes, which the algebraic simplifier then removes.
//
// Custom calls' operand_layout_constraints are left as written: the targets'
// kernels read and write row-major buffers (custom_call_registry.h).
//
// A backend that stores arrays in tiles (the TPU compile-only backend) does not
// run this pass.
#ifndef XLA_PASSES_LAYOUT_ASSIGNMENT_H_
#define XLA_PASSES_LAYOUT_ASSIGNMENT_H_

#include "xla/hlo/ir/shape.h"
#include "xla/passes/hlo_pass.h"

namespace xla {

class DefaultLayoutAssignment : public HloPassInterface {
 public:
  std::string_view name() const override { return "default-layout-assignment"; }
  StatusOr<bool> Run(HloModule* module) override;
};

// Gives `shape` (and each tuple element) the default layout without tiles.
// Returns whether anything changed.
bool AssignDefaultLayout(Shape* shape);

}  // namespace xla

#endif  // XLA_PASSES_LAYOUT_ASSIGNMENT_H_
