#include "xla/backends/cpu/runtime/program_runner.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "xla/backends/cpu/runtime/cpu_buffer.h"
#include "xla/backends/cpu/runtime/dot.h"

namespace xla::cpu {
namespace {

// Below this many element operations a kernel runs on the calling thread:
// waking workers costs a few microseconds.
constexpr int64_t kMinParallelCost = 1 << 15;

// Loops longer than this are assumed not to terminate.
constexpr int64_t kMaxWhileIterations = int64_t{1} << 40;

// Temporary arenas are kept for reuse between runs. A multi-megabyte block
// freed to the C library goes back to the operating system, and the next run
// faults it in again page by page: for a memory-bound program that costs
// more than its kernels. Nested runs (loop bodies) take arenas of their own.
class ArenaCache {
 public:
  StatusOr<std::shared_ptr<AlignedMemory>> Acquire(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      size_t best = free_.size();
      for (size_t i = 0; i < free_.size(); ++i) {
        if (free_[i]->size() >= bytes &&
            (best == free_.size() || free_[i]->size() < free_[best]->size())) {
          best = i;
        }
      }
      if (best != free_.size()) {
        std::shared_ptr<AlignedMemory> arena = std::move(free_[best]);
        free_.erase(free_.begin() + best);
        cached_bytes_ -= arena->size();
        return arena;
      }
    }
    return AlignedMemory::Allocate(bytes, nullptr);
  }

  void Release(std::shared_ptr<AlignedMemory> arena) {
    if (arena->size() > kMaxCachedBytes) return;  // freed here
    std::lock_guard<std::mutex> lock(mu_);
    // Keep the newest arenas within the budget; older ones are freed.
    free_.push_back(std::move(arena));
    cached_bytes_ += free_.back()->size();
    while (free_.size() > kMaxArenas || cached_bytes_ > kMaxCachedBytes) {
      cached_bytes_ -= free_.front()->size();
      free_.erase(free_.begin());
    }
  }

 private:
  static constexpr size_t kMaxArenas = 8;
  static constexpr size_t kMaxCachedBytes = size_t{256} << 20;
  std::mutex mu_;
  std::vector<std::shared_ptr<AlignedMemory>> free_;
  size_t cached_bytes_ = 0;
};

ArenaCache& Arenas() {
  static ArenaCache* cache = new ArenaCache;  // never destroyed: used until exit
  return *cache;
}

// Returns the arena to the cache when the run ends, however it ends.
class ArenaLease {
 public:
  explicit ArenaLease(std::shared_ptr<AlignedMemory> arena) : arena_(std::move(arena)) {}
  ~ArenaLease() {
    if (arena_) Arenas().Release(std::move(arena_));
  }
  ArenaLease(const ArenaLease&) = delete;
  ArenaLease& operator=(const ArenaLease&) = delete;
  void* data() const { return arena_->data(); }

 private:
  std::shared_ptr<AlignedMemory> arena_;
};

// A program ready to run: its slot table filled for given parameters and
// outputs, and its temporary arena held. A loop binds its condition and body
// once and runs their steps every iteration.
class BoundProgram {
 public:
  static StatusOr<std::unique_ptr<BoundProgram>> Bind(const Program& program,
                                                      const std::vector<void*>& params,
                                                      const std::vector<void*>& outputs) {
    std::shared_ptr<AlignedMemory> memory;
    if (program.temp_bytes > 0) {
      ASSIGN_OR_RETURN(memory, Arenas().Acquire(program.temp_bytes));
    }
    auto bound = std::unique_ptr<BoundProgram>(new BoundProgram(program, std::move(memory)));
    std::vector<void*>& table = bound->table_;
    for (size_t s = 0; s < program.slots.size(); ++s) {
      const Slot& slot = program.slots[s];
      switch (slot.kind) {
        case Slot::Kind::kParameter: table[s] = params.at(slot.index); break;
        case Slot::Kind::kConstant: table[s] = const_cast<void*>(slot.data); break;
        case Slot::Kind::kTemp:
          table[s] = static_cast<char*>(bound->arena_.data()) + slot.offset;
          break;
        case Slot::Kind::kOutput: table[s] = outputs.at(slot.index); break;
      }
    }
    return bound;
  }

  const Program& program() const { return program_; }
  const std::vector<void*>& table() const { return table_; }

