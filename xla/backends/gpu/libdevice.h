// libdevice: NVIDIA's bitcode math library (libdevice.10.bc in the CUDA
// toolkit's nvvm/libdevice folder), which the NVPTX target links for the
// math functions PTX has no instruction for.
//
// Internal to backends/gpu.
#ifndef XLA_BACKENDS_GPU_LIBDEVICE_H_
#define XLA_BACKENDS_GPU_LIBDEVICE_H_

#include <string>
#include <vector>

#include "llvm/IR/Module.h"
#include "xla/status.h"

namespace xla::gpu {

// Folders that may hold libdevice.10.bc, best first: `explicit_dir`, then
// $CUDA_HOME and $CUDA_PATH, then the toolkit of each ptxas on $PATH (the
// folder above its bin/, symlinks resolved), then /usr/local/cuda.
std::vector<std::string> LibdeviceCandidates(const std::string& explicit_dir);

// The path of libdevice.10.bc, or a FAILED_PRECONDITION naming `needed_for`
// and every folder searched.
StatusOr<std::string> FindLibdevice(const std::string& explicit_dir,
                                    const std::string& needed_for);

// Rewrites the module's math to libdevice: the libm calls the emitter makes
// (tanhf, expm1, ...), the LLVM math intrinsics NVPTX cannot lower (exp,
// log, sin, pow, ...) and frem become calls to __nv_<name>. Returns the HLO
// ops that needed it (empty: libdevice is not needed).
std::vector<std::string> RewriteMathToLibdevice(llvm::Module* module);

// Links the __nv_ functions the module calls from `path` and makes every
// function but the kernels internal, so -O3 inlines and drops them.
Status LinkLibdevice(llvm::Module* module, const std::string& path);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_LIBDEVICE_H_
