// The one exported symbol of a plugin. Each plugin links this file with a
// backend library that defines PluginInfoForThisPlugin().
#include "xla/pjrt/c/c_api_wrapper.h"
#include "xla/pjrt/c/pjrt_c_api.h"
#include "xla/pjrt/client.h"

namespace xla {
const PluginInfo& PluginInfoForThisPlugin();
}  // namespace xla

extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi() {
  return xla::CreatePjrtApi(&xla::PluginInfoForThisPlugin());
}