 private:
  BoundProgram(const Program& program, std::shared_ptr<AlignedMemory> memory)
      : program_(program), arena_(std::move(memory)), table_(program.slots.size(), nullptr) {}
  const Program& program_;
  ArenaLease arena_;
  std::vector<void*> table_;
};

Status RunSteps(const BoundProgram& bound, ThreadPool& pool, const ExecutionContext& context);

void RunKernel(const Step& step, void* const* buffers, ThreadPool& pool) {
  const int64_t items = step.work_items;
  const int64_t total_cost = items * std::max<int64_t>(1, step.cost_per_item);
  if (items <= 1 || total_cost < kMinParallelCost || pool.num_threads() == 1) {
    if (items > 0) step.kernel(buffers, 0, items);
    return;
  }
  int64_t tasks = std::min<int64_t>({items, total_cost / kMinParallelCost,
                                     4 * static_cast<int64_t>(pool.num_threads())});
  tasks = std::max<int64_t>(tasks, 1);
  const int64_t per_task = (items + tasks - 1) / tasks;
  pool.ParallelFor(tasks, [&](int64_t t) {
    int64_t begin = t * per_task, end = std::min(items, begin + per_task);
    if (begin < end) step.kernel(buffers, begin, end);
  });
}

std::vector<void*> Gather(const std::vector<void*>& table, const std::vector<int>& slots) {
  std::vector<void*> out;
  for (int s : slots) out.push_back(table[s]);
  return out;
}

// Copies buffer k of `from` into buffer k of `to` (as large as `slots[k]`), unless
// they are one buffer.
void CopyLeaves(const Program& p, const std::vector<int>& slots, const std::vector<void*>& from,
                const std::vector<void*>& to) {
  for (size_t k = 0; k < slots.size(); ++k) {
    const int64_t bytes = p.slots[slots[k]].size;
    if (to[k] != from[k] && bytes > 0) std::memcpy(to[k], from[k], bytes);
  }
}

Status RunWhile(const Program& p, const Step& step, const std::vector<void*>& table,
                ThreadPool& pool, const ExecutionContext& context) {
  const WhileParams& w = step.while_params;
  const Program& cond = *p.subprograms[w.cond];
  const Program& body = *p.subprograms[w.body];
  std::vector<void*> state = Gather(table, w.state_slots);
  CopyLeaves(p, w.state_slots, Gather(table, w.init_slots), state);
  std::vector<void*> scratch = Gather(table, w.scratch_slots);
  // A leaf the body never reads after it starts writing that leaf's next value
  // (its may_alias pair) is updated in place: no copy back, and a
  // dynamic-update-slice into it writes only its update.
  for (const auto& [param, out] : body.may_alias) {
    if (param == out) scratch[out] = state[out];
  }
  const uint8_t* pred = static_cast<const uint8_t*>(table[w.pred_slot]);
  ASSIGN_OR_RETURN(std::unique_ptr<BoundProgram> bound_cond,
                   BoundProgram::Bind(cond, state, {table[w.pred_slot]}));
  ASSIGN_OR_RETURN(std::unique_ptr<BoundProgram> bound_body,
                   BoundProgram::Bind(body, state, scratch));
  for (int64_t iter = 0;; ++iter) {
    if (iter == kMaxWhileIterations) return Internal("while " + step.name + " did not terminate");
    RETURN_IF_ERROR(RunSteps(*bound_cond, pool, context));
    if (*pred == 0) break;
    RETURN_IF_ERROR(RunSteps(*bound_body, pool, context));
    CopyLeaves(p, w.state_slots, scratch, state);
  }
  return OkStatus();
}

Status RunConditional(const Program& p, const Step& step, const std::vector<void*>& table,
                      ThreadPool& pool, const ExecutionContext& context) {
  const ConditionalParams& c = step.conditional;
  const int64_t n = static_cast<int64_t>(c.branches.size());
  int64_t b;
  if (c.index_is_pred) {
    b = *static_cast<const uint8_t*>(table[c.index_slot]) ? 0 : 1;
  } else {
    int32_t i;
    std::memcpy(&i, table[c.index_slot], sizeof(i));
    b = (i < 0 || i >= n) ? n - 1 : i;  // out of range runs the last branch
  }
  return RunProgram(*p.subprograms[c.branches[b]], Gather(table, c.operand_slots[b]),
                    Gather(table, c.output_slots), pool, context);
}

Status RunSteps(const BoundProgram& bound, ThreadPool& pool, const ExecutionContext& context) {
  const Program& program = bound.program();
  const std::vector<void*>& table = bound.table();
  for (const Step& step : program.steps) {
    switch (step.kind) {
      case Step::Kind::kKernel:
        RunKernel(step, table.data(), pool);
        break;
      case Step::Kind::kDot:
        RunDot(step.dot, table.data(), pool);
        break;
      case Step::Kind::kCopy:
        if (step.bytes > 0 && table[step.dst_slot] != table[step.src_slot]) {
          std::memcpy(table[step.dst_slot], table[step.src_slot], step.bytes);
        }
        break;
      case Step::Kind::kWhile:
        RETURN_IF_ERROR(RunWhile(program, step, table, pool, context));
        break;
      case Step::Kind::kConditional:
        RETURN_IF_ERROR(RunConditional(program, step, table, pool, context));
        break;
      case Step::Kind::kThunk: {
        ThunkParams tp;
        tp.buffers = table.data();
        tp.pool = &pool;
        tp.function = step.function;
        tp.context = &context;
        RETURN_IF_ERROR(step.thunk->Run(tp).WithContext(step.name));
        break;
      }
    }
  }
  return OkStatus();
}

}  // namespace

Status RunProgram(const Program& program, const std::vector<void*>& params,
                  const std::vector<void*>& outputs, ThreadPool& pool,
                  const ExecutionContext& context) {
  ASSIGN_OR_RETURN(std::unique_ptr<BoundProgram> bound, BoundProgram::Bind(program, params, outputs));
  return RunSteps(*bound, pool, context);
}

}  // namespace xla::cpu
