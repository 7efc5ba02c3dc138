// Shape inference: the result shape an instruction must have, computed from
// its operands' shapes and its attributes. Also rejects attribute values that
// are inconsistent with the operands (out-of-range dimensions, bad windows).
//
// For ops whose result is defined by the instruction itself (parameter,
// custom-call, rng, collectives, ...) the declared shape is returned.
#ifndef XLA_HLO_VERIFIER_SHAPE_INFERENCE_H_
#define XLA_HLO_VERIFIER_SHAPE_INFERENCE_H_

#include "xla/hlo/ir/instruction.h"
#include "xla/status.h"

namespace xla {

// Errors are InvalidArgument naming the problem, without the instruction
// (the verifier adds that context).
StatusOr<Shape> InferShape(const HloInstruction& instruction);

}  // namespace xla

#endif  // XLA_HLO_VERIFIER_SHAPE_INFERENCE_H_
