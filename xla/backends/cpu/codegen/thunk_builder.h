// ThunkBuilder: turns an HLO op the CPU backend runs as a library routine
// (sort, topk, fft, convolution, rng-bit-generator, cholesky, triangular-solve
// and the collectives) into a runtime Thunk over the planner's buffer slots.
//
// Internal to codegen/; no LLVM. One builder function per opcode in a table;
// IsThunkNode() says which nodes that table takes. A builder that needs JIT-compiled
// per-element code (the sort comparator) names the computation in
// ThunkSpec::comparator and the compiler emits it.
#ifndef XLA_BACKENDS_CPU_CODEGEN_THUNK_BUILDER_H_
#define XLA_BACKENDS_CPU_CODEGEN_THUNK_BUILDER_H_

#include <memory>
#include <vector>

#include "xla/backends/cpu/codegen/hlo_graph.h"
#include "xla/backends/cpu/runtime/thunk.h"
#include "xla/status.h"

namespace xla::cpu {

struct ThunkSpec {
  std::shared_ptr<const Thunk> thunk;
  // A comparator to compile: `int32 f(const void* const* elements)` over
  // operand element types `comparator_types` (see SortComparator).
  const HloComputation* comparator = nullptr;
  std::vector<PrimitiveType> comparator_types;
  // A reducer to compile as `void f(void* acc, const void* in, int64 n)`
  // over elements of `combiner_type` (see CollectiveCombiner).
  const HloComputation* combiner = nullptr;
  PrimitiveType combiner_type = PrimitiveType::INVALID;
};

// Whether `node` runs as a library routine (for most ops a property of the
// opcode; convolutions only for the element types ConvThunk handles).
bool IsThunkNode(const GraphNode& node);

// `slots` are the planner's slots by node id (operands and `node` assigned).
StatusOr<ThunkSpec> BuildThunk(const GraphNode& node,
                               const std::vector<std::vector<int>>& slots);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CODEGEN_THUNK_BUILDER_H_
