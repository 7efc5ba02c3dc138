// Thunk: a step of a Program computed by a runtime routine rather than by a
// JIT-compiled loop nest (sort, fft, rng-bit-generator, linear algebra,
// collectives). A thunk runs once per op over whole arrays; any per-element
// code it needs (a sort comparator) is JIT-compiled and handed over as
// `function`. Thunks hold only plain data and are shared read-only between
// concurrent runs.
#ifndef XLA_BACKENDS_CPU_RUNTIME_THUNK_H_
#define XLA_BACKENDS_CPU_RUNTIME_THUNK_H_

#include <cstdint>
#include <string>

#include "xla/status.h"

namespace xla::cpu {

class ThreadPool;
class CollectiveContext;

// Where a run happens: which replica of how many, and the rendezvous the
// replicas of one Execute call share. Single-device runs use the defaults.
struct ExecutionContext {
  int64_t replica_id = 0;
  int64_t num_replicas = 1;
  CollectiveContext* collectives = nullptr;  // null when num_replicas == 1
};

struct ThunkParams {
  void* const* buffers = nullptr;   // the run's slot table
  ThreadPool* pool = nullptr;
  void* function = nullptr;         // JIT symbol for this step, if it asked for one
  const ExecutionContext* context = nullptr;
};

class Thunk {
 public:
  virtual ~Thunk() = default;
  virtual Status Run(const ThunkParams& params) const = 0;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_THUNK_H_
