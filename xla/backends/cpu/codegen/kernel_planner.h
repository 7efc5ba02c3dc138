// KernelPlanner: decides what each node of an HloGraph becomes at run time
// and lays out the Program's buffer slots and steps.
//
// Fusion is greedy and local to the backend (no pass pipeline yet): walking
// consumers before producers, a producer whose value is computable per
// element (elementwise, broadcast, reshape, transpose, slice, iota, ...) is
// inlined into its consumers' loops when it has a single user, or when it is
// cheap to recompute (index-only ops and converts). Everything else is
// materialised: a kernel root (one loop nest over its output), an Eigen dot,
// a parameter or a constant. It does not reorder, does not reuse temporary
// memory yet, and does not fuse siblings (multi-output fusion).
#ifndef XLA_BACKENDS_CPU_CODEGEN_KERNEL_PLANNER_H_
#define XLA_BACKENDS_CPU_CODEGEN_KERNEL_PLANNER_H_

#include <memory>
#include <string>
#include <vector>

#include "xla/backends/cpu/codegen/hlo_graph.h"
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
};

// How a kernel iterates: over rows (all but the last output dimension, the
// last dimension being the inner loop) or over flat element indices.
struct KernelInfo {
  GraphNode* root = nullptr;
  std::string name;      // symbol of the emitted function
  bool linear = false;   // iterate over flat element indices
  size_t step = 0;       // index in Program::steps
};

struct Plan {
  std::unique_ptr<HloGraph> graph;
  std::vector<NodeRole> role;               // by node id
  std::vector<std::vector<int>> slots;      // by node id; one per array leaf
  std::vector<KernelInfo> kernels;          // kernels to emit
  Program program;                          // kernels' function pointers still null
  // Plans of while conditions/bodies and conditional branches, in the order
  // of Program::subprograms (moved there by FinalizeProgram).
  std::vector<std::unique_ptr<Plan>> subplans;
};

// Builds the plan for the entry computation of a module.
StatusOr<std::unique_ptr<Plan>> PlanKernels(const HloComputation& entry,
                                            const std::string& module_name);
// Moves the programs of the subplans into the program (after kernels are resolved).
Program FinalizeProgram(Plan& plan);

// Index-only ops and the ones the emitter computes per element.
bool IsElementalOpcode(HloOpcode opcode);
// Dot dimension layout Eigen can run directly (see DotParams); fills *params
// except the slots. False means: use the loop emitter.
bool MatchEigenDot(const GraphNode& dot, DotParams* params);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CODEGEN_KERNEL_PLANNER_H_
