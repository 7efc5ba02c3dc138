// A size-bucketed free list of 64-byte-aligned host blocks. A multi-megabyte
// block freed to the C library goes back to the operating system, and the
// next buffer of that size faults its pages in again one by one, which on
// some machines costs more than the kernel writing it. The CPU client keeps
// freed buffer memory here instead, so a program that allocates outputs of
// the same sizes call after call writes to warm pages.
//
// Thread-safe. Bounded: at most `max_cached_bytes` are held; the blocks freed
// longest ago go back to the C library first. Blocks smaller than
// kMinCachedBytes are not kept (the C library recycles those itself).
#ifndef XLA_BACKENDS_CPU_RUNTIME_HOST_MEMORY_POOL_H_
#define XLA_BACKENDS_CPU_RUNTIME_HOST_MEMORY_POOL_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace xla::cpu {

class HostMemoryPool {
 public:
  static constexpr size_t kAlignment = 64;
  static constexpr size_t kMinCachedBytes = size_t{64} << 10;

  explicit HostMemoryPool(size_t max_cached_bytes) : max_cached_bytes_(max_cached_bytes) {}
  ~HostMemoryPool();  // frees the cached blocks
  HostMemoryPool(const HostMemoryPool&) = delete;
  HostMemoryPool& operator=(const HostMemoryPool&) = delete;

  // A block of `bytes` (a positive multiple of kAlignment): the most recently
  // freed one of that size, else a new one; nullptr when out of memory.
  void* Allocate(size_t bytes);
  // Takes back a block from Allocate of the same size.
  void Free(void* data, size_t bytes);

  struct Stats {
    int64_t hits = 0;    // allocations served from the cache
    int64_t misses = 0;  // allocations of a cacheable size that were not
    size_t cached_bytes = 0;
    size_t cached_blocks = 0;
  };
  Stats stats() const;

 private:
  struct Block {
    void* data;
    size_t bytes;
  };
  using BlockList = std::list<Block>;

  void EvictOldestLocked();

  const size_t max_cached_bytes_;
  mutable std::mutex mu_;
  BlockList by_age_;  // oldest first
  // Each size's blocks in `by_age_`, oldest first.
  std::unordered_map<size_t, std::vector<BlockList::iterator>> by_size_;
  Stats stats_;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_HOST_MEMORY_POOL_H_
