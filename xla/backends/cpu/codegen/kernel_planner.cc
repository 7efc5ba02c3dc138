#include "xla/backends/cpu/codegen/kernel_planner.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include "xla/backends/cpu/codegen/buffer_assignment.h"
#include "xla/backends/cpu/runtime/cpu_buffer.h"
#include "xla/passes/instruction_fusion.h"

namespace xla::cpu {
namespace {

// Whether the emitter recurses one level to compute inlined `producer` for
// `consumer`: it does unless both are elementwise at the same rank (those
// chains are computed with an explicit stack; see ElementalEmitter).
bool NestsInEmitter(const GraphNode* consumer, const GraphNode* producer) {
  auto elementwise = [](const GraphNode* g) {
    return IsElementwiseOpcode(g->opcode()) && g->opcode() != HloOpcode::kBitcastConvert &&
           g->shape().IsArray();
  };
  return !(elementwise(consumer) && elementwise(producer) &&
           consumer->shape().rank() == producer->shape().rank());
}

// Well below the emitter's own bound on nesting, which stays as a backstop.
constexpr int kMaxInlineNesting = 400;

// Ops that need only the flat element index of their operands.
bool IsLinearOpcode(HloOpcode op) {
  switch (op) {
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kConstant:
      return true;
    default:
      return IsElementwiseOpcode(op);
  }
}

bool IsAscendingRun(const std::vector<int64_t>& dims) {
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dims[i] != dims[i - 1] + 1) return false;
  }
  return true;
}

// Free (non-batch, non-contracting) dimensions of an operand, ascending.
std::vector<int64_t> FreeDims(int rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end()) {
      free.push_back(d);
    }
  }
  return free;
}

int64_t Product(const std::vector<int64_t>& dims, const std::vector<int64_t>& which) {
  int64_t p = 1;
  for (int64_t d : which) p *= dims[d];
  return p;
}

std::string SymbolName(const std::string& module, const std::string& instr, size_t n) {
  std::string s = "xla_" + std::to_string(n) + "_";
  for (char c : module + "_" + instr) s += (isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return s;
}

// Where the reduced dimensions of a single-output reduce sit in its operand:
// the trailing ones (a full reduction included), the leading ones with some
// dimensions kept, or elsewhere. `kept` and `reduced` are element counts.
enum class ReducePlacement { kOther, kMinor, kMajor };

ReducePlacement PlaceReduce(const GraphNode& node, int64_t* kept, int64_t* reduced) {
  if (node.operands.size() != 2 || node.shape().IsTuple()) return ReducePlacement::kOther;
  const std::vector<int64_t>& in = node.operand(0)->shape().dimensions();
  std::vector<int64_t> dims = node.instr->dimensions();
  std::sort(dims.begin(), dims.end());
  if (dims.empty() || !IsAscendingRun(dims)) return ReducePlacement::kOther;
  *reduced = 1;
  for (int64_t d : dims) *reduced *= in[d];
  *kept = node.shape().element_count();
  const int64_t rank = static_cast<int64_t>(in.size());
  if (dims.back() == rank - 1) return ReducePlacement::kMinor;
  if (dims.front() == 0) return ReducePlacement::kMajor;
  return ReducePlacement::kOther;
}

// A minor reduce is split over the pool when it has too few outputs to keep
// the threads busy and enough elements per output to pay for a second kernel.
constexpr int64_t kSplitMaxOutputs = 16;
constexpr int64_t kSplitMinElements = int64_t{1} << 16;
// Chunks are at least this long so the partials stay negligible.
constexpr int64_t kSplitMinChunk = 8192;
// Partials per output: enough for the pool to balance with a few threads.
constexpr int64_t kSplitTargetChunks = 64;

// How many leading operands of a kernel root are copied into its outputs by
// copy steps before the kernel runs (KernelInfo::output_preset), or 0. That is
// done for a dynamic-update-slice or scatter whose operands have buffers of
// their own: the kernel then writes only the updated elements, and when an
// output shares its operand's buffer (a loop-carried value updated in place)
// the copy is skipped and a step costs the update's size, not the array's.
size_t PresetOperands(const Plan& plan, const GraphNode& node, const PlannerOptions& options) {
  if (options.loop_kernels_only) return 0;
  size_t n = 0;
  if (node.opcode() == HloOpcode::kDynamicUpdateSlice && !node.shape().IsTuple() &&
      node.operands.size() == 2 + static_cast<size_t>(node.shape().rank())) {
    n = 1;
  } else if (node.opcode() == HloOpcode::kScatter) {
    n = (node.operands.size() - 1) / 2;
  }
  for (size_t k = 0; k < n; ++k) {
    const GraphNode* op = node.operand(static_cast<int>(k));
    if (plan.role[op->id] == NodeRole::kInline || plan.slots[op->id].size() != 1) return 0;
  }
  return n;
}

}  // namespace

