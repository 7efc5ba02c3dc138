// Compile-only GPU clients: mock devices of a chosen topology that compile
// HLO through the real GPU compiler (gpu_compiler.h) and report the
// optimised HLO, memory stats and the generated code, but run nothing.
// Executing and transferring buffers fail with FAILED_PRECONDITION saying
// this is a compile-only client. The CUDA and ROCm plugins create one when
// asked for mock=True.
//
// Topology: the option mock_gpu_topology is "<slices>x<hosts per
// slice>x<devices per host>" (JAX's format, e.g. "1x1x4" or "2x1x8"); the
// client has their product of devices, all in this process. Without it,
// the option num_devices (default 1) gives the count.
#ifndef XLA_BACKENDS_GPU_GPU_CLIENT_H_
#define XLA_BACKENDS_GPU_GPU_CLIENT_H_

#include <memory>
#include <string>

#include "xla/pjrt/client.h"

namespace xla::gpu {

class GpuTarget;

// Devices in a topology string ("1x1x4" -> 4); INVALID_ARGUMENT otherwise.
StatusOr<int64_t> DevicesInTopology(const std::string& topology);

// `platform` is "cuda" or "rocm"; `fix` tells the user how to run for real.
StatusOr<std::unique_ptr<Client>> CreateCompileOnlyClient(const std::string& platform,
                                                          std::unique_ptr<GpuTarget> target,
                                                          const Options& options,
                                                          const std::string& fix);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_GPU_CLIENT_H_
