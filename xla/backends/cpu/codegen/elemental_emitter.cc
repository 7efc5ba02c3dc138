// See elemental_emitter.h. One block per opcode in ComputeUncached; index
// mapping for shape ops, scalar_ops.cc for arithmetic.
#include "xla/backends/cpu/codegen/elemental_emitter.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "llvm/IR/Module.h"
#include "xla/backends/cpu/codegen/scalar_ops.h"

namespace xla::cpu {
namespace {

using llvm::Value;

Status Unsupported(const GraphNode* node, const std::string& why) {
  return Unimplemented("CPU backend: " + std::string(HloOpcodeString(node->opcode())) + " " +
                       why + " (instruction " + node->instr->name() + ")");
}

const std::vector<int64_t>& Dims(const GraphNode* node) { return node->shape().dimensions(); }

}  // namespace

llvm::Value* EmitReducerStep(llvm::IRBuilder<>& b, ReducerKind kind, PrimitiveType type,
                             llvm::Value* acc, llvm::Value* x) {
  const bool is_float = IsFloatingPoint(type);
  // Floating add and multiply may be reassociated (as XLA allows for
  // reductions): the vectoriser then keeps several partial sums. NaN and
  // infinities still propagate; only rounding differs from the sequential sum.
  auto reassoc = [](Value* v) {
    if (auto* inst = llvm::dyn_cast<llvm::Instruction>(v)) inst->setHasAllowReassoc(true);
    return v;
  };
  auto no_signed_zeros = [](Value* v) {
    if (auto* inst = llvm::dyn_cast<llvm::Instruction>(v)) inst->setHasNoSignedZeros(true);
    return v;
  };
  switch (kind) {
    case ReducerKind::kAdd:
      return is_float ? reassoc(b.CreateFAdd(acc, x)) : b.CreateAdd(acc, x);
    case ReducerKind::kMul:
      return is_float ? reassoc(b.CreateFMul(acc, x)) : b.CreateMul(acc, x);
    // llvm.maximum/minimum propagate NaN like HLO and are recognised as
    // vectorisable reductions, unlike the select chains of EmitMax. `nsz`
    // (either zero may win between -0 and +0) drops the sign fix-ups from
    // the x86 lowering, leaving a max and a NaN select per vector.
    case ReducerKind::kMax:
      return is_float ? no_signed_zeros(b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, acc, x))
                      : EmitMax(b, type, acc, x);
    case ReducerKind::kMin:
      return is_float ? no_signed_zeros(b.CreateBinaryIntrinsic(llvm::Intrinsic::minimum, acc, x))
                      : EmitMin(b, type, acc, x);
    case ReducerKind::kAnd:
      return b.CreateAnd(acc, x);
    case ReducerKind::kOr:
      return b.CreateOr(acc, x);
    case ReducerKind::kOther:
      break;
  }
  return nullptr;
}

Status EmitForLoop(llvm::IRBuilder<>& b, llvm::Value* start, llvm::Value* end,
                   const std::string& name,
                   const std::function<Status(llvm::Value*)>& body) {
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b.getContext();
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx, name + ".header", fn);
  auto* body_bb = llvm::BasicBlock::Create(ctx, name + ".body", fn);
  auto* exit = llvm::BasicBlock::Create(ctx, name + ".exit", fn);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, name);
  i->addIncoming(start, preheader);
  b.CreateCondBr(b.CreateICmpSLT(i, end), body_bb, exit);
  b.SetInsertPoint(body_bb);
  RETURN_IF_ERROR(body(i));
  Value* next = b.CreateAdd(i, b.getInt64(1), name + ".next", /*HasNUW=*/true, /*HasNSW=*/true);
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(exit);
  return OkStatus();
}

llvm::Value* LinearOf(llvm::IRBuilder<>& b, const IrIndex& index,
                      const std::vector<int64_t>& dims) {
  if (index.linear != nullptr) return index.linear;
  Value* linear = b.getInt64(0);
  int64_t stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    Value* term = stride == 1 ? index.multi[d] : b.CreateMul(index.multi[d], b.getInt64(stride));
    linear = d + 1 == dims.size() ? term : b.CreateAdd(linear, term);
    stride *= dims[d];
  }
  return linear;
}

std::vector<llvm::Value*> MultiOf(llvm::IRBuilder<>& b, const IrIndex& index,
                                  const std::vector<int64_t>& dims) {
  if (!index.multi.empty() || dims.empty()) return index.multi;
  std::vector<Value*> multi(dims.size());
  Value* rest = index.linear;
  for (size_t d = dims.size(); d-- > 1;) {
    // Flat indices are never negative, so unsigned division is exact and cheaper.
    multi[d] = b.CreateURem(rest, b.getInt64(std::max<int64_t>(dims[d], 1)));
    rest = b.CreateUDiv(rest, b.getInt64(std::max<int64_t>(dims[d], 1)));
  }
  multi[0] = rest;
  return multi;
}

// ---------------------------------------------------------------- scalar functions

void ScalarFunctions::SetTargetAttributes(llvm::Function* fn) const {
  fn->addFnAttr("target-cpu", cpu_);
  fn->addFnAttr("target-features", features_);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
}

