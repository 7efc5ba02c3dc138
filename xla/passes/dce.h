// HloDCE: dead code elimination.
//
// Removes instructions whose values nobody uses: not the root, no users, not
// a parameter, and no side effect (collectives, custom-call, rng,
// opt-barrier are kept). Then deletes computations the entry can no longer
// reach. It does not remove unused tuple elements, unused parameters, or
// dead while-loop state; those change signatures and belong to other passes.
#ifndef XLA_PASSES_DCE_H_
#define XLA_PASSES_DCE_H_

#include "xla/passes/hlo_pass.h"

namespace xla {

class HloDCE : public HloPassInterface {
 public:
  std::string_view name() const override { return "dce"; }
  StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_PASSES_DCE_H_
