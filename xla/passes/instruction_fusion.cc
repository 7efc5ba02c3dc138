#include "xla/passes/instruction_fusion.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "xla/passes/name_uniquer.h"

namespace xla {
namespace {

// Recomputing these per fusion costs index arithmetic and at most a convert.
bool IsCheapToDuplicate(HloOpcode op) {
  switch (op) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kIota:
    case HloOpcode::kSlice:
    case HloOpcode::kReverse:
    case HloOpcode::kConvert:
    case HloOpcode::kCopy:
      return true;
    default:
      return false;
  }
}

bool IsScalarConstant(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kConstant && instr.shape().IsArray() &&
         instr.shape().rank() == 0;
}

// The entry and the bodies of its control flow, transitively: the
// computations that run as kernels. Reducers and comparators are not.
std::vector<HloComputation*> CodeComputations(const HloModule& module) {
  std::vector<HloComputation*> out;
  std::unordered_set<const HloComputation*> seen;
  std::vector<HloComputation*> work = {module.entry_computation()};
  while (!work.empty()) {
    HloComputation* c = work.back();
    work.pop_back();
    if (c == nullptr || !seen.insert(c).second) continue;
    out.push_back(c);
    for (const HloInstruction* instr : c->instructions()) {
      const HloOpcode op = instr->opcode();
      if (op == HloOpcode::kWhile || op == HloOpcode::kConditional || op == HloOpcode::kCall) {
        for (HloComputation* callee : instr->called_computations()) work.push_back(callee);
      }
    }
  }
  return out;
}

bool HasDims(const Shape& shape, const std::vector<int64_t>& dims) {
  return shape.IsArray() && shape.dimensions() == dims;
}

// A single-result reduce of an array of dimensions `full` over its last one.
bool IsRowReduce(const HloInstruction& r, const std::vector<int64_t>& full) {
  return r.opcode() == HloOpcode::kReduce && r.operand_count() == 2 && r.shape().IsArray() &&
         HasDims(r.operand(0)->shape(), full) &&
         r.dimensions() == std::vector<int64_t>{static_cast<int64_t>(full.size()) - 1};
}

// A broadcast of a row value (dimensions of `full` but the last) back to `full`.
bool IsRowBroadcast(const HloInstruction& b, const std::vector<int64_t>& full) {
  if (b.opcode() != HloOpcode::kBroadcast || !HasDims(b.shape(), full)) return false;
  std::vector<int64_t> leading(full.size() - 1);
  for (size_t d = 0; d < leading.size(); ++d) leading[d] = static_cast<int64_t>(d);
  return b.dimensions() == leading;
}

// Whether every use of `reduce` reaches `root` through row values (row
// elementwise ops, row broadcasts) and full values (elementwise ops of the
// root's dimensions, row reduces of them), so that the backend may compute
// it once per row of the root. `in_group` says which instructions the fusion holds.
template <typename InGroup>
bool ReachesRootByRows(const HloInstruction* reduce, const HloInstruction* root,
                       int64_t min_rows, const InGroup& in_group) {
  if (!root->shape().IsArray() || root->shape().rank() < 2 ||
      root->opcode() == HloOpcode::kReduce) {
    return false;
  }
  const std::vector<int64_t>& full = root->shape().dimensions();
  const std::vector<int64_t> row(full.begin(), full.end() - 1);
  if (!IsRowReduce(*reduce, full) || reduce->shape().element_count() < min_rows) return false;
  std::vector<std::pair<const HloInstruction*, bool>> work = {{reduce, true}};
  std::set<std::pair<const HloInstruction*, bool>> seen;
  while (!work.empty()) {
    auto [node, is_row] = work.back();
    work.pop_back();
    if (!seen.insert({node, is_row}).second) continue;
    if (node == root) {
      if (is_row) return false;
      continue;
    }
    if (node->user_count() == 0) return false;
    for (const HloInstruction* user : node->users()) {
      if (!in_group(user)) return false;
      const bool elementwise = IsElementwiseOpcode(user->opcode());
      if (is_row && elementwise && HasDims(user->shape(), row)) {
        work.push_back({user, true});
      } else if (is_row && IsRowBroadcast(*user, full)) {
        work.push_back({user, false});
      } else if (!is_row && elementwise && HasDims(user->shape(), full)) {
        work.push_back({user, false});
      } else if (!is_row && IsRowReduce(*user, full) && user->operand(0) == node) {
        work.push_back({user, true});
      } else {
        return false;
      }
    }
  }
  return true;
}

// Fusion groups of one computation, decided consumers first.
struct Grouping {
  std::vector<HloInstruction*> roots;                        // by group
  std::vector<std::vector<HloInstruction*>> members;         // by group, root first
  std::unordered_map<const HloInstruction*, std::vector<int>> groups_of;

