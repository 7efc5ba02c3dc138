// The TPU plugin's clients.
//
// Options (all optional):
//   mock=True          a compile-only client: mock devices of `topology`
//                      that compile (optimised HLO with bf16 dots and tiled
//                      layouts, memory stats, a readable serialized record)
//                      but cannot execute or hold buffers: those fail with
//                      FAILED_PRECONDITION saying so.
//   topology="v5e:2x2" the mock topology (tpu_topology.h), default "v5e:1x1".
//   device_root="/x"   where /dev and /sys are read for chips (default the
//                      XLA_TPU_DEVICE_ROOT environment variable, else "/").
// Without mock, the client needs TPU chips and libtpu (tpu_runtime_bridge.h);
// lacking either, creation fails with a message naming what is missing.
#ifndef XLA_BACKENDS_TPU_TPU_CLIENT_H_
#define XLA_BACKENDS_TPU_TPU_CLIENT_H_

#include <memory>

#include "xla/backends/tpu/tpu_topology.h"
#include "xla/pjrt/client.h"

namespace xla {

const PluginInfo& TpuPluginInfo();

namespace tpu {

std::unique_ptr<Client> CreateCompileOnlyTpuClient(const TpuTopology& topology);

StatusOr<std::unique_ptr<Client>> CreateTpuClient(const Options& options);

}  // namespace tpu
}  // namespace xla

#endif  // XLA_BACKENDS_TPU_TPU_CLIENT_H_
