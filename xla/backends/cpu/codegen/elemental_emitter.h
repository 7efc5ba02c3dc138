// ElementalEmitter: LLVM IR for "the value of node N at output index I".
//
// Internal to codegen/. A kernel's loop nest asks for its root's value at
// each index; the emitter recursively computes inlined producers at the
// index their consumer maps to (broadcast drops dimensions, transpose permutes
// them, reshape keeps the flat index, ...) and loads materialised ones from
// their slots. Reduce and loop-emitted dot open inner loops of their own.
// Values computed at the same index in the same block are reused, so x*x or
// a diamond of inlined ops is emitted once.
#ifndef XLA_BACKENDS_CPU_CODEGEN_ELEMENTAL_EMITTER_H_
#define XLA_BACKENDS_CPU_CODEGEN_ELEMENTAL_EMITTER_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "llvm/IR/IRBuilder.h"
#include "xla/backends/cpu/codegen/kernel_planner.h"
#include "xla/status.h"

namespace xla::cpu {

// An element position: a multi-index, a flat row-major index, or both (i64).
struct IrIndex {
  std::vector<llvm::Value*> multi;  // empty when unknown (and for scalars)
  llvm::Value* linear = nullptr;    // null when unknown
};

// Emits `for (i = start; i < end; ++i) body(i)`; the builder ends up after the loop.
Status EmitForLoop(llvm::IRBuilder<>& b, llvm::Value* start, llvm::Value* end,
                   const std::string& name,
                   const std::function<Status(llvm::Value*)>& body);

// Flat index of `index` within `dims`, and the multi-index.
llvm::Value* LinearOf(llvm::IRBuilder<>& b, const IrIndex& index,
                      const std::vector<int64_t>& dims);
std::vector<llvm::Value*> MultiOf(llvm::IRBuilder<>& b, const IrIndex& index,
                                  const std::vector<int64_t>& dims);

// acc op x for a recognised reducer of element type `type`; floating add and
// multiply carry the `reassoc` flag, max/min propagate NaN.
llvm::Value* EmitReducerStep(llvm::IRBuilder<>& b, ReducerKind kind, PrimitiveType type,
                             llvm::Value* acc, llvm::Value* x);

// Scalar functions for reducer computations, one per computation per module.
class ScalarFunctions {
 public:
  ScalarFunctions(llvm::Module* module, std::string attrs_cpu, std::string attrs_features)
      : module_(module), cpu_(std::move(attrs_cpu)), features_(std::move(attrs_features)) {}
  // A function (internal, always inlined) taking the computation's scalar
  // parameters in register types and returning its result (a struct for tuples).
  StatusOr<llvm::Function*> Get(const HloComputation& computation);
  // Stamps the target CPU and features on a function, for the vectoriser.
  void SetTargetAttributes(llvm::Function* fn) const;

 private:
  llvm::Module* module_;
  std::string cpu_, features_;
  std::map<const HloComputation*, llvm::Function*> functions_;
};

class ElementalEmitter {
 public:
  // `slot_ptr` returns the pointer to a slot's data in the current function.
  ElementalEmitter(llvm::IRBuilder<>& b, const Plan& plan, ScalarFunctions* scalar_functions,
                   std::function<llvm::Value*(int)> slot_ptr)
      : b_(b), plan_(plan), scalar_functions_(scalar_functions), slot_ptr_(std::move(slot_ptr)) {}

