#include "xla/backends/gpu/device_clients.h"

#include <string>

#include "xla/backends/gpu/llvm_target.h"
#include "xla/backends/gpu/driver_util.h"

namespace xla {
namespace {

using driver_util::OpenDriver;
using driver_util::OptionSet;

StatusOr<std::unique_ptr<Client>> CreateRocmClient(const Options& options) {
  ASSIGN_OR_RETURN(std::string target, DescribeLlvmTarget("amdgcn-amd-amdhsa", "gfx90a"));
  if (OptionSet(options, "mock")) {
    return Unimplemented("compile-only ROCm topologies (mock=True) are not implemented yet; "
                         "the code generator is " + target);
  }
  ASSIGN_OR_RETURN(void* hip, OpenDriver("libamdhip64.so", "The ROCm plugin",
                                         "Install ROCm 6 on a machine with an AMD GPU."));
  (void)hip;
  return Unimplemented("executing on ROCm devices is not implemented yet");
}

}  // namespace

const PluginInfo& RocmPluginInfo() {
  static const PluginInfo info{"rocm,gpu", "dev", &CreateRocmClient};
  return info;
}

}  // namespace xla
