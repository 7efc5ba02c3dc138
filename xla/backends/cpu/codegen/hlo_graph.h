// HloGraph: the entry computation as the CPU backend sees it, with every
// `call` inlined and get-tuple-element of a tuple forwarded to the element.
//
// A `fusion` is inlined the same way; the nodes of its computation but the
// root are marked `fused`: the kernel planner computes them inside the loops
// of the fusion's root (InstructionFusion made that decision).
//
// Nodes point at the HloInstruction they evaluate (for opcode, shape and
// attributes) but have their own operand and user lists, because one
// instruction of a called computation becomes one node per call site. The
// HLO module is not modified. Nodes are in topological order.
#ifndef XLA_BACKENDS_CPU_CODEGEN_HLO_GRAPH_H_
#define XLA_BACKENDS_CPU_CODEGEN_HLO_GRAPH_H_

#include <map>
#include <memory>
#include <vector>

#include "xla/hlo/ir/computation.h"
#include "xla/hlo/ir/instruction.h"
#include "xla/status.h"

namespace xla::cpu {

struct GraphNode {
  int id = 0;  // position in HloGraph::nodes()
  const HloInstruction* instr = nullptr;
  std::vector<GraphNode*> operands;
  std::vector<GraphNode*> users;  // distinct, in first-use order
  // Usually instr's; a tuple-shaped parameter of the graph's computation
  // becomes a kTuple node over one kParameter node per array leaf.
  HloOpcode opcode_ = HloOpcode::kParameter;
  Shape shape_;
  int64_t parameter_leaf = -1;  // kParameter: index among the flattened parameter leaves
  bool fused = false;  // computed inside the kernel of the fusion that holds it

  HloOpcode opcode() const { return opcode_; }
  const Shape& shape() const { return shape_; }
  GraphNode* operand(int i) const { return operands[i]; }
};

class HloGraph {
 public:
  // Builds the graph of `computation` (an entry, a while body, a branch...).
  static StatusOr<std::unique_ptr<HloGraph>> Build(const HloComputation& computation);

  const std::vector<std::unique_ptr<GraphNode>>& nodes() const { return nodes_; }
  GraphNode* root() const { return root_; }
  // Parameter leaf nodes (kParameter, array shaped) in flattened order:
  // parameter 0's leaves, then parameter 1's, ...
  const std::vector<GraphNode*>& parameters() const { return parameters_; }
  // The array leaves of the root, depth-first through tuple nodes.
  std::vector<GraphNode*> OutputLeaves() const;

 private:
  StatusOr<GraphNode*> AddComputation(const HloComputation& computation,
                                      const std::vector<GraphNode*>& arguments, int depth,
                                      bool fused = false);
  GraphNode* NewNode(const HloInstruction* instr, std::vector<GraphNode*> operands);
  GraphNode* NewNode(const HloInstruction* instr, HloOpcode opcode, Shape shape,
                     std::vector<GraphNode*> operands);

  std::vector<std::unique_ptr<GraphNode>> nodes_;
  std::vector<GraphNode*> parameters_;
  std::map<int64_t, GraphNode*> param_roots_;  // by parameter number
  GraphNode* root_ = nullptr;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CODEGEN_HLO_GRAPH_H_
