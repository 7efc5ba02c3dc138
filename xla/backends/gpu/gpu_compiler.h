// The GPU compiler, shared by the CUDA and ROCm plugins: HloModule -> kernels
// in PTX or an AMDGPU code object, plus the plan that says how to run them.
//
// It runs the target-independent HLO passes, the CPU backend's kernel
// planner (one-loop kernels only, no library thunks) and its elemental
// emitter, then wraps every kernel root in a GPU kernel (kernel_emitter.h),
// lowers math to the target (libdevice for NVPTX), optimises with LLVM at
// -O3 and generates code. Dots the planner hands to a library become BLAS
// calls (cuBLAS / hipBLAS at run time). Ops without a GPU implementation
// (sort, FFT, linear-algebra custom calls, collectives, ...) fail here with
// an UNIMPLEMENTED error naming the op and the backend.
#ifndef XLA_BACKENDS_GPU_GPU_COMPILER_H_
#define XLA_BACKENDS_GPU_GPU_COMPILER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "xla/backends/cpu/runtime/program.h"
#include "xla/hlo/ir/module.h"
#include "xla/pjrt/client.h"
#include "xla/status.h"

namespace xla::gpu {

class GpuTarget;

// How one kernel is launched.
struct GpuKernelSpec {
  std::string name;                // symbol in the code
  std::string instruction;         // the HLO instruction it computes
  std::vector<int> param_slots;    // the program slot behind each kernel parameter
  int64_t elements = 0;            // threads with work (1 for scatter)
  int64_t blocks = 0;              // grid size (0: nothing to launch)
  int64_t threads_per_block = 0;
};

struct GpuCompileOptions {
  // If set (XLA_FLAGS=--xla_dump_to=<dir>), writes <module>.<ext> (the code),
  // <module>.ll (optimised LLVM IR) and <module>.after_optimizations.txt (HLO).
  std::string dump_dir;
};

struct GpuCompiledModule {
  // Slots and steps, as the planner made them: kKernel steps launch the
  // kernel named by kernel_name, kDot steps are BLAS gemm calls; while loops
  // and conditionals are driven from the host through their subprograms.
  cpu::Program program;
  std::vector<GpuKernelSpec> kernels;  // of every (sub)program
  int64_t blas_calls = 0;
  std::string code;            // PTX text, or an AMDGPU ELF object
  std::string code_extension;  // "ptx" / "o"
  std::string optimized_hlo;
};

// The memory an executable of `compiled` reports: code, temporaries, arguments, outputs.
Executable::MemoryStats MemoryStatsOf(const GpuCompiledModule& compiled);

// Runs the HLO passes on `module` (it is changed) and compiles it.
StatusOr<GpuCompiledModule> CompileForGpu(HloModule* module, const GpuTarget& target,
                                          const GpuCompileOptions& options);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_GPU_COMPILER_H_
