// TPU generations and the topology strings of compile-only TPU clients.
//
// A topology names a generation and a chip grid, the way JAX names TPU
// slices: "v5e:2x2" (4 chips), "v4:2x2x1", "v5p:2x2x2". Generations with a
// 3-D interconnect (v4, v5p) take three sizes, the others two. A chip of v2
// or v3 holds two TensorCores, each a JAX device; later chips are one device.
#ifndef XLA_BACKENDS_TPU_TPU_TOPOLOGY_H_
#define XLA_BACKENDS_TPU_TPU_TOPOLOGY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "xla/status.h"

namespace xla::tpu {

struct TpuGeneration {
  const char* name;         // as topologies spell it: "v5e"
  const char* device_kind;  // as JAX reports it: "TPU v5 lite"
  int topology_rank;        // 2 or 3 sizes in a topology string
  int devices_per_chip;     // TensorCores exposed as devices
  int64_t hbm_bytes;        // per chip
  // PCI ids (Google's vendor id 0x1ae0); v2 and v3 share a device id and
  // differ by subsystem id (0 where the device id alone decides).
  int pci_device_id;
  int pci_subsystem_id;
};

// Every generation this plugin knows, oldest first.
const std::vector<TpuGeneration>& TpuGenerations();

// nullptr when unknown.
const TpuGeneration* FindTpuGeneration(const std::string& name);
const TpuGeneration* TpuGenerationFromPci(int device_id, int subsystem_id);

struct TpuTopology {
  const TpuGeneration* generation = nullptr;
  std::vector<int64_t> chip_grid;  // {2, 2}
  int64_t num_chips = 0;
  int64_t num_devices = 0;
  std::string name;  // as given: "v5e:2x2"
};

// The default topology of a compile-only client: one v5e chip.
inline constexpr char kDefaultTpuTopology[] = "v5e:1x1";

// INVALID_ARGUMENT naming the problem and the accepted forms otherwise.
StatusOr<TpuTopology> ParseTpuTopology(const std::string& text);

}  // namespace xla::tpu

#endif  // XLA_BACKENDS_TPU_TPU_TOPOLOGY_H_
