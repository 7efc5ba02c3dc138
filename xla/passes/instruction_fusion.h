// InstructionFusion: groups each loop kernel's producers with it into a
// `fusion` instruction, so a backend emits one loop nest per fusion and
// materialises only the values that leave one.
//
// Walking every computation that runs as code (the entry, loop bodies and
// conditional branches; not reducers or comparators, which are applied per
// element), consumers before producers, a producer joins the fusions of its
// users when
//   - it is computable per element: elementwise, broadcast, reshape,
//     bitcast, transpose, iota, slice, concatenate, reverse, pad,
//     dynamic-slice;
//   - every user is a loop kernel or already fused (not a dot, a library
//     routine, a tuple or control flow), and it is not the computation's
//     root;
//   - its users all sit in one fusion, or it is cheap to recompute per
//     fusion (index-only ops, converts, scalar constants), in which case
//     each fusion gets its own copy.
// With `fuse_row_reductions`, a reduce over the last dimension also joins
// the one fusion that uses it when its result only comes back through
// broadcasts along that dimension into the fusion's output shape (softmax,
// layer norm): the backend computes such a reduce once per row, before the
// row's output loop, so its input is read while it is still in cache. The
// fusion's root must then have rank >= 2 and the reduce's input that shape.
//
// A group of one instruction stays as it is; every other group becomes a
// `fusion` (kind kInput when its root is a reduce, kLoop otherwise) whose
// computation is placed before its caller.
#ifndef XLA_PASSES_INSTRUCTION_FUSION_H_
#define XLA_PASSES_INSTRUCTION_FUSION_H_

#include "xla/passes/hlo_pass.h"

namespace xla {

struct FusionOptions {
  // Needs a backend that hoists fused reduces out of its row loop; a backend
  // computing each output element independently would redo the reduce per
  // element.
  bool fuse_row_reductions = false;
  // Row fusion runs each row on one thread; with fewer rows than this the
  // unfused plan, whose long reductions are split across threads, is kept.
  int64_t min_rows_for_row_fusion = 64;
  // A fusion stops growing at this many instructions and its producers start
  // the next one (0: no bound). Copies of cheap producers (scalar constants,
  // broadcasts, converts, ...) are not counted. For backends whose code generators take time
  // superlinear in a kernel's size (LLVM's NVPTX backend, for example, in the
  // number of calls in one function); the values cross kernels through memory.
  int64_t max_fused_instructions = 0;
};

class InstructionFusion : public HloPassInterface {
 public:
  explicit InstructionFusion(FusionOptions options = {}) : options_(options) {}
  std::string_view name() const override { return "fusion"; }
  StatusOr<bool> Run(HloModule* module) override;

 private:
  FusionOptions options_;
};

// Ops a fusion may compute per element of its consumer.
bool IsFusibleProducer(HloOpcode opcode);
// Ops that run as loop kernels and so may root a fusion.
bool IsFusionConsumer(HloOpcode opcode);

}  // namespace xla

#endif  // XLA_PASSES_INSTRUCTION_FUSION_H_
