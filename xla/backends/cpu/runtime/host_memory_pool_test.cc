// HostMemoryPool hands a freed block back for the next allocation of its
// size, stays within its byte budget (oldest blocks go first), leaves small
// and oversized blocks to the C library, never hands one block to two owners
// under concurrent use, and backs CpuBuffers without changing what their
// device reports as in use.
#include "xla/backends/cpu/runtime/host_memory_pool.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "xla/backends/cpu/runtime/cpu_buffer.h"
#include "xla/hlo/testing/check.h"

namespace xla::cpu {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(FreedBlockIsReusedForTheSameSize) {
  HostMemoryPool pool(16 * kMiB);
  void* a = pool.Allocate(kMiB);
  CHECK_TRUE(a != nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % HostMemoryPool::kAlignment, uintptr_t{0});
  pool.Free(a, kMiB);
  EXPECT_EQ(pool.stats().cached_bytes, kMiB);
  void* other_size = pool.Allocate(2 * kMiB);
  EXPECT_TRUE(other_size != a);
  void* again = pool.Allocate(kMiB);
  EXPECT_TRUE(again == a);
  EXPECT_EQ(pool.stats().hits, int64_t{1});
  EXPECT_EQ(pool.stats().misses, int64_t{2});
  EXPECT_EQ(pool.stats().cached_bytes, size_t{0});
  pool.Free(again, kMiB);
  pool.Free(other_size, 2 * kMiB);
}

TEST(NewestBlockOfASizeIsReusedFirst) {
  HostMemoryPool pool(16 * kMiB);
  void* a = pool.Allocate(kMiB);
  void* b = pool.Allocate(kMiB);
  pool.Free(a, kMiB);
  pool.Free(b, kMiB);
  EXPECT_TRUE(pool.Allocate(kMiB) == b);  // warmest in cache
  EXPECT_TRUE(pool.Allocate(kMiB) == a);
  pool.Free(a, kMiB);
  pool.Free(b, kMiB);
}

TEST(CacheStaysWithinItsBudgetDroppingTheOldest) {
  HostMemoryPool pool(3 * kMiB);
  std::vector<void*> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(pool.Allocate(kMiB));
  for (void* b : blocks) pool.Free(b, kMiB);
  HostMemoryPool::Stats s = pool.stats();
  EXPECT_EQ(s.cached_bytes, 3 * kMiB);
  EXPECT_EQ(s.cached_blocks, size_t{3});
  // blocks[0] was freed first and went back to the C library.
  for (int i = 3; i >= 1; --i) EXPECT_TRUE(pool.Allocate(kMiB) == blocks[i]);
  EXPECT_EQ(pool.stats().cached_bytes, size_t{0});
  for (int i = 1; i < 4; ++i) pool.Free(blocks[i], kMiB);
}

TEST(SmallAndOversizedBlocksAreNotKept) {
  HostMemoryPool pool(4 * kMiB);
  const size_t small = HostMemoryPool::kMinCachedBytes - HostMemoryPool::kAlignment;
  pool.Free(pool.Allocate(small), small);
  pool.Free(pool.Allocate(8 * kMiB), 8 * kMiB);
  EXPECT_EQ(pool.stats().cached_blocks, size_t{0});
  HostMemoryPool disabled(0);
  disabled.Free(disabled.Allocate(kMiB), kMiB);
  EXPECT_EQ(disabled.stats().cached_blocks, size_t{0});
}

// Each thread stamps the blocks it owns and checks the stamp before freeing:
// a block handed to two owners at once would be overwritten by the other.
TEST(ConcurrentUseNeverSharesABlock) {
  HostMemoryPool pool(2 * kMiB);
  std::atomic<int> corrupted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<std::pair<unsigned char*, size_t>> owned;
      for (int i = 0; i < 2000; ++i) {
        if (owned.size() < 4 && rng() % 2 == 0) {
          const size_t bytes = HostMemoryPool::kMinCachedBytes * (1 + rng() % 3);
          auto* p = static_cast<unsigned char*>(pool.Allocate(bytes));
          std::memset(p, t + 1, bytes);
          owned.emplace_back(p, bytes);
        } else if (!owned.empty()) {
          auto [p, bytes] = owned.back();
          owned.pop_back();
          for (size_t j = 0; j < bytes; j += 4096) {
            if (p[j] != t + 1) ++corrupted;
          }
          pool.Free(p, bytes);
        }
      }
      for (auto [p, bytes] : owned) pool.Free(p, bytes);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(corrupted.load(), 0);
  EXPECT_TRUE(pool.stats().cached_bytes <= 2 * kMiB);
}

// A buffer's memory goes back to the pool only when its last holder (a
// donated output sharing it, say) lets go; the device counts only live bytes.
TEST(BuffersReuseMemoryThroughTheDevicePool) {
  auto pool = std::make_shared<HostMemoryPool>(16 * kMiB);
  CpuDevice device(0, pool);
  void* first = nullptr;
  {
    auto buf = CpuBuffer::Create(PrimitiveType::F32, {512, 512}, &device);
    CHECK_OK(buf);
    first = (*buf)->data();
    std::shared_ptr<AlignedMemory> held = (*buf)->memory();
    (*buf)->Delete();
    EXPECT_EQ(pool->stats().cached_blocks, size_t{0});  // still held
    auto alias = CpuBuffer::CreateFromMemory(PrimitiveType::F32, {512, 512}, &device, held);
    held.reset();
    EXPECT_EQ(pool->stats().cached_blocks, size_t{0});  // the alias holds it
  }
  EXPECT_EQ(pool->stats().cached_blocks, size_t{1});
  EXPECT_EQ(device.memory_stats().bytes_in_use, int64_t{0});
  auto again = CpuBuffer::Create(PrimitiveType::F32, {256, 1024}, &device);  // same bytes
  CHECK_OK(again);
  EXPECT_TRUE((*again)->data() == first);
  EXPECT_EQ(device.memory_stats().bytes_in_use, int64_t{512 * 512 * 4});
  EXPECT_EQ(pool->stats().hits, int64_t{1});
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
