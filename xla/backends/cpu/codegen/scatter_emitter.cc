#include "xla/backends/cpu/codegen/scatter_emitter.h"

#include <algorithm>

#include "xla/backends/cpu/codegen/scalar_ops.h"

namespace xla::cpu {
namespace {

using llvm::Value;

Status Unsupported(const GraphNode* node, const std::string& why) {
  return Unimplemented("CPU backend: " + std::string(HloOpcodeString(node->opcode())) + " " +
                       why + " (instruction " + node->instr->name() + ")");
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

// Emits `if (cond) { then() }`; the builder ends up after the if.
Status EmitIf(llvm::IRBuilder<>& b, Value* cond, const std::function<Status()>& then) {
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  auto* then_bb = llvm::BasicBlock::Create(b.getContext(), "if.then", fn);
  auto* cont_bb = llvm::BasicBlock::Create(b.getContext(), "if.end", fn);
  b.CreateCondBr(cond, then_bb, cont_bb);
  b.SetInsertPoint(then_bb);
  RETURN_IF_ERROR(then());
  b.CreateBr(cont_bb);
  b.SetInsertPoint(cont_bb);
  return OkStatus();
}

// Loops over the given dimensions (outermost first), setting multi[dim].
Status EmitNest(llvm::IRBuilder<>& b, const std::vector<int64_t>& which,
                const std::vector<int64_t>& dims, std::vector<Value*>& multi,
                const std::function<Status()>& body, size_t level = 0) {
  if (level == which.size()) return body();
  const int64_t d = which[level];
  return EmitForLoop(b, b.getInt64(0), b.getInt64(dims[d]), "scatter", [&](Value* i) {
    multi[d] = i;
    return EmitNest(b, which, dims, multi, body, level + 1);
  });
}

Value* LinearIndex(llvm::IRBuilder<>& b, const std::vector<Value*>& multi,
                   const std::vector<int64_t>& dims) {
  IrIndex index;
  index.multi = multi;
  if (dims.empty()) return b.getInt64(0);
  return LinearOf(b, index, dims);
}

Value* ToInt64(llvm::IRBuilder<>& b, PrimitiveType type, Value* v) {
  return IsSignedInteger(type) ? b.CreateSExt(v, b.getInt64Ty()) : b.CreateZExt(v, b.getInt64Ty());
}

Value* EntryAlloca(llvm::IRBuilder<>& b, llvm::Type* type) {
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  return entry.CreateAlloca(type);
}

Status EmitScatter(llvm::IRBuilder<>& b, ElementalEmitter& emitter, ScalarFunctions* sf,
                   const GraphNode* node, const std::vector<Value*>& outputs,
                   bool operands_preset) {
  const HloInstruction& instr = *node->instr;
  const size_t n = (node->operands.size() - 1) / 2;
  const GraphNode* indices = node->operand(n);
  const ScatterDimensionNumbers& dn = instr.scatter_dimension_numbers();
  const std::vector<int64_t>& op_dims = node->operand(0)->shape().dimensions();
  const std::vector<int64_t>& upd_dims = node->operand(n + 1)->shape().dimensions();
  const std::vector<int64_t>& idx_dims = indices->shape().dimensions();
  const PrimitiveType idx_type = indices->shape().element_type();
  if (!IsInteger(idx_type)) return Unsupported(node, "with non-integer indices");
  if (instr.to_apply() == nullptr) return Unsupported(node, "without a combiner");
  ASSIGN_OR_RETURN(llvm::Function* combiner, sf->Get(*instr.to_apply()));
  std::vector<PrimitiveType> types;
  for (size_t k = 0; k < n; ++k) types.push_back(node->operand(k)->shape().element_type());

  // Phase 1: the output starts as the operand (unless copy steps did that).
  if (!operands_preset) RETURN_IF_ERROR(EmitForLoop(b, b.getInt64(0), b.getInt64(Product(op_dims)), "copy",
                              [&](Value* i) -> Status {
                                IrIndex index;
                                index.linear = i;
                                for (size_t k = 0; k < n; ++k) {
                                  ASSIGN_OR_RETURN(Value* v, emitter.At(node->operand(k), index));
                                  StoreElement(b, types[k], v, outputs[k], i);
                                }
                                return OkStatus();
                              }));

  // Update dimensions: scatter (which update) and window (where in the window).
  std::vector<int64_t> scatter_dims, window_dims = dn.update_window_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(upd_dims.size()); ++d) {
    if (!Contains(window_dims, d)) scatter_dims.push_back(d);
  }
  // Operand dimensions the window dimensions map to, in order.
  std::vector<int64_t> window_operand_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(op_dims.size()); ++d) {
    if (!Contains(dn.inserted_window_dims, d) && !Contains(dn.input_batching_dims, d)) {
      window_operand_dims.push_back(d);
    }
  }
  if (window_operand_dims.size() != window_dims.size()) {
    return Unsupported(node, "with inconsistent window dimensions");
  }
  std::vector<int64_t> window_size(op_dims.size(), 1);
  for (size_t w = 0; w < window_dims.size(); ++w) {
    window_size[window_operand_dims[w]] = upd_dims[window_dims[w]];
  }
  const int64_t ivd = dn.index_vector_dim;
  const bool implicit_vector = ivd == static_cast<int64_t>(idx_dims.size());

