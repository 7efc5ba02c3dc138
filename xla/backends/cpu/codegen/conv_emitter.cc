// ElementalEmitter::EmitConvolution and EmitBitcastConvert: ops whose
// element needs index arithmetic beyond the shape ops of
// elemental_emitter.cc.
//
// Convolution is computed per output element as HLO defines it: a sum over
// the input features of its group and the kernel window, with strides,
// padding, lhs (base) and rhs (window) dilation, window reversal,
// feature_group_count and batch_group_count. It covers every dimension
// layout in one loop nest; positions in padding or between base-dilated
// elements contribute nothing.
#include <algorithm>

#include "xla/backends/cpu/codegen/elemental_emitter.h"
#include "xla/backends/cpu/codegen/scalar_ops.h"

namespace xla::cpu {
namespace {

Status Unsupported(const GraphNode* node, const std::string& why) {
  return Unimplemented("CPU backend: " + std::string(HloOpcodeString(node->opcode())) + " " +
                       why + " (instruction " + node->instr->name() + ")");
}

}  // namespace

StatusOr<llvm::Value*> ElementalEmitter::EmitConvolution(const GraphNode* node,
                                                         const IrIndex& index) {
  using llvm::Value;
  const HloInstruction& instr = *node->instr;
  const ConvolutionDimensionNumbers& dn = instr.convolution_dimension_numbers();
  const GraphNode* lhs = node->operand(0);
  const GraphNode* rhs = node->operand(1);
  const std::vector<int64_t>& ld = lhs->shape().dimensions();
  const std::vector<int64_t>& rd = rhs->shape().dimensions();
  const std::vector<int64_t>& od = node->shape().dimensions();
  const PrimitiveType out_type = node->shape().element_type();
  if (IsComplex(out_type)) return Unsupported(node, "on complex types");
  const std::vector<WindowDimension>& window = instr.window().dimensions;
  const size_t spatial = dn.input_spatial_dimensions.size();
  if (window.size() != spatial || dn.kernel_spatial_dimensions.size() != spatial ||
      dn.output_spatial_dimensions.size() != spatial) {
    return Unsupported(node, "with a window that does not match the spatial dimensions");
  }
  const int64_t fg = std::max<int64_t>(1, instr.feature_group_count());
  const int64_t bg = std::max<int64_t>(1, instr.batch_group_count());
  const int64_t out_features = od[dn.output_feature_dimension];
  const int64_t in_batch = ld[dn.input_batch_dimension];
  const int64_t group_in_features = rd[dn.kernel_input_feature_dimension];  // = IC / fg
  if (out_features % fg != 0 || out_features % bg != 0 || in_batch % bg != 0) {
    return Unsupported(node, "with group counts that do not divide the dimensions");
  }
  std::vector<Value*> out = MultiOf(b_, index, od);
  Value* oc = out[dn.output_feature_dimension];
  // Feature group: which slice of input features this output feature reads.
  Value* feature_group = b_.CreateUDiv(oc, b_.getInt64(out_features / fg));
  Value* first_in_feature = b_.CreateMul(feature_group, b_.getInt64(group_in_features));
  // Batch group: which slice of the input batch this output feature reads.
  Value* batch = out[dn.output_batch_dimension];
  if (bg > 1) {
    Value* batch_group = b_.CreateUDiv(oc, b_.getInt64(out_features / bg));
    batch = b_.CreateAdd(batch, b_.CreateMul(batch_group, b_.getInt64(in_batch / bg)));
  }

  std::vector<Value*> lm(ld.size(), nullptr), rm(rd.size(), nullptr);
  lm[dn.input_batch_dimension] = batch;
  rm[dn.kernel_output_feature_dimension] = oc;
  llvm::Value* acc = EntryAlloca(RegisterType(out_type, b_.getContext()), "conv_acc");
  b_.CreateStore(Zero(b_, out_type), acc);
  const bool is_float = IsFloatingPoint(out_type);
  Value* valid = b_.getTrue();  // the window position lies on a real input element

  std::function<Status(size_t)> nest = [&](size_t level) -> Status {
    if (level == spatial) {
      return EmitForLoop(b_, b_.getInt64(0), b_.getInt64(group_in_features), "conv_ic",
                         [&](Value* ic) -> Status {
        lm[dn.input_feature_dimension] = b_.CreateAdd(first_in_feature, ic);
        rm[dn.kernel_input_feature_dimension] = ic;
        IrIndex li, ri;
        li.multi = lm;
        ri.multi = rm;
        ASSIGN_OR_RETURN(Value* a, At(lhs, li));
        ASSIGN_OR_RETURN(Value* w, At(rhs, ri));
        a = EmitConvert(b_, lhs->shape().element_type(), out_type, a);
        w = EmitConvert(b_, rhs->shape().element_type(), out_type, w);
        Value* zero = Zero(b_, out_type);
        Value* sum = b_.CreateLoad(a->getType(), acc);
        Value* prod;
        if (is_float) {
          prod = b_.CreateFMul(a, w);
        } else if (out_type == PrimitiveType::PRED) {
          prod = b_.CreateAnd(a, w);
        } else {
          prod = b_.CreateMul(a, w);
        }
        prod = b_.CreateSelect(valid, prod, zero);
        Value* next = is_float ? b_.CreateFAdd(sum, prod)
                      : out_type == PrimitiveType::PRED ? b_.CreateOr(sum, prod)
                                                        : b_.CreateAdd(sum, prod);
        b_.CreateStore(next, acc);
        return OkStatus();
      });
    }
    const WindowDimension& wd = window[level];
    const int64_t in_dim = dn.input_spatial_dimensions[level];
    const int64_t k_dim = dn.kernel_spatial_dimensions[level];
    const int64_t size = rd[k_dim];
    return EmitForLoop(b_, b_.getInt64(0), b_.getInt64(size), "conv_w", [&](Value* k) -> Status {
      // Position in the padded, base-dilated input.
      Value* o = out[dn.output_spatial_dimensions[level]];
      Value* pos = b_.CreateAdd(
          b_.CreateSub(b_.CreateMul(o, b_.getInt64(wd.stride)), b_.getInt64(wd.padding_low)),
          b_.CreateMul(k, b_.getInt64(wd.window_dilation)));
      Value* v = b_.CreateICmpSGE(pos, b_.getInt64(0));
      if (wd.base_dilation != 1) {
        v = b_.CreateAnd(v, b_.CreateICmpEQ(b_.CreateSRem(pos, b_.getInt64(wd.base_dilation)),
                                            b_.getInt64(0)));
        pos = b_.CreateSDiv(pos, b_.getInt64(wd.base_dilation));
      }
      v = b_.CreateAnd(v, b_.CreateICmpSLT(pos, b_.getInt64(ld[in_dim])));
      // Clamp so the (discarded) load of an invalid position stays in bounds.
      Value* c = b_.CreateSelect(b_.CreateICmpSLT(pos, b_.getInt64(0)), b_.getInt64(0), pos);
      c = b_.CreateSelect(b_.CreateICmpSGT(c, b_.getInt64(std::max<int64_t>(0, ld[in_dim] - 1))),
                          b_.getInt64(std::max<int64_t>(0, ld[in_dim] - 1)), c);
      lm[in_dim] = c;
      rm[k_dim] = wd.window_reversal ? b_.CreateSub(b_.getInt64(size - 1), k) : k;
      Value* saved = valid;
      valid = b_.CreateAnd(valid, v);
      Status st = nest(level + 1);
      valid = saved;
      return st;
    });
  };
  for (int64_t d : ld) {
    if (d == 0) return Zero(b_, out_type);
  }
  RETURN_IF_ERROR(nest(0));
  llvm::Type* acc_type = llvm::cast<llvm::AllocaInst>(acc)->getAllocatedType();
  return RoundToType(b_, out_type, b_.CreateLoad(acc_type, acc));
}

StatusOr<llvm::Value*> ElementalEmitter::EmitBitcastConvert(const GraphNode* node,
                                                            const IrIndex& index) {
  using llvm::Value;
  const GraphNode* op = node->operand(0);
  const PrimitiveType from = op->shape().element_type(), to = node->shape().element_type();
  const int from_bytes = ByteWidth(from), to_bytes = ByteWidth(to);
  if (IsComplex(from) || IsComplex(to)) return Unsupported(node, "on complex types");
  if (from_bytes == to_bytes) {
    ASSIGN_OR_RETURN(Value* v, At(op, index));
    std::vector<PrimitiveType> types = {from};
    return EmitElementwise(b_, *node->instr, types, {v});
  }
  if (from == PrimitiveType::PRED || to == PrimitiveType::PRED) {
    return Unsupported(node, "between pred and a wider type");
  }
  // Little-endian bytes: a narrowing bitcast adds a minor dimension indexing
  // the pieces of each wide element, a widening one removes it.
  llvm::Type* from_bits = b_.getIntNTy(8 * from_bytes);
  llvm::Type* to_bits = b_.getIntNTy(8 * to_bytes);
  auto bits_of = [&](PrimitiveType t, Value* v) -> Value* {
    llvm::Type* it = b_.getIntNTy(8 * ByteWidth(t));
    if (t == PrimitiveType::F16 || t == PrimitiveType::BF16 || IsF8(t)) {
      // Register values are floats: take the storage bits through a store.
      Value* slot = EntryAlloca(StorageType(t, b_.getContext()), "bits");
      StoreElement(b_, t, v, slot, b_.getInt64(0));
      return b_.CreateLoad(it, slot);
    }
    return v->getType()->isIntegerTy() ? v : b_.CreateBitCast(v, it);
  };
  auto value_of = [&](PrimitiveType t, Value* bits) -> Value* {
    Value* slot = EntryAlloca(bits->getType(), "bits");
    b_.CreateStore(bits, slot);
    return LoadElement(b_, t, slot, b_.getInt64(0));
  };
  const std::vector<int64_t>& out_dims = node->shape().dimensions();
  std::vector<Value*> multi = MultiOf(b_, index, out_dims);
  if (from_bytes > to_bytes) {
    IrIndex op_index;
    op_index.multi.assign(multi.begin(), multi.end() - 1);
    ASSIGN_OR_RETURN(Value* wide, At(op, op_index));
    Value* shifted = b_.CreateLShr(bits_of(from, wide),
                                   b_.CreateZExtOrTrunc(b_.CreateMul(multi.back(), b_.getInt64(8 * to_bytes)), from_bits));
    return value_of(to, b_.CreateTrunc(shifted, to_bits));
  }
  const int64_t pieces = to_bytes / from_bytes;
  Value* result = llvm::ConstantInt::get(to_bits, 0);
  for (int64_t p = 0; p < pieces; ++p) {
    IrIndex op_index;
    op_index.multi = multi;
    op_index.multi.push_back(b_.getInt64(p));
    ASSIGN_OR_RETURN(Value* narrow, At(op, op_index));
    Value* piece = b_.CreateZExt(bits_of(from, narrow), to_bits);
    result = b_.CreateOr(result, b_.CreateShl(piece, 8 * from_bytes * p));
  }
  return value_of(to, result);
}

}  // namespace xla::cpu
