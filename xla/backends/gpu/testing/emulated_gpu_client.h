// An emulated GPU for tests on machines without one (like tinygrad's
// reference device): the GPU compiler (gpu_compiler.h) generates its kernels
// for the host CPU instead of NVPTX or AMDGPU, and the CPU runtime runs the
// compiled program, each kernel launch being one host call that steps
// through every thread of the grid in order (the kernels' grid-stride loops
// and thread-0 scatters then behave as on a device). Dots the GPU compiler
// hands to BLAS run with the CPU's Eigen dot.
//
// What it checks numerically: the GPU plan (one-loop kernels, no thunks),
// the kernel emitter (launch sizes, parameter slots, constants as globals)
// and the shared elemental IR. What it does not: the device targets' math
// lowering and code generation (ptxas and llvm-readelf check those, see
// tests/plugins/test_gpu_codegen.py).
#ifndef XLA_BACKENDS_GPU_TESTING_EMULATED_GPU_CLIENT_H_
#define XLA_BACKENDS_GPU_TESTING_EMULATED_GPU_CLIENT_H_

#include <memory>

#include "xla/pjrt/client.h"

namespace xla::gpu::testing {

StatusOr<std::unique_ptr<Client>> CreateEmulatedGpuClient();

}  // namespace xla::gpu::testing

#endif  // XLA_BACKENDS_GPU_TESTING_EMULATED_GPU_CLIENT_H_
