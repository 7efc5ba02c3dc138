// The HLO passes the CPU backend runs on a parsed module before planning
// kernels: algebraic simplification, constant folding, common subexpression
// elimination and dead code removal, repeated until nothing changes, with the
// verifier between passes. Fusion, layout and buffer assignment happen later,
// in the kernel planner (codegen/).
#ifndef XLA_BACKENDS_CPU_CPU_PASSES_H_
#define XLA_BACKENDS_CPU_CPU_PASSES_H_

#include "xla/hlo/ir/module.h"
#include "xla/status.h"

namespace xla::cpu {

Status RunCpuPasses(HloModule* module);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CPU_PASSES_H_
