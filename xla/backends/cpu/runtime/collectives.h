// CollectiveContext: the in-process rendezvous the replicas of one Execute
// call share (one context per call, so the run id is implicit).
//
// A collective op is keyed by its thunk (the same object in every replica's
// copy of the program) and by how many times this replica has already run
// it, so collectives inside loops pair up by iteration. Each participant
// publishes its input and output pointers, waits for its whole group, reads
// what it needs from the others, and waits again before leaving so no input
// is overwritten while someone still reads it. If any replica fails, Abort()
// wakes everyone with an error instead of a deadlock.
#ifndef XLA_BACKENDS_CPU_RUNTIME_COLLECTIVES_H_
#define XLA_BACKENDS_CPU_RUNTIME_COLLECTIVES_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "xla/status.h"

namespace xla::cpu {

// How the replicas of a run spread over processes, and how the processes
// exchange data: when a run spans several processes, each collective becomes
// one all-gather of every replica's inputs across processes, after which each
// replica computes its result exactly as in one process (same rank order, same
// bits).
struct CrossProcessPlan {
  // out (num_processes * bytes) = every process's `bytes` of `in`, in process order.
  std::function<Status(const void* in, size_t bytes, void* out)> all_gather;
  int64_t num_processes = 1;
  std::vector<int64_t> process_of;  // by replica id: the process that runs it
  std::vector<int64_t> slot_of;     // by replica id: its position among that process's
  int64_t replicas_per_process = 1;  // every process runs as many
};

class CollectiveContext {
 public:
  // `plan` (may be null: every replica is in this process) must outlive the context.
  explicit CollectiveContext(int64_t num_replicas, const CrossProcessPlan* plan = nullptr);

  // Participant `replica` of `group` (replica ids, in rank order) publishes
  // `inputs` (of `input_bytes` each); once the whole group has, `fn` runs with
  // every member's inputs (indexed by rank), then the call returns after all
  // members ran theirs.
  Status Rendezvous(const void* key, int64_t replica, const std::vector<int64_t>& group,
                    const std::vector<const void*>& inputs,
                    const std::vector<size_t>& input_bytes,
                    const std::function<void(const std::vector<std::vector<const void*>>&)>& fn);

  // Makes every pending and future Rendezvous fail (a replica hit an error).
  void Abort(const std::string& why);

 private:
  Status WaitLocked(std::unique_lock<std::mutex>& lock, const std::function<bool()>& ready);
  struct Meeting {
    std::vector<std::vector<const void*>> inputs;  // by rank (by slot across processes)
    int64_t arrived = 0;
    int64_t done = 0;
    std::vector<uint8_t> gathered;  // across processes: every replica's inputs
    bool exchanged = false;
    Status exchange;
  };
  // Rendezvous when the run spans processes: the local replicas meet, one of
  // them exchanges all their inputs with the other processes, then each
  // computes from its group's inputs in the gathered data.
  Status RendezvousAcrossProcesses(
      const void* key, int64_t replica, const std::vector<int64_t>& group,
      const std::vector<const void*>& inputs, const std::vector<size_t>& input_bytes,
      const std::function<void(const std::vector<std::vector<const void*>>&)>& fn);
  const CrossProcessPlan* plan_;
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t num_replicas_;
  std::string aborted_;  // non-empty once aborted
  // (key, occurrence, first member) -> meeting
  std::map<std::tuple<const void*, int64_t, int64_t>, Meeting> meetings_;
  std::vector<std::map<const void*, int64_t>> occurrences_;  // by replica
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_COLLECTIVES_H_
