#include "xla/backends/cpu/runtime/cpu_device.h"

namespace xla::cpu {

CpuDevice::CpuDevice(int id, std::shared_ptr<HostMemoryPool> pool, int process_index,
                     int local_id, bool addressable)
    : id_(id), process_index_(process_index), local_id_(local_id < 0 ? id : local_id),
      addressable_(addressable), debug_string_("cpu:" + std::to_string(id)), memory_(id),
      pool_(std::move(pool)) {}

Device::MemoryStats CpuDevice::memory_stats() const {
  MemoryStats stats;
  stats.bytes_in_use = bytes_in_use_.load();
  stats.peak_bytes_in_use = peak_bytes_.load();
  stats.num_allocs = num_allocs_.load();
  return stats;
}

void CpuDevice::RecordAlloc(int64_t bytes) {
  int64_t now = bytes_in_use_.fetch_add(bytes) + bytes;
  num_allocs_.fetch_add(1);
  int64_t peak = peak_bytes_.load();
  while (now > peak && !peak_bytes_.compare_exchange_weak(peak, now)) {
  }
}

void CpuDevice::RecordFree(int64_t bytes) { bytes_in_use_.fetch_sub(bytes); }

}  // namespace xla::cpu
