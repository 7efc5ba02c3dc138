#include "xla/backends/tpu/tpu_layout_assignment.h"

#include "xla/backends/tpu/tiled_shape.h"
#include "xla/hlo/ir/computation.h"

namespace xla::tpu {
namespace {

// Returns whether `shape` changed.
bool AssignTiles(Shape* shape) {
  if (shape->IsTuple()) {
    bool changed = false;
    for (Shape& s : *shape->mutable_tuple_shapes()) changed |= AssignTiles(&s);
    return changed;
  }
  if (!shape->IsArray() || shape->rank() == 0) return false;
  bool changed = false;
  if (!shape->has_layout()) {
    shape->SetDefaultLayout();
    changed = true;
  }
  std::vector<std::vector<int64_t>> tiles = TpuTiles(shape->element_type(), shape->rank());
  if (shape->tiles() == tiles) return changed;
  shape->set_tiles(std::move(tiles));
  return true;
}

}  // namespace

StatusOr<bool> TpuLayoutAssignment::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    for (HloInstruction* instr : computation->instructions()) {
      changed |= AssignTiles(instr->mutable_shape());
    }
  }
  if (module->entry_computation_layout()) {
    ComputationLayout layout = *module->entry_computation_layout();
    for (Shape& s : layout.parameter_shapes) changed |= AssignTiles(&s);
    changed |= AssignTiles(&layout.result_shape);
    module->set_entry_computation_layout(std::move(layout));
  }
  return changed;
}

}  // namespace xla::tpu
