#include <string>

#include "xla/backends/gpu/device_clients.h"
#include "xla/backends/gpu/driver_util.h"
#include "xla/backends/gpu/gpu_client.h"
#include "xla/backends/gpu/gpu_target.h"

namespace xla {
namespace {

using driver_util::OpenDriver;
using driver_util::OptionSet;

// Option gfx_arch: the AMD GPU architecture, default gfx90a (MI200).
StatusOr<std::string> GfxArch(const Options& options) {
  auto it = options.find("gfx_arch");
  if (it == options.end()) return std::string("gfx90a");
  const std::string* s = std::get_if<std::string>(&it->second);
  if (s == nullptr) return InvalidArgument("option gfx_arch must be a string such as \"gfx942\"");
  return *s;
}

StatusOr<std::unique_ptr<Client>> CreateRocmClient(const Options& options) {
  ASSIGN_OR_RETURN(std::string arch, GfxArch(options));
  ASSIGN_OR_RETURN(std::unique_ptr<gpu::GpuTarget> target, gpu::CreateAmdgpuTarget(arch));
  if (OptionSet(options, "mock")) {
    return gpu::CreateCompileOnlyClient("rocm", std::move(target), options,
                                        "Run on a machine with an AMD GPU and ROCm 6 to execute.");
  }
  ASSIGN_OR_RETURN(void* hip, OpenDriver("libamdhip64.so", "The ROCm plugin",
                                         "Install ROCm 6 on a machine with an AMD GPU "
                                         "(or pass mock=True for a compile-only client)."));
  (void)hip;
  return Unimplemented("executing on ROCm devices is not implemented yet "
                       "(mock=True gives a compile-only client)");
}

}  // namespace

const PluginInfo& RocmPluginInfo() {
  static const PluginInfo info{"rocm,gpu", "dev", &CreateRocmClient};
  return info;
}

}  // namespace xla
