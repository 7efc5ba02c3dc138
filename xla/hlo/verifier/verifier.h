// The HLO verifier: structural invariants plus shape inference for every
// instruction. The parser runs it; pass pipelines run it between passes.
//
// Checks: every computation has a root and contiguous parameters; operands
// live in the same computation and are defined before use; operand counts
// match the opcode table; called computations belong to the module and have
// the signatures their callers need (reduce/sort/scatter/while/conditional/
// call ...); each declared shape matches the inferred one (layouts ignored);
// the entry computation matches entry_computation_layout.
#ifndef XLA_HLO_VERIFIER_VERIFIER_H_
#define XLA_HLO_VERIFIER_VERIFIER_H_

#include "xla/hlo/ir/module.h"
#include "xla/status.h"

namespace xla {

// InvalidArgument naming the computation and instruction on failure.
Status VerifyHloModule(const HloModule& module);

}  // namespace xla

#endif  // XLA_HLO_VERIFIER_VERIFIER_H_
