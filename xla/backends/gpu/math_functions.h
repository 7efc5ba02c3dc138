// The math functions the elemental emitter calls that GPUs have no single
// instruction for, and the HLO op that asks for each.
//
// Internal to backends/gpu: the NVPTX target maps them to libdevice, the
// AMDGPU target names them in its errors.
#ifndef XLA_BACKENDS_GPU_MATH_FUNCTIONS_H_
#define XLA_BACKENDS_GPU_MATH_FUNCTIONS_H_

#include <string>

#include "llvm/IR/Function.h"

namespace xla::gpu {

// For a math function declaration the module calls (an LLVM intrinsic such
// as llvm.exp.f32 or a libm name such as tanhf): its libm base name for f64
// ("exp", "tanh") and whether it is the f32 variant. False for intrinsics
// that are not math (thread indices, fabs, sqrt, ...) and for unknown names.
bool MathFunctionOf(const llvm::Function& fn, std::string* base, bool* is_f32);

// The HLO op behind a libm base name ("tanh" -> "tanh", "expm1" ->
// "exponential-minus-one", "hypot" -> "abs (complex)").
std::string HloOpOfMathFunction(const std::string& base);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_MATH_FUNCTIONS_H_
