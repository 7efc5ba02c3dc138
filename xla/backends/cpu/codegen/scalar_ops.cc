// See scalar_ops.h. One rule per opcode in EmitUnary/EmitBinary; integer
// corner cases (division by zero, over-wide shifts) follow the reference
// evaluator so no kernel can trap.
#include "xla/backends/cpu/codegen/scalar_ops.h"

#include <cmath>
#include <cstring>
#include <string>

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "xla/backends/cpu/codegen/approximations.h"
#include "xla/hlo/ir/instruction.h"
#include "xla/hlo/ir/literal.h"
#include "xla/hlo/ir/native_type.h"

namespace xla::cpu {
namespace {

using llvm::Value;

// Types stored narrower than the f32 they are computed in.
bool IsF16Like(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16 || IsF8(t);
}

llvm::Module* ModuleOf(llvm::IRBuilder<>& b) { return b.GetInsertBlock()->getModule(); }

// A call to a libm function; declared readnone so LLVM may hoist and CSE it.
Value* CallLibm(llvm::IRBuilder<>& b, const char* f32_name, const char* f64_name,
                const std::vector<Value*>& args) {
  llvm::Type* ty = args[0]->getType();
  const char* name = ty->isDoubleTy() ? f64_name : f32_name;
  std::vector<llvm::Type*> arg_types(args.size(), ty);
  llvm::FunctionCallee callee =
      ModuleOf(b)->getOrInsertFunction(name, llvm::FunctionType::get(ty, arg_types, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->setDoesNotAccessMemory();
    fn->setDoesNotThrow();
    fn->setWillReturn();
  }
  return b.CreateCall(callee, args);
}

Value* FloatConst(llvm::Type* ty, double v) { return llvm::ConstantFP::get(ty, v); }

Value* IsNan(llvm::IRBuilder<>& b, Value* x) { return b.CreateFCmpUNO(x, x); }

// f32 (also f16 and bf16, computed in f32), scalar or vector.
bool IsF32(Value* x) { return x->getType()->getScalarType()->isFloatTy(); }

// e^x: inline for f32 and f64 (as XLA:CPU computes it, approximations.h).
Value* EmitExp(llvm::IRBuilder<>& b, Value* x) {
  if (IsF32(x)) return EmitExpF32(b, x);
  if (x->getType()->getScalarType()->isDoubleTy()) return EmitExpF64(b, x);
  return b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
}

// Float bits as a signed integer ordered like the floats under totalOrder:
// negative values have their magnitude bits flipped.
Value* TotalOrderKey(llvm::IRBuilder<>& b, Value* x) {
  unsigned bits = x->getType()->getPrimitiveSizeInBits();
  llvm::Type* ity = b.getIntNTy(bits);
  Value* i = b.CreateBitCast(x, ity);
  Value* mask = b.CreateLShr(b.CreateAShr(i, bits - 1), 1);  // 0 or 0x7fff...
  return b.CreateXor(i, mask);
}

Value* EmitIntPower(llvm::IRBuilder<>& b, bool is_signed, Value* x, Value* e) {
  // Square-and-multiply over every exponent bit with selects: no loop, no branch.
  llvm::Type* ty = x->getType();
  unsigned bits = ty->getIntegerBitWidth();
  Value* one = llvm::ConstantInt::get(ty, 1);
  Value* result = one;
  Value* base = x;
  for (unsigned k = 0; k < bits; ++k) {
    Value* bit = b.CreateTrunc(b.CreateLShr(e, k), b.getInt1Ty());
    result = b.CreateSelect(bit, b.CreateMul(result, base), result);
    base = b.CreateMul(base, base);
  }
  if (!is_signed) return result;
  // Negative exponents: 1 for x == 1, +-1 for x == -1, else 0.
  Value* neg = b.CreateICmpSLT(e, llvm::ConstantInt::get(ty, 0));
  Value* minus_one = llvm::ConstantInt::getSigned(ty, -1);
  Value* odd = b.CreateTrunc(e, b.getInt1Ty());
  Value* neg_result = b.CreateSelect(
      b.CreateICmpEQ(x, one), one,
      b.CreateSelect(b.CreateICmpEQ(x, minus_one), b.CreateSelect(odd, minus_one, one),
                     llvm::ConstantInt::get(ty, 0)));
  return b.CreateSelect(neg, neg_result, result);
}

// x / y and x % y without traps: x/0 is -1 (all ones), x%0 is x, and
// INT_MIN / -1 is INT_MIN with remainder 0.
Value* EmitIntDivRem(llvm::IRBuilder<>& b, bool is_signed, bool rem, Value* x, Value* y) {
  llvm::Type* ty = x->getType();
  Value* zero = llvm::ConstantInt::get(ty, 0);
  Value* one = llvm::ConstantInt::get(ty, 1);
  Value* y_zero = b.CreateICmpEQ(y, zero);
  Value* bad = y_zero;
  Value* overflow = nullptr;
  if (is_signed) {
    unsigned bits = ty->getIntegerBitWidth();
    Value* int_min = llvm::ConstantInt::get(ty, llvm::APInt::getSignedMinValue(bits));
    overflow = b.CreateAnd(b.CreateICmpEQ(x, int_min),
                           b.CreateICmpEQ(y, llvm::ConstantInt::getSigned(ty, -1)));
    bad = b.CreateOr(bad, overflow);
  }
  Value* safe_y = b.CreateSelect(bad, one, y);
  if (rem) {
    Value* r = is_signed ? b.CreateSRem(x, safe_y) : b.CreateURem(x, safe_y);
    r = b.CreateSelect(y_zero, x, r);
    return overflow ? b.CreateSelect(overflow, zero, r) : r;
  }
  Value* q = is_signed ? b.CreateSDiv(x, safe_y) : b.CreateUDiv(x, safe_y);
  q = b.CreateSelect(y_zero, llvm::ConstantInt::getSigned(ty, -1), q);
  return overflow ? b.CreateSelect(overflow, x, q) : q;
}

Value* EmitShift(llvm::IRBuilder<>& b, HloOpcode op, Value* x, Value* n) {
  llvm::Type* ty = x->getType();
  unsigned bits = ty->getIntegerBitWidth();
  // Counts are unsigned: a negative count is >= the width.
  Value* too_big = b.CreateICmpUGE(n, llvm::ConstantInt::get(ty, bits));
  Value* safe_n = b.CreateSelect(too_big, llvm::ConstantInt::get(ty, 0), n);
  switch (op) {
    case HloOpcode::kShiftLeft:
      return b.CreateSelect(too_big, llvm::ConstantInt::get(ty, 0), b.CreateShl(x, safe_n));
    case HloOpcode::kShiftRightLogical:
      return b.CreateSelect(too_big, llvm::ConstantInt::get(ty, 0), b.CreateLShr(x, safe_n));
    default:
      return b.CreateSelect(too_big, b.CreateAShr(x, bits - 1), b.CreateAShr(x, safe_n));
  }
}

Value* EmitCompare(llvm::IRBuilder<>& b, PrimitiveType type, ComparisonDirection dir,
                   ComparisonType ctype, Value* x, Value* y) {
  if (IsFloatingPoint(type) && ctype == ComparisonType::kTotalOrder) {
    x = TotalOrderKey(b, x);
    y = TotalOrderKey(b, y);
    type = PrimitiveType::S64;  // any signed type: compare the keys as signed
  }
  if (IsFloatingPoint(type)) {
    switch (dir) {
      case ComparisonDirection::kEq: return b.CreateFCmpOEQ(x, y);
      case ComparisonDirection::kNe: return b.CreateFCmpUNE(x, y);
      case ComparisonDirection::kLt: return b.CreateFCmpOLT(x, y);
      case ComparisonDirection::kLe: return b.CreateFCmpOLE(x, y);
      case ComparisonDirection::kGt: return b.CreateFCmpOGT(x, y);
      case ComparisonDirection::kGe: return b.CreateFCmpOGE(x, y);
    }
  }
  bool is_signed = IsSignedInteger(type);
  switch (dir) {
    case ComparisonDirection::kEq: return b.CreateICmpEQ(x, y);
    case ComparisonDirection::kNe: return b.CreateICmpNE(x, y);
    case ComparisonDirection::kLt: return is_signed ? b.CreateICmpSLT(x, y) : b.CreateICmpULT(x, y);
    case ComparisonDirection::kLe: return is_signed ? b.CreateICmpSLE(x, y) : b.CreateICmpULE(x, y);
    case ComparisonDirection::kGt: return is_signed ? b.CreateICmpSGT(x, y) : b.CreateICmpUGT(x, y);
    case ComparisonDirection::kGe: return is_signed ? b.CreateICmpSGE(x, y) : b.CreateICmpUGE(x, y);
  }
  return nullptr;
}

// f32 -> bf16 bits (in the low 16 bits of an i32), round to nearest even,
// NaN kept quiet.
Value* FloatToBF16Bits(llvm::IRBuilder<>& b, Value* x) {
  Value* bits = b.CreateBitCast(x, b.getInt32Ty());
  Value* lsb = b.CreateAnd(b.CreateLShr(bits, 16), 1);
  Value* rounded = b.CreateAdd(bits, b.CreateAdd(b.getInt32(0x7fff), lsb));
  Value* nan_bits = b.CreateOr(bits, b.getInt32(0x00400000));
  Value* out = b.CreateSelect(IsNan(b, x), nan_bits, rounded);
  return b.CreateLShr(out, 16);
}

Value* BF16BitsToFloat(llvm::IRBuilder<>& b, Value* bits16) {
  Value* wide = b.CreateShl(b.CreateZExt(bits16, b.getInt32Ty()), 16);
  return b.CreateBitCast(wide, b.getFloatTy());
}

// F8 bits (i8) -> the exact f32 value. Arithmetic on the fields (no table),
// so loops over F8 data vectorise.
Value* F8BitsToFloat(llvm::IRBuilder<>& b, PrimitiveType type, Value* bits8) {
  const Float8Format f = Float8FormatOf(type);
  const int m = f.mantissa_bits;
  Value* bits = b.CreateZExt(bits8, b.getInt32Ty());
  Value* magnitude = b.CreateAnd(bits, 0x7f);
  Value* exponent = b.CreateLShr(magnitude, m);
  Value* mantissa = b.CreateAnd(magnitude, (1 << m) - 1);
  // Normal: rebias the exponent and left-align the mantissa in f32's.
  Value* normal = b.CreateOr(b.CreateShl(b.CreateAdd(exponent, b.getInt32(127 - f.bias)), 23),
                             b.CreateShl(mantissa, 23 - m));
  // Subnormal: mantissa * 2^(1 - bias - m), exact in f32.
  Value* subnormal = b.CreateFMul(b.CreateUIToFP(mantissa, b.getFloatTy()),
                                  FloatConst(b.getFloatTy(), std::ldexp(1.0, 1 - f.bias - m)));
  Value* value = b.CreateSelect(b.CreateICmpEQ(exponent, b.getInt32(0)), subnormal,
                                b.CreateBitCast(normal, b.getFloatTy()));
  Value* nan_mask = b.getInt32(0x7fc00000);
  if (f.style != Float8Style::kUnsignedZero) {
    Value* special = b.CreateICmpUGT(magnitude, b.getInt32(f.max_finite));
    Value* special_bits = nan_mask;
    if (f.style == Float8Style::kIeee) {
      special_bits = b.CreateSelect(b.CreateICmpEQ(magnitude, b.getInt32(f.max_finite + 1)),
                                    b.getInt32(0x7f800000), nan_mask);
    }
    value = b.CreateSelect(special, b.CreateBitCast(special_bits, b.getFloatTy()), value);
  }
  Value* sign = b.CreateShl(b.CreateAnd(bits, 0x80), 24);
  Value* out = b.CreateOr(b.CreateBitCast(value, b.getInt32Ty()), sign);
  if (f.style == Float8Style::kUnsignedZero) {
    // 0x80 ("-0") is the only NaN; it keeps its sign bit, as ml_dtypes converts it.
    out = b.CreateSelect(b.CreateICmpEQ(bits, b.getInt32(0x80)), b.getInt32(0xffc00000), out);
  }
  return b.CreateBitCast(out, b.getFloatTy());
}

// f32 or f64 -> F8 bits (i8), rounded once to nearest even. For |x| in
// binade s (never below the first normal one, emin), |x| * 2^(m - s) rounded
// to an integer is the significand with its implicit bit, and adding it to
// (s - emin) << m carries into the next binade by itself; anything past the
// largest finite encoding overflows to inf or NaN as the format has it.
Value* FloatToF8Bits(llvm::IRBuilder<>& b, PrimitiveType type, Value* x) {
  const Float8Format f = Float8FormatOf(type);
  const int m = f.mantissa_bits;
  const int min_exponent = 1 - f.bias;
  llvm::Type* ft = x->getType();
  const bool is_double = ft->isDoubleTy();
  const int width = is_double ? 64 : 32, src_mantissa = is_double ? 52 : 23;
  const int src_bias = is_double ? 1023 : 127;
  llvm::Type* it = b.getIntNTy(width);
  Value* bits = b.CreateBitCast(x, it);
  Value* abs_bits = b.CreateAnd(bits, llvm::ConstantInt::get(it, ~(uint64_t{1} << (width - 1))));
  Value* abs = b.CreateBitCast(abs_bits, ft);
  Value* exponent = b.CreateSub(b.CreateTrunc(b.CreateLShr(abs_bits, src_mantissa), b.getInt32Ty()),
                                b.getInt32(src_bias));
  Value* binade = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, exponent, b.getInt32(min_exponent));
  // 2^(m - binade) as a float of x's type: in range, as binade <= src_bias + 1.
  Value* scale_exponent = b.CreateZExt(b.CreateSub(b.getInt32(m + src_bias), binade), it);
  Value* scale = b.CreateBitCast(b.CreateShl(scale_exponent, src_mantissa), ft);
  Value* significand = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, b.CreateFMul(abs, scale));
  // inf * scale stays inf: cap it (anything past 2^(m+1) overflows anyway) so
  // the integer conversion is defined.
  significand = b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, significand,
                                        FloatConst(ft, std::ldexp(1.0, m + 1)));
  Value* magnitude = b.CreateAdd(b.CreateShl(b.CreateSub(binade, b.getInt32(min_exponent)), m),
                                 b.CreateFPToSI(significand, b.getInt32Ty()));
  Value* overflow = b.CreateICmpSGT(magnitude, b.getInt32(f.max_finite));
  Value* sign = b.CreateTrunc(b.CreateLShr(bits, width - 8), b.getInt8Ty());
  sign = b.CreateAnd(sign, 0x80);
  Value* mag8 = b.CreateTrunc(magnitude, b.getInt8Ty());
  if (f.style == Float8Style::kUnsignedZero) {
    // No -0: a zero result drops its sign; overflow and NaN are both 0x80.
    Value* signed_mag = b.CreateOr(mag8, b.CreateSelect(b.CreateICmpEQ(mag8, b.getInt8(0)),
                                                        b.getInt8(0), sign));
    Value* out = b.CreateSelect(overflow, b.getInt8(f.nan), signed_mag);
    return b.CreateSelect(IsNan(b, x), b.getInt8(f.nan), out);
  }
  const uint8_t overflow_bits = f.style == Float8Style::kIeee ? f.max_finite + 1 : f.nan;
  Value* out = b.CreateSelect(overflow, b.getInt8(overflow_bits), mag8);
  out = b.CreateSelect(IsNan(b, x), b.getInt8(f.nan), out);
  return b.CreateOr(out, sign);
}

