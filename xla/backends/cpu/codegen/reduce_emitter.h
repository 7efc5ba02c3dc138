// Loop structures for reduce kernels other than "one output element at a
// time" (see KernelForm in kernel_planner.h): column reductions that walk
// the operand row by row, and the two halves of a reduction split into
// per-chunk partial results.
//
// Internal to codegen/. Each function emits the body of a kernel for work
// items [begin, end); the builder ends up after the loops.
#ifndef XLA_BACKENDS_CPU_CODEGEN_REDUCE_EMITTER_H_
#define XLA_BACKENDS_CPU_CODEGEN_REDUCE_EMITTER_H_

#include "llvm/IR/IRBuilder.h"
#include "xla/backends/cpu/codegen/elemental_emitter.h"
#include "xla/backends/cpu/codegen/kernel_planner.h"
#include "xla/status.h"

namespace xla::cpu {

// kColumnReduce: output elements [begin, end) of `reduce` into `out`.
Status EmitColumnReduce(llvm::IRBuilder<>& b, ElementalEmitter& emitter,
                        ScalarFunctions* scalar_functions, const KernelInfo& kernel,
                        llvm::Value* out, llvm::Value* begin, llvm::Value* end);

// kReducePartials: chunks [begin, end) of every output into `partials`.
Status EmitReducePartials(llvm::IRBuilder<>& b, ElementalEmitter& emitter,
                          const KernelInfo& kernel, llvm::Value* partials, llvm::Value* begin,
                          llvm::Value* end);

// kReduceFinish: outputs [begin, end) from init and their partials.
Status EmitReduceFinish(llvm::IRBuilder<>& b, ElementalEmitter& emitter, const KernelInfo& kernel,
                        llvm::Value* partials, llvm::Value* out, llvm::Value* begin,
                        llvm::Value* end);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CODEGEN_REDUCE_EMITTER_H_
