// Collectives across the replicas of one Execute call (see collectives.h):
// all-reduce, all-gather, reduce-scatter, all-to-all (array form),
// collective-permute, replica-id and partition-id.
//
// Every replica computes its own output from the group's inputs: reductions
// fold the members in rank order with the JIT-compiled combiner (so every
// replica gets bit-identical sums), concatenations and splits are memcpys
// along the collective dimension. With one replica the ops are local.
#ifndef XLA_BACKENDS_CPU_RUNTIME_COLLECTIVE_THUNKS_H_
#define XLA_BACKENDS_CPU_RUNTIME_COLLECTIVE_THUNKS_H_

#include <utility>
#include <vector>

#include "xla/backends/cpu/runtime/thunk.h"
#include "xla/hlo/ir/primitive_type.h"

namespace xla::cpu {

// The combiner's ABI: acc[i] = reducer(acc[i], in[i]) for i in [0, count).
using CollectiveCombiner = void (*)(void* acc, const void* in, int64_t count);

class CollectiveThunk final : public Thunk {
 public:
  enum class Kind {
    kAllReduce, kAllGather, kReduceScatter, kAllToAll, kCollectivePermute,
    kReplicaId, kPartitionId,
  };
  struct Params {
    Kind kind = Kind::kAllReduce;
    std::vector<int> input_slots, output_slots;  // one per operand / result leaf
    std::vector<PrimitiveType> types;            // per operand
    std::vector<std::vector<int64_t>> input_dims, output_dims;
    int64_t dimension = 0;                       // gather / scatter / split dimension
    std::vector<std::vector<int64_t>> replica_groups;  // empty: all replicas
    std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
  };
  explicit CollectiveThunk(Params p) : p_(std::move(p)) {}
  // params.function: CollectiveCombiner for the reducing kinds.
  Status Run(const ThunkParams& params) const override;

 private:
  // All-reduce and reduce-scatter when the run spans processes: reduced piecewise
  // (collectives.h); `rank` of `size` is this replica's place in its group.
  Status ReduceAcrossProcesses(const ThunkParams& params, CollectiveCombiner combine,
                               int64_t rank, int64_t size) const;
  // All-to-all when the run spans processes: each chunk goes only to its reader's
  // process; `size` is the group size.
  Status AllToAllAcrossProcesses(const ThunkParams& params, int64_t size) const;
  // The op's replica groups, or one group of all `num_replicas` when it names none.
  std::vector<std::vector<int64_t>> AllGroups(int64_t num_replicas) const;
  Params p_;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_COLLECTIVE_THUNKS_H_