StatusOr<llvm::Function*> ScalarFunctions::Get(const HloComputation& computation) {
  auto it = functions_.find(&computation);
  if (it != functions_.end()) return it->second;
  llvm::LLVMContext& ctx = module_->getContext();
  std::vector<llvm::Type*> params;
  for (const HloInstruction* p : computation.parameter_instructions()) {
    if (!p->shape().IsArray() || p->shape().rank() != 0 ||
        !IsSupportedElementType(p->shape().element_type())) {
      return Unimplemented("CPU backend: reducer computation " + computation.name() +
                           " has a non-scalar parameter " + p->shape().ToString());
    }
    params.push_back(RegisterType(p->shape().element_type(), ctx));
  }
  const Shape& rs = computation.root_instruction()->shape();
  std::vector<Shape> leaves = rs.IsTuple() ? rs.tuple_shapes() : std::vector<Shape>{rs};
  std::vector<llvm::Type*> results;
  for (const Shape& s : leaves) {
    if (!s.IsArray() || s.rank() != 0) {
      return Unimplemented("CPU backend: reducer computation " + computation.name() +
                           " returns " + rs.ToString());
    }
    results.push_back(RegisterType(s.element_type(), ctx));
  }
  llvm::Type* ret = rs.IsTuple() ? llvm::StructType::get(ctx, results) : results[0];
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(ret, params, false),
                                    llvm::Function::InternalLinkage,
                                    "reducer_" + computation.name(), module_);
  fn->addFnAttr(llvm::Attribute::AlwaysInline);
  SetTargetAttributes(fn);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));

  // Straight-line evaluation: every instruction once, in post order.
  std::unordered_map<const HloInstruction*, std::vector<Value*>> values;
  std::function<StatusOr<std::vector<Value*>>(const HloComputation&, std::vector<std::vector<Value*>>, int)>
      eval = [&](const HloComputation& comp, std::vector<std::vector<Value*>> args,
                 int depth) -> StatusOr<std::vector<Value*>> {
    if (depth > 64) return InvalidArgument("calls nested too deeply in " + comp.name());
    std::unordered_map<const HloInstruction*, std::vector<Value*>> v;
    for (const HloInstruction* instr : comp.MakeInstructionPostOrder()) {
      std::vector<Value*> out;
      std::vector<Value*> ops;
      std::vector<PrimitiveType> types;
      for (const HloInstruction* op : instr->operands()) {
        const std::vector<Value*>& ov = v.at(op);
        if (!op->shape().IsTuple()) {
          ops.push_back(ov.at(0));
          types.push_back(op->shape().element_type());
        }
      }
      switch (instr->opcode()) {
        case HloOpcode::kParameter:
          out = args.at(instr->parameter_number());
          break;
        case HloOpcode::kConstant:
          if (instr->shape().rank() != 0) {
            return Unimplemented("CPU backend: non-scalar constant in reducer " + comp.name());
          }
          out = {LiteralElement(b, instr->literal(), 0)};
          break;
        case HloOpcode::kTuple:
          for (const HloInstruction* op : instr->operands()) {
            const auto& ov = v.at(op);
            out.insert(out.end(), ov.begin(), ov.end());
          }
          break;
        case HloOpcode::kGetTupleElement:
          out = {v.at(instr->operand(0)).at(instr->tuple_index())};
          break;
        case HloOpcode::kCall: {
          std::vector<std::vector<Value*>> call_args;
          for (const HloInstruction* op : instr->operands()) call_args.push_back(v.at(op));
          ASSIGN_OR_RETURN(out, eval(*instr->to_apply(), call_args, depth + 1));
          break;
        }
        default: {
          if (!IsElementwiseOpcode(instr->opcode()) || instr->shape().rank() != 0) {
            return Unimplemented("CPU backend: " + std::string(HloOpcodeString(instr->opcode())) +
                                 " inside reducer computation " + comp.name() +
                                 " (instruction " + instr->name() + ")");
          }
          ASSIGN_OR_RETURN(Value* r, EmitElementwise(b, *instr, types, ops));
          out = {r};
        }
      }
      v[instr] = std::move(out);
    }
    return v.at(comp.root_instruction());
  };
  std::vector<std::vector<Value*>> args;
  for (size_t i = 0; i < params.size(); ++i) args.push_back({fn->getArg(i)});
  auto result = eval(computation, args, 0);
  if (!result.ok()) {
    fn->eraseFromParent();
    return result.status();
  }
  if (rs.IsTuple()) {
    Value* agg = llvm::UndefValue::get(ret);
    for (size_t i = 0; i < result->size(); ++i) agg = b.CreateInsertValue(agg, (*result)[i], i);
    b.CreateRet(agg);
  } else {
    b.CreateRet(result->at(0));
  }
  functions_[&computation] = fn;
  return fn;
}

// ---------------------------------------------------------------- elemental values

IrIndex ElementalEmitter::Scalar() const {
  IrIndex index;
  index.linear = b_.getInt64(0);
  return index;
}

llvm::Value* ElementalEmitter::EntryAlloca(llvm::Type* type, const std::string& name) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  return entry.CreateAlloca(type, nullptr, name);
}

StatusOr<std::vector<llvm::Value*>> ElementalEmitter::AllAt(const GraphNode* node,
                                                            const IrIndex& index) {
  NodeRole role = plan_.role[node->id];
  if (role == NodeRole::kInline) return Compute(node, index);
  const std::vector<int>& slots = plan_.slots[node->id];
  if (slots.empty()) {
    return Internal("value of " + node->instr->name() + " is neither inlined nor stored");
  }
  const Shape& shape = node->shape();
  Value* linear = LinearOf(b_, index, shape.dimensions());
  std::vector<Value*> out;
  if (shape.IsTuple()) {
    for (size_t k = 0; k < slots.size(); ++k) {
      out.push_back(LoadElement(b_, shape.tuple_shapes(k).element_type(), slot_ptr_(slots[k]),
                                linear));
    }
  } else {
    out.push_back(LoadElement(b_, shape.element_type(), slot_ptr_(slots[0]), linear));
  }
  return out;
}

