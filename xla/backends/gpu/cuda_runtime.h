// The CUDA client for machines with NVIDIA GPUs: devices with their primary
// contexts and one stream each, device buffers, and executables that load
// the GPU compiler's PTX with the driver's JIT and launch its kernels, copies
// and cuBLAS gemms in program order. Everything goes through the driver API
// opened with dlopen (cuda_driver.h).
//
// Not yet: while loops and conditionals (they need host-driven subprograms),
// donation, strided host buffers, and more than one process.
#ifndef XLA_BACKENDS_GPU_CUDA_RUNTIME_H_
#define XLA_BACKENDS_GPU_CUDA_RUNTIME_H_

#include <memory>
#include <string>

#include "xla/backends/gpu/cuda_driver.h"
#include "xla/pjrt/client.h"

namespace xla::gpu {

// `driver` is loaded and cuInit has succeeded. PTX is compiled for the compute
// capability of device 0; `cuda_data_dir` is where libdevice is (may be empty).
StatusOr<std::unique_ptr<Client>> CreateCudaRuntimeClient(std::unique_ptr<CudaDriver> driver,
                                                          const std::string& cuda_data_dir);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CUDA_RUNTIME_H_
