#include "xla/backends/cpu/runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <memory>

namespace xla::cpu {

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
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop_ and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

void ThreadPool::ParallelFor(int64_t n, const std::function<void(int64_t)>& fn) {
  if (n <= 0) return;
  if (n == 1 || workers_.empty()) {
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
  }
  cv_.notify_all();
  run(*state);
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [&] { return state->done.load() == n; });
}

ThreadPool& ThreadPool::Default() {
  // Leaked on purpose: worker threads must not be joined during static
  // destruction, when the plugin may already be half unloaded.
  static ThreadPool* pool =
      new ThreadPool(std::max(1u, std::thread::hardware_concurrency()));
  return *pool;
}

}  // namespace xla::cpu
