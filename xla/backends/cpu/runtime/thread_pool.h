// A fixed pool of worker threads with one operation: ParallelFor.
//
// The calling thread takes part in the work, so a pool of size 1 runs
// everything inline and nested or concurrent ParallelFor calls (several
// executables running at once) cannot deadlock: each caller can always finish
// its own loop alone.
//
// Programs run many short parallel loops back to back. Idle workers and a
// caller waiting for its loop spin briefly before they sleep: waking a
// sleeping thread costs microseconds on an idle machine, and on a busy one a
// sleeping thread waits for the scheduler to give it a core back.
//
// On a machine shared with other work, a worker can be descheduled in the
// middle of a task, and its caller then waits for the scheduler rather than
// for the work. When a caller waits longer for its helpers than it worked
// itself, the loop would have been faster inline; the pool then runs loops on
// their callers alone for a while (kStallBackoff in thread_pool.cc) instead
// of paying such stalls on every short loop.
#ifndef XLA_BACKENDS_CPU_RUNTIME_THREAD_POOL_H_
#define XLA_BACKENDS_CPU_RUNTIME_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace xla::cpu {

class ThreadPool {
 public:
  // `num_threads` counts the caller: num_threads - 1 workers are started.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs fn(i) for i in [0, n) and returns when all calls have returned.
  void ParallelFor(int64_t n, const std::function<void(int64_t)>& fn);

  // One pool per process sized to the machine (std::thread::hardware_concurrency).
  static ThreadPool& Default();

 private:
  void WorkerLoop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::atomic<int64_t> queued_{0};  // queue_.size(), readable without mu_
  std::atomic<int64_t> inline_until_ns_{0};  // steady_clock time; see above
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_THREAD_POOL_H_
