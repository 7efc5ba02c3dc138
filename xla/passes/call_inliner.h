// CallInliner: replaces every `call` with a copy of the computation it calls.
//
// The kernel planner fuses within one computation only, so a value produced
// inside a called function (jit inside jit lowers to a call) could otherwise
// never be fused with its use outside. Calls in every computation are
// inlined (loop bodies and reducers too); callees left without callers are
// deleted.
#ifndef XLA_PASSES_CALL_INLINER_H_
#define XLA_PASSES_CALL_INLINER_H_

#include "xla/passes/hlo_pass.h"

namespace xla {

class CallInliner : public HloPassInterface {
 public:
  std::string_view name() const override { return "call-inliner"; }
  StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_PASSES_CALL_INLINER_H_
