// KernelEmitter: one GPU kernel per kernel root of a plan.
//
// Internal to backends/gpu. A kernel runs one thread per output element in a
// grid-stride loop (thread t computes elements t, t + grid, ... below the
// element count), asking the shared ElementalEmitter for the root's value at
// each flat index, so everything the planner inlined is computed in
// registers. Reductions are computed per output element by the loops the
// emitter opens over the reduced dimensions (correct, not yet a tree
// reduction). Scatter and select-and-scatter apply their updates in order on
// thread 0. Kernel parameters are the slot pointers (global memory) the
// kernel reads and writes, in GpuKernelSpec::param_slots order; constant
// arrays are module globals, not parameters.
#ifndef XLA_BACKENDS_GPU_KERNEL_EMITTER_H_
#define XLA_BACKENDS_GPU_KERNEL_EMITTER_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "xla/backends/cpu/codegen/elemental_emitter.h"
#include "xla/backends/cpu/codegen/kernel_planner.h"
#include "xla/backends/gpu/gpu_compiler.h"
#include "xla/backends/gpu/gpu_target.h"

namespace xla::gpu {

// Globals holding the plans' constant arrays, one per (plan, slot).
class ConstantGlobals {
 public:
  ConstantGlobals(llvm::Module* module, unsigned address_space)
      : module_(module), address_space_(address_space) {}
  llvm::GlobalVariable* Get(const cpu::Plan& plan, int slot);

 private:
  llvm::Module* module_;
  unsigned address_space_;
  std::map<std::pair<const cpu::Plan*, int>, llvm::GlobalVariable*> globals_;
};

// Threads per block of every kernel; the grid covers the elements, capped at
// kMaxBlocks (the grid-stride loop does the rest).
constexpr int64_t kBlockSize = 256;
constexpr int64_t kMaxBlocks = int64_t{1} << 20;

// Emits the kernel of `kernel` into `module` and describes its launch.
StatusOr<GpuKernelSpec> EmitGpuKernel(llvm::Module* module, const GpuTarget& target,
                                      const cpu::Plan& plan, const cpu::KernelInfo& kernel,
                                      cpu::ScalarFunctions* scalar_functions,
                                      ConstantGlobals* constants);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_KERNEL_EMITTER_H_
