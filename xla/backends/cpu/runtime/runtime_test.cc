// The thread pool runs every index exactly once, also when called from
// several threads at once; dots agree with a naive loop in all four
// operand orientations; buffers are 64-byte aligned and account their bytes.
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "xla/backends/cpu/runtime/cpu_buffer.h"
#include "xla/backends/cpu/runtime/dot.h"
#include "xla/backends/cpu/runtime/thread_pool.h"
#include "xla/hlo/testing/check.h"

namespace xla::cpu {
namespace {

TEST(ParallelForCoversEveryIndexOnce) {
  ThreadPool pool(4);
  std::vector<std::atomic<int>> hits(1000);
  pool.ParallelFor(1000, [&](int64_t i) { hits[i]++; });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
}

TEST(ConcurrentParallelFor) {
  ThreadPool pool(3);
  std::atomic<int64_t> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int rep = 0; rep < 50; ++rep) pool.ParallelFor(100, [&](int64_t i) { total += i; });
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(total.load(), int64_t{4 * 50 * 4950});
}

// A helper that stalls (as a descheduled thread would) makes the caller wait
// longer than it worked: the next loops then run on the caller alone.
TEST(StalledHelperMakesLoopsRunInline) {
  ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> helper_started{false};
  pool.ParallelFor(2, [&](int64_t) {
    if (std::this_thread::get_id() != caller) {
      helper_started = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      return;
    }
    // Leave the other index to the helper.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (!helper_started && std::chrono::steady_clock::now() < give_up) {
    }
  });
  CHECK_TRUE(helper_started.load());
  std::atomic<int> off_caller{0};
  pool.ParallelFor(64, [&](int64_t) {
    if (std::this_thread::get_id() != caller) ++off_caller;
  });
  EXPECT_EQ(off_caller.load(), 0);
}

struct DotShape {
  int64_t b, m, k, n;
};

// Small dots run whole; larger ones are cut into tiles along rows, columns or
// both, or split by batch (dot.cc): every cut must cover the output once.
TEST(DotOrientations) {
  ThreadPool pool(4);
  const DotShape shapes[] = {{2, 33, 17, 29}, {1, 200, 200, 250}, {1, 20, 300, 700},
                             {1, 700, 300, 20}, {3, 150, 100, 150}};
  for (const auto& [b, m, k, n] : shapes) {
    for (int lt = 0; lt < 2; ++lt) {
      for (int rt = 0; rt < 2; ++rt) {
        std::vector<float> lhs(b * m * k), rhs(b * k * n), out(b * m * n), want(b * m * n, 0);
        for (size_t i = 0; i < lhs.size(); ++i) lhs[i] = std::sin(0.1f * i);
        for (size_t i = 0; i < rhs.size(); ++i) rhs[i] = std::cos(0.2f * i);
        for (int64_t bb = 0; bb < b; ++bb)
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j)
              for (int64_t p = 0; p < k; ++p) {
                float a = lt ? lhs[bb * m * k + p * m + i] : lhs[bb * m * k + i * k + p];
                float c = rt ? rhs[bb * k * n + j * k + p] : rhs[bb * k * n + p * n + j];
                want[bb * m * n + i * n + j] += a * c;
              }
        DotParams params;
        params.type = PrimitiveType::F32;
        params.lhs_slot = 0;
        params.rhs_slot = 1;
        params.out_slot = 2;
        params.batch = b;
        params.m = m;
        params.k = k;
        params.n = n;
        params.lhs_transposed = lt;
        params.rhs_transposed = rt;
        void* buffers[] = {lhs.data(), rhs.data(), out.data()};
        RunDot(params, buffers, pool);
        for (size_t i = 0; i < out.size(); ++i) {
          if (std::fabs(out[i] - want[i]) > 1e-4f * (1 + std::fabs(want[i]))) {
            std::fprintf(stderr, "%ldx%ldx%ldx%ld lt=%d rt=%d element %zu: %g vs %g\n", long(b),
                         long(m), long(k), long(n), lt, rt, i, out[i], want[i]);
            EXPECT_TRUE(false);
            break;
          }
        }
      }
    }
  }
}

TEST(BufferAlignmentAndStats) {
  CpuDevice device(0);
  {
    auto buf = CpuBuffer::Create(PrimitiveType::F32, {3, 5}, &device);
    CHECK_OK(buf);
    EXPECT_EQ(reinterpret_cast<uintptr_t>((*buf)->data()) % kBufferAlignment, uintptr_t{0});
    EXPECT_EQ((*buf)->size_in_bytes(), size_t{60});
    EXPECT_TRUE(device.memory_stats().bytes_in_use >= 60);
  }
  EXPECT_EQ(device.memory_stats().bytes_in_use, int64_t{0});
  EXPECT_EQ(device.debug_string(), std::string("cpu:0"));
  EXPECT_EQ(device.default_memory()->kind(), std::string("device"));
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
