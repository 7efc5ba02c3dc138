// Complex (c64 / c128) element operations. A complex register value is an
// LLVM struct {re, im} of float or double, which is also its storage type,
// so loads, stores and selects need nothing special.
//
// Formulas are the textbook ones in the component type: no extra-precision
// or overflow-avoiding rescaling (e.g. for |z| we call hypot, which does
// avoid overflow; division does not rescale).
#include "xla/backends/cpu/codegen/scalar_ops.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "xla/hlo/ir/instruction.h"

namespace xla::cpu {
namespace {

using llvm::Value;

struct Parts {
  Value* re;
  Value* im;
};

Parts Split(llvm::IRBuilder<>& b, Value* z) {
  return {b.CreateExtractValue(z, 0), b.CreateExtractValue(z, 1)};
}

Value* Make(llvm::IRBuilder<>& b, Value* re, Value* im) {
  llvm::Type* t = llvm::StructType::get(b.getContext(), {re->getType(), re->getType()});
  Value* z = llvm::UndefValue::get(t);
  z = b.CreateInsertValue(z, re, 0);
  return b.CreateInsertValue(z, im, 1);
}

Value* Libm(llvm::IRBuilder<>& b, const char* f32_name, const char* f64_name,
            const std::vector<Value*>& args) {
  llvm::Type* ty = args[0]->getType();
  std::vector<llvm::Type*> arg_types(args.size(), ty);
  llvm::FunctionCallee callee = b.GetInsertBlock()->getModule()->getOrInsertFunction(
      ty->isDoubleTy() ? f64_name : f32_name, llvm::FunctionType::get(ty, arg_types, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->setDoesNotAccessMemory();
    fn->setDoesNotThrow();
  }
  return b.CreateCall(callee, args);
}

Value* Abs(llvm::IRBuilder<>& b, Parts z) { return Libm(b, "hypotf", "hypot", {z.re, z.im}); }

// Principal root: t = sqrt((|z| + |re|) / 2); for re >= 0 the root is
// (t, im / 2t), otherwise (|im| / 2t, copysign(t, im)).
Parts Sqrt(llvm::IRBuilder<>& b, Parts x) {
  llvm::Type* ft = x.re->getType();
  Value* zero = llvm::ConstantFP::get(ft, 0.0);
  Value* one = llvm::ConstantFP::get(ft, 1.0);
  Value* r = Abs(b, x);
  Value* t = b.CreateUnaryIntrinsic(
      llvm::Intrinsic::sqrt,
      b.CreateFMul(b.CreateFAdd(r, b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x.re)),
                   llvm::ConstantFP::get(ft, 0.5)));
  Value* two_t = b.CreateFAdd(t, t);
  Value* is_zero = b.CreateFCmpOEQ(t, zero);
  Value* q = b.CreateSelect(is_zero, zero, b.CreateFDiv(x.im, b.CreateSelect(is_zero, one, two_t)));
  Value* nonneg = b.CreateFCmpOGE(x.re, zero);
  return {b.CreateSelect(nonneg, t, b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, q)),
          b.CreateSelect(nonneg, q, b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, t, x.im))};
}

// 1 / z = conj(z) / |z|^2.
Parts Reciprocal(llvm::IRBuilder<>& b, Parts z) {
  Value* d = b.CreateFAdd(b.CreateFMul(z.re, z.re), b.CreateFMul(z.im, z.im));
  return {b.CreateFDiv(z.re, d), b.CreateFDiv(b.CreateFNeg(z.im), d)};
}

// x ** y = exp(y log x), with 0 ** 0 = 1 and 0 ** y = 0 otherwise.
Value* Pow(llvm::IRBuilder<>& b, Parts x, Parts y) {
  llvm::Type* ft = x.re->getType();
  Value* zero = llvm::ConstantFP::get(ft, 0.0);
  Value* one = llvm::ConstantFP::get(ft, 1.0);
  Value* log_abs = b.CreateUnaryIntrinsic(llvm::Intrinsic::log, Abs(b, x));
  Value* arg = Libm(b, "atan2f", "atan2", {x.im, x.re});
  Value* t_re = b.CreateFSub(b.CreateFMul(y.re, log_abs), b.CreateFMul(y.im, arg));
  Value* t_im = b.CreateFAdd(b.CreateFMul(y.re, arg), b.CreateFMul(y.im, log_abs));
  Value* e = b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, t_re);
  Value* re = b.CreateFMul(e, b.CreateUnaryIntrinsic(llvm::Intrinsic::cos, t_im));
  Value* im = b.CreateFMul(e, b.CreateUnaryIntrinsic(llvm::Intrinsic::sin, t_im));
  Value* x_zero = b.CreateAnd(b.CreateFCmpOEQ(x.re, zero), b.CreateFCmpOEQ(x.im, zero));
  Value* y_zero = b.CreateAnd(b.CreateFCmpOEQ(y.re, zero), b.CreateFCmpOEQ(y.im, zero));
  re = b.CreateSelect(x_zero, b.CreateSelect(y_zero, one, zero), re);
  im = b.CreateSelect(x_zero, zero, im);
  return Make(b, re, im);
}

