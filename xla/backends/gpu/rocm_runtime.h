// The ROCm client for machines with AMD GPUs: the shared GPU runtime
// (gpu_runtime.h) over the HIP runtime API and hipBLAS (hip_driver.h), with
// comgr (comgr.h) linking the compiler's relocatable objects into code
// objects HIP can load. Every device gets one stream; code is compiled for
// the architecture of device 0.
#ifndef XLA_BACKENDS_GPU_ROCM_RUNTIME_H_
#define XLA_BACKENDS_GPU_ROCM_RUNTIME_H_

#include <memory>

#include "xla/backends/gpu/hip_driver.h"
#include "xla/pjrt/client.h"

namespace xla::gpu {

// `hip` is loaded (hipInit not yet called). Fails with a message naming the
// fix when HIP reports no devices or comgr is missing.
StatusOr<std::unique_ptr<Client>> CreateRocmRuntimeClient(std::unique_ptr<HipDriver> hip);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_ROCM_RUNTIME_H_
