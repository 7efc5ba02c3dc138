// The CPU backend's devices and memories. N virtual devices share the host;
// each has one memory space of kind "device" (host RAM).
#ifndef XLA_BACKENDS_CPU_RUNTIME_CPU_DEVICE_H_
#define XLA_BACKENDS_CPU_RUNTIME_CPU_DEVICE_H_

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "xla/pjrt/client.h"

namespace xla::cpu {

class HostMemoryPool;

class CpuMemory final : public Memory {
 public:
  explicit CpuMemory(int id) : id_(id) {}
  int id() const override { return id_; }
  const std::string& kind() const override { return kind_; }

 private:
  int id_;
  std::string kind_ = "device";
};

class CpuDevice final : public Device {
 public:
  // Buffers of this device take their memory from `pool` when given (the
  // client shares one pool between its devices), else from the C library.
  // In a multi-process client, `id` is global (process_index * local count + local
  // id) and the devices of other processes are listed but not addressable.
  explicit CpuDevice(int id, std::shared_ptr<HostMemoryPool> pool = nullptr,
                     int process_index = 0, int local_id = -1, bool addressable = true);
  int id() const override { return id_; }
  int process_index() const override { return process_index_; }
  int local_hardware_id() const override { return local_id_; }
  bool is_addressable() const override { return addressable_; }
  const std::string& kind() const override { return kind_; }
  const std::string& debug_string() const override { return debug_string_; }
  std::vector<Memory*> memories() const override { return {const_cast<CpuMemory*>(&memory_)}; }
  Memory* default_memory() const override { return const_cast<CpuMemory*>(&memory_); }
  MemoryStats memory_stats() const override;

  const std::shared_ptr<HostMemoryPool>& memory_pool() const { return pool_; }

  // Called by CpuBuffer when it allocates and frees.
  void RecordAlloc(int64_t bytes);
  void RecordFree(int64_t bytes);

 private:
  int id_;
  int process_index_;
  int local_id_;
  bool addressable_;
  std::string kind_ = "cpu";
  std::string debug_string_;
  CpuMemory memory_;
  std::shared_ptr<HostMemoryPool> pool_;
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_bytes_{0};
  std::atomic<int64_t> num_allocs_{0};
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_CPU_DEVICE_H_