Status Unsupported(const HloInstruction& instr, PrimitiveType type) {
  return Unimplemented("CPU backend: " + std::string(HloOpcodeString(instr.opcode())) + " on " +
                       std::string(PrimitiveTypeName(type)) + " is not supported (instruction " +
                       instr.name() + ")");
}

}  // namespace

llvm::Type* ComplexRegisterType(PrimitiveType type, llvm::LLVMContext& ctx) {
  llvm::Type* part = type == PrimitiveType::C64 ? llvm::Type::getFloatTy(ctx)
                                                : llvm::Type::getDoubleTy(ctx);
  return llvm::StructType::get(ctx, {part, part});
}

llvm::Value* MakeComplex(llvm::IRBuilder<>& b, llvm::Value* re, llvm::Value* im) {
  return Make(b, re, im);
}

llvm::Value* ComplexPart(llvm::IRBuilder<>& b, llvm::Value* z, int part) {
  return b.CreateExtractValue(z, part);
}

StatusOr<llvm::Value*> EmitComplexElementwise(llvm::IRBuilder<>& b, const HloInstruction& instr,
                                              PrimitiveType type,
                                              const std::vector<llvm::Value*>& operands) {
  Parts x = Split(b, operands[0]);
  llvm::Type* ft = x.re->getType();
  Value* zero = llvm::ConstantFP::get(ft, 0.0);
  Value* one = llvm::ConstantFP::get(ft, 1.0);
  if (operands.size() == 1) {
    switch (instr.opcode()) {
      case HloOpcode::kCopy: return operands[0];
      case HloOpcode::kReal: return x.re;
      case HloOpcode::kImag: return x.im;
      case HloOpcode::kAbs: return Abs(b, x);
      case HloOpcode::kNegate: return Make(b, b.CreateFNeg(x.re), b.CreateFNeg(x.im));
      case HloOpcode::kSign: {
        // z / |z|, and 0 for 0.
        Value* r = Abs(b, x);
        Value* is_zero = b.CreateFCmpOEQ(r, zero);
        Value* safe = b.CreateSelect(is_zero, one, r);
        return Make(b, b.CreateSelect(is_zero, zero, b.CreateFDiv(x.re, safe)),
                    b.CreateSelect(is_zero, zero, b.CreateFDiv(x.im, safe)));
      }
      case HloOpcode::kExp: {
        Value* e = b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x.re);
        return Make(b, b.CreateFMul(e, b.CreateUnaryIntrinsic(llvm::Intrinsic::cos, x.im)),
                    b.CreateFMul(e, b.CreateUnaryIntrinsic(llvm::Intrinsic::sin, x.im)));
      }
      case HloOpcode::kLog:
        return Make(b, b.CreateUnaryIntrinsic(llvm::Intrinsic::log, Abs(b, x)),
                    Libm(b, "atan2f", "atan2", {x.im, x.re}));
      case HloOpcode::kSqrt: {
        Parts r = Sqrt(b, x);
        return Make(b, r.re, r.im);
      }
      case HloOpcode::kRsqrt: {
        Parts r = Reciprocal(b, Sqrt(b, x));
        return Make(b, r.re, r.im);
      }
      case HloOpcode::kTanh: {
        // tanh(a + bi) = (sinh 2a + i sin 2b) / (cosh 2a + cos 2b). Past |a| = 20 the
        // real part is +-1 to double precision and cosh 2a would overflow in float,
        // so the imaginary part is taken from its asymptote 4 sin b cos b e^-2|a|.
        Value* two = llvm::ConstantFP::get(ft, 2.0);
        Value* a2 = b.CreateFMul(two, x.re);
        Value* b2 = b.CreateFMul(two, x.im);
        Value* denom = b.CreateFAdd(Libm(b, "coshf", "cosh", {a2}),
                                    b.CreateUnaryIntrinsic(llvm::Intrinsic::cos, b2));
        Value* re = b.CreateFDiv(Libm(b, "sinhf", "sinh", {a2}), denom);
        Value* im = b.CreateFDiv(b.CreateUnaryIntrinsic(llvm::Intrinsic::sin, b2), denom);
        Value* abs_a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x.re);
        Value* large = b.CreateFCmpOGT(abs_a, llvm::ConstantFP::get(ft, 20.0));
        Value* decay = b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, b.CreateFMul(
            llvm::ConstantFP::get(ft, -2.0), abs_a));
        Value* im_far = b.CreateFMul(
            b.CreateFMul(llvm::ConstantFP::get(ft, 4.0),
                         b.CreateFMul(b.CreateUnaryIntrinsic(llvm::Intrinsic::sin, x.im),
                                      b.CreateUnaryIntrinsic(llvm::Intrinsic::cos, x.im))),
            decay);
        return Make(b, b.CreateSelect(large, b.CreateBinaryIntrinsic(
                                                 llvm::Intrinsic::copysign, one, x.re), re),
                    b.CreateSelect(large, im_far, im));
      }
      default:
        return Unsupported(instr, type);
    }
  }
  if (operands.size() != 2) return Unsupported(instr, type);
  Parts y = Split(b, operands[1]);
  switch (instr.opcode()) {
    case HloOpcode::kAdd: return Make(b, b.CreateFAdd(x.re, y.re), b.CreateFAdd(x.im, y.im));
    case HloOpcode::kSubtract: return Make(b, b.CreateFSub(x.re, y.re), b.CreateFSub(x.im, y.im));
    case HloOpcode::kMultiply:
      return Make(b, b.CreateFSub(b.CreateFMul(x.re, y.re), b.CreateFMul(x.im, y.im)),
                  b.CreateFAdd(b.CreateFMul(x.re, y.im), b.CreateFMul(x.im, y.re)));
    case HloOpcode::kDivide: {
      Value* d = b.CreateFAdd(b.CreateFMul(y.re, y.re), b.CreateFMul(y.im, y.im));
      Value* re = b.CreateFAdd(b.CreateFMul(x.re, y.re), b.CreateFMul(x.im, y.im));
      Value* im = b.CreateFSub(b.CreateFMul(x.im, y.re), b.CreateFMul(x.re, y.im));
      return Make(b, b.CreateFDiv(re, d), b.CreateFDiv(im, d));
    }
    case HloOpcode::kPower: return Pow(b, x, y);
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum: {
      // x when it comes first lexicographically on (re, im), else y, as XLA orders
      // complex numbers: ordered compares, so a NaN part never makes x come first.
      bool is_max = instr.opcode() == HloOpcode::kMaximum;
      auto before = [&](Value* p, Value* q) {
        return is_max ? b.CreateFCmpOGT(p, q) : b.CreateFCmpOLT(p, q);
      };
      Value* pick_x = b.CreateOr(before(x.re, y.re),
                                 b.CreateAnd(b.CreateFCmpOEQ(x.re, y.re), before(x.im, y.im)));
      return b.CreateSelect(pick_x, operands[0], operands[1]);
    }
    case HloOpcode::kCompare: {
      Value* eq = b.CreateAnd(b.CreateFCmpOEQ(x.re, y.re), b.CreateFCmpOEQ(x.im, y.im));
      switch (instr.comparison_direction()) {
        case ComparisonDirection::kEq: return eq;
        case ComparisonDirection::kNe: return b.CreateNot(eq);
        // The others order lexicographically on (re, im), as XLA does.
        case ComparisonDirection::kGt:
          return b.CreateOr(b.CreateFCmpOGT(x.re, y.re),
                            b.CreateAnd(b.CreateFCmpOEQ(x.re, y.re), b.CreateFCmpOGT(x.im, y.im)));
        case ComparisonDirection::kGe:
          return b.CreateOr(b.CreateFCmpOGT(x.re, y.re),
                            b.CreateAnd(b.CreateFCmpOEQ(x.re, y.re), b.CreateFCmpOGE(x.im, y.im)));
        case ComparisonDirection::kLt:
          return b.CreateOr(b.CreateFCmpOLT(x.re, y.re),
                            b.CreateAnd(b.CreateFCmpOEQ(x.re, y.re), b.CreateFCmpOLT(x.im, y.im)));
        case ComparisonDirection::kLe:
          return b.CreateOr(b.CreateFCmpOLT(x.re, y.re),
                            b.CreateAnd(b.CreateFCmpOEQ(x.re, y.re), b.CreateFCmpOLE(x.im, y.im)));
        default:
          return Unsupported(instr, type);
      }
    }
    default:
      return Unsupported(instr, type);
  }
}

}  // namespace xla::cpu
