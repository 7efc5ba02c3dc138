#include "xla/backends/cpu/runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>

#include "xla/backends/cpu/runtime/flush_denormals.h"

namespace xla::cpu {
namespace {

// How long an idle worker polls for new work, and a caller for the end of
// its loop, before sleeping on a condition variable.
constexpr std::chrono::microseconds kWorkerSpin{200};
constexpr std::chrono::microseconds kCallerSpin{2000};

// A caller that waited for its helpers longer than it worked, and at least
// this long, saw a descheduled helper; loops then run inline for kStallBackoff.
constexpr std::chrono::microseconds kStallThreshold{500};
constexpr std::chrono::milliseconds kStallBackoff{50};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline void CpuRelax() {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#endif
}

// Polls `ready` until it returns true or `limit` has passed; returns its
// last value.
template <typename Ready>
bool SpinUntil(Ready ready, std::chrono::microseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (int i = 0;; ++i) {
    if (ready()) return true;
    CpuRelax();
    if (i % 64 == 63 && std::chrono::steady_clock::now() > deadline) return ready();
  }
}

}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> task;
    SpinUntil([this] { return queued_.load(std::memory_order_relaxed) > 0; }, kWorkerSpin);
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop_ and drained
      task = std::move(queue_.front());
      queue_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    // Tasks are parts of a running executable (see flush_denormals.h).
    ScopedFlushDenormals flush;
    task();
  }
}

void ThreadPool::ParallelFor(int64_t n, const std::function<void(int64_t)>& fn) {
  if (n <= 0) return;
  if (n == 1 || workers_.empty() ||
      NowNs() < inline_until_ns_.load(std::memory_order_relaxed)) {
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  // Helpers and the caller pull indices from a shared counter. The state is
  // shared so a helper that is dequeued after the loop finished exits cleanly.
  struct State {
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> done{0};
    int64_t n;
    const std::function<void(int64_t)>* fn;
    std::mutex mu;
    std::condition_variable cv;
  };
  auto state = std::make_shared<State>();
  state->n = n;
  state->fn = &fn;
  auto run = [](State& s) {
    for (;;) {
      int64_t i = s.next.fetch_add(1);
      if (i >= s.n) return;
      (*s.fn)(i);
      if (s.done.fetch_add(1) + 1 == s.n) {
        std::lock_guard<std::mutex> lock(s.mu);
        s.cv.notify_all();
      }
    }
  };
  int64_t helpers = std::min<int64_t>(n - 1, static_cast<int64_t>(workers_.size()));
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int64_t h = 0; h < helpers; ++h) queue_.push_back([state, run] { run(*state); });
    queued_.fetch_add(helpers, std::memory_order_relaxed);
  }
  cv_.notify_all();
  const int64_t started = NowNs();
  run(*state);
  const int64_t finished_own = NowNs();
  if (!SpinUntil([&] { return state->done.load() == n; }, kCallerSpin)) {
    std::unique_lock<std::mutex> lock(state->mu);
    state->cv.wait(lock, [&] { return state->done.load() == n; });
  }
  const int64_t now = NowNs();
  const int64_t waited = now - finished_own;
  if (waited > finished_own - started &&
      waited > std::chrono::nanoseconds(kStallThreshold).count()) {
    inline_until_ns_.store(now + std::chrono::nanoseconds(kStallBackoff).count(),
                           std::memory_order_relaxed);
  }
}

ThreadPool& ThreadPool::Default() {
  // Leaked on purpose: worker threads must not be joined during static
  // destruction, when the plugin may already be half unloaded.
  static ThreadPool* pool =
      new ThreadPool(std::max(1u, std::thread::hardware_concurrency()));
  return *pool;
}

}  // namespace xla::cpu