StatusOr<llvm::Value*> ElementalEmitter::At(const GraphNode* node, const IrIndex& index) {
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> v, AllAt(node, index));
  return v.at(0);
}

namespace {

std::vector<const void*> CacheKey(const GraphNode* node, const IrIndex& index) {
  std::vector<const void*> key = {node, index.linear};
  key.insert(key.end(), index.multi.begin(), index.multi.end());
  return key;
}

// Nodes that ComputeUncached emits through EmitElementwiseNode: they read
// each operand of their own rank at their own index.
bool ReadsOperandsAtOwnIndex(const GraphNode* node) {
  return IsElementwiseOpcode(node->opcode()) && node->opcode() != HloOpcode::kBitcastConvert &&
         node->shape().IsArray();
}

// Deeper nesting of index-changing producers than this is refused rather than
// risking the stack (each level is a few frames of a few hundred bytes).
constexpr int kMaxComputeDepth = 1000;

}  // namespace

bool ElementalEmitter::IsCached(const GraphNode* node, const IrIndex& index) const {
  auto it = cache_.find(CacheKey(node, index));
  return it != cache_.end() &&
         (it->second.block == nullptr || it->second.block == b_.GetInsertBlock());
}

Status ElementalEmitter::PrecomputeElementwiseOperands(const GraphNode* node,
                                                       const IrIndex& index) {
  // The operands of `n` that are computed inline at `n`'s own index and not yet cached.
  auto chained = [&](const GraphNode* n, const GraphNode* op) {
    return ReadsOperandsAtOwnIndex(n) && plan_.role[op->id] == NodeRole::kInline &&
           ReadsOperandsAtOwnIndex(op) && op->shape().rank() == n->shape().rank() &&
           !(op == stash_.node && stash_.complete) && !IsCached(op, index);
  };
  // Iterative post-order: a node is computed after all its chained operands.
  std::vector<std::pair<const GraphNode*, size_t>> stack = {{node, 0}};
  std::set<const GraphNode*> visited = {node};
  std::vector<const GraphNode*> order;
  while (!stack.empty()) {
    const GraphNode* n = stack.back().first;
    size_t& next = stack.back().second;
    if (next < n->operands.size()) {
      const GraphNode* op = n->operands[next++];
      if (chained(n, op) && visited.insert(op).second) stack.push_back({op, 0});
      continue;
    }
    order.push_back(n);
    stack.pop_back();
  }
  order.pop_back();  // `node` itself: the caller computes it
  for (const GraphNode* n : order) RETURN_IF_ERROR(Compute(n, index).status());
  return OkStatus();
}

StatusOr<std::vector<llvm::Value*>> ElementalEmitter::Compute(const GraphNode* node,
                                                             const IrIndex& index) {
  if (node == stash_.node && stash_.complete) {
    const Shape& shape = node->shape();
    return std::vector<llvm::Value*>{LoadElement(b_, shape.element_type(), stash_.buffer,
                                                 LinearOf(b_, index, shape.dimensions()))};
  }
  std::vector<const void*> key = CacheKey(node, index);
  auto it = cache_.find(key);
  if (it != cache_.end() &&
      (it->second.block == nullptr || it->second.block == b_.GetInsertBlock())) {
    return it->second.values;
  }
  if (depth_ >= kMaxComputeDepth) {
    return Unimplemented("CPU backend: more than " + std::to_string(kMaxComputeDepth) +
                         " nested index-changing operations (broadcast, transpose, slice, ...) "
                         "fused into one kernel at instruction " + node->instr->name());
  }
  ++depth_;
  Status pre = PrecomputeElementwiseOperands(node, index);
  StatusOr<std::vector<llvm::Value*>> computed =
      pre.ok() ? ComputeUncached(node, index) : StatusOr<std::vector<llvm::Value*>>(pre);
  --depth_;
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> values, std::move(computed));
  if (node == stash_.node) {
    const Shape& shape = node->shape();
    StoreElement(b_, shape.element_type(), values.at(0), stash_.buffer,
                 LinearOf(b_, index, shape.dimensions()));
  }
  cache_[key] = CacheEntry{b_.GetInsertBlock(), values};
  return values;
}

void ElementalEmitter::BeginStash(const GraphNode* node, llvm::Value* buffer) {
  stash_ = Stash{node, buffer, false};
}

void ElementalEmitter::EndStash() { stash_.complete = true; }

Status ElementalEmitter::Hoist(const GraphNode* node, const IrIndex& index) {
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> values, Compute(node, index));
  cache_[CacheKey(node, index)] = CacheEntry{nullptr, std::move(values)};
  return OkStatus();
}

StatusOr<llvm::Value*> ElementalEmitter::EmitElementwiseNode(const GraphNode* node,
                                                             const IrIndex& index) {
  std::vector<llvm::Value*> ops;
  std::vector<PrimitiveType> types;
  for (const GraphNode* op : node->operands) {
    // Scalar operands of select and clamp broadcast implicitly.
    bool scalar = op->shape().rank() == 0 && node->shape().rank() != 0;
    ASSIGN_OR_RETURN(llvm::Value* v, At(op, scalar ? Scalar() : index));
    ops.push_back(v);
    types.push_back(op->shape().element_type());
  }
  return EmitElementwise(b_, *node->instr, types, ops);
}