// An f32 rounded to the F8 value it would store as, without going through the
// bits (about a third of the work of FloatToF8Bits then F8BitsToFloat, and it
// runs after every op of an F8 chain): the f32 mantissa rounded to m bits in
// the normal binades; below them, adding and subtracting 2^(emin - m + 23)
// rounds to the subnormal spacing (f32 addition rounds to nearest even).
Value* RoundFloatToF8(llvm::IRBuilder<>& b, PrimitiveType type, Value* x) {
  const Float8Format f = Float8FormatOf(type);
  const int m = f.mantissa_bits, min_exponent = 1 - f.bias, drop = 23 - m;
  llvm::Type* ft = x->getType();
  Value* bits = b.CreateBitCast(x, b.getInt32Ty());
  Value* abs_bits = b.CreateAnd(bits, 0x7fffffff);
  Value* abs = b.CreateBitCast(abs_bits, ft);
  Value* lsb = b.CreateAnd(b.CreateLShr(abs_bits, drop), 1);
  Value* normal = b.CreateAnd(b.CreateAdd(abs_bits, b.CreateAdd(b.getInt32((1 << (drop - 1)) - 1), lsb)),
                              b.getInt32(~((1u << drop) - 1)));
  Value* magic = FloatConst(ft, std::ldexp(1.0, min_exponent - m + 23));
  Value* small = b.CreateBitCast(b.CreateFSub(b.CreateFAdd(abs, magic), magic), b.getInt32Ty());
  Value* is_small = b.CreateFCmpOLT(abs, FloatConst(ft, std::ldexp(1.0, min_exponent)));
  Value* rounded = b.CreateSelect(is_small, small, normal);
  float max_value = Float8ToFloat(type, f.max_finite);
  uint32_t max_bits;
  std::memcpy(&max_bits, &max_value, 4);
  // inf, NaN and whatever rounds past the largest finite value.
  Value* special = b.CreateICmpUGT(rounded, b.getInt32(max_bits));
  Value* sign = b.CreateAnd(bits, 0x80000000u);
  Value* out;
  if (f.style == Float8Style::kUnsignedZero) {
    // No -0; the one NaN (0x80) reads back as -NaN.
    Value* signed_out = b.CreateSelect(b.CreateICmpEQ(rounded, b.getInt32(0)), rounded,
                                       b.CreateOr(rounded, sign));
    out = b.CreateSelect(special, b.getInt32(0xffc00000u), signed_out);
  } else {
    const bool ieee = f.style == Float8Style::kIeee;
    Value* overflow = b.CreateSelect(IsNan(b, x), b.getInt32(0x7fc00000),
                                     b.getInt32(ieee ? 0x7f800000 : 0x7fc00000));
    out = b.CreateOr(b.CreateSelect(special, overflow, rounded), sign);
  }
  return b.CreateBitCast(out, ft);
}

