#include "xla/backends/gpu/device_clients.h"

#include <string>

#include <glob.h>
#include "xla/backends/gpu/driver_util.h"

namespace xla {
namespace {

using driver_util::OpenDriver;
using driver_util::OptionSet;

StatusOr<std::unique_ptr<Client>> CreateTpuClient(const Options& options) {
  glob_t found;
  int n = 0;
  for (const char* pattern : {"/dev/accel*", "/dev/vfio/[0-9]*"}) {
    if (glob(pattern, 0, nullptr, &found) == 0) n += found.gl_pathc;
    globfree(&found);
  }
  if (n == 0) {
    return FailedPrecondition(
        "no TPU found: the TPU plugin looks for TPU chips as /dev/accel* or /dev/vfio/* and "
        "there are none on this machine. Run on a Cloud TPU VM.");
  }
  return Unimplemented("found " + std::to_string(n) +
                       " TPU device file(s), but the TPU runtime bridge is not implemented yet");
}

}  // namespace

const PluginInfo& TpuPluginInfo() {
  static const PluginInfo info{"tpu", "dev", &CreateTpuClient};
  return info;
}

}  // namespace xla