StatusOr<std::vector<llvm::Value*>> ElementalEmitter::ComputeUncached(const GraphNode* node,
                                                                     const IrIndex& index) {
  const HloInstruction& instr = *node->instr;
  const std::vector<int64_t>& out_dims =
      node->shape().IsTuple() ? node->shape().tuple_shapes(0).dimensions() : Dims(node);
  for (const Shape& leaf : FlattenShape(node->shape())) {
    if (!IsSupportedElementType(leaf.element_type())) {
      return Unsupported(node, "on " + std::string(PrimitiveTypeName(leaf.element_type())) +
                                   " is not supported");
    }
  }
  auto one = [](StatusOr<llvm::Value*> v) -> StatusOr<std::vector<llvm::Value*>> {
    if (!v.ok()) return v.status();
    return std::vector<llvm::Value*>{*v};
  };
  switch (node->opcode()) {
    case HloOpcode::kConstant: {
      if (node->shape().rank() != 0) return Unsupported(node, "inlined with rank > 0");
      return std::vector<llvm::Value*>{LiteralElement(b_, instr.literal(), 0)};
    }
    case HloOpcode::kIota: {
      std::vector<llvm::Value*> multi = MultiOf(b_, index, out_dims);
      return std::vector<llvm::Value*>{
          IntToType(b_, node->shape().element_type(), multi[instr.iota_dimension()])};
    }
    case HloOpcode::kBroadcast: {
      const GraphNode* op = node->operand(0);
      if (op->shape().rank() == 0) return one(At(op, Scalar()));
      std::vector<llvm::Value*> multi = MultiOf(b_, index, out_dims);
      IrIndex op_index;
      for (int64_t d : instr.dimensions()) op_index.multi.push_back(multi[d]);
      return one(At(op, op_index));
    }
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast: {
      // Row-major storage: a reshape keeps every element's flat index.
      if (node->operand(0)->shape().element_type() != node->shape().element_type()) {
        return Unsupported(node, "changing the element type");
      }
      IrIndex op_index;
      op_index.linear = LinearOf(b_, index, out_dims);
      return one(At(node->operand(0), op_index));
    }
    case HloOpcode::kTranspose: {
      std::vector<llvm::Value*> multi = MultiOf(b_, index, out_dims);
      IrIndex op_index;
      op_index.multi.resize(multi.size());
      for (size_t i = 0; i < multi.size(); ++i) op_index.multi[instr.dimensions(i)] = multi[i];
      return one(At(node->operand(0), op_index));
    }
    case HloOpcode::kSlice: {
      std::vector<llvm::Value*> multi = MultiOf(b_, index, out_dims);
      IrIndex op_index;
      for (size_t d = 0; d < multi.size(); ++d) {
        llvm::Value* v = multi[d];
        if (instr.slice_strides()[d] != 1) v = b_.CreateMul(v, b_.getInt64(instr.slice_strides()[d]));
        if (instr.slice_starts()[d] != 0) v = b_.CreateAdd(v, b_.getInt64(instr.slice_starts()[d]));
        op_index.multi.push_back(v);
      }
      return one(At(node->operand(0), op_index));
    }
    case HloOpcode::kReverse: {
      std::vector<llvm::Value*> multi = MultiOf(b_, index, out_dims);
      for (int64_t d : instr.dimensions()) {
        multi[d] = b_.CreateSub(b_.getInt64(out_dims[d] - 1), multi[d]);
      }
      IrIndex op_index;
      op_index.multi = multi;
      return one(At(node->operand(0), op_index));
    }
    case HloOpcode::kConcatenate:
      return one(EmitConcatenate(node, index));
    case HloOpcode::kPad:
      return one(EmitPad(node, index));
    case HloOpcode::kDynamicSlice:
      return one(EmitDynamicSlice(node, index));
    case HloOpcode::kDynamicUpdateSlice:
      return one(EmitDynamicUpdateSlice(node, index));
    case HloOpcode::kReduce:
      return EmitReduce(node, index);
    case HloOpcode::kReduceWindow:
      return EmitReduceWindow(node, index);
    case HloOpcode::kDot:
      return one(EmitDot(node, index));
    case HloOpcode::kGather:
      return one(EmitGather(node, index));
    case HloOpcode::kConvolution:
      return one(EmitConvolution(node, index));
    case HloOpcode::kBitcastConvert:
      return one(EmitBitcastConvert(node, index));
    default:
      break;
  }
  if (IsElementwiseOpcode(node->opcode())) return one(EmitElementwiseNode(node, index));
  return Unsupported(node, "is not supported by the CPU emitter");
}

StatusOr<llvm::Value*> ElementalEmitter::EmitConcatenate(const GraphNode* node,
                                                         const IrIndex& index) {
  // Every operand is read at a clamped index and the right one selected:
  // branch-free, so the loop stays vectorisable.
  const int64_t dim = node->instr->concatenate_dimension();
  std::vector<llvm::Value*> multi = MultiOf(b_, index, Dims(node));
  llvm::Value* pos = multi[dim];
  llvm::Value* result = nullptr;
  int64_t offset = 0;
  for (const GraphNode* op : node->operands) {
    int64_t size = op->shape().dimensions(dim);
    if (size == 0) continue;
    IrIndex op_index;
    op_index.multi = multi;
    llvm::Value* local = b_.CreateSub(pos, b_.getInt64(offset));
    llvm::Value* clamped = b_.CreateSelect(b_.CreateICmpSLT(local, b_.getInt64(0)),
                                           b_.getInt64(0), local);
    clamped = b_.CreateSelect(b_.CreateICmpSGT(clamped, b_.getInt64(size - 1)),
                              b_.getInt64(size - 1), clamped);
    op_index.multi[dim] = clamped;
    ASSIGN_OR_RETURN(llvm::Value* v, At(op, op_index));
    result = result == nullptr
                 ? v
                 : b_.CreateSelect(b_.CreateICmpSGE(pos, b_.getInt64(offset)), v, result);
    offset += size;
  }
  if (result == nullptr) return Zero(b_, node->shape().element_type());
  return result;
}

