// A dense row-major array in host memory: 64-byte aligned when we allocate
// it, at least kKernelAlignment aligned when it is the caller's (zero-copy).
#ifndef XLA_BACKENDS_CPU_RUNTIME_CPU_BUFFER_H_
#define XLA_BACKENDS_CPU_RUNTIME_CPU_BUFFER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "xla/backends/cpu/runtime/cpu_device.h"
#include "xla/pjrt/client.h"

namespace xla::cpu {

inline constexpr size_t kBufferAlignment = 64;
// What compiled kernels may assume of a buffer's address: less than the
// allocator gives, so that host memory we do not allocate (numpy's, 16-byte
// aligned by malloc) can be used in place.
inline constexpr size_t kKernelAlignment = 16;

// Aligned host memory that reports its size to the owning device, and comes
// from (and returns to) the device's memory pool when it has one.
class AlignedMemory {
 public:
  static StatusOr<std::shared_ptr<AlignedMemory>> Allocate(size_t bytes, CpuDevice* device);
  // Memory the caller owns (at least kKernelAlignment aligned), used in place
  // and never written: dropping the last copy of `host` hands it back.
  static std::shared_ptr<AlignedMemory> Borrow(std::shared_ptr<const void> host, size_t bytes);
  ~AlignedMemory();
  AlignedMemory(const AlignedMemory&) = delete;
  AlignedMemory& operator=(const AlignedMemory&) = delete;
  void* data() const { return data_; }
  size_t size() const { return size_; }
  // Borrowed memory is read-only: no output may be written over it.
  bool borrowed() const { return borrowed_; }

 private:
  AlignedMemory(void* data, size_t size, CpuDevice* device, std::shared_ptr<HostMemoryPool> pool)
      : data_(data), size_(size), device_(device), pool_(std::move(pool)) {}
  void* data_;
  size_t size_;
  CpuDevice* device_;
  std::shared_ptr<HostMemoryPool> pool_;  // may be null
  std::shared_ptr<const void> host_;  // the caller's memory, for Borrow()
  bool borrowed_ = false;
};

class CpuBuffer final : public Buffer {
 public:
  // Allocates an uninitialised buffer.
  static StatusOr<std::unique_ptr<CpuBuffer>> Create(PrimitiveType type,
                                                     std::vector<int64_t> dims,
                                                     CpuDevice* device);
  // A buffer over the caller's host memory, used in place if it is dense
  // and kKernelAlignment aligned, else copied (the caller gets `host` back
  // at once). Never written, even when donated.
  static StatusOr<std::unique_ptr<CpuBuffer>> CreateFromHost(PrimitiveType type,
                                                           std::vector<int64_t> dims,
                                                           CpuDevice* device,
                                                           std::shared_ptr<const void> host);
  // A buffer over existing memory (a donated argument's), which must hold
  // at least the shape's bytes.
  static std::unique_ptr<CpuBuffer> CreateFromMemory(PrimitiveType type, std::vector<int64_t> dims,
                                                     CpuDevice* device,
                                                     std::shared_ptr<AlignedMemory> memory);

  PrimitiveType element_type() const override { return type_; }
  const std::vector<int64_t>& dimensions() const override { return dims_; }
  Device* device() const override { return device_; }
  size_t size_in_bytes() const override { return size_; }
  Status ToHost(void* dst) override;
  void Delete() override;
  bool is_deleted() const override;
  uintptr_t UnsafePointer() const override;
  Status AcquireExternalReference() override;
  Status ReleaseExternalReference() override;

  // The data, or nullptr once deleted. The shared pointer keeps the memory
  // alive while an execution reads it, even if Delete() races with it.
  std::shared_ptr<AlignedMemory> memory() const;
  void* data() const;

 private:
  CpuBuffer(PrimitiveType type, std::vector<int64_t> dims, size_t size, CpuDevice* device,
            std::shared_ptr<AlignedMemory> memory)
      : type_(type), dims_(std::move(dims)), size_(size), device_(device),
        memory_(std::move(memory)) {}

  PrimitiveType type_;
  std::vector<int64_t> dims_;
  size_t size_;
  CpuDevice* device_;
  mutable std::mutex mu_;
  std::shared_ptr<AlignedMemory> memory_;
  // One entry per external reference: each keeps the memory alive (and makes
  // it look shared to donation, so no output aliases it).
  std::vector<std::shared_ptr<AlignedMemory>> external_;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_CPU_BUFFER_H_
