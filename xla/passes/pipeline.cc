#include "xla/passes/pipeline.h"

#include "xla/hlo/verifier/verifier.h"

namespace xla {

StatusOr<bool> HloPassPipeline::Run(HloModule* module) {
  if (verify_) {
    Status s = VerifyHloModule(*module);
    if (!s.ok()) return s.WithContext("pipeline '" + name_ + "': invalid input module");
  }
  bool changed = false;
  for (const auto& pass : passes_) {
    StatusOr<bool> step = pass->Run(module);
    if (!step.ok()) {
      return step.status().WithContext("pipeline '" + name_ + "', pass '" + std::string(pass->name()) + "'");
    }
    if (*step && verify_) {
      Status s = VerifyHloModule(*module);
      if (!s.ok()) {
        return s.WithContext("pipeline '" + name_ + "': module invalid after pass '" +
                             std::string(pass->name()) + "'");
      }
    }
    changed |= *step;
  }
  return changed;
}

}  // namespace xla