StatusOr<llvm::Value*> ElementalEmitter::EmitPad(const GraphNode* node, const IrIndex& index) {
  const GraphNode* op = node->operand(0);
  ASSIGN_OR_RETURN(llvm::Value* pad_value, At(node->operand(1), Scalar()));
  const auto& cfg = node->instr->padding_config().dimensions;
  const std::vector<int64_t>& op_dims = Dims(op);
  for (int64_t d : op_dims) {
    if (d == 0) return pad_value;  // nothing of the operand survives
  }
  std::vector<llvm::Value*> multi = MultiOf(b_, index, Dims(node));
  llvm::Value* valid = b_.getTrue();
  IrIndex op_index;
  for (size_t d = 0; d < multi.size(); ++d) {
    const int64_t stride = cfg[d].interior_padding + 1;
    llvm::Value* t = b_.CreateSub(multi[d], b_.getInt64(cfg[d].edge_padding_low));
    valid = b_.CreateAnd(valid, b_.CreateICmpSGE(t, b_.getInt64(0)));
    llvm::Value* q = t;
    if (stride != 1) {
      valid = b_.CreateAnd(valid, b_.CreateICmpEQ(b_.CreateSRem(t, b_.getInt64(stride)),
                                                  b_.getInt64(0)));
      q = b_.CreateSDiv(t, b_.getInt64(stride));
    }
    valid = b_.CreateAnd(valid, b_.CreateICmpSLT(q, b_.getInt64(op_dims[d])));
    llvm::Value* c = b_.CreateSelect(b_.CreateICmpSLT(q, b_.getInt64(0)), b_.getInt64(0), q);
    c = b_.CreateSelect(b_.CreateICmpSGT(c, b_.getInt64(op_dims[d] - 1)),
                        b_.getInt64(op_dims[d] - 1), c);
    op_index.multi.push_back(c);
  }
  ASSIGN_OR_RETURN(llvm::Value* v, At(op, op_index));
  return b_.CreateSelect(valid, v, pad_value);
}

StatusOr<std::vector<llvm::Value*>> ElementalEmitter::StartIndices(
    const GraphNode* node, int first, const std::vector<int64_t>& operand_dims,
    const std::vector<int64_t>& sizes) {
  std::vector<llvm::Value*> starts;
  for (size_t d = 0; d < operand_dims.size(); ++d) {
    const GraphNode* s = node->operand(first + static_cast<int>(d));
    if (s->shape().rank() != 0 || !IsInteger(s->shape().element_type())) {
      return Unsupported(node, "with non-scalar or non-integer start indices");
    }
    ASSIGN_OR_RETURN(llvm::Value* v, At(s, Scalar()));
    v = IsSignedInteger(s->shape().element_type()) ? b_.CreateSExt(v, b_.getInt64Ty())
                                                   : b_.CreateZExt(v, b_.getInt64Ty());
    // Starts are clamped so the window stays inside the operand.
    int64_t hi = std::max<int64_t>(0, operand_dims[d] - sizes[d]);
    v = b_.CreateSelect(b_.CreateICmpSLT(v, b_.getInt64(0)), b_.getInt64(0), v);
    v = b_.CreateSelect(b_.CreateICmpSGT(v, b_.getInt64(hi)), b_.getInt64(hi), v);
    starts.push_back(v);
  }
  return starts;
}

StatusOr<llvm::Value*> ElementalEmitter::EmitDynamicSlice(const GraphNode* node,
                                                          const IrIndex& index) {
  const GraphNode* op = node->operand(0);
  if (node->operands.size() != 1 + static_cast<size_t>(op->shape().rank())) {
    return Unsupported(node, "with a start-index vector operand");
  }
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts,
                   StartIndices(node, 1, Dims(op), Dims(node)));
  std::vector<llvm::Value*> multi = MultiOf(b_, index, Dims(node));
  IrIndex op_index;
  for (size_t d = 0; d < multi.size(); ++d) op_index.multi.push_back(b_.CreateAdd(multi[d], starts[d]));
  return At(op, op_index);
}

StatusOr<std::vector<llvm::Value*>> ElementalEmitter::UpdateStarts(const GraphNode* node) {
  const GraphNode* op = node->operand(0);
  if (node->operands.size() != 2 + static_cast<size_t>(op->shape().rank())) {
    return Unsupported(node, "with a start-index vector operand");
  }
  return StartIndices(node, 2, Dims(op), Dims(node->operand(1)));
}