// Register value -> its storage bits as an integer of the type's width.
Value* ToBits(llvm::IRBuilder<>& b, PrimitiveType type, Value* v) {
  switch (type) {
    case PrimitiveType::F16:
      return b.CreateBitCast(b.CreateFPTrunc(v, b.getHalfTy()), b.getInt16Ty());
    case PrimitiveType::BF16:
      return b.CreateTrunc(FloatToBF16Bits(b, v), b.getInt16Ty());
    case PrimitiveType::F32:
      return b.CreateBitCast(v, b.getInt32Ty());
    case PrimitiveType::F64:
      return b.CreateBitCast(v, b.getInt64Ty());
    case PrimitiveType::PRED:
      return b.CreateZExt(v, b.getInt8Ty());
    default:
      return IsF8(type) ? FloatToF8Bits(b, type, v) : v;
  }
}

Value* FromBits(llvm::IRBuilder<>& b, PrimitiveType type, Value* bits) {
  switch (type) {
    case PrimitiveType::F16:
      return b.CreateFPExt(b.CreateBitCast(bits, b.getHalfTy()), b.getFloatTy());
    case PrimitiveType::BF16:
      return BF16BitsToFloat(b, bits);
    case PrimitiveType::F32:
      return b.CreateBitCast(bits, b.getFloatTy());
    case PrimitiveType::F64:
      return b.CreateBitCast(bits, b.getDoubleTy());
    case PrimitiveType::PRED:
      return b.CreateICmpNE(bits, llvm::ConstantInt::get(bits->getType(), 0));
    default:
      return IsF8(type) ? F8BitsToFloat(b, type, bits) : bits;
  }
}

