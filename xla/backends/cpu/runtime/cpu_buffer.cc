#include "xla/backends/cpu/runtime/cpu_buffer.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "xla/backends/cpu/runtime/host_memory_pool.h"
#include "xla/hlo/ir/shape_size.h"

namespace xla::cpu {

static_assert(kBufferAlignment == HostMemoryPool::kAlignment);

StatusOr<std::shared_ptr<AlignedMemory>> AlignedMemory::Allocate(size_t bytes,
                                                                   CpuDevice* device) {
  // aligned_alloc needs a multiple of the alignment; never allocate 0 bytes so
  // every buffer has a distinct, valid address.
  size_t rounded = (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  if (rounded == 0) rounded = kBufferAlignment;
  std::shared_ptr<HostMemoryPool> pool = device ? device->memory_pool() : nullptr;
  void* data = pool ? pool->Allocate(rounded) : std::aligned_alloc(kBufferAlignment, rounded);
  if (data == nullptr) {
    return ResourceExhausted("out of host memory allocating " + std::to_string(bytes) +
                             " bytes");
  }
  if (device != nullptr) device->RecordAlloc(static_cast<int64_t>(rounded));
  return std::shared_ptr<AlignedMemory>(new AlignedMemory(data, rounded, device, std::move(pool)));
}

std::shared_ptr<AlignedMemory> AlignedMemory::Borrow(std::shared_ptr<const void> host,
                                                     size_t bytes) {
  // The memory is only ever read through data(); the const_cast never reaches a writer
  // because donation refuses borrowed memory.
  auto* memory = new AlignedMemory(const_cast<void*>(host.get()), bytes, nullptr, nullptr);
  memory->host_ = std::move(host);
  memory->borrowed_ = true;
  return std::shared_ptr<AlignedMemory>(memory);
}

AlignedMemory::~AlignedMemory() {
  if (borrowed_) return;  // host_'s deleter hands the memory back
  if (pool_) {
    pool_->Free(data_, size_);
  } else {
    std::free(data_);
  }
  if (device_ != nullptr) device_->RecordFree(static_cast<int64_t>(size_));
}

namespace {
// The bytes of a dense `type` array of shape `dims`, or why there is none.
StatusOr<size_t> ArrayBytes(PrimitiveType type, const std::vector<int64_t>& dims) {
  if (!IsArrayType(type)) {
    return InvalidArgument("cannot allocate a buffer of type " +
                           std::string(PrimitiveTypeName(type)));
  }
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("negative dimension in buffer shape");
  }
  RETURN_IF_ERROR(CheckArraySize(type, dims));
  return static_cast<size_t>(Shape(type, dims).byte_size());
}
}  // namespace

StatusOr<std::unique_ptr<CpuBuffer>> CpuBuffer::Create(PrimitiveType type,
                                                       std::vector<int64_t> dims,
                                                       CpuDevice* device) {
  ASSIGN_OR_RETURN(size_t size, ArrayBytes(type, dims));
  ASSIGN_OR_RETURN(std::shared_ptr<AlignedMemory> memory, AlignedMemory::Allocate(size, device));
  return std::unique_ptr<CpuBuffer>(
      new CpuBuffer(type, std::move(dims), size, device, std::move(memory)));
}

StatusOr<std::unique_ptr<CpuBuffer>> CpuBuffer::CreateFromHost(PrimitiveType type,
                                                               std::vector<int64_t> dims,
                                                               CpuDevice* device,
                                                               std::shared_ptr<const void> host) {
  ASSIGN_OR_RETURN(size_t size, ArrayBytes(type, dims));
  if (size > 0 && host == nullptr) {
    return InvalidArgument("BufferFromHost: null data for a buffer of " + std::to_string(size) +
                           " bytes");
  }
  const bool in_place =
      size > 0 && reinterpret_cast<uintptr_t>(host.get()) % kKernelAlignment == 0;
  if (in_place) {
    return std::unique_ptr<CpuBuffer>(new CpuBuffer(
        type, std::move(dims), size, device, AlignedMemory::Borrow(std::move(host), size)));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<CpuBuffer> copy, Create(type, std::move(dims), device));
  if (size > 0) std::memcpy(copy->data(), host.get(), size);
  return copy;
}

std::unique_ptr<CpuBuffer> CpuBuffer::CreateFromMemory(PrimitiveType type,
                                                     std::vector<int64_t> dims,
                                                     CpuDevice* device,
                                                     std::shared_ptr<AlignedMemory> memory) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  const size_t size = static_cast<size_t>(count) * ByteWidth(type);
  return std::unique_ptr<CpuBuffer>(new CpuBuffer(type, std::move(dims), size, device, std::move(memory)));
}

Status CpuBuffer::ToHost(void* dst) {
  std::shared_ptr<AlignedMemory> memory = this->memory();
  if (!memory) return FailedPrecondition("ToHost called on a deleted buffer");
  if (size_ > 0) std::memcpy(dst, memory->data(), size_);
  return OkStatus();
}

void CpuBuffer::Delete() {
  std::lock_guard<std::mutex> lock(mu_);
  memory_.reset();
}

Status CpuBuffer::AcquireExternalReference() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!memory_) return FailedPrecondition("cannot view a deleted buffer");
  external_.push_back(memory_);
  return OkStatus();
}

Status CpuBuffer::ReleaseExternalReference() {
  std::lock_guard<std::mutex> lock(mu_);
  if (external_.empty()) return FailedPrecondition("the buffer holds no external reference");
  external_.pop_back();
  return OkStatus();
}

bool CpuBuffer::is_deleted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return memory_ == nullptr;
}

std::shared_ptr<AlignedMemory> CpuBuffer::memory() const {
  std::lock_guard<std::mutex> lock(mu_);
  return memory_;
}

void* CpuBuffer::data() const {
  std::lock_guard<std::mutex> lock(mu_);
  return memory_ ? memory_->data() : nullptr;
}

uintptr_t CpuBuffer::UnsafePointer() const { return reinterpret_cast<uintptr_t>(data()); }

}  // namespace xla::cpu
