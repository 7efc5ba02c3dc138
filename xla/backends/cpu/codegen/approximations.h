// Inline f32 approximations of exp, log, log1p, expm1, tanh and erf (and f64
// exp, tanh, log1p and expm1) that give the same bits as XLA:CPU (the results JAX programs see on
// CPU), rather than libm's. Each works on a scalar or a vector, so a loop over
// them vectorises into straight-line code.
//
// Bit-identity rests on the same operations in the same order with the same
// constants, and on fusing the same multiply-add pairs: XLA:CPU's code
// generator fuses a multiply into the add that is its only use (on hosts with
// FMA). Here those pairs are llvm.fmuladd (fused exactly when XLA's are), an
// explicit fma is one where XLA's own code asks for one (erf), and products
// with several uses stay unfused in both. The JIT fuses the same way in the
// code around these (jit.cc), so e^x + 1 in logistic gets its fma as in XLA.
//
// Internal to codegen/.
#ifndef XLA_BACKENDS_CPU_CODEGEN_APPROXIMATIONS_H_
#define XLA_BACKENDS_CPU_CODEGEN_APPROXIMATIONS_H_

#include "llvm/IR/IRBuilder.h"

namespace xla::cpu {

llvm::Value* EmitExpF32(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* EmitExpF64(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* EmitLogF32(llvm::IRBuilder<>& b, llvm::Value* x);
// log1p and expm1 for f32 and f64.
llvm::Value* EmitLog1p(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* EmitExpm1(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* EmitTanhF32(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* EmitTanhF64(llvm::IRBuilder<>& b, llvm::Value* x);
// XLA:CPU has two erf kernels that differ in where they switch to +-1: one for
// arrays and one for rank-0 values (`scalar`).
llvm::Value* EmitErfF32(llvm::IRBuilder<>& b, llvm::Value* x, bool scalar);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CODEGEN_APPROXIMATIONS_H_
