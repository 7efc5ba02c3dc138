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
// exchange data. When a run spans several processes, an all-reduce is reduced
// piecewise: each process owns 1/num_processes of the elements, receives every
// replica's values of them (one all-to-all), folds each group's members in rank
// order, and the reduced pieces are all-gathered, so each process sends and
// receives about twice its replicas' data over the whole exchange, as a ring
// all-reduce does, with the one-process bits (a ring's chunks are summed starting
// at a different rank each, which changes floating-point sums); a reduce-scatter
// is the same, each replica keeping its chunk. A collective-permute or all-to-all
// sends each operand or chunk only to the process of the replica that reads it. An
// all-gather is one all-gather of every replica's inputs, after which each replica
// computes its result exactly as in one process (same rank order, same bits).
struct CrossProcessPlan {
  // out (num_processes * bytes) = every process's `bytes` of `in`, in process order.
  std::function<Status(const void* in, size_t bytes, void* out)> all_gather;
  // `in`: block q (send[q] bytes) for process q, in order; `out`: recv[q] bytes from
  // each process q, in order.
  std::function<Status(const void* in, const std::vector<size_t>& send, void* out,
                       const std::vector<size_t>& recv)>
      all_to_all;
  int64_t num_processes = 1;
  int64_t self = 0;                  // this process's index
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

  // Whether the run's replicas span several processes (then all-reduce goes through
  // AllReduceAcrossProcesses).
  bool spans_processes() const { return plan_ != nullptr; }

  // Folds `acc[0..count)` with `in[0..count)` element by element (operand k's reducer).
  using Combine = std::function<void(size_t k, void* acc, const void* in, int64_t count)>;
  // All-reduce of replica `replica` across processes: `groups` are all the op's replica
  // groups (each in rank order; together every replica once); operand k has `counts[k]`
  // elements of `widths[k]` bytes. Each output element is its group's members folded
  // in rank order, as in one process.
  Status AllReduceAcrossProcesses(const void* key, int64_t replica,
                                  const std::vector<std::vector<int64_t>>& groups,
                                  const std::vector<const void*>& inputs,
                                  const std::vector<void*>& outputs,
                                  const std::vector<int64_t>& counts,
                                  const std::vector<int64_t>& widths, const Combine& combine);

  // Collective-permute of replica `replica` across processes: each source's operands
  // go only to its target's process (`pairs`: (source, target) replica ids, each
  // source and each target at most once); a replica no source targets gets zeros.
  Status PermuteAcrossProcesses(const void* key, int64_t replica,
                                const std::vector<std::pair<int64_t, int64_t>>& pairs,
                                const std::vector<const void*>& inputs,
                                const std::vector<void*>& outputs,
                                const std::vector<size_t>& bytes);

  // All-to-all of replica `replica` across processes: in each of `groups` (rank order,
  // together every replica once) the reader of rank j gets chunk j of every member's
  // operands, and only the processes of those readers receive it. `take(k, j, input,
  // dst)` copies chunk j of operand k into `dst` (`chunk_bytes[k]` bytes); `put(k, r,
  // src, output)` stores member r's chunk as chunk r of the output.
  using TakeChunk = std::function<void(size_t k, int64_t chunk, const void* input, void* dst)>;
  using PutChunk = std::function<void(size_t k, int64_t chunk, const void* src, void* output)>;
  Status AllToAllAcrossProcesses(const void* key, int64_t replica,
                                 const std::vector<std::vector<int64_t>>& groups,
                                 const std::vector<const void*>& inputs,
                                 const std::vector<void*>& outputs,
                                 const std::vector<size_t>& chunk_bytes, const TakeChunk& take,
                                 const PutChunk& put);

  // Makes every pending and future Rendezvous fail (a replica hit an error).
  void Abort(const std::string& why);

 private:
  Status WaitLocked(std::unique_lock<std::mutex>& lock, const std::function<bool()>& ready);
  struct Meeting {
    std::vector<std::vector<const void*>> inputs;  // by rank (by slot across processes)
    int64_t arrived = 0;
    int64_t done = 0;
    std::vector<std::vector<void*>> outputs;  // by slot (all-reduce across processes)
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
  // The local replicas' meeting for one collective across processes: registers
  // `replica`'s pointers and waits until every local replica has.
  // Each replica's group and rank in `groups`, checking they hold every replica once.
  StatusOr<std::pair<std::vector<int64_t>, std::vector<int64_t>>> GroupsAndRanks(
      const std::vector<std::vector<int64_t>>& groups, const char* what) const;
  StatusOr<Meeting*> MeetLocally(std::unique_lock<std::mutex>& lock, const void* key,
                                 int64_t replica, const std::vector<const void*>& inputs,
                                 const std::vector<void*>& outputs);
  // Waits until the meeting's exchange is done, runs `fn` on success, then leaves it
  // (the last local replica to leave forgets it).
  Status FinishLocally(std::unique_lock<std::mutex>& lock, Meeting& m,
                       const std::function<void()>& fn);
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