StatusOr<llvm::Value*> ElementalEmitter::EmitDynamicUpdateSlice(const GraphNode* node,
                                                                const IrIndex& index) {
  const GraphNode* op = node->operand(0);
  const GraphNode* update = node->operand(1);
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts, UpdateStarts(node));
  std::vector<llvm::Value*> multi = MultiOf(b_, index, Dims(node));
  ASSIGN_OR_RETURN(llvm::Value* base, At(op, index));
  for (int64_t d : Dims(update)) {
    if (d == 0) return base;
  }
  llvm::Value* inside = b_.getTrue();
  IrIndex up_index;
  for (size_t d = 0; d < multi.size(); ++d) {
    llvm::Value* t = b_.CreateSub(multi[d], starts[d]);
    int64_t size = update->shape().dimensions(d);
    inside = b_.CreateAnd(inside, b_.CreateICmpSGE(t, b_.getInt64(0)));
    inside = b_.CreateAnd(inside, b_.CreateICmpSLT(t, b_.getInt64(size)));
    llvm::Value* c = b_.CreateSelect(b_.CreateICmpSLT(t, b_.getInt64(0)), b_.getInt64(0), t);
    c = b_.CreateSelect(b_.CreateICmpSGT(c, b_.getInt64(size - 1)), b_.getInt64(size - 1), c);
    up_index.multi.push_back(c);
  }
  ASSIGN_OR_RETURN(llvm::Value* u, At(update, up_index));
  return b_.CreateSelect(inside, u, base);
}

StatusOr<std::vector<llvm::Value*>> ElementalEmitter::EmitReduce(const GraphNode* node,
                                                                const IrIndex& index) {
  const HloInstruction& instr = *node->instr;
  const size_t n = node->operands.size() / 2;
  if (instr.to_apply() == nullptr) return Unsupported(node, "without a reducer");
  ASSIGN_OR_RETURN(llvm::Function* reducer, scalar_functions_->Get(*instr.to_apply()));
  const ReducerKind kind = n == 1 ? RecognizeReducer(*instr.to_apply()) : ReducerKind::kOther;
  const PrimitiveType type = node->operand(0)->shape().element_type();
  const std::vector<int64_t>& in_dims = Dims(node->operand(0));
  const std::vector<int64_t>& out_dims =
      node->shape().IsTuple() ? node->shape().tuple_shapes(0).dimensions() : Dims(node);
  std::vector<llvm::Value*> out_multi = MultiOf(b_, index, out_dims);

  std::vector<llvm::Value*> accs;
  for (size_t k = 0; k < n; ++k) {
    const GraphNode* init = node->operand(n + k);
    ASSIGN_OR_RETURN(llvm::Value* v, At(init, Scalar()));
    llvm::Value* acc = EntryAlloca(v->getType(), "acc");
    b_.CreateStore(v, acc);
    accs.push_back(acc);
  }
  std::vector<int64_t> reduced = instr.dimensions();
  std::sort(reduced.begin(), reduced.end());
  // Input multi-index: kept dimensions come from the output index in order.
  std::vector<llvm::Value*> in_multi(in_dims.size(), nullptr);
  {
    size_t o = 0;
    for (size_t d = 0; d < in_dims.size(); ++d) {
      if (!std::binary_search(reduced.begin(), reduced.end(), static_cast<int64_t>(d))) {
        in_multi[d] = out_multi[o++];
      }
    }
  }
  // Loops over the reduced dimensions, outermost first, so the innermost
  // loop walks the most minor (contiguous) reduced dimension.
  std::function<Status(size_t)> nest = [&](size_t level) -> Status {
    if (level == reduced.size()) {
      IrIndex in_index;
      in_index.multi = in_multi;
      std::vector<llvm::Value*> args;
      for (size_t k = 0; k < n; ++k) args.push_back(b_.CreateLoad(
          llvm::cast<llvm::AllocaInst>(accs[k])->getAllocatedType(), accs[k]));
      for (size_t k = 0; k < n; ++k) {
        ASSIGN_OR_RETURN(llvm::Value* x, At(node->operand(k), in_index));
        args.push_back(x);
      }
      llvm::Value* r = kind != ReducerKind::kOther
                           ? EmitReducerStep(b_, kind, type, args[0], args[1])
                           : b_.CreateCall(reducer, args);
      for (size_t k = 0; k < n; ++k) {
        b_.CreateStore(n == 1 ? r : b_.CreateExtractValue(r, k), accs[k]);
      }
      return OkStatus();
    }
    int64_t d = reduced[level];
    return EmitForLoop(b_, b_.getInt64(0), b_.getInt64(in_dims[d]), "reduce",
                       [&](llvm::Value* i) {
                         in_multi[d] = i;
                         return nest(level + 1);
                       });
  };
  RETURN_IF_ERROR(nest(0));
  std::vector<llvm::Value*> results;
  for (size_t k = 0; k < n; ++k) {
    results.push_back(
        b_.CreateLoad(llvm::cast<llvm::AllocaInst>(accs[k])->getAllocatedType(), accs[k]));
  }
  return results;
}