// Rounds a float to `exponent_bits` / `mantissa_bits` and back, as XLA's
// reduce-precision: mantissa rounded to nearest even, values beyond the
// reduced exponent range overflow to inf or flush to (signed) zero, NaN
// stays NaN. Works on the register type's bits (f16/bf16 are floats here).
llvm::Value* EmitReducePrecision(llvm::IRBuilder<>& b, PrimitiveType type, int64_t exponent_bits,
                                 int64_t mantissa_bits, llvm::Value* x) {
  llvm::Type* ft = x->getType();
  const int bits = ft->isDoubleTy() ? 64 : 32;
  const int src_mantissa = bits == 64 ? 52 : 23, src_exponent = bits == 64 ? 11 : 8;
  (void)type;
  llvm::Type* it = b.getIntNTy(bits);
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(it, v); };
  Value* v = b.CreateBitCast(x, it);
  if (mantissa_bits < src_mantissa) {
    const int drop = src_mantissa - static_cast<int>(mantissa_bits);
    Value* last_kept = b.CreateAnd(b.CreateLShr(v, c(drop)), c(1));
    Value* bias = b.CreateAdd(c((uint64_t{1} << (drop - 1)) - 1), last_kept);
    v = b.CreateAnd(b.CreateAdd(v, bias), c(~((uint64_t{1} << drop) - 1)));
  }
  if (exponent_bits < src_exponent) {
    const uint64_t sign = uint64_t{1} << (bits - 1);
    const uint64_t exp_mask = ((uint64_t{1} << src_exponent) - 1) << src_mantissa;
    const int64_t src_bias = (int64_t{1} << (src_exponent - 1)) - 1;
    const int64_t new_bias = (int64_t{1} << (exponent_bits - 1)) - 1;
    const uint64_t max_exp = static_cast<uint64_t>(src_bias + new_bias) << src_mantissa;
    const uint64_t min_exp = static_cast<uint64_t>(src_bias - new_bias) << src_mantissa;
    Value* exp = b.CreateAnd(v, c(exp_mask));
    Value* sign_bits = b.CreateAnd(v, c(sign));
    Value* overflow = b.CreateICmpUGT(exp, c(max_exp));
    Value* underflow = b.CreateICmpULE(exp, c(min_exp));
    v = b.CreateSelect(overflow, b.CreateOr(sign_bits, c(exp_mask)), v);
    v = b.CreateSelect(underflow, sign_bits, v);
  }
  Value* r = b.CreateBitCast(v, ft);
  // NaN inputs stay NaN (rounding could have carried them into infinity).
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, r);
}