  // The value(s) of `node` at `index`: one per array leaf of its shape.
  // Materialised nodes are loaded; inlined ones (and `root`) are computed.
  StatusOr<std::vector<llvm::Value*>> AllAt(const GraphNode* node, const IrIndex& index);
  StatusOr<llvm::Value*> At(const GraphNode* node, const IrIndex& index);
  // Computes `node` even though it has a slot: the root of the kernel.
  StatusOr<std::vector<llvm::Value*>> Compute(const GraphNode* node, const IrIndex& index);
  // Computes `node` at `index` here, and reuses that value wherever the node
  // is asked for at the same index values later, in any block: for a fused
  // row reduce, computed once per row before the row's output loop (the
  // caller's block must dominate those uses).
  Status Hoist(const GraphNode* node, const IrIndex& index);
  // While `buffer` is set, every element of `node` computed is also stored
  // into it (row-major, the node's dimensions); once it is cleared, the node
  // is loaded from it instead of computed. A row kernel stashes exp(x - max)
  // in its output row while summing it, so the output loop does not compute
  // exp again.
  void BeginStash(const GraphNode* node, llvm::Value* buffer);
  void EndStash();
  // Where a dynamic-update-slice's update lands: its clamped start indices.
  StatusOr<std::vector<llvm::Value*>> UpdateStarts(const GraphNode* node);

 private:
  StatusOr<std::vector<llvm::Value*>> ComputeUncached(const GraphNode* node, const IrIndex& index);
  // Whether `node` at `index` is cached for the current block.
  bool IsCached(const GraphNode* node, const IrIndex& index) const;
  // Computes, bottom-up with an explicit stack, the inlined elementwise
  // operands `node` reads at its own index (and theirs, transitively), so
  // that computing `node` finds them cached instead of recursing once per op
  // of a long elementwise chain.
  Status PrecomputeElementwiseOperands(const GraphNode* node, const IrIndex& index);
  StatusOr<llvm::Value*> EmitElementwiseNode(const GraphNode* node, const IrIndex& index);
  StatusOr<llvm::Value*> EmitConcatenate(const GraphNode* node, const IrIndex& index);
  StatusOr<llvm::Value*> EmitPad(const GraphNode* node, const IrIndex& index);
  StatusOr<llvm::Value*> EmitDynamicSlice(const GraphNode* node, const IrIndex& index);
  StatusOr<llvm::Value*> EmitDynamicUpdateSlice(const GraphNode* node, const IrIndex& index);
  StatusOr<std::vector<llvm::Value*>> EmitReduce(const GraphNode* node, const IrIndex& index);
  StatusOr<std::vector<llvm::Value*>> EmitReduceWindow(const GraphNode* node,
                                                       const IrIndex& index);
  StatusOr<llvm::Value*> EmitGather(const GraphNode* node, const IrIndex& index);
  StatusOr<llvm::Value*> EmitDot(const GraphNode* node, const IrIndex& index);
  // Defined in conv_emitter.cc.
  StatusOr<llvm::Value*> EmitConvolution(const GraphNode* node, const IrIndex& index);
  StatusOr<llvm::Value*> EmitBitcastConvert(const GraphNode* node, const IrIndex& index);
  // Clamped i64 start indices of dynamic-(update-)slice operands from `first`.
  StatusOr<std::vector<llvm::Value*>> StartIndices(const GraphNode* node, int first,
                                                   const std::vector<int64_t>& operand_dims,
                                                   const std::vector<int64_t>& sizes);
  llvm::Value* EntryAlloca(llvm::Type* type, const std::string& name);
  IrIndex Scalar() const;

  llvm::IRBuilder<>& b_;
  const Plan& plan_;
  ScalarFunctions* scalar_functions_;
  std::function<llvm::Value*(int)> slot_ptr_;
  struct CacheEntry {
    llvm::BasicBlock* block;  // null: hoisted, valid in every later block
    std::vector<llvm::Value*> values;
  };
  std::map<std::vector<const void*>, CacheEntry> cache_;
  struct Stash {
    const GraphNode* node = nullptr;
    llvm::Value* buffer = nullptr;
    bool complete = false;  // false: being written
  };
  Stash stash_;
  // Nesting of Compute calls: producers read at another index (broadcast,
  // transpose, slice...) still recurse, so the depth is bounded with an error.
  int depth_ = 0;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CODEGEN_ELEMENTAL_EMITTER_H_
