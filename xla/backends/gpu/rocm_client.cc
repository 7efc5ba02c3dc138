#include <string>

#include "xla/backends/gpu/device_clients.h"
#include "xla/backends/gpu/driver_util.h"
#include "xla/backends/gpu/gpu_client.h"
#include "xla/backends/gpu/gpu_target.h"
#include "xla/backends/gpu/hip_driver.h"
#include "xla/backends/gpu/rocm_runtime.h"

namespace xla {
namespace {

using driver_util::OptionSet;

// Option gfx_arch: the AMD GPU architecture, default gfx90a (MI200).
StatusOr<std::string> GfxArch(const Options& options) {
  auto it = options.find("gfx_arch");
  if (it == options.end()) return std::string("gfx90a");
  const std::string* s = std::get_if<std::string>(&it->second);
  if (s == nullptr) return InvalidArgument("option gfx_arch must be a string such as \"gfx942\"");
  return *s;
}

// With mock=True the client compiles for a topology of mock devices (option
// gfx_arch); otherwise it runs on the GPUs HIP reports, compiling for the
// architecture of device 0 (rocm_runtime.h).
StatusOr<std::unique_ptr<Client>> CreateRocmClient(const Options& options) {
  ASSIGN_OR_RETURN(std::string arch, GfxArch(options));
  if (OptionSet(options, "mock")) {
    ASSIGN_OR_RETURN(std::unique_ptr<gpu::GpuTarget> target, gpu::CreateAmdgpuTarget(arch));
    return gpu::CreateCompileOnlyClient("rocm", std::move(target), options,
                                        "Run on a machine with an AMD GPU and ROCm 6 to execute.");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<gpu::HipDriver> hip, gpu::HipDriver::Load());
  return gpu::CreateRocmRuntimeClient(std::move(hip));
}

}  // namespace

const PluginInfo& RocmPluginInfo() {
  static const PluginInfo info{"rocm,gpu", "dev", &CreateRocmClient};
  return info;
}

}  // namespace xla