StatusOr<std::vector<llvm::Value*>> ElementalEmitter::EmitReduceWindow(
    const GraphNode* node, const IrIndex& index) {
  const HloInstruction& instr = *node->instr;
  const size_t n = node->operands.size() / 2;
  if (instr.to_apply() == nullptr) return Unsupported(node, "without a reducer");
  ASSIGN_OR_RETURN(llvm::Function* reducer, scalar_functions_->Get(*instr.to_apply()));
  const std::vector<int64_t>& in_dims = Dims(node->operand(0));
  const std::vector<int64_t>& out_dims =
      node->shape().IsTuple() ? node->shape().tuple_shapes(0).dimensions() : Dims(node);
  const std::vector<WindowDimension>& window = instr.window().dimensions;
  if (window.size() != in_dims.size()) return Unsupported(node, "with a window of the wrong rank");
  std::vector<llvm::Value*> out_multi = MultiOf(b_, index, out_dims);

  std::vector<llvm::Value*> inits, accs;
  for (size_t k = 0; k < n; ++k) {
    ASSIGN_OR_RETURN(llvm::Value* v, At(node->operand(n + k), Scalar()));
    inits.push_back(v);
    llvm::Value* acc = EntryAlloca(v->getType(), "wacc");
    b_.CreateStore(v, acc);
    accs.push_back(acc);
  }
  // Window position w of output o reads dilated-input position
  // o*stride - pad_low + w*window_dilation; positions in padding or between
  // base-dilated elements read the init value, as HLO defines.
  std::vector<llvm::Value*> win(in_dims.size(), nullptr);
  std::function<Status(size_t)> nest = [&](size_t d) -> Status {
    if (d == in_dims.size()) {
      llvm::Value* valid = b_.getTrue();
      IrIndex in_index;
      for (size_t i = 0; i < in_dims.size(); ++i) {
        const WindowDimension& wd = window[i];
        llvm::Value* p = b_.CreateAdd(
            b_.CreateSub(b_.CreateMul(out_multi[i], b_.getInt64(wd.stride)),
                         b_.getInt64(wd.padding_low)),
            b_.CreateMul(win[i], b_.getInt64(wd.window_dilation)));
        if (wd.base_dilation != 1) {
          valid = b_.CreateAnd(valid, b_.CreateICmpEQ(b_.CreateSRem(p, b_.getInt64(wd.base_dilation)),
                                                      b_.getInt64(0)));
          p = b_.CreateSDiv(p, b_.getInt64(wd.base_dilation));
        }
        valid = b_.CreateAnd(valid, b_.CreateICmpSGE(p, b_.getInt64(0)));
        valid = b_.CreateAnd(valid, b_.CreateICmpSLT(p, b_.getInt64(in_dims[i])));
        llvm::Value* c = b_.CreateSelect(b_.CreateICmpSLT(p, b_.getInt64(0)), b_.getInt64(0), p);
        c = b_.CreateSelect(b_.CreateICmpSGT(c, b_.getInt64(std::max<int64_t>(0, in_dims[i] - 1))),
                            b_.getInt64(std::max<int64_t>(0, in_dims[i] - 1)), c);
        in_index.multi.push_back(c);
      }
      std::vector<llvm::Value*> args;
      for (size_t k = 0; k < n; ++k) {
        args.push_back(b_.CreateLoad(llvm::cast<llvm::AllocaInst>(accs[k])->getAllocatedType(),
                                     accs[k]));
      }
      for (size_t k = 0; k < n; ++k) {
        ASSIGN_OR_RETURN(llvm::Value* x, At(node->operand(k), in_index));
        args.push_back(b_.CreateSelect(valid, x, inits[k]));
      }
      llvm::Value* r = b_.CreateCall(reducer, args);
      for (size_t k = 0; k < n; ++k) {
        b_.CreateStore(n == 1 ? r : b_.CreateExtractValue(r, k), accs[k]);
      }
      return OkStatus();
    }
    return EmitForLoop(b_, b_.getInt64(0), b_.getInt64(window[d].size), "window",
                       [&](llvm::Value* i) {
                         win[d] = i;
                         return nest(d + 1);
                       });
  };
  for (int64_t d : in_dims) {
    if (d == 0) {  // an empty operand: every window is all padding
      std::vector<llvm::Value*> results;
      for (llvm::Value* v : inits) results.push_back(v);
      return results;
    }
  }
  RETURN_IF_ERROR(nest(0));
  std::vector<llvm::Value*> results;
  for (size_t k = 0; k < n; ++k) {
    results.push_back(
        b_.CreateLoad(llvm::cast<llvm::AllocaInst>(accs[k])->getAllocatedType(), accs[k]));
  }
  return results;
}