Status UnsupportedOp(const HloInstruction& instr, PrimitiveType type) {
  return Unimplemented("CPU backend: " + std::string(HloOpcodeString(instr.opcode())) +
                       " on " + std::string(PrimitiveTypeName(type)) +
                       " is not supported (instruction " + instr.name() + ")");
}

StatusOr<Value*> EmitUnary(llvm::IRBuilder<>& b, const HloInstruction& instr,
                           PrimitiveType type, Value* x) {
  const bool is_float = IsFloatingPoint(type);
  llvm::Type* ty = x->getType();
  switch (instr.opcode()) {
    case HloOpcode::kCopy:
      return x;
    case HloOpcode::kAbs:
      if (is_float) return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
      if (IsSignedInteger(type)) {
        return b.CreateSelect(b.CreateICmpSLT(x, llvm::ConstantInt::get(ty, 0)), b.CreateNeg(x), x);
      }
      return x;
    case HloOpcode::kNegate:
      return is_float ? b.CreateFNeg(x) : b.CreateNeg(x);
    case HloOpcode::kNot:
      return b.CreateNot(x);  // i1 for pred: logical not; iN: bitwise
    case HloOpcode::kSign:
      if (is_float) {
        Value* one = FloatConst(ty, 1.0);
        Value* s = b.CreateSelect(b.CreateFCmpOGT(x, FloatConst(ty, 0.0)), one, x);
        return b.CreateSelect(b.CreateFCmpOLT(x, FloatConst(ty, 0.0)), FloatConst(ty, -1.0), s);
      }
      if (IsSignedInteger(type)) {
        Value* zero = llvm::ConstantInt::get(ty, 0);
        Value* pos = b.CreateZExt(b.CreateICmpSGT(x, zero), ty);
        Value* neg = b.CreateZExt(b.CreateICmpSLT(x, zero), ty);
        return b.CreateSub(pos, neg);
      }
      if (type == PrimitiveType::PRED) return x;
      return b.CreateZExt(b.CreateICmpNE(x, llvm::ConstantInt::get(ty, 0)), ty);
    case HloOpcode::kPopulationCount:
      if (is_float) break;
      return b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, x);
    case HloOpcode::kClz:
      if (is_float) break;
      return b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b.getFalse());
    case HloOpcode::kIsFinite:
      if (!is_float) break;
      return b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                             FloatConst(ty, INFINITY));
    case HloOpcode::kReal:
      return x;
    case HloOpcode::kImag:
      return Zero(b, type);
    default:
      break;
  }
  if (!is_float) return UnsupportedOp(instr, type);
  switch (instr.opcode()) {
    case HloOpcode::kExp: return EmitExp(b, x);
    case HloOpcode::kExpm1: return EmitExpm1(b, x);
    case HloOpcode::kLog:
      if (IsF32(x)) return EmitLogF32(b, x);
      return b.CreateUnaryIntrinsic(llvm::Intrinsic::log, x);
    case HloOpcode::kLog1p: return EmitLog1p(b, x);
    case HloOpcode::kSqrt: return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    case HloOpcode::kRsqrt:
      return b.CreateFDiv(FloatConst(ty, 1.0), b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
    case HloOpcode::kCbrt: return CallLibm(b, "cbrtf", "cbrt", {x});
    case HloOpcode::kSin: return b.CreateUnaryIntrinsic(llvm::Intrinsic::sin, x);
    case HloOpcode::kCos: return b.CreateUnaryIntrinsic(llvm::Intrinsic::cos, x);
    case HloOpcode::kTan: return CallLibm(b, "tanf", "tan", {x});
    case HloOpcode::kTanh:
      if (IsF32(x)) return EmitTanhF32(b, x);
      return EmitTanhF64(b, x);
    case HloOpcode::kErf:
      if (IsF32(x)) return EmitErfF32(b, x, /*scalar=*/instr.shape().rank() == 0);
      return CallLibm(b, "erff", "erf", {x});
    case HloOpcode::kLogistic: {
      // 1 / (1 + e^-x), the expansion XLA:CPU compiles logistic to (and that
      // jax lowers it to), so both spellings give the same bits.
      Value* one = FloatConst(ty, 1.0);
      return b.CreateFDiv(one, b.CreateFAdd(EmitExp(b, b.CreateFNeg(x)), one));
    }
    case HloOpcode::kFloor: return b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
    case HloOpcode::kCeil: return b.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x);
    case HloOpcode::kRoundNearestAfz: return b.CreateUnaryIntrinsic(llvm::Intrinsic::round, x);
    case HloOpcode::kRoundNearestEven:
      return b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x);
    default:
      return UnsupportedOp(instr, type);
  }
}

