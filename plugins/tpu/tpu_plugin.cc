// Binds the Tpu backend to the plugin entry point, stamped with the release.
#include "xla/backends/gpu/device_clients.h"
#include "xla/pjrt/client.h"

namespace xla {

const PluginInfo& PluginInfoForThisPlugin() {
  static const PluginInfo info = [] {
    PluginInfo i = TpuPluginInfo();
    i.plugin_version = JAX_PLUGIN_VERSION;
    return i;
  }();
  return info;
}

}  // namespace xla
