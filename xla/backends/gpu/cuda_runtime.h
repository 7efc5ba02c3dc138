// The CUDA client for machines with NVIDIA GPUs: the shared GPU runtime
// (gpu_runtime.h) over the CUDA driver API and cuBLAS opened with dlopen
// (cuda_driver.h). Every device gets its primary context and one stream;
// PTX is JIT-compiled by the driver when an executable is loaded.
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
