// The HLO passes every backend runs on a parsed module before planning
// kernels, in order: row-major layout assignment (not for tiled backends);
// call inlining; complex dots as real dots; algebraic simplification, constant
// folding, common subexpression elimination and dead code removal, repeated
// until nothing changes; then fusion. The verifier runs around the whole
// pipeline and after the fusion pass. Buffer assignment is the backends'
// kernel planners'.
#ifndef XLA_PASSES_OPTIMIZATION_PIPELINE_H_
#define XLA_PASSES_OPTIMIZATION_PIPELINE_H_

#include "xla/hlo/ir/module.h"
#include "xla/passes/instruction_fusion.h"
#include "xla/status.h"

namespace xla {

struct OptimizationOptions {
  // Off for a backend that stores arrays in tiled layouts (TPU compile-only).
  bool assign_default_layouts = true;
  // Off for a backend that only reports the optimised module (TPU compile-only).
  bool run_fusion = true;
  // When > 0, reductions of operands under `tree_reduction_max_elements`
  // elements add in blocks of this many (TreeReductionRewriter), first of all.
  int64_t tree_reduction_window = 0;
  int64_t tree_reduction_max_elements = 0;
  FusionOptions fusion;
};

Status RunOptimizationPipeline(HloModule* module, const OptimizationOptions& options = {});

}  // namespace xla

#endif  // XLA_PASSES_OPTIMIZATION_PIPELINE_H_
