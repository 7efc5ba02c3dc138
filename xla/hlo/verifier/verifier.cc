#include "xla/hlo/verifier/verifier.h"
#include "xla/hlo/ir/shape_size.h"

#include <string>
#include <unordered_set>

#include "xla/hlo/verifier/shape_inference.h"

namespace xla {
namespace {

std::string Where(const HloComputation& c, const HloInstruction& i) {
  return "instruction '" + i.name() + "' in computation '" + c.name() + "'";
}

Status VerifyComputation(const HloComputation& comp,
                         const std::unordered_set<const HloComputation*>& module_comps,
                         const std::unordered_set<const HloComputation*>& defined_before) {
  if (comp.root_instruction() == nullptr) {
    return InvalidArgument("computation '" + comp.name() + "' has no root");
  }
  for (int64_t i = 0; i < comp.num_parameters(); ++i) {
    if (comp.parameter_instruction(i) == nullptr) {
      return InvalidArgument("computation '" + comp.name() + "' has no parameter " +
                             std::to_string(i) + " but has parameter " +
                             std::to_string(comp.num_parameters() - 1));
    }
  }
  std::unordered_set<const HloInstruction*> seen;
  std::unordered_set<std::string> names;
  for (const HloInstruction* instr : comp.instructions()) {
    const std::string where = Where(comp, *instr);
    if (instr->parent() != &comp) return Internal(where + " has the wrong parent");
    if (!names.insert(instr->name()).second) return InvalidArgument(where + ": duplicate name");
    for (const HloInstruction* op : instr->operands()) {
      if (op->parent() != &comp) {
        return InvalidArgument(where + ": operand '" + op->name() + "' is in another computation");
      }
      if (!seen.count(op)) {
        return InvalidArgument(where + ": operand '" + op->name() + "' is used before it is defined");
      }
    }
    for (const HloComputation* callee : instr->called_computations()) {
      if (callee == nullptr || !module_comps.count(callee)) {
        return InvalidArgument(where + ": calls a computation that is not in the module");
      }
      if (!defined_before.count(callee)) {
        return InvalidArgument(where + ": calls '" + callee->name() +
                               "', which is not defined before its caller (or is recursive)");
      }
    }
    // Before inference, which counts elements: an overflowing count is no count.
    if (Status size = CheckShapeSize(instr->shape()); !size.ok()) {
      return InvalidArgument(where + ": " + size.message());
    }
    StatusOr<Shape> inferred = InferShape(*instr);
    if (!inferred.ok()) return InvalidArgument(where + ": " + inferred.status().message());
    if (!inferred->Compatible(instr->shape())) {
      return InvalidArgument(where + ": shape " + instr->shape().ToString(false) +
                             " does not match the inferred shape " + inferred->ToString(false));
    }
    if (instr->shape().IsArray() && instr->shape().has_layout() &&
        instr->shape().minor_to_major().size() != static_cast<size_t>(instr->shape().rank())) {
      return InvalidArgument(where + ": layout does not match the rank");
    }
    seen.insert(instr);
  }
  return OkStatus();
}

}  // namespace

Status VerifyHloModule(const HloModule& module) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return InvalidArgument("module '" + module.name() + "' has no entry computation");
  std::unordered_set<const HloComputation*> all(module.computations().begin(),
                                                module.computations().end());
  std::unordered_set<const HloComputation*> defined;
  std::unordered_set<std::string> names;
  for (const HloComputation* comp : module.computations()) {
    if (!names.insert(comp->name()).second) {
      return InvalidArgument("duplicate computation name '" + comp->name() + "'");
    }
    RETURN_IF_ERROR(VerifyComputation(*comp, all, defined));
    defined.insert(comp);
  }
  if (const auto& layout = module.entry_computation_layout()) {
    if (static_cast<int64_t>(layout->parameter_shapes.size()) != entry->num_parameters()) {
      return InvalidArgument("entry_computation_layout has " +
                             std::to_string(layout->parameter_shapes.size()) +
                             " parameters, entry computation '" + entry->name() + "' has " +
                             std::to_string(entry->num_parameters()));
    }
    for (int64_t i = 0; i < entry->num_parameters(); ++i) {
      if (!layout->parameter_shapes[i].Compatible(entry->parameter_instruction(i)->shape())) {
        return InvalidArgument("entry_computation_layout parameter " + std::to_string(i) + " is " +
                               layout->parameter_shapes[i].ToString(false) + ", parameter is " +
                               entry->parameter_instruction(i)->shape().ToString(false));
      }
    }
    if (!layout->result_shape.Compatible(entry->root_instruction()->shape())) {
      return InvalidArgument("entry_computation_layout result is " +
                             layout->result_shape.ToString(false) + ", entry root is " +
                             entry->root_instruction()->shape().ToString(false));
    }
  }
  return OkStatus();
}

}  // namespace xla
