// GpuTarget: what differs between the NVPTX (CUDA) and AMDGPU (ROCm) code
// generators. The shared compiler (gpu_compiler.cc) and kernel emitter ask it
// for thread indices, kernel marking, math lowering and the final code; the
// rest (planning, elemental IR, optimisation) is common.
//
// Internal to backends/gpu (it names LLVM types).
#ifndef XLA_BACKENDS_GPU_GPU_TARGET_H_
#define XLA_BACKENDS_GPU_GPU_TARGET_H_

#include <memory>
#include <string>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "xla/status.h"

namespace xla::gpu {

class GpuTarget {
 public:
  virtual ~GpuTarget() = default;

  // "CUDA backend" / "ROCm backend": named in every error.
  virtual std::string backend_name() const = 0;
  // The processor: "sm_80", "gfx90a".
  const std::string& arch() const { return arch_; }
  llvm::TargetMachine& machine() const { return *machine_; }
  // Where constant arrays live (global or constant memory).
  virtual unsigned constant_address_space() const = 0;

  // The global thread index (block index * block size + thread index), i64.
  virtual llvm::Value* EmitGlobalThreadIndex(llvm::IRBuilder<>& b, int64_t block_size) const = 0;
  // Makes `fn` a kernel entry point launched with `block_size` threads per block.
  virtual void MarkKernel(llvm::Function* fn, int64_t block_size) const = 0;
  // Before optimisation: replaces or rejects the math calls the emitter made
  // (libm functions, LLVM intrinsics the backend cannot lower).
  virtual Status LowerMath(llvm::Module* module) const = 0;
  // Whether the code may call the external function `fn` after LowerMath and
  // optimisation. Devices provide only the LLVM intrinsics their backend lowers.
  virtual bool ProvidesFunction(const llvm::Function& fn) const { return fn.isIntrinsic(); }
  // The final code: PTX text, or an AMDGPU code object (ELF).
  virtual StatusOr<std::string> EmitCode(llvm::Module* module) const = 0;
  // File extension of that code ("ptx", "o").
  virtual std::string code_extension() const = 0;

 protected:
  GpuTarget(std::string arch, std::unique_ptr<llvm::TargetMachine> machine)
      : arch_(std::move(arch)), machine_(std::move(machine)) {}
  // Runs the target's code generator over `module` into a string.
  StatusOr<std::string> RunCodegen(llvm::Module* module, llvm::CodeGenFileType type) const;

 private:
  std::string arch_;
  std::unique_ptr<llvm::TargetMachine> machine_;
};

// The module as LLVM IR text (for dumps, and for targets whose code is IR).
std::string PrintModule(const llvm::Module& module);

// NVPTX for compute capability `arch` ("sm_70" ... "sm_90"). `libdevice_dir`
// is where libdevice.10.bc is (empty: found through CUDA_HOME, CUDA_PATH or
// ptxas on PATH when a module first needs it).
StatusOr<std::unique_ptr<GpuTarget>> CreateNvptxTarget(const std::string& arch,
                                                       const std::string& libdevice_dir);
// AMDGPU for `arch` ("gfx90a", "gfx942").
StatusOr<std::unique_ptr<GpuTarget>> CreateAmdgpuTarget(const std::string& arch);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_GPU_TARGET_H_
