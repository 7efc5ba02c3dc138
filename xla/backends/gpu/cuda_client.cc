#include "xla/backends/gpu/device_clients.h"

#include <string>

#include "xla/backends/gpu/llvm_target.h"
#include "xla/backends/gpu/driver_util.h"

namespace xla {
namespace {

using driver_util::OpenDriver;
using driver_util::OptionSet;

// Runs when a client is requested: the compiler side is real (the LLVM target
// is registered and a target machine created); execution needs a driver.
StatusOr<std::unique_ptr<Client>> CreateCudaClient(const Options& options) {
  ASSIGN_OR_RETURN(std::string target, DescribeLlvmTarget("nvptx64-nvidia-cuda", "sm_80"));
  if (OptionSet(options, "mock")) {
    return Unimplemented("compile-only CUDA topologies (mock=True) are not implemented yet; "
                         "the code generator is " + target);
  }
  ASSIGN_OR_RETURN(void* cuda, OpenDriver("libcuda.so.1", "The CUDA plugin",
                                          "Install the NVIDIA driver on a machine with an NVIDIA GPU."));
  using CuInit = int (*)(unsigned);
  using CuDeviceGetCount = int (*)(int*);
  auto cu_init = reinterpret_cast<CuInit>(dlsym(cuda, "cuInit"));
  auto cu_count = reinterpret_cast<CuDeviceGetCount>(dlsym(cuda, "cuDeviceGetCount"));
  if (cu_init == nullptr || cu_count == nullptr) {
    return FailedPrecondition("libcuda.so.1 lacks cuInit/cuDeviceGetCount; the NVIDIA driver is broken");
  }
  int count = 0;
  if (int rc = cu_init(0); rc != 0) {
    return FailedPrecondition("cuInit failed with CUDA error " + std::to_string(rc) +
                              " (is an NVIDIA GPU present and the driver loaded?)");
  }
  if (cu_count(&count) != 0 || count == 0) {
    return FailedPrecondition("the NVIDIA driver reports no CUDA devices");
  }
  return Unimplemented("found " + std::to_string(count) +
                       " CUDA device(s), but executing on CUDA devices is not implemented yet");
}

}  // namespace

const PluginInfo& CudaPluginInfo() {
  static const PluginInfo info{"cuda,gpu", "dev", &CreateCudaClient};
  return info;
}

}  // namespace xla
