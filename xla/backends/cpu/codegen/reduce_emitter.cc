// See reduce_emitter.h. Accumulators live in entry-block allocas, which the
// optimiser promotes to registers (and, for recognised reducers, to vectors).
#include "xla/backends/cpu/codegen/reduce_emitter.h"

#include "xla/backends/cpu/codegen/scalar_ops.h"

namespace xla::cpu {
namespace {

using llvm::Value;

IrIndex Flat(Value* linear) {
  IrIndex index;
  index.linear = linear;
  return index;
}

Value* EntryAlloca(llvm::IRBuilder<>& b, llvm::Type* type, const char* name) {
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  return entry.CreateAlloca(type, nullptr, name);
}

// The reduce's single operand, init and element type.
struct ReduceParts {
  const GraphNode* operand;
  const GraphNode* init;
  PrimitiveType type;
  ReducerKind kind;
};

ReduceParts PartsOf(const GraphNode* reduce) {
  return {reduce->operand(0), reduce->operand(1), reduce->shape().element_type(),
          RecognizeReducer(*reduce->instr->to_apply())};
}

// acc op x with the recognised instruction, or a call of the reducer.
StatusOr<Value*> Combine(llvm::IRBuilder<>& b, ScalarFunctions* scalar_functions,
                         const GraphNode* reduce, const ReduceParts& parts, Value* acc, Value* x) {
  if (parts.kind != ReducerKind::kOther) return EmitReducerStep(b, parts.kind, parts.type, acc, x);
  ASSIGN_OR_RETURN(llvm::Function* reducer, scalar_functions->Get(*reduce->instr->to_apply()));
  return static_cast<Value*>(b.CreateCall(reducer, {acc, x}));
}

}  // namespace

Status EmitColumnReduce(llvm::IRBuilder<>& b, ElementalEmitter& emitter,
                        ScalarFunctions* scalar_functions, const KernelInfo& kernel,
                        Value* out, Value* begin, Value* end) {
  const GraphNode* reduce = kernel.root;
  const ReduceParts parts = PartsOf(reduce);
  const int64_t kept = reduce->shape().element_count();
  const int64_t rows = kept == 0 ? 0 : parts.operand->shape().element_count() / kept;
  ASSIGN_OR_RETURN(Value* init, emitter.At(parts.init, Flat(b.getInt64(0))));
  if (rows == 0) {
    return EmitForLoop(b, begin, end, "col", [&](Value* j) {
      StoreElement(b, parts.type, init, out, j);
      return OkStatus();
    });
  }
  // Row 0 combines with init, so the output holds the running value of
  // every column after each row: the same order as one column at a time.
  RETURN_IF_ERROR(EmitForLoop(b, begin, end, "col", [&](Value* j) {
    ASSIGN_OR_RETURN(Value* x, emitter.At(parts.operand, Flat(j)));
    ASSIGN_OR_RETURN(Value* r, Combine(b, scalar_functions, reduce, parts, init, x));
    StoreElement(b, parts.type, r, out, j);
    return OkStatus();
  }));
  return EmitForLoop(b, b.getInt64(1), b.getInt64(rows), "row", [&](Value* row) {
    Value* base = b.CreateMul(row, b.getInt64(kept), "", /*HasNUW=*/true, /*HasNSW=*/true);
    return EmitForLoop(b, begin, end, "col", [&](Value* j) {
      Value* acc = LoadElement(b, parts.type, out, j);
      ASSIGN_OR_RETURN(Value* x, emitter.At(parts.operand, Flat(b.CreateAdd(base, j))));
      ASSIGN_OR_RETURN(Value* r, Combine(b, scalar_functions, reduce, parts, acc, x));
      StoreElement(b, parts.type, r, out, j);
      return OkStatus();
    });
  });
}

Status EmitReducePartials(llvm::IRBuilder<>& b, ElementalEmitter& emitter,
                          const KernelInfo& kernel, Value* partials, Value* begin, Value* end) {
  const GraphNode* reduce = kernel.root;
  const ReduceParts parts = PartsOf(reduce);
  const int64_t kept = reduce->shape().element_count();
  const int64_t reduced = parts.operand->shape().element_count() / kept;
  llvm::Value* acc = EntryAlloca(b, RegisterType(parts.type, b.getContext()), "partial");
  return EmitForLoop(b, begin, end, "chunk", [&](Value* t) {
    Value* start = b.CreateMul(t, b.getInt64(kernel.chunk_size));
    Value* stop = b.CreateAdd(start, b.getInt64(kernel.chunk_size));
    stop = b.CreateSelect(b.CreateICmpSLT(stop, b.getInt64(reduced)), stop, b.getInt64(reduced));
    return EmitForLoop(b, b.getInt64(0), b.getInt64(kept), "out", [&](Value* o) {
      // A chunk starts from its own first element (chunks are never empty);
      // init is folded in once, by the finishing kernel.
      Value* base = b.CreateMul(o, b.getInt64(reduced));
      ASSIGN_OR_RETURN(Value* first, emitter.At(parts.operand, Flat(b.CreateAdd(base, start))));
      b.CreateStore(first, acc);
      RETURN_IF_ERROR(EmitForLoop(
          b, b.CreateAdd(start, b.getInt64(1)), stop, "i", [&](Value* i) {
            ASSIGN_OR_RETURN(Value* x, emitter.At(parts.operand, Flat(b.CreateAdd(base, i))));
            Value* a = b.CreateLoad(first->getType(), acc);
            b.CreateStore(EmitReducerStep(b, parts.kind, parts.type, a, x), acc);
            return OkStatus();
          }));
      Value* slot = b.CreateAdd(b.CreateMul(o, b.getInt64(kernel.chunks)), t);
      StoreElement(b, parts.type, b.CreateLoad(first->getType(), acc), partials, slot);
      return OkStatus();
    });
  });
}

Status EmitReduceFinish(llvm::IRBuilder<>& b, ElementalEmitter& emitter, const KernelInfo& kernel,
                        Value* partials, Value* out, Value* begin, Value* end) {
  const ReduceParts parts = PartsOf(kernel.root);
  ASSIGN_OR_RETURN(Value* init, emitter.At(parts.init, Flat(b.getInt64(0))));
  llvm::Value* acc = EntryAlloca(b, init->getType(), "total");
  return EmitForLoop(b, begin, end, "out", [&](Value* o) {
    b.CreateStore(init, acc);
    Value* base = b.CreateMul(o, b.getInt64(kernel.chunks));
    RETURN_IF_ERROR(EmitForLoop(b, b.getInt64(0), b.getInt64(kernel.chunks), "t", [&](Value* t) {
      Value* x = LoadElement(b, parts.type, partials, b.CreateAdd(base, t));
      Value* a = b.CreateLoad(init->getType(), acc);
      b.CreateStore(EmitReducerStep(b, parts.kind, parts.type, a, x), acc);
      return OkStatus();
    }));
    StoreElement(b, parts.type, b.CreateLoad(init->getType(), acc), out, o);
    return OkStatus();
  });
}

}  // namespace xla::cpu
