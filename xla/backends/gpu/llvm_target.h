// The LLVM code generation target each accelerator plugin carries.
#ifndef XLA_BACKENDS_GPU_LLVM_TARGET_H_
#define XLA_BACKENDS_GPU_LLVM_TARGET_H_

#include <memory>
#include <string>

#include "xla/status.h"

namespace llvm {
class TargetMachine;
}  // namespace llvm

namespace xla::gpu {

// Registers the plugin's one LLVM target (NVPTX or AMDGPU, chosen by the
// build) and creates a target machine for `triple` ("nvptx64-nvidia-cuda",
// "amdgcn-amd-amdhsa") and `cpu` ("sm_80", "gfx90a"). An unknown `cpu` is
// an InvalidArgument naming it.
StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const std::string& triple,
                                                                   const std::string& cpu,
                                                                   const std::string& features);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_LLVM_TARGET_H_
