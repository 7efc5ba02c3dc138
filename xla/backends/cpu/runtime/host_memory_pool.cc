#include "xla/backends/cpu/runtime/host_memory_pool.h"

#include <cstdlib>

namespace xla::cpu {

HostMemoryPool::~HostMemoryPool() {
  for (const Block& b : by_age_) std::free(b.data);
}

void* HostMemoryPool::Allocate(size_t bytes) {
  if (bytes >= kMinCachedBytes && bytes <= max_cached_bytes_) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_size_.find(bytes);
    if (it != by_size_.end() && !it->second.empty()) {
      BlockList::iterator newest = it->second.back();
      it->second.pop_back();
      void* data = newest->data;
      by_age_.erase(newest);
      stats_.cached_bytes -= bytes;
      --stats_.cached_blocks;
      ++stats_.hits;
      return data;
    }
    ++stats_.misses;
  }
  return std::aligned_alloc(kAlignment, bytes);
}

void HostMemoryPool::Free(void* data, size_t bytes) {
  if (bytes < kMinCachedBytes || bytes > max_cached_bytes_) {
    std::free(data);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  by_age_.push_back(Block{data, bytes});
  by_size_[bytes].push_back(std::prev(by_age_.end()));
  stats_.cached_bytes += bytes;
  ++stats_.cached_blocks;
  while (stats_.cached_bytes > max_cached_bytes_) EvictOldestLocked();
}

void HostMemoryPool::EvictOldestLocked() {
  const Block oldest = by_age_.front();
  // The oldest block overall is the oldest of its size.
  std::vector<BlockList::iterator>& same_size = by_size_[oldest.bytes];
  same_size.erase(same_size.begin());
  if (same_size.empty()) by_size_.erase(oldest.bytes);
  by_age_.pop_front();
  std::free(oldest.data);
  stats_.cached_bytes -= oldest.bytes;
  --stats_.cached_blocks;
}

HostMemoryPool::Stats HostMemoryPool::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace xla::cpu