StatusOr<Value*> EmitBinary(llvm::IRBuilder<>& b, const HloInstruction& instr,
                            PrimitiveType type, Value* x, Value* y) {
  const bool is_float = IsFloatingPoint(type);
  const bool is_signed = IsSignedInteger(type);
  switch (instr.opcode()) {
    case HloOpcode::kAdd:
      if (type == PrimitiveType::PRED) return b.CreateOr(x, y);
      return is_float ? b.CreateFAdd(x, y) : b.CreateAdd(x, y);
    case HloOpcode::kSubtract:
      return is_float ? b.CreateFSub(x, y) : b.CreateSub(x, y);
    case HloOpcode::kMultiply:
      if (type == PrimitiveType::PRED) return b.CreateAnd(x, y);
      return is_float ? b.CreateFMul(x, y) : b.CreateMul(x, y);
    case HloOpcode::kDivide:
      if (is_float) return b.CreateFDiv(x, y);
      if (type == PrimitiveType::PRED) break;
      return EmitIntDivRem(b, is_signed, /*rem=*/false, x, y);
    case HloOpcode::kRemainder:
      if (is_float) return b.CreateFRem(x, y);
      if (type == PrimitiveType::PRED) break;
      return EmitIntDivRem(b, is_signed, /*rem=*/true, x, y);
    case HloOpcode::kMaximum:
      return EmitMax(b, type, x, y);
    case HloOpcode::kMinimum:
      return EmitMin(b, type, x, y);
    case HloOpcode::kPower:
      if (is_float) return b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, y);
      if (type == PrimitiveType::PRED) break;
      return EmitIntPower(b, is_signed, x, y);
    case HloOpcode::kAtan2:
      if (!is_float) break;
      return CallLibm(b, "atan2f", "atan2", {x, y});
    case HloOpcode::kAnd:
      if (is_float) break;
      return b.CreateAnd(x, y);
    case HloOpcode::kOr:
      if (is_float) break;
      return b.CreateOr(x, y);
    case HloOpcode::kXor:
      if (is_float) break;
      return b.CreateXor(x, y);
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kShiftRightArithmetic:
      if (is_float || type == PrimitiveType::PRED) break;
      return EmitShift(b, instr.opcode(), x, y);
    case HloOpcode::kCompare:
      return EmitCompare(b, type, instr.comparison_direction(), instr.comparison_type(), x, y);
    default:
      break;
  }
  return UnsupportedOp(instr, type);
}

}  // namespace

bool IsSupportedElementType(PrimitiveType type) { return IsArrayType(type); }

llvm::Type* StorageType(PrimitiveType type, llvm::LLVMContext& ctx) {
  switch (type) {
    case PrimitiveType::PRED: return llvm::Type::getInt8Ty(ctx);
    case PrimitiveType::F16: return llvm::Type::getHalfTy(ctx);
    case PrimitiveType::BF16: return llvm::Type::getInt16Ty(ctx);
    case PrimitiveType::F32: return llvm::Type::getFloatTy(ctx);
    case PrimitiveType::F64: return llvm::Type::getDoubleTy(ctx);
    case PrimitiveType::C64:
    case PrimitiveType::C128: return ComplexRegisterType(type, ctx);
    default: return llvm::Type::getIntNTy(ctx, 8 * ByteWidth(type));
  }
}

llvm::Type* RegisterType(PrimitiveType type, llvm::LLVMContext& ctx) {
  switch (type) {
    case PrimitiveType::PRED: return llvm::Type::getInt1Ty(ctx);
    case PrimitiveType::F16:
    case PrimitiveType::BF16: return llvm::Type::getFloatTy(ctx);
    case PrimitiveType::S4:
    case PrimitiveType::U4: return llvm::Type::getIntNTy(ctx, 4);
    default: return IsF8(type) ? llvm::Type::getFloatTy(ctx) : StorageType(type, ctx);
  }
}

