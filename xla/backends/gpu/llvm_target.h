// The LLVM code generation targets each accelerator plugin carries.
#ifndef XLA_BACKENDS_GPU_LLVM_TARGET_H_
#define XLA_BACKENDS_GPU_LLVM_TARGET_H_

#include <string>

#include "xla/status.h"

namespace xla {

// Registers the plugin's LLVM target ("nvptx64-nvidia-cuda" or
// "amdgcn-amd-amdhsa") and checks that a target machine for `cpu` (e.g.
// "sm_80", "gfx90a") can be created. Returns a description of it.
StatusOr<std::string> DescribeLlvmTarget(const std::string& triple, const std::string& cpu);

}  // namespace xla

#endif  // XLA_BACKENDS_GPU_LLVM_TARGET_H_
