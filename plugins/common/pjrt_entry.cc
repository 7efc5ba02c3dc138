// The one exported symbol of a plugin. plugins/plugin.bzl compiles this file
// once per plugin with JAX_PLUGIN_INFO naming the backend's PluginInfo function
// (e.g. CpuPluginInfo) and JAX_PLUGIN_VERSION the release being built.
#include "xla/pjrt/c/c_api_wrapper.h"
#include "xla/pjrt/c/pjrt_c_api.h"
#include "xla/pjrt/client.h"

#if !defined(JAX_PLUGIN_INFO) || !defined(JAX_PLUGIN_VERSION)
#error "JAX_PLUGIN_INFO and JAX_PLUGIN_VERSION must be defined by the build"
#endif

namespace xla {

const PluginInfo& JAX_PLUGIN_INFO();  // defined by the backend library

namespace {

// The backend describes itself; the release version is stamped here, once.
const PluginInfo& StampedPluginInfo() {
  static const PluginInfo info = [] {
    PluginInfo i = JAX_PLUGIN_INFO();
    i.plugin_version = JAX_PLUGIN_VERSION;
    return i;
  }();
  return info;
}

}  // namespace
}  // namespace xla

extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi() {
  return xla::CreatePjrtApi(&xla::StampedPluginInfo());
}