llvm::Value* LoadElement(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* ptr,
                         llvm::Value* index) {
  llvm::Type* st = StorageType(type, b.getContext());
  Value* addr = b.CreateInBoundsGEP(st, ptr, index);
  Value* v = b.CreateLoad(st, addr);
  switch (type) {
    case PrimitiveType::PRED: return b.CreateICmpNE(v, b.getInt8(0));
    case PrimitiveType::F16: return b.CreateFPExt(v, b.getFloatTy());
    case PrimitiveType::BF16: return BF16BitsToFloat(b, v);
    case PrimitiveType::S4:
    case PrimitiveType::U4: return b.CreateTrunc(v, b.getIntNTy(4));  // the low 4 bits
    default: return IsF8(type) ? F8BitsToFloat(b, type, v) : v;
  }
}

void StoreElement(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* value,
                  llvm::Value* ptr, llvm::Value* index) {
  llvm::Type* st = StorageType(type, b.getContext());
  Value* addr = b.CreateInBoundsGEP(st, ptr, index);
  switch (type) {
    case PrimitiveType::PRED: value = b.CreateZExt(value, st); break;
    case PrimitiveType::F16: value = b.CreateFPTrunc(value, st); break;
    case PrimitiveType::BF16: value = b.CreateTrunc(FloatToBF16Bits(b, value), st); break;
    case PrimitiveType::S4:
    case PrimitiveType::U4: value = b.CreateZExt(value, st); break;  // zeros above, as ml_dtypes
    default:
      if (IsF8(type)) value = FloatToF8Bits(b, type, value);
      break;
  }
  b.CreateStore(value, addr);
}

llvm::Value* LiteralElement(llvm::IRBuilder<>& b, const Literal& literal, int64_t i) {
  PrimitiveType type = literal.shape().element_type();
  llvm::Type* rt = RegisterType(type, b.getContext());
  switch (type) {
    case PrimitiveType::PRED: return b.getInt1(literal.Get<bool>(i));
    case PrimitiveType::F16: return FloatConst(rt, HalfToFloat(literal.Get<half>(i)));
    case PrimitiveType::BF16: return FloatConst(rt, BF16ToFloat(literal.Get<bfloat16>(i)));
    case PrimitiveType::F32: return FloatConst(rt, literal.Get<float>(i));
    case PrimitiveType::F64: return FloatConst(rt, literal.Get<double>(i));
    case PrimitiveType::F8E4M3FN:
    case PrimitiveType::F8E5M2:
    case PrimitiveType::F8E4M3FNUZ:
    case PrimitiveType::F8E5M2FNUZ:
    case PrimitiveType::F8E4M3B11FNUZ:
    case PrimitiveType::F8E4M3:
    case PrimitiveType::F8E3M4: return FloatConst(rt, literal.GetAsDouble(i));
    case PrimitiveType::C64:
    case PrimitiveType::C128: {
      std::complex<double> z = literal.GetAsComplex(i);
      llvm::Type* part = rt->getStructElementType(0);
      return llvm::ConstantStruct::get(llvm::cast<llvm::StructType>(rt),
                                       {llvm::ConstantFP::get(part, z.real()),
                                        llvm::ConstantFP::get(part, z.imag())});
    }
    case PrimitiveType::S4:
    case PrimitiveType::U4: return llvm::ConstantInt::get(rt, literal.GetAsUInt64(i) & 0xf);
    default:
      return llvm::ConstantInt::get(rt, literal.GetAsUInt64(i));
  }
}

llvm::Value* RoundToType(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* value) {
  if (!IsF16Like(type) || !value->getType()->isFloatTy()) return value;
  if (IsF8(type)) return RoundFloatToF8(b, type, value);
  return FromBits(b, type, ToBits(b, type, value));
}

llvm::Value* Zero(llvm::IRBuilder<>& b, PrimitiveType type) {
  return llvm::Constant::getNullValue(RegisterType(type, b.getContext()));
}

llvm::Value* EmitMax(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* x, llvm::Value* y) {
  if (IsFloatingPoint(type)) {
    // NaN in either operand gives NaN; written with selects so it vectorises.
    Value* r = b.CreateSelect(b.CreateFCmpOGE(x, y), x, y);
    r = b.CreateSelect(IsNan(b, y), y, r);
    return b.CreateSelect(IsNan(b, x), x, r);
  }
  Value* gt = IsSignedInteger(type) ? b.CreateICmpSGT(x, y) : b.CreateICmpUGT(x, y);
  return b.CreateSelect(gt, x, y);
}

llvm::Value* EmitMin(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* x, llvm::Value* y) {
  if (IsFloatingPoint(type)) {
    Value* r = b.CreateSelect(b.CreateFCmpOLE(x, y), x, y);
    r = b.CreateSelect(IsNan(b, y), y, r);
    return b.CreateSelect(IsNan(b, x), x, r);
  }
  Value* lt = IsSignedInteger(type) ? b.CreateICmpSLT(x, y) : b.CreateICmpULT(x, y);
  return b.CreateSelect(lt, x, y);
}

