// Kernels for scatter and select-and-scatter, whose loops run over their
// updates (source) rather than over their output.
//
// Internal to codegen/. A kernel first writes its whole output (the operand
// for scatter, the init value for select-and-scatter), then walks the updates
// in order on one thread, so repeated indices combine in update order as in
// XLA. Operands are read through the ElementalEmitter, so producers of the
// indices and updates (a select normalising negative indices, a reshape)
// are fused into the kernel. A scatter window that does not fit entirely in
// the operand is skipped, which is how XLA (and jax's mode="drop") treat
// out-of-bounds indices.
#ifndef XLA_BACKENDS_CPU_CODEGEN_SCATTER_EMITTER_H_
#define XLA_BACKENDS_CPU_CODEGEN_SCATTER_EMITTER_H_

#include <vector>

#include "llvm/IR/IRBuilder.h"
#include "xla/backends/cpu/codegen/elemental_emitter.h"

namespace xla::cpu {

// Emits the whole computation of `root` (kScatter or kSelectAndScatter)
// writing its output leaves through `outputs`. With `operands_preset` (a
// scatter only) the outputs already hold the operands and only the updates
// are applied.
Status EmitScatterLikeKernel(llvm::IRBuilder<>& b, ElementalEmitter& emitter,
                             ScalarFunctions* scalar_functions, const GraphNode* root,
                             const std::vector<llvm::Value*>& outputs, bool operands_preset);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CODEGEN_SCATTER_EMITTER_H_
