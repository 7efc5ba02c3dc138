#include "xla/passes/tree_reduction_rewriter.h"

#include <algorithm>
#include <vector>

#include "xla/passes/name_uniquer.h"

namespace xla {
namespace {

bool Reduced(const HloInstruction* reduce, int64_t dim) {
  const std::vector<int64_t>& dims = reduce->dimensions();
  return std::find(dims.begin(), dims.end(), dim) != dims.end();
}

// A single-operand reduce of an array that some reduced dimension makes long.
bool ShouldRewrite(const HloInstruction* instr, int64_t window, int64_t max_elements) {
  if (instr->opcode() != HloOpcode::kReduce || instr->operand_count() != 2 ||
      !instr->shape().IsArray()) {
    return false;
  }
  const Shape& in = instr->operand(0)->shape();
  if (!in.IsArray() || in.element_count() >= max_elements) return false;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (Reduced(instr, d) && in.dimensions(d) > window) return true;
  }
  return false;
}

// The reduce-window and the reduce of its result that replace `reduce`.
HloInstruction* Rewrite(HloComputation* comp, NameUniquer& names, HloInstruction* reduce,
                        int64_t window) {
  HloInstruction* operand = reduce->operand(0);
  HloInstruction* init = reduce->operand(1);
  const Shape& in = operand->shape();
  Window w;
  std::vector<int64_t> partial_dims;
  for (int64_t d = 0; d < in.rank(); ++d) {
    const int64_t n = in.dimensions(d);
    WindowDimension wd;
    if (Reduced(reduce, d) && n > window) {
      const int64_t count = (n + window - 1) / window;
      const int64_t pad = count * window - n;
      wd.size = wd.stride = window;
      wd.padding_low = pad / 2;
      wd.padding_high = pad - pad / 2;
      partial_dims.push_back(count);
    } else if (Reduced(reduce, d)) {
      wd.size = wd.stride = n;
      partial_dims.push_back(1);
    } else {
      partial_dims.push_back(n);
    }
    w.dimensions.push_back(wd);
  }
  HloInstruction* partial = comp->AddInstruction(HloInstruction::Create(
      HloOpcode::kReduceWindow, Shape(in.element_type(), partial_dims), {operand, init},
      names.Unique(reduce->name() + ".window")));
  partial->set_window(w);
  partial->AppendCalledComputation(reduce->to_apply());
  HloInstruction* total = comp->AddInstruction(HloInstruction::Create(
      HloOpcode::kReduce, reduce->shape(), {partial, init}, names.Unique(reduce->name())));
  total->set_dimensions(reduce->dimensions());
  total->AppendCalledComputation(reduce->to_apply());
  return total;
}

}  // namespace

StatusOr<bool> TreeReductionRewriter::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* comp : module->computations()) {
    std::vector<HloInstruction*> work;
    for (HloInstruction* instr : comp->MakeInstructionPostOrder()) {
      if (ShouldRewrite(instr, window_, max_elements_)) work.push_back(instr);
    }
    if (work.empty()) continue;
    NameUniquer names(*comp);
    while (!work.empty()) {
      HloInstruction* reduce = work.back();
      work.pop_back();
      HloInstruction* total = Rewrite(comp, names, reduce, window_);
      RETURN_IF_ERROR(reduce->ReplaceAllUsesWith(total));
      // The partial results may themselves be long (a reduce of 2000 elements
      // leaves 63 partial sums).
      if (ShouldRewrite(total, window_, max_elements_)) work.push_back(total);
    }
    comp->SortInstructionsInPostOrder();  // the replaced reduces are left for DCE
    changed = true;
  }
  return changed;
}

}  // namespace xla