StatusOr<llvm::Value*> ElementalEmitter::EmitGather(const GraphNode* node,
                                                    const IrIndex& index) {
  const GatherDimensionNumbers& g = node->instr->gather_dimension_numbers();
  const std::vector<int64_t>& sizes = node->instr->gather_slice_sizes();
  const GraphNode* operand = node->operand(0);
  const GraphNode* indices = node->operand(1);
  const std::vector<int64_t>& op_dims = Dims(operand);
  const std::vector<int64_t>& idx_dims = Dims(indices);
  const PrimitiveType idx_type = indices->shape().element_type();
  if (!IsInteger(idx_type)) return Unsupported(node, "with non-integer indices");
  auto contains = [](const std::vector<int64_t>& v, int64_t d) {
    return std::find(v.begin(), v.end(), d) != v.end();
  };
  std::vector<llvm::Value*> out = MultiOf(b_, index, Dims(node));
  // Batch position: the output dimensions that are not offset dimensions.
  std::vector<llvm::Value*> batch;
  for (size_t d = 0; d < out.size(); ++d) {
    if (!contains(g.offset_dims, static_cast<int64_t>(d))) batch.push_back(out[d]);
  }
  const int64_t ivd = g.index_vector_dim;
  const bool implicit_vector = ivd == static_cast<int64_t>(idx_dims.size());
  // Index of component k of the start vector within `indices`.
  auto indices_index = [&](int64_t k) {
    IrIndex ii;
    ii.multi = batch;
    if (!implicit_vector) ii.multi.insert(ii.multi.begin() + ivd, b_.getInt64(k));
    return ii;
  };
  std::vector<llvm::Value*> start(op_dims.size(), b_.getInt64(0));
  for (size_t k = 0; k < g.start_index_map.size(); ++k) {
    const int64_t d = g.start_index_map[k];
    ASSIGN_OR_RETURN(llvm::Value* v, At(indices, indices_index(k)));
    v = IsSignedInteger(idx_type) ? b_.CreateSExt(v, b_.getInt64Ty())
                                  : b_.CreateZExt(v, b_.getInt64Ty());
    // Starts are clamped so the slice stays inside the operand.
    const int64_t hi = std::max<int64_t>(0, op_dims[d] - sizes[d]);
    v = b_.CreateSelect(b_.CreateICmpSLT(v, b_.getInt64(0)), b_.getInt64(0), v);
    v = b_.CreateSelect(b_.CreateICmpSGT(v, b_.getInt64(hi)), b_.getInt64(hi), v);
    start[d] = v;
  }
  for (size_t i = 0; i < g.operand_batching_dims.size(); ++i) {
    int64_t s = g.start_indices_batching_dims[i];
    int64_t pos = (!implicit_vector && s > ivd) ? s - 1 : s;
    start[g.operand_batching_dims[i]] = batch[pos];
  }
  // Offsets: the remaining (window) operand dimensions, in order, take the
  // output's offset dimensions.
  IrIndex op_index;
  op_index.multi = start;
  size_t w = 0;
  for (size_t d = 0; d < op_dims.size(); ++d) {
    if (contains(g.collapsed_slice_dims, static_cast<int64_t>(d)) ||
        contains(g.operand_batching_dims, static_cast<int64_t>(d))) {
      continue;
    }
    if (w >= g.offset_dims.size()) return Unsupported(node, "with inconsistent offset_dims");
    op_index.multi[d] = b_.CreateAdd(start[d], out[g.offset_dims[w++]]);
  }
  return At(operand, op_index);
}

StatusOr<llvm::Value*> ElementalEmitter::EmitDot(const GraphNode* node, const IrIndex& index) {
  const DotDimensionNumbers& dn = node->instr->dot_dimension_numbers();
  const GraphNode* lhs = node->operand(0);
  const GraphNode* rhs = node->operand(1);
  const PrimitiveType out_type = node->shape().element_type();
  if (IsComplex(out_type)) return Unsupported(node, "on complex types");
  const int lrank = lhs->shape().rank(), rrank = rhs->shape().rank();
  std::vector<llvm::Value*> out = MultiOf(b_, index, Dims(node));
  auto contains = [](const std::vector<int64_t>& v, int64_t d) {
    return std::find(v.begin(), v.end(), d) != v.end();
  };
  // Output dimensions: batch, then lhs free, then rhs free.
  std::vector<llvm::Value*> lm(lrank, nullptr), rm(rrank, nullptr);
  size_t o = 0;
  for (size_t i = 0; i < dn.lhs_batch_dimensions.size(); ++i, ++o) {
    lm[dn.lhs_batch_dimensions[i]] = out[o];
    rm[dn.rhs_batch_dimensions[i]] = out[o];
  }
  for (int d = 0; d < lrank; ++d) {
    if (!contains(dn.lhs_batch_dimensions, d) && !contains(dn.lhs_contracting_dimensions, d)) {
      lm[d] = out[o++];
    }
  }
  for (int d = 0; d < rrank; ++d) {
    if (!contains(dn.rhs_batch_dimensions, d) && !contains(dn.rhs_contracting_dimensions, d)) {
      rm[d] = out[o++];
    }
  }
  const bool is_float = IsFloatingPoint(out_type);
  llvm::Value* acc = EntryAlloca(RegisterType(out_type, b_.getContext()), "dot_acc");
  b_.CreateStore(Zero(b_, out_type), acc);
  std::function<Status(size_t)> nest = [&](size_t level) -> Status {
    if (level == dn.lhs_contracting_dimensions.size()) {
      IrIndex li, ri;
      li.multi = lm;
      ri.multi = rm;
      ASSIGN_OR_RETURN(llvm::Value* a, At(lhs, li));
      ASSIGN_OR_RETURN(llvm::Value* c, At(rhs, ri));
      a = EmitConvert(b_, lhs->shape().element_type(), out_type, a);
      c = EmitConvert(b_, rhs->shape().element_type(), out_type, c);
      llvm::Value* sum = b_.CreateLoad(a->getType(), acc);
      llvm::Value* prod;
      if (is_float) {
        prod = b_.CreateFAdd(sum, b_.CreateFMul(a, c));
      } else if (out_type == PrimitiveType::PRED) {
        prod = b_.CreateOr(sum, b_.CreateAnd(a, c));
      } else {
        prod = b_.CreateAdd(sum, b_.CreateMul(a, c));
      }
      b_.CreateStore(prod, acc);
      return OkStatus();
    }
    int64_t ld = dn.lhs_contracting_dimensions[level];
    int64_t rd = dn.rhs_contracting_dimensions[level];
    return EmitForLoop(b_, b_.getInt64(0), b_.getInt64(lhs->shape().dimensions(ld)), "dot",
                       [&](llvm::Value* i) {
                         lm[ld] = i;
                         rm[rd] = i;
                         return nest(level + 1);
                       });
  };
  RETURN_IF_ERROR(nest(0));
  // f16/bf16 accumulate in f32 and round once at the end.
  llvm::Type* acc_type = llvm::cast<llvm::AllocaInst>(acc)->getAllocatedType();
  return RoundToType(b_, out_type, b_.CreateLoad(acc_type, acc));
}

}  // namespace xla::cpu
