// Finding the TPU chips of this machine: each chip is a device file,
// /dev/accel<N> (v2 to v4) or /dev/vfio/<N> (v5e, v5p, v6e), and a PCI
// device of Google's (vendor 0x1ae0) whose device id names the generation.
//
// Everything is read below a root folder ("/" on a real machine) so tests
// can lay out fake /dev and /sys trees; the root comes from the client
// option device_root or the XLA_TPU_DEVICE_ROOT environment variable.
#ifndef XLA_BACKENDS_TPU_TPU_DISCOVERY_H_
#define XLA_BACKENDS_TPU_TPU_DISCOVERY_H_

#include <string>
#include <vector>

#include "xla/backends/tpu/tpu_topology.h"

namespace xla::tpu {

struct TpuChips {
  // Full paths, by chip number: ".../dev/accel0", ".../dev/accel1".
  std::vector<std::string> device_files;
  // From the PCI ids under <root>/sys/bus/pci/devices; nullptr when there
  // are none, they are not ids this plugin knows, or they disagree.
  const TpuGeneration* generation = nullptr;
  // "<root>/dev/accel* and <root>/dev/vfio/<n>", for messages.
  std::string searched;
};

TpuChips DiscoverTpuChips(const std::string& root);

// "4 TPU chips (/dev/vfio/0 .. /dev/vfio/3, TPU v5 lite)", for messages.
std::string DescribeChips(const TpuChips& chips);

}  // namespace xla::tpu

#endif  // XLA_BACKENDS_TPU_TPU_DISCOVERY_H_
