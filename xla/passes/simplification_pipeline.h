// The target-independent HLO passes every backend runs on a parsed module
// before planning kernels: algebraic simplification, constant folding,
// common subexpression elimination and dead code removal, repeated until
// nothing changes, with the verifier around the whole pipeline. Fusion,
// layout and buffer assignment are the backends' (their kernel planners).
#ifndef XLA_PASSES_SIMPLIFICATION_PIPELINE_H_
#define XLA_PASSES_SIMPLIFICATION_PIPELINE_H_

#include "xla/hlo/ir/module.h"
#include "xla/status.h"

namespace xla {

Status RunSimplificationPipeline(HloModule* module);

}  // namespace xla

#endif  // XLA_PASSES_SIMPLIFICATION_PIPELINE_H_
