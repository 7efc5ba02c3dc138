// Reference interpreter for HLO: the test oracle for the compiled backends
// and the engine behind constant folding. Clarity over speed; semantics follow
// XLA:CPU as JAX 0.10.2 sees it (NaN-propagating max/min, clamped dynamic
// slice starts, shift counts >= width give 0 or the sign fill, saturating
// float->int converts with NaN -> 0).
#ifndef XLA_HLO_EVALUATOR_EVALUATOR_H_
#define XLA_HLO_EVALUATOR_EVALUATOR_H_

#include <vector>

#include "xla/hlo/ir/literal.h"
#include "xla/hlo/ir/module.h"
#include "xla/status.h"

namespace xla {

// Runs the entry computation on `args` (one per parameter, shapes must match)
// and returns its result with tuples flattened depth-first.
StatusOr<std::vector<Literal>> Evaluate(const HloModule& module, const std::vector<Literal>& args);

// Runs one computation; the result keeps its tuple structure.
StatusOr<Literal> EvaluateComputation(const HloComputation& computation,
                                      const std::vector<const Literal*>& args);

// Evaluates a single instruction given its operands' values (for constant
// folding). Instructions that call computations evaluate those too.
StatusOr<Literal> EvaluateInstruction(const HloInstruction& instruction,
                                      const std::vector<const Literal*>& operands);

}  // namespace xla

#endif  // XLA_HLO_EVALUATOR_EVALUATOR_H_