ReducerKind RecognizeReducer(const HloComputation& computation) {
  const auto& params = computation.parameter_instructions();
  const HloInstruction* root = computation.root_instruction();
  if (params.size() != 2 || root->operands().size() != 2 || !root->shape().IsArray() ||
      root->shape().rank() != 0) {
    return ReducerKind::kOther;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  const bool takes_both = (a == params[0] && b == params[1]) || (a == params[1] && b == params[0]);
  const PrimitiveType type = root->shape().element_type();
  const bool same_shapes =
      params[0]->shape() == root->shape() && params[1]->shape() == root->shape();
  if (!takes_both || !same_shapes) return ReducerKind::kOther;
  // Types computed exactly in their register type: f16/bf16 round after every
  // step and complex values are structs, both keep the generic path.
  const bool is_float = type == PrimitiveType::F32 || type == PrimitiveType::F64;
  const bool is_int = IsInteger(type) && type != PrimitiveType::PRED;
  switch (root->opcode()) {
    case HloOpcode::kAdd:
      return is_float || is_int ? ReducerKind::kAdd : ReducerKind::kOther;
    case HloOpcode::kMultiply:
      return is_float || is_int ? ReducerKind::kMul : ReducerKind::kOther;
    case HloOpcode::kMaximum:
      return is_float || is_int ? ReducerKind::kMax : ReducerKind::kOther;
    case HloOpcode::kMinimum:
      return is_float || is_int ? ReducerKind::kMin : ReducerKind::kOther;
    case HloOpcode::kAnd:
      return is_int || type == PrimitiveType::PRED ? ReducerKind::kAnd : ReducerKind::kOther;
    case HloOpcode::kOr:
      return is_int || type == PrimitiveType::PRED ? ReducerKind::kOr : ReducerKind::kOther;
    default:
      return ReducerKind::kOther;
  }
}

bool IsElementalOpcode(HloOpcode op) {
  return IsFusibleProducer(op) || op == HloOpcode::kReduce || op == HloOpcode::kDot ||
         op == HloOpcode::kReduceWindow || op == HloOpcode::kGather ||
         op == HloOpcode::kDynamicUpdateSlice || op == HloOpcode::kConstant ||
         op == HloOpcode::kConvolution || IsScatterLikeOpcode(op);
}

bool IsScatterLikeOpcode(HloOpcode op) {
  return op == HloOpcode::kScatter || op == HloOpcode::kSelectAndScatter;
}

bool MatchEigenDot(const GraphNode& dot, DotParams* params) {
  const PrimitiveType type = dot.shape().element_type();
  if (type != PrimitiveType::F32 && type != PrimitiveType::F64) return false;
  const Shape& ls = dot.operand(0)->shape();
  const Shape& rs = dot.operand(1)->shape();
  if (ls.element_type() != type || rs.element_type() != type) return false;
  const DotDimensionNumbers& dn = dot.instr->dot_dimension_numbers();
  const size_t nb = dn.lhs_batch_dimensions.size();
  for (size_t i = 0; i < nb; ++i) {  // batch dimensions lead, in order, on both sides
    if (dn.lhs_batch_dimensions[i] != static_cast<int64_t>(i) ||
        dn.rhs_batch_dimensions[i] != static_cast<int64_t>(i)) {
      return false;
    }
  }
  const auto& lc = dn.lhs_contracting_dimensions;
  const auto& rc = dn.rhs_contracting_dimensions;
  if (!IsAscendingRun(lc) || !IsAscendingRun(rc)) return false;
  std::vector<int64_t> lf = FreeDims(ls.rank(), dn.lhs_batch_dimensions, lc);
  std::vector<int64_t> rf = FreeDims(rs.rank(), dn.rhs_batch_dimensions, rc);
  if (!IsAscendingRun(lf) || !IsAscendingRun(rf)) return false;
  // Each side is [batch][free][contracting] or [batch][contracting][free]
  // (free and contracting groups are each contiguous, checked above).
  const bool l_cf = !lf.empty() && !lc.empty() && lc.front() < lf.front();
  const bool r_cf = !rf.empty() && !rc.empty() && rc.front() < rf.front();
  params->type = type;
  params->batch = Product(ls.dimensions(), dn.lhs_batch_dimensions);
  params->m = Product(ls.dimensions(), lf);
  params->k = Product(ls.dimensions(), lc);
  params->n = Product(rs.dimensions(), rf);
  params->lhs_transposed = l_cf;  // lhs stored [k, m]
  params->rhs_transposed = !r_cf && !rf.empty() && !rc.empty();  // rhs stored [n, k]
  return true;
}

namespace {

struct PlanContext {
  std::string module_name;
  PlannerOptions options;
  int kernel_count = 0;
  int depth = 0;
};

StatusOr<std::unique_ptr<Plan>> PlanComputation(const HloComputation& computation,
                                                PlanContext* ctx);

// Plans a subcomputation and returns its index in plan.subplans.
StatusOr<int> AddSubplan(Plan& plan, const HloComputation* computation, PlanContext* ctx) {
  if (computation == nullptr) return InvalidArgument("missing called computation");
  if (ctx->depth > 32) return InvalidArgument("control flow nested too deeply");
  ++ctx->depth;
  auto sub = PlanComputation(*computation, ctx);
  --ctx->depth;
  if (!sub.ok()) return sub.status();
  plan.subplans.push_back(std::move(sub).value());
  return static_cast<int>(plan.subplans.size() - 1);
}

// Turns the kernel `info` / `step` of a minor reduce into the kReducePartials
// kernel, added to the plan here, and the kReduceFinish kernel, left in
// `info` / `step` for the caller to add.
void SplitReduce(const GraphNode& node, int64_t kept, int64_t reduced,
                 const std::string& module_name, PlanContext* ctx, Plan& plan, KernelInfo& info,
                 Step& step) {
  Program& program = plan.program;
  // Chunks of equal length, none empty.
  int64_t chunks =
      std::min(std::max<int64_t>(2, kSplitTargetChunks / kept), reduced / kSplitMinChunk);
  chunks = std::max<int64_t>(chunks, 1);
  const int64_t chunk_size = (reduced + chunks - 1) / chunks;
  chunks = (reduced + chunk_size - 1) / chunk_size;
  Slot partials;
  partials.kind = Slot::Kind::kTemp;
  partials.size = kept * chunks * ByteWidth(node.shape().element_type());
  program.slots.push_back(partials);
  const int partial_slot = static_cast<int>(program.slots.size() - 1);

  KernelInfo first = info;
  first.form = KernelForm::kReducePartials;
  first.partial_slot = partial_slot;
  first.chunks = chunks;
  first.chunk_size = chunk_size;
  Step partial_step = step;
  partial_step.name = step.name + ".partials";
  partial_step.writes = {partial_slot};
  partial_step.work_items = chunks;
  partial_step.cost_per_item = kept * chunk_size;
  first.step = program.steps.size();
  program.steps.push_back(partial_step);
  plan.kernels.push_back(first);

  info.name = SymbolName(module_name, node.instr->name() + "_finish", ctx->kernel_count++);
  info.form = KernelForm::kReduceFinish;
  info.partial_slot = partial_slot;
  info.chunks = chunks;
  info.chunk_size = chunk_size;
  step.kernel_name = info.name;
  step.reads.push_back(partial_slot);
  step.work_items = kept;
  step.cost_per_item = chunks;
}

StatusOr<std::unique_ptr<Plan>> PlanComputation(const HloComputation& computation,
                                                PlanContext* ctx) {
  const std::string& module_name = ctx->module_name;
  auto plan_ptr = std::make_unique<Plan>();
  Plan& plan = *plan_ptr;
  ASSIGN_OR_RETURN(plan.graph, HloGraph::Build(computation));
  const auto& nodes = plan.graph->nodes();
  const size_t n = nodes.size();
  plan.role.assign(n, NodeRole::kDead);
  plan.slots.assign(n, {});
  Program& program = plan.program;

  for (GraphNode* p : plan.graph->parameters()) {
    if (!p->shape().IsArray()) {
      return Unimplemented(ctx->options.backend + ": entry parameter " + p->instr->name() + " of shape " +
                           p->shape().ToString() + " (only array parameters are supported)");
    }
    program.parameters.push_back({p->shape().element_type(), p->shape().dimensions()});
  }

  // Liveness: what the outputs need.
  std::vector<GraphNode*> leaves = plan.graph->OutputLeaves();
  std::vector<bool> live(n, false), is_leaf(n, false);
  for (GraphNode* leaf : leaves) is_leaf[leaf->id] = true;
  live[plan.graph->root()->id] = true;
  for (size_t i = n; i-- > 0;) {
    if (!live[i]) continue;
    for (GraphNode* op : nodes[i]->operands) live[op->id] = true;
  }

  // Roles, consumers first. What is computed inside another node's kernel
  // was decided by the fusion pass (InstructionFusion): fused nodes.
  // inline_nesting[i]: how deep the emitter nests when it computes node i
  // inside its kernel (see NestsInEmitter).
  std::vector<int> inline_nesting(n, 0);
  for (size_t i = n; i-- > 0;) {
    GraphNode* node = nodes[i].get();
    if (!live[i]) continue;
    const HloOpcode op = node->opcode();
    NodeRole role = NodeRole::kKernelRoot;
    if (op == HloOpcode::kParameter) {
      role = NodeRole::kParameter;
    } else if (op == HloOpcode::kTuple) {
      role = NodeRole::kTuple;
      for (GraphNode* user : node->users) {
        NodeRole ur = plan.role[user->id];
        if (live[user->id] && ur != NodeRole::kControl && ur != NodeRole::kTuple) {
          return Unimplemented(ctx->options.backend + ": tuple " + node->instr->name() + " used by " +
                               user->instr->name() +
                               " (tuples may only be returned or passed to control flow)");
        }
      }
    } else if (op == HloOpcode::kWhile || op == HloOpcode::kConditional) {
      role = NodeRole::kControl;
    } else if (op == HloOpcode::kGetTupleElement) {
      role = NodeRole::kView;
    } else if (ctx->options.library != nullptr && ctx->options.library->is_library_op(*node)) {
      role = NodeRole::kThunk;
    } else if (!IsElementalOpcode(op)) {
      return Unimplemented(ctx->options.backend + ": opcode " + std::string(HloOpcodeString(op)) +
                           " is not supported yet (instruction " + node->instr->name() + ")");
    } else if (DotParams unused; op == HloOpcode::kDot && MatchEigenDot(*node, &unused)) {
      role = NodeRole::kDot;
    } else if (node->fused && !is_leaf[i] && op != HloOpcode::kConstant) {
      role = NodeRole::kInline;
    } else if (op == HloOpcode::kConstant) {
      role = NodeRole::kConstant;
    }
    // A scalar constant is always inlined as an immediate unless it is an output.
    if (op == HloOpcode::kConstant && node->shape().rank() == 0 && !is_leaf[i]) {
      bool users_elemental = true;
      for (GraphNode* user : node->users) {
        NodeRole ur = plan.role[user->id];
        if (live[user->id] && ur != NodeRole::kInline && ur != NodeRole::kKernelRoot) {
          users_elemental = false;
        }
      }
      if (users_elemental) role = NodeRole::kInline;
    }
    if (role == NodeRole::kInline && op != HloOpcode::kConstant) {
      int nesting = 0;
      for (GraphNode* user : node->users) {
        const NodeRole ur = plan.role[user->id];
        if (!live[user->id] || (ur != NodeRole::kInline && ur != NodeRole::kKernelRoot)) continue;
        nesting = std::max(nesting, inline_nesting[user->id] + (NestsInEmitter(user, node) ? 1 : 0));
      }
      // Deeper than this the producer gets a kernel of its own, so chains of
      // any length compile without deep recursion in the emitter.
      if (nesting > kMaxInlineNesting) {
        role = NodeRole::kKernelRoot;
        nesting = 0;
      }
      inline_nesting[i] = nesting;
    }
    plan.role[i] = role;
  }

  // Slots.
  auto add_slot = [&](Slot slot) {
    program.slots.push_back(slot);
    return static_cast<int>(program.slots.size() - 1);
  };
  auto add_temp = [&](const Shape& shape) {
    Slot slot;
    slot.kind = Slot::Kind::kTemp;
    slot.size = shape.byte_size();
    return add_slot(slot);  // offsets are assigned once outputs are known
  };
  for (size_t i = 0; i < n; ++i) {
    GraphNode* node = nodes[i].get();
    switch (plan.role[i]) {
      case NodeRole::kParameter: {
        Slot slot;
        slot.kind = Slot::Kind::kParameter;
        slot.index = node->parameter_leaf;
        slot.size = node->shape().byte_size();
        plan.slots[i] = {add_slot(slot)};
        break;
      }
      case NodeRole::kConstant: {
        const Literal& literal = node->instr->literal();
        size_t bytes = std::max<size_t>(literal.size_bytes(), 1);
        size_t rounded = (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
        std::shared_ptr<void> storage(std::aligned_alloc(kBufferAlignment, rounded), std::free);
        if (!storage) return ResourceExhausted("out of memory for constant " + node->instr->name());
        if (literal.size_bytes() > 0) {
          std::memcpy(storage.get(), literal.untyped_data(), literal.size_bytes());
        }
        Slot slot;
        slot.kind = Slot::Kind::kConstant;
        slot.data = storage.get();
        slot.size = static_cast<int64_t>(literal.size_bytes());
        program.constant_storage.push_back(std::move(storage));
        program.constant_bytes += slot.size;
        plan.slots[i] = {add_slot(slot)};
        break;
      }
      case NodeRole::kTuple:
        for (GraphNode* op : node->operands) {
          if (plan.slots[op->id].empty()) {
            return Internal("tuple operand " + op->instr->name() + " has no buffer");
          }
          plan.slots[i].insert(plan.slots[i].end(), plan.slots[op->id].begin(),
                               plan.slots[op->id].end());
        }
        break;
      case NodeRole::kKernelRoot:
      case NodeRole::kDot:
      case NodeRole::kControl:
      case NodeRole::kThunk:
        if (node->shape().IsTuple()) {
          for (const Shape& leaf : node->shape().tuple_shapes()) {
            if (!leaf.IsArray()) {
              return Unimplemented(ctx->options.backend + ": nested tuple result of " + node->instr->name());
            }
            plan.slots[i].push_back(add_temp(leaf));
          }
        } else {
          plan.slots[i] = {add_temp(node->shape())};
        }
        break;
      case NodeRole::kView: {
        GraphNode* src = node->operand(0);
        const auto& src_slots = plan.slots[src->id];
        int64_t k = node->instr->tuple_index();
        if (k < 0 || static_cast<size_t>(k) >= src_slots.size()) {
          return Unimplemented(ctx->options.backend + ": get-tuple-element " + node->instr->name() +
                               " of an unsupported producer");
        }
        plan.slots[i] = {src_slots[k]};
        break;
      }
      default:
        break;
    }
  }

  // Steps in topological order.
  for (size_t i = 0; i < n; ++i) {
    GraphNode* node = nodes[i].get();
    if (plan.role[i] == NodeRole::kControl && node->opcode() == HloOpcode::kWhile) {
      Step step;
      step.kind = Step::Kind::kWhile;
      step.name = node->instr->name();
      WhileParams& w = step.while_params;
      ASSIGN_OR_RETURN(w.cond, AddSubplan(plan, node->instr->while_condition(), ctx));
      ASSIGN_OR_RETURN(w.body, AddSubplan(plan, node->instr->while_body(), ctx));
      w.init_slots = plan.slots[node->operand(0)->id];
      w.state_slots = plan.slots[i];
      for (const Shape& leaf : FlattenShape(node->shape())) w.scratch_slots.push_back(add_temp(leaf));
      w.pred_slot = add_temp(Shape::Scalar(PrimitiveType::PRED));
      if (w.init_slots.size() != w.state_slots.size()) {
        return Internal("while " + step.name + ": init and state leaves differ");
      }
      step.reads = w.init_slots;
      step.writes = w.state_slots;
      step.writes.insert(step.writes.end(), w.scratch_slots.begin(), w.scratch_slots.end());
      step.writes.push_back(w.pred_slot);
      program.steps.push_back(step);
    } else if (plan.role[i] == NodeRole::kControl) {
      Step step;
      step.kind = Step::Kind::kConditional;
      step.name = node->instr->name();
      ConditionalParams& c = step.conditional;
      const GraphNode* index = node->operand(0);
      c.index_slot = plan.slots[index->id].at(0);
      c.index_is_pred = index->shape().element_type() == PrimitiveType::PRED;
      for (size_t b = 0; b < node->instr->branch_computations().size(); ++b) {
        ASSIGN_OR_RETURN(int sub, AddSubplan(plan, node->instr->branch_computations()[b], ctx));
        c.branches.push_back(sub);
        c.operand_slots.push_back(plan.slots[node->operand(1 + b)->id]);
      }
      c.output_slots = plan.slots[i];
      step.reads = {c.index_slot};
      for (const auto& ops : c.operand_slots) step.reads.insert(step.reads.end(), ops.begin(), ops.end());
      step.writes = c.output_slots;
      program.steps.push_back(step);
    } else if (plan.role[i] == NodeRole::kThunk) {
      ASSIGN_OR_RETURN(ThunkSpec spec, ctx->options.library->build(*node, plan.slots));
      Step step;
      step.kind = Step::Kind::kThunk;
      step.name = node->instr->name();
      step.thunk = std::move(spec.thunk);
      for (GraphNode* op : node->operands) {
        step.reads.insert(step.reads.end(), plan.slots[op->id].begin(), plan.slots[op->id].end());
      }
      step.writes = plan.slots[i];
      if (spec.comparator != nullptr) {
        HelperFunction helper;
        helper.step = program.steps.size();
        helper.computation = spec.comparator;
        helper.types = std::move(spec.comparator_types);
        helper.name = SymbolName(module_name, node->instr->name() + "_cmp", ctx->kernel_count++);
        step.function_name = helper.name;
        plan.helpers.push_back(std::move(helper));
      } else if (spec.combiner != nullptr) {
        HelperFunction helper;
        helper.kind = HelperFunction::Kind::kCombiner;
        helper.step = program.steps.size();
        helper.computation = spec.combiner;
        helper.types = {spec.combiner_type};
        helper.name = SymbolName(module_name, node->instr->name() + "_combine", ctx->kernel_count++);
        step.function_name = helper.name;
        plan.helpers.push_back(std::move(helper));
      }
      program.steps.push_back(step);
    } else if (plan.role[i] == NodeRole::kDot) {
      Step step;
      step.kind = Step::Kind::kDot;
      step.name = node->instr->name();
      MatchEigenDot(*node, &step.dot);
      step.dot.lhs_slot = plan.slots[node->operand(0)->id].at(0);
      step.dot.rhs_slot = plan.slots[node->operand(1)->id].at(0);
      step.dot.out_slot = plan.slots[i][0];
      step.reads = {step.dot.lhs_slot, step.dot.rhs_slot};
      step.writes = {step.dot.out_slot};
      program.steps.push_back(step);
    } else if (plan.role[i] == NodeRole::kKernelRoot) {
      const Shape& shape =
          node->shape().IsTuple() ? node->shape().tuple_shapes(0) : node->shape();
      KernelInfo info;
      info.root = node;
      info.name = SymbolName(module_name, node->instr->name(), ctx->kernel_count++);
      // Flat iteration when every fused op needs only flat indices, or rank <= 1.
      bool same_index = !node->shape().IsTuple();
      std::vector<int> reads, shifted_reads;
      // Elements each fused reduce reads per element of the output row.
      int64_t fused_reduce_cost = 0;
      bool fused_reduce = false;
      size_t preset = PresetOperands(plan, *node, ctx->options);
      {
        // Each fused node is visited once as reached only through linear ops
        // from the root, and once as reached through some other op ("shifted":
        // read at other indices than the one being written).
        std::vector<std::pair<GraphNode*, bool>> stack = {{node, node->shape().IsTuple()}};
        std::vector<uint8_t> seen(n, 0);
        while (!stack.empty()) {
          auto [cur, shifted] = stack.back();
          stack.pop_back();
          bool linear = IsLinearOpcode(cur->opcode());
          if (cur != node && cur->opcode() == HloOpcode::kReduce) {
            fused_reduce = true;
            const int64_t out = std::max<int64_t>(1, cur->shape().element_count());
            const int64_t row = shape.rank() == 0 ? 1 : std::max<int64_t>(1, shape.dimensions().back());
            fused_reduce_cost += cur->operand(0)->shape().element_count() / out / row;
          }
          // A bitcast-convert that changes the element width reads its
          // operand at a different flat index.
          if (cur->opcode() == HloOpcode::kBitcastConvert &&
              ByteWidth(cur->shape().element_type()) !=
                  ByteWidth(cur->operand(0)->shape().element_type())) {
            linear = false;
          }
          if (!linear) same_index = false;
          const bool operands_shifted = shifted || !linear;
          for (size_t k = 0; k < cur->operands.size(); ++k) {
            GraphNode* op = cur->operands[k];
            // Preset operands are read by their copy steps, not by the kernel.
            if (cur == node && k < preset) continue;
            if (plan.role[op->id] == NodeRole::kInline) {
              const uint8_t bit = operands_shifted ? 2 : 1;
              if (!(seen[op->id] & bit)) stack.push_back({op, operands_shifted});
              seen[op->id] |= bit;
            } else {
              const std::vector<int>& slots = plan.slots[op->id];
              reads.insert(reads.end(), slots.begin(), slots.end());
              if (operands_shifted) shifted_reads.insert(shifted_reads.end(), slots.begin(), slots.end());
            }
          }
        }
      }
      if (preset > 0 && fused_reduce) {
        // The update loop has no rows to hoist a fused row reduce into: the
        // whole-output kernel computes this one, reading the operands itself.
        for (size_t k = 0; k < preset; ++k) {
          const int s = plan.slots[node->operand(static_cast<int>(k))->id][0];
          reads.push_back(s);
          shifted_reads.push_back(s);
        }
        preset = 0;
      }
      bool linear = shape.rank() <= 1 || same_index;
      if (IsScatterLikeOpcode(node->opcode())) linear = true;  // one sequential work item
      info.linear = linear;
      info.output_preset = preset > 0;
      for (size_t k = 0; k < preset; ++k) {
        Step copy;
        copy.kind = Step::Kind::kCopy;
        copy.name = node->instr->name() + ".operand";
        copy.src_slot = plan.slots[node->operand(static_cast<int>(k))->id][0];
        copy.dst_slot = plan.slots[i][k];
        copy.bytes = program.slots[copy.dst_slot].size;
        copy.reads = {copy.src_slot};
        copy.writes = {copy.dst_slot};
        copy.same_index_only = true;
        program.steps.push_back(copy);
      }
      Step step;
      step.kind = Step::Kind::kKernel;
      step.name = node->instr->name();
      step.kernel_name = info.name;
      step.reads = std::move(reads);
      step.writes = plan.slots[i];
      step.same_index_only = same_index;
      step.shifted_reads = std::move(shifted_reads);
      int64_t elements = shape.element_count();
      int64_t inner = (linear || shape.rank() == 0) ? 1 : shape.dimensions().back();
      step.work_items = inner == 0 ? 0 : elements / inner;
      if (shape.rank() == 0) step.work_items = 1;
      step.cost_per_item = inner * (1 + fused_reduce_cost);
      if (IsScatterLikeOpcode(node->opcode())) {
        // Updates to one element must apply in order: a single work item.
        step.work_items = 1;
        step.cost_per_item = 1;
      } else if (info.output_preset) {
        // A dynamic-update-slice over its update's rows.
        const Shape& update = node->operand(1)->shape();
        const int64_t row = update.rank() == 0 ? 1 : update.dimensions().back();
        step.work_items = update.rank() == 0 ? 1 : (row == 0 ? 0 : update.element_count() / row);
        step.cost_per_item = row;
      }
      if (node->opcode() == HloOpcode::kReduce) {
        int64_t in = node->operand(0)->shape().element_count();
        step.cost_per_item *= std::max<int64_t>(1, elements ? in / elements : in);
      } else if (node->opcode() == HloOpcode::kReduceWindow) {
        for (const WindowDimension& wd : node->instr->window().dimensions) {
          step.cost_per_item *= std::max<int64_t>(1, wd.size);
        }
      } else if (node->opcode() == HloOpcode::kConvolution) {
        // Input features per group times window size per output element.
        const GraphNode* rhs = node->operand(1);
        step.cost_per_item *= std::max<int64_t>(
            1, rhs->shape().element_count() /
                   std::max<int64_t>(1, rhs->shape().dimensions(
                       node->instr->convolution_dimension_numbers().kernel_output_feature_dimension)));
      } else if (node->opcode() == HloOpcode::kDot) {
        step.cost_per_item *= std::max<int64_t>(
            1, Product(node->operand(0)->shape().dimensions(),
                       node->instr->dot_dimension_numbers().lhs_contracting_dimensions));
      }
      int64_t kept = 0, reduced = 0;
      const ReducePlacement placement = node->opcode() == HloOpcode::kReduce
                                            ? PlaceReduce(*node, &kept, &reduced)
                                            : ReducePlacement::kOther;
      if (ctx->options.loop_kernels_only) {
        // One loop over the output; the reduce opens its own inner loops.
      } else if (placement == ReducePlacement::kMajor) {
        info.form = KernelForm::kColumnReduce;
        step.work_items = kept;
        step.cost_per_item = std::max<int64_t>(1, reduced);
      } else if (placement == ReducePlacement::kMinor && kept > 0 && kept < kSplitMaxOutputs &&
                 reduced >= kSplitMinElements &&
                 RecognizeReducer(*node->instr->to_apply()) != ReducerKind::kOther) {
        SplitReduce(*node, kept, reduced, module_name, ctx, plan, info, step);
      }
      info.step = program.steps.size();
      program.steps.push_back(step);
      plan.kernels.push_back(info);
    }
  }

  // Outputs: a kernel writes straight into a fresh output buffer when it can;
  // parameters, constants and repeated leaves are copied.
  for (size_t o = 0; o < leaves.size(); ++o) {
    GraphNode* leaf = leaves[o];
    if (!leaf->shape().IsArray()) {
      return Unimplemented(ctx->options.backend + ": output " + leaf->instr->name() + " of shape " +
                           leaf->shape().ToString());
    }
    program.outputs.push_back({leaf->shape().element_type(), leaf->shape().dimensions()});
    if (plan.slots[leaf->id].empty()) {
      // A scalar constant leaf that was inlined: give it a constant slot.
      return Internal("output " + leaf->instr->name() + " has no buffer (a planner bug)");
    }
    int src = plan.slots[leaf->id][0];
    Slot& slot = program.slots[src];
    if (slot.kind == Slot::Kind::kTemp) {
      slot.kind = Slot::Kind::kOutput;
      slot.index = static_cast<int64_t>(o);
      continue;
    }
    Slot out;
    out.kind = Slot::Kind::kOutput;
    out.index = static_cast<int64_t>(o);
    out.size = leaf->shape().byte_size();
    int dst = add_slot(out);
    Step copy;
    copy.kind = Step::Kind::kCopy;
    copy.name = leaf->instr->name();
    copy.src_slot = src;
    copy.dst_slot = dst;
    copy.bytes = out.size;
    copy.reads = {src};
    copy.writes = {dst};
    copy.same_index_only = true;
    program.steps.push_back(copy);
  }

  AssignBuffers(program);
  return plan_ptr;
}

}  // namespace

StatusOr<std::unique_ptr<Plan>> PlanKernels(const HloComputation& entry,
                                            const std::string& module_name,
                                            const PlannerOptions& options) {
  PlanContext ctx;
  ctx.module_name = module_name;
  ctx.options = options;
  return PlanComputation(entry, &ctx);
}

Program FinalizeProgram(Plan& plan) {
  for (auto& sub : plan.subplans) {
    plan.program.subprograms.push_back(std::make_shared<Program>(FinalizeProgram(*sub)));
  }
  return std::move(plan.program);
}

}  // namespace xla::cpu
