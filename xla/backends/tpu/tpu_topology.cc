#include "xla/backends/tpu/tpu_topology.h"

#include <sstream>

#include "xla/pjrt/compile_only.h"

namespace xla::tpu {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

std::string GenerationNames() {
  std::string names;
  for (const TpuGeneration& g : TpuGenerations()) {
    if (!names.empty()) names += ", ";
    names += g.name;
  }
  return names;
}

Status BadTopology(const std::string& text, const std::string& why) {
  return InvalidArgument("TPU topology \"" + text + "\": " + why +
                         ". Expected <generation>:<chips per axis>, e.g. \"v5e:2x2\" or "
                         "\"v4:2x2x1\" (generations: " + GenerationNames() + ")");
}

}  // namespace

const std::vector<TpuGeneration>& TpuGenerations() {
  // HBM sizes and PCI ids as Google documents them for Cloud TPU VMs.
  static const std::vector<TpuGeneration> generations = {
      {"v2", "TPU v2", 2, 2, 8 * kGiB, 0x0027, 0x004e},
      {"v3", "TPU v3", 2, 2, 16 * kGiB, 0x0027, 0x004f},
      {"v4", "TPU v4", 3, 1, 32 * kGiB, 0x005e, 0},
      {"v5e", "TPU v5 lite", 2, 1, 16 * kGiB, 0x0063, 0},
      {"v5p", "TPU v5", 3, 1, 95 * kGiB, 0x0062, 0},
      {"v6e", "TPU v6 lite", 2, 1, 32 * kGiB, 0x006f, 0},
  };
  return generations;
}

const TpuGeneration* FindTpuGeneration(const std::string& name) {
  for (const TpuGeneration& g : TpuGenerations()) {
    if (name == g.name) return &g;
  }
  return nullptr;
}

const TpuGeneration* TpuGenerationFromPci(int device_id, int subsystem_id) {
  for (const TpuGeneration& g : TpuGenerations()) {
    if (g.pci_device_id == device_id &&
        (g.pci_subsystem_id == 0 || g.pci_subsystem_id == subsystem_id)) {
      return &g;
    }
  }
  return nullptr;
}

StatusOr<TpuTopology> ParseTpuTopology(const std::string& text) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) return BadTopology(text, "no generation");
  TpuTopology topology;
  topology.name = text;
  topology.generation = FindTpuGeneration(text.substr(0, colon));
  if (topology.generation == nullptr) {
    return BadTopology(text, "unknown generation \"" + text.substr(0, colon) + "\"");
  }
  const std::string grid = text.substr(colon + 1);
  std::stringstream in(grid);
  std::string part;
  topology.num_chips = 1;
  while (std::getline(in, part, 'x')) {
    if (part.empty() || part.size() > 4 || part.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(part) < 1) {
      return BadTopology(text, "chip counts must be positive integers separated by 'x'");
    }
    topology.chip_grid.push_back(std::stoll(part));
    topology.num_chips *= topology.chip_grid.back();  // at most 9999^3: no overflow
  }
  const int rank = topology.generation->topology_rank;
  if (grid.empty() || grid.back() == 'x' || static_cast<int>(topology.chip_grid.size()) != rank) {
    return BadTopology(text, std::string(topology.generation->name) + " takes " +
                                 std::to_string(rank) + " chip counts");
  }
  topology.num_devices = topology.num_chips * topology.generation->devices_per_chip;
  if (topology.num_devices > compile_only::kMaxDevices) {
    return BadTopology(text, "more than " + std::to_string(compile_only::kMaxDevices) + " devices");
  }
  return topology;
}

}  // namespace xla::tpu
