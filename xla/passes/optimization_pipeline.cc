#include "xla/passes/optimization_pipeline.h"

#include "xla/passes/algebraic_simplifier.h"
#include "xla/passes/call_inliner.h"
#include "xla/passes/complex_dot_expander.h"
#include "xla/passes/constant_folding.h"
#include "xla/passes/cse.h"
#include "xla/passes/dce.h"
#include "xla/passes/layout_assignment.h"
#include "xla/passes/pipeline.h"
#include "xla/passes/tree_reduction_rewriter.h"

namespace xla {
namespace {

// One round of the simplification passes; HloPassFix repeats it because each
// pass exposes work for the others (a folded constant makes a divide a
// multiply, CSE merges what simplification made identical).
class SimplificationRound : public HloPassInterface {
 public:
  SimplificationRound() {
    round_.AddPass<AlgebraicSimplifier>();
    round_.AddPass<HloConstantFolding>();
    round_.AddPass<HloCSE>();
    round_.AddPass<HloDCE>();
  }
  std::string_view name() const override { return "simplification"; }
  StatusOr<bool> Run(HloModule* module) override { return round_.Run(module); }

 private:
  // The verifier runs once around the whole pipeline below, not per round.
  HloPassPipeline round_{"simplification-round", /*verify=*/false};
};

}  // namespace

Status RunOptimizationPipeline(HloModule* module, const OptimizationOptions& options) {
  HloPassPipeline pipeline("optimization-pipeline");
  if (options.tree_reduction_window > 0) {
    pipeline.AddPass<TreeReductionRewriter>(options.tree_reduction_window,
                                            options.tree_reduction_max_elements);
  }
  if (options.assign_default_layouts) pipeline.AddPass<DefaultLayoutAssignment>();
  pipeline.AddPass<CallInliner>();
  pipeline.AddPass<ComplexDotExpander>();
  pipeline.AddPass<HloPassFix<SimplificationRound>>();
  if (options.run_fusion) pipeline.AddPass<InstructionFusion>(options.fusion);
  return pipeline.Run(module).status();
}

}  // namespace xla
