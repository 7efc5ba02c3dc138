#include "xla/backends/cpu/codegen/hlo_graph.h"

#include <algorithm>
#include <functional>
#include <string>
#include <unordered_map>

namespace xla::cpu {

namespace {
// Calls nest no deeper than this; deeper means a cycle the verifier missed.
constexpr int kMaxCallDepth = 64;
}  // namespace

GraphNode* HloGraph::NewNode(const HloInstruction* instr, std::vector<GraphNode*> operands) {
  return NewNode(instr, instr->opcode(), instr->shape(), std::move(operands));
}

GraphNode* HloGraph::NewNode(const HloInstruction* instr, HloOpcode opcode, Shape shape,
                             std::vector<GraphNode*> operands) {
  auto node = std::make_unique<GraphNode>();
  node->id = static_cast<int>(nodes_.size());
  node->instr = instr;
  node->opcode_ = opcode;
  node->shape_ = std::move(shape);
  node->operands = std::move(operands);
  for (GraphNode* op : node->operands) {
    if (std::find(op->users.begin(), op->users.end(), node.get()) == op->users.end()) {
      op->users.push_back(node.get());
    }
  }
  nodes_.push_back(std::move(node));
  return nodes_.back().get();
}

StatusOr<GraphNode*> HloGraph::AddComputation(const HloComputation& computation,
                                              const std::vector<GraphNode*>& arguments,
                                              int depth, bool fused) {
  if (depth > kMaxCallDepth) {
    return InvalidArgument("calls nested deeper than " + std::to_string(kMaxCallDepth) +
                           " at computation " + computation.name());
  }
  std::unordered_map<const HloInstruction*, GraphNode*> value;
  for (const HloInstruction* instr : computation.MakeInstructionPostOrder()) {
    std::vector<GraphNode*> operands;
    for (const HloInstruction* op : instr->operands()) operands.push_back(value.at(op));
    GraphNode* node = nullptr;
    switch (instr->opcode()) {
      case HloOpcode::kParameter:
        if (depth == 0) {
          // Leaves are numbered after all parameters are known (Build).
          if (instr->shape().IsTuple()) {
            std::vector<GraphNode*> leaves;
            for (const Shape& leaf : instr->shape().tuple_shapes()) {
              if (!leaf.IsArray()) {
                return Unimplemented("CPU backend: nested tuple parameter " + instr->name());
              }
              leaves.push_back(NewNode(instr, HloOpcode::kParameter, leaf, {}));
            }
            node = NewNode(instr, HloOpcode::kTuple, instr->shape(), leaves);
          } else {
            node = NewNode(instr, {});
          }
          param_roots_[instr->parameter_number()] = node;
        } else {
          node = arguments.at(instr->parameter_number());
        }
        break;
      case HloOpcode::kCall: {
        if (instr->to_apply() == nullptr) {
          return InvalidArgument("call without a computation: " + instr->name());
        }
        ASSIGN_OR_RETURN(node, AddComputation(*instr->to_apply(), operands, depth + 1, fused));
        break;
      }
      case HloOpcode::kFusion: {
        if (instr->to_apply() == nullptr) {
          return InvalidArgument("fusion without a computation: " + instr->name());
        }
        if (fused) return InvalidArgument("fusion " + instr->name() + " inside a fusion");
        ASSIGN_OR_RETURN(node, AddComputation(*instr->to_apply(), operands, depth + 1, true));
        if (std::find(operands.begin(), operands.end(), node) == operands.end()) {
          node->fused = false;  // the fusion's root: its kernel
        }
        break;
      }
      case HloOpcode::kGetTupleElement:
        if (operands[0]->opcode() == HloOpcode::kTuple) {
          node = operands[0]->operands.at(instr->tuple_index());
        } else {
          node = NewNode(instr, std::move(operands));
        }
        break;
      case HloOpcode::kOptimizationBarrier:
        node = operands[0];  // no reordering happens here, so the barrier is a no-op
        break;
      default:
        node = NewNode(instr, std::move(operands));
        node->fused = fused;
        break;
    }
    value[instr] = node;
  }
  return value.at(computation.root_instruction());
}

StatusOr<std::unique_ptr<HloGraph>> HloGraph::Build(const HloComputation& computation) {
  auto graph = std::unique_ptr<HloGraph>(new HloGraph());
  ASSIGN_OR_RETURN(graph->root_, graph->AddComputation(computation, {}, 0));
  for (int64_t i = 0; i < computation.num_parameters(); ++i) {
    auto it = graph->param_roots_.find(i);
    if (it == graph->param_roots_.end()) {
      return InvalidArgument("computation " + computation.name() + " has no parameter " +
                             std::to_string(i));
    }
    GraphNode* p = it->second;
    std::vector<GraphNode*> leaves =
        p->opcode() == HloOpcode::kTuple ? p->operands : std::vector<GraphNode*>{p};
    for (GraphNode* leaf : leaves) {
      leaf->parameter_leaf = static_cast<int64_t>(graph->parameters_.size());
      graph->parameters_.push_back(leaf);
    }
  }
  return graph;
}

std::vector<GraphNode*> HloGraph::OutputLeaves() const {
  std::vector<GraphNode*> leaves;
  std::function<void(GraphNode*)> walk = [&](GraphNode* n) {
    if (n->opcode() == HloOpcode::kTuple) {
      for (GraphNode* op : n->operands) walk(op);
    } else {
      leaves.push_back(n);
    }
  };
  walk(root_);
  return leaves;
}

}  // namespace xla::cpu
