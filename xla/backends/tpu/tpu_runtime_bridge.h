// The bridge to a TPU runtime. Executing on TPU chips needs Google's libtpu
// (the `libtpu` pip package ships libtpu.so, which exports its own
// GetPjrtApi). This plugin finds and opens it, and says exactly what is
// missing when it cannot: no chips, no libtpu, a libtpu that does not load.
//
// Where libtpu is looked for, in order: the file named by TPU_LIBRARY_PATH
// (when set, nothing else is tried); libtpu/libtpu.so in the site-packages
// folder this plugin is installed in; "libtpu.so" through the dynamic loader.
//
// Forwarding execution to libtpu's C API is not implemented: with chips and
// a loadable libtpu, client creation fails with UNIMPLEMENTED naming both.
#ifndef XLA_BACKENDS_TPU_TPU_RUNTIME_BRIDGE_H_
#define XLA_BACKENDS_TPU_TPU_RUNTIME_BRIDGE_H_

#include <memory>
#include <string>

#include "xla/backends/tpu/tpu_discovery.h"
#include "xla/pjrt/client.h"

namespace xla::tpu {

struct LibtpuSearch {
  std::string library_path_env;  // TPU_LIBRARY_PATH ("" when unset)
  std::string site_packages;     // folder holding jax_plugins/ ("" when unknown)
};

// The site-packages folder of the plugin library this code is linked into
// (two levels above its folder), "" when that cannot be told.
std::string PluginSitePackages();

// The client for these chips, or an error naming what is missing.
StatusOr<std::unique_ptr<Client>> CreateTpuRuntimeClient(const TpuChips& chips,
                                                         const LibtpuSearch& search);

}  // namespace xla::tpu

#endif  // XLA_BACKENDS_TPU_TPU_RUNTIME_BRIDGE_H_