llvm::Value* EmitConvert(llvm::IRBuilder<>& b, PrimitiveType from, PrimitiveType to,
                         llvm::Value* v) {
  if (from == to) return v;
  llvm::Type* rt = RegisterType(to, b.getContext());
  if (IsComplex(from) || IsComplex(to)) {
    // Complex -> real keeps the real part; real -> complex has imag 0.
    const PrimitiveType part_from = IsComplex(from) ? (from == PrimitiveType::C64 ? PrimitiveType::F32 : PrimitiveType::F64) : from;
    const PrimitiveType part_to = IsComplex(to) ? (to == PrimitiveType::C64 ? PrimitiveType::F32 : PrimitiveType::F64) : to;
    llvm::Value* re = IsComplex(from) ? ComplexPart(b, v, 0) : v;
    llvm::Value* im = IsComplex(from) ? ComplexPart(b, v, 1) : nullptr;
    re = EmitConvert(b, part_from, part_to, re);
    if (!IsComplex(to)) return re;
    im = im ? EmitConvert(b, part_from, part_to, im) : Zero(b, part_to);
    return MakeComplex(b, re, im);
  }
  if (to == PrimitiveType::PRED) {
    if (IsFloatingPoint(from)) return b.CreateFCmpUNE(v, FloatConst(v->getType(), 0.0));
    return b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }
  if (from == PrimitiveType::PRED) {
    if (IsFloatingPoint(to)) return b.CreateUIToFP(v, rt);
    return b.CreateZExt(v, rt);
  }
  if (IsFloatingPoint(from) && IsFloatingPoint(to)) {
    if (to == PrimitiveType::F16 && from == PrimitiveType::F64) {
      // Round once, straight from double to half.
      return b.CreateFPExt(b.CreateFPTrunc(v, b.getHalfTy()), rt);
    }
    if (IsF8(to) && from == PrimitiveType::F64) {
      return F8BitsToFloat(b, to, FloatToF8Bits(b, to, v));  // rounds once, from double
    }
    Value* r = v->getType() == rt ? v
               : rt->getPrimitiveSizeInBits() > v->getType()->getPrimitiveSizeInBits()
                   ? b.CreateFPExt(v, rt)
                   : b.CreateFPTrunc(v, rt);
    return RoundToType(b, to, r);
  }
  if (IsFloatingPoint(from)) {  // float -> int: saturating, NaN -> 0
    auto id = IsSignedInteger(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return b.CreateIntrinsic(id, {rt, v->getType()}, {v});
  }
  if (IsFloatingPoint(to)) {  // int -> float
    Value* r = IsSignedInteger(from) ? b.CreateSIToFP(v, rt) : b.CreateUIToFP(v, rt);
    return RoundToType(b, to, r);
  }
  // int -> int: extension follows the source's signedness.
  return IsSignedInteger(from) ? b.CreateSExtOrTrunc(v, rt) : b.CreateZExtOrTrunc(v, rt);
}

llvm::Value* IntToType(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* value) {
  return EmitConvert(b, PrimitiveType::S64, type, value);
}

StatusOr<llvm::Value*> EmitElementwise(llvm::IRBuilder<>& b, const HloInstruction& instr,
                                       const std::vector<PrimitiveType>& operand_types,
                                       const std::vector<llvm::Value*>& operands) {
  const PrimitiveType result_type = instr.shape().element_type();
  for (PrimitiveType t : operand_types) {
    if (!IsSupportedElementType(t)) return UnsupportedOp(instr, t);
  }
  if (!IsSupportedElementType(result_type)) return UnsupportedOp(instr, result_type);
  Value* result = nullptr;
  switch (instr.opcode()) {
    case HloOpcode::kConvert:
      return EmitConvert(b, operand_types[0], result_type, operands[0]);
    case HloOpcode::kBitcastConvert:
      if (ByteWidth(operand_types[0]) != ByteWidth(result_type) ||
          IsInt4(operand_types[0]) != IsInt4(result_type)) {
        return Unimplemented("CPU backend: bitcast-convert between widths (" + instr.name() + ")");
      }
      return FromBits(b, result_type, ToBits(b, operand_types[0], operands[0]));
    case HloOpcode::kSelect:
      return b.CreateSelect(operands[0], operands[1], operands[2]);
    case HloOpcode::kComplex:
      return MakeComplex(b, operands[0], operands[1]);
    case HloOpcode::kReducePrecision:
      return EmitReducePrecision(b, operand_types[0], instr.exponent_bits(), instr.mantissa_bits(),
                                 operands[0]);
    case HloOpcode::kClamp:  // clamp(lo, x, hi)
      return EmitMin(b, result_type, EmitMax(b, result_type, operands[1], operands[0]),
                     operands[2]);
    default:
      break;
  }
  if (IsComplex(operand_types[0])) {
    return EmitComplexElementwise(b, instr, operand_types[0], operands);
  }
  if (operands.size() == 1) {
    ASSIGN_OR_RETURN(result, EmitUnary(b, instr, operand_types[0], operands[0]));
  } else if (operands.size() == 2) {
    ASSIGN_OR_RETURN(result, EmitBinary(b, instr, operand_types[0], operands[0], operands[1]));
  } else {
    return UnsupportedOp(instr, result_type);
  }
  return RoundToType(b, result_type, result);
}

}  // namespace xla::cpu