  std::vector<Value*> upd(upd_dims.size(), nullptr);
  return EmitNest(b, scatter_dims, upd_dims, upd, [&]() -> Status {
    // The scatter position: update dims that are not window dims, in order,
    // are the index dims other than index_vector_dim.
    std::vector<Value*> position;
    for (int64_t d : scatter_dims) position.push_back(upd[d]);
    std::vector<Value*> start(op_dims.size(), b.getInt64(0));
    for (size_t k = 0; k < dn.scatter_dims_to_operand_dims.size(); ++k) {
      IrIndex ii;
      ii.multi = position;
      if (!implicit_vector) ii.multi.insert(ii.multi.begin() + ivd, b.getInt64(k));
      ASSIGN_OR_RETURN(Value* v, emitter.At(indices, ii));
      start[dn.scatter_dims_to_operand_dims[k]] = ToInt64(b, idx_type, v);
    }
    for (size_t i = 0; i < dn.input_batching_dims.size(); ++i) {
      const int64_t s = dn.scatter_indices_batching_dims[i];
      const int64_t pos = (!implicit_vector && s > ivd) ? s - 1 : s;
      start[dn.input_batching_dims[i]] = position.at(pos);
    }
    Value* valid = b.getTrue();
    for (size_t d = 0; d < op_dims.size(); ++d) {
      valid = b.CreateAnd(valid, b.CreateICmpSGE(start[d], b.getInt64(0)));
      valid = b.CreateAnd(valid, b.CreateICmpSLE(start[d], b.getInt64(op_dims[d] - window_size[d])));
    }
    return EmitIf(b, valid, [&]() -> Status {
      return EmitNest(b, window_dims, upd_dims, upd, [&]() -> Status {
        std::vector<Value*> op_index = start;
        for (size_t w = 0; w < window_dims.size(); ++w) {
          const int64_t d = window_operand_dims[w];
          op_index[d] = b.CreateAdd(start[d], upd[window_dims[w]]);
        }
        Value* linear = LinearIndex(b, op_index, op_dims);
        IrIndex update_index;
        update_index.multi = upd;
        std::vector<Value*> args;
        for (size_t k = 0; k < n; ++k) args.push_back(LoadElement(b, types[k], outputs[k], linear));
        for (size_t k = 0; k < n; ++k) {
          ASSIGN_OR_RETURN(Value* u, emitter.At(node->operand(n + 1 + k), update_index));
          args.push_back(u);
        }
        Value* r = b.CreateCall(combiner, args);
        for (size_t k = 0; k < n; ++k) {
          StoreElement(b, types[k], n == 1 ? r : b.CreateExtractValue(r, k), outputs[k], linear);
        }
        return OkStatus();
      });
    });
  });
}

Status EmitSelectAndScatter(llvm::IRBuilder<>& b, ElementalEmitter& emitter,
                            ScalarFunctions* sf, const GraphNode* node,
                            const std::vector<Value*>& outputs) {
  const HloInstruction& instr = *node->instr;
  const GraphNode* operand = node->operand(0);
  const GraphNode* source = node->operand(1);
  const GraphNode* init = node->operand(2);
  const std::vector<int64_t>& op_dims = operand->shape().dimensions();
  const std::vector<int64_t>& src_dims = source->shape().dimensions();
  const PrimitiveType type = node->shape().element_type();
  const PrimitiveType op_type = operand->shape().element_type();
  const std::vector<WindowDimension>& window = instr.window().dimensions;
  if (window.size() != op_dims.size()) return Unsupported(node, "with a window of the wrong rank");
  for (const WindowDimension& wd : window) {
    if (wd.base_dilation != 1 || wd.window_dilation != 1) return Unsupported(node, "with dilation");
  }
  if (instr.select() == nullptr || instr.scatter() == nullptr) {
    return Unsupported(node, "without select and scatter computations");
  }
  ASSIGN_OR_RETURN(llvm::Function* select, sf->Get(*instr.select()));
  ASSIGN_OR_RETURN(llvm::Function* scatter, sf->Get(*instr.scatter()));

  IrIndex scalar;
  scalar.linear = b.getInt64(0);
  ASSIGN_OR_RETURN(Value* init_value, emitter.At(init, scalar));
  RETURN_IF_ERROR(EmitForLoop(b, b.getInt64(0), b.getInt64(Product(op_dims)), "init",
                              [&](Value* i) {
                                StoreElement(b, type, init_value, outputs[0], i);
                                return OkStatus();
                              }));
  llvm::Type* value_type = RegisterType(op_type, b.getContext());
  Value* found = EntryAlloca(b, b.getInt1Ty());
  Value* best = EntryAlloca(b, value_type);
  Value* best_index = EntryAlloca(b, b.getInt64Ty());
  std::vector<int64_t> all_src(src_dims.size()), all_win(op_dims.size());
  for (size_t d = 0; d < all_src.size(); ++d) all_src[d] = d;
  for (size_t d = 0; d < all_win.size(); ++d) all_win[d] = d;
  std::vector<int64_t> win_sizes;
  for (const WindowDimension& wd : window) win_sizes.push_back(wd.size);
  std::vector<Value*> s(src_dims.size()), w(op_dims.size());
  return EmitNest(b, all_src, src_dims, s, [&]() -> Status {
    b.CreateStore(b.getFalse(), found);
    b.CreateStore(llvm::Constant::getNullValue(value_type), best);
    b.CreateStore(b.getInt64(0), best_index);
    // Select: the first valid window element, replaced by each later one
    // the select computation does not prefer the current choice to.
    RETURN_IF_ERROR(EmitNest(b, all_win, win_sizes, w, [&]() -> Status {
      Value* valid = b.getTrue();
      std::vector<Value*> p(op_dims.size());
      for (size_t d = 0; d < op_dims.size(); ++d) {
        Value* pos = b.CreateAdd(b.CreateSub(b.CreateMul(s[d], b.getInt64(window[d].stride)),
                                             b.getInt64(window[d].padding_low)),
                                 w[d]);
        valid = b.CreateAnd(valid, b.CreateICmpSGE(pos, b.getInt64(0)));
        valid = b.CreateAnd(valid, b.CreateICmpSLT(pos, b.getInt64(op_dims[d])));
        p[d] = pos;
      }
      return EmitIf(b, valid, [&]() -> Status {
        IrIndex at;
        at.multi = p;
        ASSIGN_OR_RETURN(Value* v, emitter.At(operand, at));
        Value* have = b.CreateLoad(b.getInt1Ty(), found);
        Value* current = b.CreateLoad(value_type, best);
        Value* keep = b.CreateCall(select, {current, v});
        Value* take = b.CreateOr(b.CreateNot(have), b.CreateNot(keep));
        b.CreateStore(b.CreateSelect(take, v, current), best);
        b.CreateStore(b.CreateSelect(take, LinearIndex(b, p, op_dims),
                                     b.CreateLoad(b.getInt64Ty(), best_index)),
                      best_index);
        b.CreateStore(b.getTrue(), found);
        return OkStatus();
      });
    }));
    return EmitIf(b, b.CreateLoad(b.getInt1Ty(), found), [&]() -> Status {
      Value* at = b.CreateLoad(b.getInt64Ty(), best_index);
      IrIndex src_index;
      src_index.multi = s;
      ASSIGN_OR_RETURN(Value* src, emitter.At(source, src_index));
      Value* r = b.CreateCall(scatter, {LoadElement(b, type, outputs[0], at), src});
      StoreElement(b, type, r, outputs[0], at);
      return OkStatus();
    });
  });
}

}  // namespace

Status EmitScatterLikeKernel(llvm::IRBuilder<>& b, ElementalEmitter& emitter,
                             ScalarFunctions* scalar_functions, const GraphNode* root,
                             const std::vector<llvm::Value*>& outputs, bool operands_preset) {
  if (root->opcode() == HloOpcode::kScatter) {
    return EmitScatter(b, emitter, scalar_functions, root, outputs, operands_preset);
  }
  return EmitSelectAndScatter(b, emitter, scalar_functions, root, outputs);
}

}  // namespace xla::cpu
