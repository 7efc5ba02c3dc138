// HloPassPipeline: a named sequence of passes with the verifier run after
// every pass that changed the module (the invariant checker), so a broken
// pass is reported by name instead of surfacing later as a miscompile.
// HloPassFix<T> repeats a pass until it stops changing the module.
//
//   HloPassPipeline pipeline("simplify");
//   pipeline.AddPass<HloDCE>();   // drop dead code first so CSE sees less
//   pipeline.AddPass<HloCSE>();
//   ASSIGN_OR_RETURN(bool changed, pipeline.Run(module));
#ifndef XLA_PASSES_PIPELINE_H_
#define XLA_PASSES_PIPELINE_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "xla/passes/hlo_pass.h"

namespace xla {

class HloPassPipeline : public HloPassInterface {
 public:
  // verify: run the verifier before the first pass and after each changing
  // pass. Keep it on in tests and debug builds.
  explicit HloPassPipeline(std::string name, bool verify = true)
      : name_(std::move(name)), verify_(verify) {}

  template <typename Pass, typename... Args>
  Pass& AddPass(Args&&... args) {
    auto pass = std::make_unique<Pass>(std::forward<Args>(args)...);
    Pass& ref = *pass;
    passes_.push_back(std::move(pass));
    return ref;
  }

  std::string_view name() const override { return name_; }
  // Runs the passes in order; the error names the pipeline and the pass.
  StatusOr<bool> Run(HloModule* module) override;

 private:
  std::string name_;
  bool verify_;
  std::vector<std::unique_ptr<HloPassInterface>> passes_;
};

// Runs Pass until it reports no change (at most kMaxIterations times, after
// which it fails: a pass that never converges is a bug).
template <typename Pass>
class HloPassFix : public Pass {
 public:
  static constexpr int kMaxIterations = 25;
  using Pass::Pass;
  StatusOr<bool> Run(HloModule* module) override {
    bool changed = false;
    for (int i = 0; i < kMaxIterations; ++i) {
      ASSIGN_OR_RETURN(bool step, Pass::Run(module));
      if (!step) return changed;
      changed = true;
    }
    return Internal(std::string(Pass::name()) + " did not reach a fixed point in " +
                    std::to_string(kMaxIterations) + " iterations");
  }
};

}  // namespace xla

#endif  // XLA_PASSES_PIPELINE_H_
