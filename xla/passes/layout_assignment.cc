#include "xla/passes/layout_assignment.h"

#include <utility>

namespace xla {

bool AssignDefaultLayout(Shape* shape) {
  if (shape->IsTuple()) {
    bool changed = false;
    for (Shape& element : *shape->mutable_tuple_shapes()) {
      changed |= AssignDefaultLayout(&element);
    }
    return changed;
  }
  // Scalars have no layout to speak of (XLA prints none).
  if (!shape->IsArray() || (shape->rank() == 0 && shape->tiles().empty())) return false;
  std::vector<int64_t> row_major = DefaultMinorToMajor(shape->rank());
  if (shape->has_layout() && shape->minor_to_major() == row_major && shape->tiles().empty()) {
    return false;
  }
  shape->set_tiles({});
  shape->set_minor_to_major(std::move(row_major));
  return true;
}

StatusOr<bool> DefaultLayoutAssignment::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* comp : module->computations()) {
    for (HloInstruction* instr : comp->instructions()) {
      changed |= AssignDefaultLayout(instr->mutable_shape());
    }
  }
  if (std::optional<ComputationLayout> layout = module->entry_computation_layout()) {
    bool layout_changed = AssignDefaultLayout(&layout->result_shape);
    for (Shape& p : layout->parameter_shapes) layout_changed |= AssignDefaultLayout(&p);
    if (layout_changed) {
      module->set_entry_computation_layout(std::move(layout));
      changed = true;
    }
  }
  return changed;
}

}  // namespace xla
