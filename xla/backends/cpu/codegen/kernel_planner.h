// KernelPlanner: decides what each node of an HloGraph becomes at run time
// and lays out the Program's buffer slots and steps.
//
// Fusion is decided before, by the InstructionFusion pass: the nodes of a
// fusion's computation (HloGraph marks them `fused`) are inlined into the
// loops of the fusion's root, and scalar constants become immediates.
// Everything else is materialised: a kernel root (one loop nest over its
// output), an Eigen dot, a parameter, a constant or a library thunk (sort,
// fft, linear algebra, collectives). Scatter and select-and-scatter are
// kernel roots with a loop structure of their own (scatter_emitter.h), and
// so are reductions over the leading dimensions or long reductions into few
// outputs (KernelForm, reduce_emitter.h). A row reduce fused into a kLoop
// kernel is computed once per row before the row's inner loop (compiler.cc).
// It does not reorder, and does not fuse siblings (multi-output fusion).
#ifndef XLA_BACKENDS_CPU_CODEGEN_KERNEL_PLANNER_H_
#define XLA_BACKENDS_CPU_CODEGEN_KERNEL_PLANNER_H_

#include <memory>
#include <string>
#include <vector>

#include "xla/backends/cpu/codegen/hlo_graph.h"
#include "xla/backends/cpu/codegen/thunk_builder.h"
#include "xla/backends/cpu/runtime/program.h"
#include "xla/hlo/ir/literal.h"
#include "xla/status.h"

namespace xla::cpu {

enum class NodeRole {
  kDead,        // not needed for any output
  kInline,      // computed inside the loops of its consumers
  kParameter,   // an entry parameter slot
  kConstant,    // a constant slot (non-scalar constants, or constant outputs)
  kKernelRoot,  // computed by its own kernel into its slot(s)
  kDot,         // computed by the Eigen dot step
  kView,        // get-tuple-element of a multi-output node: that node's slot
  kTuple,       // a tuple: exists only as a grouping of its operands
  kControl,     // while / conditional: runs subprograms, result in its slots
  kThunk,       // a runtime library routine (sort, fft, collectives...), see thunk_builder.h
};

// How a kernel's loops are shaped.
enum class KernelForm {
  // One loop nest over the output: over rows (all but the last output
  // dimension, the last dimension being the inner loop) or over flat indices.
  kLoop,
  // A reduce over the leading (major) operand dimensions: work items are
  // output elements; each kernel call walks the operand rows in order and
  // folds each row into its slice of the output, so memory is read
  // contiguously and the inner loop vectorises. Same order as kLoop.
  kColumnReduce,
  // A long reduce over the trailing (minor) dimensions into few outputs,
  // split over the thread pool in two kernels: kReducePartials folds chunk t
  // of the reduced range of every output into partials[o * chunks + t]
  // (work items are chunks), then kReduceFinish folds init and the partials
  // of each output in chunk order. Only for associative reducers (see
  // RecognizeReducer).
  kReducePartials,
  kReduceFinish,
};

struct KernelInfo {
  GraphNode* root = nullptr;
  std::string name;      // symbol of the emitted function
  bool linear = false;   // kLoop: iterate over flat element indices
  size_t step = 0;       // index in Program::steps
  KernelForm form = KernelForm::kLoop;
  // The outputs already hold the root's leading operands (a dynamic-update-
  // slice's operand, a scatter's), copied by the steps just before the
  // kernel's: it stores only the updated elements. A dynamic-update-slice
  // kernel's work items are then the update's rows.
  bool output_preset = false;
  // kReducePartials / kReduceFinish: the temporary slot of partial results,
  // the number of chunks per output and the chunk length.
  int partial_slot = -1;
  int64_t chunks = 0;
  int64_t chunk_size = 0;
};

// Reducer computations the emitters combine with a single instruction
// (`lambda a, b: a op b` on f32/f64 or integers) instead of a call, so that
// loops over them vectorise. These are also the reducers treated as
// associative (floating add/multiply up to rounding, as XLA allows).
enum class ReducerKind { kOther, kAdd, kMul, kMax, kMin, kAnd, kOr };
ReducerKind RecognizeReducer(const HloComputation& computation);

// A function a thunk calls (a sort comparator, a collective's combiner
// loop), compiled with the kernels.
struct HelperFunction {
  enum class Kind { kComparator, kCombiner };
  Kind kind = Kind::kComparator;
  size_t step = 0;  // the Program step whose `function` it becomes
  const HloComputation* computation = nullptr;
  // kComparator: operand element types (two parameters each);
  // kCombiner: the one element type.
  std::vector<PrimitiveType> types;
  std::string name;
};

struct Plan {
  std::unique_ptr<HloGraph> graph;
  std::vector<NodeRole> role;               // by node id
  std::vector<std::vector<int>> slots;      // by node id; one per array leaf
  std::vector<KernelInfo> kernels;          // kernels to emit
  std::vector<HelperFunction> helpers;      // thunk helpers to emit
  Program program;                          // kernels' function pointers still null
  // Plans of while conditions/bodies and conditional branches, in the order
  // of Program::subprograms (moved there by FinalizeProgram).
  std::vector<std::unique_ptr<Plan>> subplans;
};

// The library routines a backend runs as thunks (the CPU's: thunk_builder.h).
struct LibraryOps {
  bool (*is_library_op)(const GraphNode& node) = nullptr;
  StatusOr<ThunkSpec> (*build)(const GraphNode& node,
                               const std::vector<std::vector<int>>& slots) = nullptr;
};

// What the backend that runs the plan can do. The planner is shared: the CPU
// runs kernels on a thread pool with library thunks, a GPU launches one
// thread per output element and has no thunks (yet).
struct PlannerOptions {
  // Named at the start of "not supported" errors.
  std::string backend = "CPU backend";
  // Null: no library routines; ops that would need one are unsupported.
  const LibraryOps* library = nullptr;
  // Only KernelForm::kLoop kernels: no column or split reductions, whose
  // loop structure suits a few threads walking rows, not a thread per element.
  bool loop_kernels_only = false;
};

// Builds the plan for the entry computation of a module.
StatusOr<std::unique_ptr<Plan>> PlanKernels(const HloComputation& entry,
                                            const std::string& module_name,
                                            const PlannerOptions& options);
// Moves the programs of the subplans into the program (after kernels are resolved).
Program FinalizeProgram(Plan& plan);

// Index-only ops and the ones the emitter computes per element.
bool IsElementalOpcode(HloOpcode opcode);
// Kernel roots whose loop runs over their updates, not their output.
bool IsScatterLikeOpcode(HloOpcode opcode);
// Dot dimension layout Eigen can run directly (see DotParams); fills *params
// except the slots. False means: use the loop emitter.
bool MatchEigenDot(const GraphNode& dot, DotParams* params);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CODEGEN_KERNEL_PLANNER_H_