  int NewGroup(HloInstruction* root) {
    roots.push_back(root);
    members.push_back({root});
    groups_of[root].push_back(static_cast<int>(roots.size() - 1));
    return static_cast<int>(roots.size() - 1);
  }
  void Join(HloInstruction* instr, int group) {
    members[group].push_back(instr);
    groups_of[instr].push_back(group);
  }
  bool InGroup(const HloInstruction* instr, int group) const {
    auto it = groups_of.find(instr);
    return it != groups_of.end() &&
           std::find(it->second.begin(), it->second.end(), group) != it->second.end();
  }
};

// The groups `producer` would join: those of its users, or nothing when one
// of them is in no group (it must then be materialised anyway).
std::set<int> UserGroups(const HloInstruction* producer, const Grouping& g) {
  std::set<int> groups;
  for (const HloInstruction* user : producer->users()) {
    auto it = g.groups_of.find(user);
    if (it == g.groups_of.end() || it->second.empty()) return {};
    groups.insert(it->second.begin(), it->second.end());
  }
  return groups;
}

Grouping DecideGroups(const HloComputation& comp, const std::vector<HloInstruction*>& order,
                      const FusionOptions& options) {
  Grouping g;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloInstruction* instr = *it;
    const HloOpcode op = instr->opcode();
    std::set<int> groups;
    if (instr != comp.root_instruction() && instr->user_count() > 0) {
      groups = UserGroups(instr, g);
    }
    bool fuse = false;
    if (!groups.empty() && IsScalarConstant(*instr)) {
      fuse = true;  // an immediate in every kernel that uses it
    } else if (!groups.empty() && IsFusibleProducer(op)) {
      fuse = groups.size() == 1 || IsCheapToDuplicate(op);
    } else if (groups.size() == 1 && op == HloOpcode::kReduce && options.fuse_row_reductions) {
      const int group = *groups.begin();
      fuse = ReachesRootByRows(instr, g.roots[group], options.min_rows_for_row_fusion,
                               [&](const HloInstruction* i) { return g.InGroup(i, group); });
    }
    // Immediates and cheap index ops are copied into every fusion that uses
    // them and do not count against the bound.
    if (fuse && options.max_fused_instructions > 0 && !IsScalarConstant(*instr) &&
        !IsCheapToDuplicate(op)) {
      for (int group : groups) {
        fuse = fuse && static_cast<int64_t>(g.members[group].size()) <
                           options.max_fused_instructions;
      }
    }
    if (fuse) {
      for (int group : groups) g.Join(instr, group);
    } else if (IsFusionConsumer(op)) {
      g.NewGroup(instr);
    }
  }
  return g;
}

// Replaces the group's instructions by one fusion instruction; the originals
// are left for the caller to delete once nothing uses them.
Status BuildFusion(HloComputation* comp, const std::vector<HloInstruction*>& members,
                   const std::unordered_map<const HloInstruction*, size_t>& position,
                   NameUniquer* instr_names, NameUniquer* computation_names) {
  HloInstruction* root = members.front();
  std::vector<HloInstruction*> sorted = members;
  std::sort(sorted.begin(), sorted.end(),
            [&](const HloInstruction* a, const HloInstruction* b) {
              return position.at(a) < position.at(b);
            });
  std::unordered_set<const HloInstruction*> inside(members.begin(), members.end());
  auto fused = std::make_unique<HloComputation>(
      computation_names->Unique("fused_" + root->name()));
  std::unordered_map<const HloInstruction*, HloInstruction*> copy;
  std::vector<HloInstruction*> operands;
  for (const HloInstruction* m : sorted) {
    std::vector<HloInstruction*> ops;
    for (HloInstruction* op : m->operands()) {
      if (!inside.count(op) && !copy.count(op)) {
        const int64_t k = static_cast<int64_t>(operands.size());
        operands.push_back(op);
        copy[op] = fused->AddInstruction(
            HloInstruction::CreateParameter(k, op->shape(), "param_" + std::to_string(k)));
      }
      ops.push_back(copy.at(op));
    }
    copy[m] = fused->AddInstruction(m->CloneWithNewOperands(m->shape(), std::move(ops), m->name()));
  }
  fused->set_root_instruction(copy.at(root));
  HloComputation* callee = comp->parent()->AddComputationBefore(std::move(fused), comp);
  auto fusion = HloInstruction::Create(HloOpcode::kFusion, root->shape(), operands,
                                       instr_names->Unique("fusion_" + root->name()));
  fusion->set_fusion_kind(root->opcode() == HloOpcode::kReduce ? "kInput" : "kLoop");
  fusion->AppendCalledComputation(callee);
  return root->ReplaceAllUsesWith(comp->AddInstruction(std::move(fusion)));
}

StatusOr<bool> FuseComputation(HloComputation* comp, const FusionOptions& options,
                               NameUniquer* computation_names) {
  const std::vector<HloInstruction*> order = comp->MakeInstructionPostOrder();
  std::unordered_map<const HloInstruction*, size_t> position;
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  Grouping g = DecideGroups(*comp, order, options);
  NameUniquer instr_names(*comp);
  bool changed = false;
  for (const std::vector<HloInstruction*>& members : g.members) {
    if (members.size() < 2) continue;
    RETURN_IF_ERROR(BuildFusion(comp, members, position, &instr_names, computation_names));
    changed = true;
  }
  if (!changed) return false;
  // Users before producers, so whole fused chains go in one sweep.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloInstruction* instr = *it;
    if (g.groups_of.count(instr) && instr->user_count() == 0 &&
        instr != comp->root_instruction()) {
      RETURN_IF_ERROR(comp->RemoveInstruction(instr));
    }
  }
  comp->SortInstructionsInPostOrder();
  return true;
}

}  // namespace

bool IsFusibleProducer(HloOpcode op) {
  switch (op) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kIota:
    case HloOpcode::kSlice:
    case HloOpcode::kConcatenate:
    case HloOpcode::kReverse:
    case HloOpcode::kPad:
    case HloOpcode::kDynamicSlice:
      return true;
    default:
      return IsElementwiseOpcode(op);
  }
}

bool IsFusionConsumer(HloOpcode op) {
  switch (op) {
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kGather:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kScatter:
    case HloOpcode::kSelectAndScatter:
      return true;
    default:
      return IsFusibleProducer(op);
  }
}

StatusOr<bool> InstructionFusion::Run(HloModule* module) {
  if (module->entry_computation() == nullptr) return false;
  NameUniquer computation_names(*module);
  bool changed = false;
  for (HloComputation* comp : CodeComputations(*module)) {
    ASSIGN_OR_RETURN(bool fused, FuseComputation(comp, options_, &computation_names));
    changed |= fused;
  }
  return changed;
}

}  // namespace xla
