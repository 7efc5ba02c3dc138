// See approximations.h. The algorithms are the classic Cephes/Eigen single
// precision ones, with the constants (written as float bit patterns, so that
// nothing is lost to decimal rounding) and evaluation order that XLA:CPU uses;
// the comments give each function's error budget as measured against a
// correctly rounded reference.
#include "xla/backends/cpu/codegen/approximations.h"

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "llvm/ADT/APFloat.h"
#include "llvm/IR/Intrinsics.h"

namespace xla::cpu {
namespace {

using llvm::Value;

// The float constant with IEEE bits `bits`, splatted to x's type.
Value* Bits(Value* like, uint32_t bits) {
  return llvm::ConstantFP::get(like->getType(),
                               llvm::APFloat(llvm::APFloat::IEEEsingle(), llvm::APInt(32, bits)));
}

Value* F(Value* like, float v) { return llvm::ConstantFP::get(like->getType(), v); }

// i32 with x's shape (scalar or vector).
llvm::Type* IntTypeLike(llvm::IRBuilder<>& b, Value* x) {
  llvm::Type* ity = b.getInt32Ty();
  if (auto* vector = llvm::dyn_cast<llvm::VectorType>(x->getType())) {
    return llvm::VectorType::get(ity, vector->getElementCount());
  }
  return ity;
}

Value* I(llvm::IRBuilder<>& b, Value* like, int32_t v) {
  return llvm::ConstantInt::get(IntTypeLike(b, like), static_cast<uint64_t>(static_cast<int64_t>(v)),
                                /*isSigned=*/true);
}

// a * m + c as one fused multiply-add on hosts with FMA (llvm.fmuladd): the
// pairs XLA:CPU's code generator fuses, spelled out so that no rewrite of
// the IR before code generation (fadd of a negated product into fsub, say)
// changes which product is fused.
Value* MulAdd(llvm::IRBuilder<>& b, Value* a, Value* m, Value* c) {
  return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {a->getType()}, {a, m, c});
}

// Horner's rule from `acc` on: acc = acc * x + c for each c.
Value* Horner(llvm::IRBuilder<>& b, Value* acc, Value* x, std::initializer_list<uint32_t> bits) {
  for (uint32_t c : bits) acc = MulAdd(b, acc, x, Bits(x, c));
  return acc;
}

// The same with a rounded fma per step (erf's polynomials are written so).
Value* FmaHorner(llvm::IRBuilder<>& b, Value* acc, Value* x, std::initializer_list<uint32_t> bits) {
  for (uint32_t c : bits) {
    acc = b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {acc, x, Bits(x, c)});
  }
  return acc;
}

// lo <= x <= hi by selects that keep NaN.
Value* Clamp(llvm::IRBuilder<>& b, Value* x, Value* lo, Value* hi) {
  x = b.CreateSelect(b.CreateFCmpOLT(x, lo), lo, x);
  return b.CreateSelect(b.CreateFCmpOGT(x, hi), hi, x);
}

constexpr uint32_t kLn2Hi = 0x3F318000;  // 0.693359375, exact in a few bits
constexpr uint32_t kLn2Lo = 0xB95E8083;  // -2.12194440e-4: ln 2 - kLn2Hi
constexpr uint32_t kSign = 0x80000000;

// e^x = 2^n e^r with n = round(x / ln 2), r = x - n ln 2 (in two parts), e^r
// by a degree-7 polynomial. x is clamped to [-87.8, 88.8] and n to
// [-127, 127]: n = -127 scales by 0 (results below about 2^-126.5 flush to
// zero, as XLA:CPU's do) and x above 88.72 overflows to inf. About 1 ulp.
Value* ExpCore(llvm::IRBuilder<>& b, Value* x) {
  Value* xc = Clamp(b, x, Bits(x, 0xC2AF999A), Bits(x, 0x42B1999A));
  Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor,
                                    MulAdd(b, xc, Bits(x, 0x3FB8AA3B), F(x, 0.5f)));
  n = Clamp(b, n, F(x, -127.0f), F(x, 127.0f));
  Value* r = MulAdd(b, n, Bits(x, kLn2Hi ^ kSign), xc);
  r = MulAdd(b, n, Bits(x, kLn2Lo ^ kSign), r);
  Value* p = Horner(b, MulAdd(b, r, Bits(x, 0x39506967), Bits(x, 0x3AB743CE)), r,
                    {0x3C088908, 0x3D2AA9C1, 0x3E2AAAAA, 0x3F000000});
  Value* y = b.CreateFAdd(MulAdd(b, p, b.CreateFMul(r, r), r), F(x, 1.0f));
  Value* pow2 = b.CreateShl(b.CreateAdd(b.CreateFPToSI(n, IntTypeLike(b, x)), I(b, x, 127)),
                            I(b, x, 23));
  return b.CreateFMul(y, b.CreateBitCast(pow2, x->getType()));
}

// tanh(x) = x P(x^2) / Q(x^2) on |x| <= 7.9988 (clamped there), x itself for
// |x| < 4e-4 and +-1 from |x| >= 20. About 2 ulp.
Value* TanhCore(llvm::IRBuilder<>& b, Value* x) {
  Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  Value* tiny = b.CreateFCmpOLT(ax, F(x, 4e-4f));
  Value* xc = Clamp(b, x, Bits(x, 0xC0FFF644), Bits(x, 0x40FFF644));
  Value* x2 = b.CreateFMul(xc, xc);
  Value* num = Horner(b, MulAdd(b, x2, Bits(x, 0xA59F25C0), Bits(x, 0x2A61337E)), x2,
                      {0xAEBD37FF, 0x335C0041, 0x3779434A, 0x3A270DED, 0x3BA059DC});
  num = b.CreateFMul(xc, num);
  Value* den = Horner(b, MulAdd(b, x2, Bits(x, 0x35A0D3D8), Bits(x, 0x38F895D6)), x2,
                      {0x3B14AA05, 0x3BA059DD});
  Value* y = b.CreateSelect(tiny, x, b.CreateFDiv(num, den));
  Value* one = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, F(x, 1.0f), x);
  return b.CreateSelect(b.CreateFCmpOGE(ax, F(x, 20.0f)), one, y);
}

// log(x) for x > 0 = log(m) + e log 2 with m in [sqrt(1/2), sqrt(2)):
// log(1 + f) = f - f^2/2 + f^3 P(f), P of degree 8 split in three for
// parallelism. Zero gives -inf, +inf itself, negatives and NaN a NaN;
// denormals are read as the smallest normal. About 1 ulp.
Value* LogCore(llvm::IRBuilder<>& b, Value* x) {
  llvm::Type* ity = IntTypeLike(b, x);
  Value* min_normal = Bits(x, 0x00800000);
  Value* xn = b.CreateSelect(b.CreateFCmpOGT(x, min_normal), x, min_normal);
  Value* bits = b.CreateBitCast(xn, ity);
  Value* e = b.CreateSIToFP(b.CreateSub(b.CreateLShr(bits, I(b, x, 23)), I(b, x, 127)),
                            x->getType());
  e = b.CreateFAdd(e, F(x, 1.0f));
  Value* m = b.CreateBitCast(
      b.CreateOr(b.CreateAnd(bits, I(b, x, static_cast<int32_t>(0x807FFFFF))), I(b, x, 0x3F000000)),
      x->getType());
  // m in [0.5, 1): below sqrt(1/2) use 2m and one less in the exponent.
  Value* low = b.CreateFCmpOLT(m, Bits(x, 0x3F3504F3));
  Value* extra = b.CreateSelect(low, m, F(x, 0.0f));
  Value* f = b.CreateFAdd(m, F(x, -1.0f));
  e = b.CreateFSub(e, b.CreateSelect(low, F(x, 1.0f), F(x, 0.0f)));
  f = b.CreateFAdd(f, extra);
  Value* f2 = b.CreateFMul(f, f);
  Value* f3 = b.CreateFMul(f2, f);
  Value* p0 = Horner(b, MulAdd(b, f, Bits(x, 0x3D9021BB), Bits(x, 0xBDEBD1B8)), f, {0x3DEF251A});
  Value* p1 = Horner(b, MulAdd(b, f, Bits(x, 0xBDFE5D4F), Bits(x, 0x3E11E9BF)), f, {0xBE2AAE50});
  Value* p2 = Horner(b, MulAdd(b, f, Bits(x, 0x3E4CCEAC), Bits(x, 0xBE7FFFFC)), f, {0x3EAAAAAA});
  Value* p = MulAdd(b, MulAdd(b, p0, f3, p1), f3, p2);
  Value* y = MulAdd(b, p, f3, b.CreateFMul(e, Bits(x, kLn2Lo)));
  y = b.CreateFAdd(MulAdd(b, f2, F(x, -0.5f), f), y);
  y = MulAdd(b, e, Bits(x, kLn2Hi), y);
  const float inf = __builtin_inff();
  Value* nan = b.CreateBitCast(I(b, x, -1), x->getType());
  y = b.CreateSelect(b.CreateFCmpULE(x, F(x, 0.0f)), nan, y);
  y = b.CreateSelect(b.CreateFCmpOEQ(x, F(x, inf)), F(x, inf), y);
  return b.CreateSelect(b.CreateFCmpOEQ(x, F(x, 0.0f)), F(x, -inf), y);
}

// The double constant with IEEE bits `bits`, splatted to x's type.
Value* Bits64(Value* like, uint64_t bits) {
  return llvm::ConstantFP::get(like->getType(),
                               llvm::APFloat(llvm::APFloat::IEEEdouble(), llvm::APInt(64, bits)));
}


}  // namespace

// e^x for f64: x = n ln 2 + g (ln 2 in two parts), e^g = 1 + 2 g P(g^2) /
// (Q(g^2) - g P(g^2)) (Cephes' exp), times 2^n applied as four factors so that
// every partial product stays finite down to the denormals. 0 below -708.396,
// inf above 709.78. About 1 ulp.
Value* EmitExpF64(llvm::IRBuilder<>& b, Value* x) {
  llvm::Type* i32 = IntTypeLike(b, x);
  llvm::Type* i64 = b.getInt64Ty();
  if (auto* vector = llvm::dyn_cast<llvm::VectorType>(x->getType())) {
    i64 = llvm::VectorType::get(i64, vector->getElementCount());
  }
  auto i64c = [&](int64_t v) { return llvm::ConstantInt::get(i64, static_cast<uint64_t>(v), true); };
  Value* lo = Bits64(x, 0xC086232BDD7ABCD2ull);
  Value* hi = Bits64(x, 0x40862E42FEFA39EFull);
  Value* xc = b.CreateBinaryIntrinsic(llvm::Intrinsic::minimum, x, hi);
  xc = b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, xc, lo);
  Value* n = b.CreateUnaryIntrinsic(
      llvm::Intrinsic::floor, MulAdd(b, xc, Bits64(x, 0x3FF71547652B82FEull),
                                     llvm::ConstantFP::get(x->getType(), 0.5)));
  Value* g = MulAdd(b, n, Bits64(x, 0xBFE62E4000000000ull), xc);
  g = MulAdd(b, n, Bits64(x, 0xBEB7F7D1CF79ABCAull), g);
  Value* g2 = b.CreateFMul(g, g);
  Value* p = MulAdd(b, g2, Bits64(x, 0x3F2089CDD5E44BE8ull), Bits64(x, 0x3F9F06D10CCA2C7Eull));
  p = b.CreateFMul(MulAdd(b, p, g2, llvm::ConstantFP::get(x->getType(), 1.0)), g);
  Value* q = MulAdd(b, g2, Bits64(x, 0x3EC92EB6BC365FA0ull), Bits64(x, 0x3F64AE39B508B6C0ull));
  q = MulAdd(b, q, g2, Bits64(x, 0x3FCD17099887E074ull));
  q = MulAdd(b, q, g2, llvm::ConstantFP::get(x->getType(), 2.0));
  Value* r = b.CreateFDiv(p, b.CreateFSub(q, p));
  Value* y = MulAdd(b, r, llvm::ConstantFP::get(x->getType(), 2.0),
                    llvm::ConstantFP::get(x->getType(), 1.0));
  // 2^n = f^3 f2 with f = 2^(n >> 2), f2 = 2^(n - 3 (n >> 2)); n is clamped so
  // that both are normal doubles.
  Value* ni = b.CreateFreeze(b.CreateFPToSI(n, i32));
  ni = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, ni, I(b, x, -2099));
  ni = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, ni, I(b, x, 2099));
  Value* wide = b.CreateSExt(ni, i64);
  Value* quarter = b.CreateAShr(wide, i64c(2));
  auto pow2 = [&](Value* k) {
    return b.CreateBitCast(b.CreateAdd(b.CreateShl(k, i64c(52)), i64c(0x3FF0000000000000ll)),
                           x->getType());
  };
  Value* f = pow2(quarter);
  Value* rest = pow2(b.CreateSub(wide, b.CreateMul(quarter, i64c(3))));
  y = b.CreateFMul(b.CreateFMul(b.CreateFMul(b.CreateFMul(y, f), f), f), rest);
  y = b.CreateSelect(b.CreateFCmpOLT(x, lo), llvm::ConstantFP::get(x->getType(), 0.0), y);
  return b.CreateSelect(b.CreateFCmpOGT(x, hi), llvm::ConstantFP::getInfinity(x->getType()), y);
}

Value* EmitExpF32(llvm::IRBuilder<>& b, Value* x) { return ExpCore(b, x); }

Value* EmitLogF32(llvm::IRBuilder<>& b, Value* x) { return LogCore(b, x); }

Value* EmitTanhF32(llvm::IRBuilder<>& b, Value* x) { return TanhCore(b, x); }

namespace {

// x - x^2/2 + x^3 P(x) / Q(x), P and Q of degree 6, from their coefficients.
Value* Log1pSmall(llvm::IRBuilder<>& b, Value* x, const std::vector<Value*>& p,
                  const std::vector<Value*>& q) {
  Value* x2 = b.CreateFMul(x, x);
  // x * 0 (not folded: it is NaN for inf and NaN) starts both polynomials, so
  // they propagate those the way XLA:CPU's do.
  Value* z = b.CreateFMul(x, llvm::ConstantFP::get(x->getType(), 0.0));
  Value* qa = b.CreateFAdd(z, q[0]);
  for (size_t i = 1; i < q.size(); ++i) qa = MulAdd(b, qa, x, q[i]);
  Value* pa = b.CreateFAdd(z, p[0]);
  for (size_t i = 1; i < p.size(); ++i) pa = MulAdd(b, pa, x, p[i]);
  Value* cubic = b.CreateFMul(b.CreateFMul(x, x2), b.CreateFDiv(pa, qa));
  return b.CreateFAdd(x, MulAdd(b, x2, llvm::ConstantFP::get(x->getType(), -0.5), cubic));
}

std::vector<Value*> Consts32(Value* x, std::initializer_list<uint32_t> bits) {
  std::vector<Value*> out;
  for (uint32_t c : bits) out.push_back(Bits(x, c));
  return out;
}

std::vector<Value*> Consts64(Value* x, std::initializer_list<uint64_t> bits) {
  std::vector<Value*> out;
  for (uint64_t c : bits) out.push_back(Bits64(x, c));
  return out;
}

}  // namespace

// log(1 + x): log of the rounded 1 + x, except for |x| < sqrt(2) - 1, where
// x - x^2/2 + x^3 R(x) with R a [6/6] rational function keeps the bits that
// 1 + x would lose. f32 uses LogCore, f64 libm's log (as XLA:CPU does). About
// 2 ulp.
Value* EmitLog1p(llvm::IRBuilder<>& b, Value* x) {
  const bool f32 = x->getType()->getScalarType()->isFloatTy();
  Value* xp1 = b.CreateFAdd(x, llvm::ConstantFP::get(x->getType(), 1.0));
  Value* large = f32 ? LogCore(b, xp1) : b.CreateUnaryIntrinsic(llvm::Intrinsic::log, xp1);
  Value* small =
      f32 ? Log1pSmall(b, x,
                       Consts32(x, {0x383DE04B, 0x3EFF40C5, 0x40D284FA, 0x41EF4B9C, 0x4273CC76,
                                    0x426473AD, 0x41A05101}),
                       Consts32(x, {0x3F800000, 0x417101AD, 0x42A6185B, 0x435DC32D, 0x439A8CA3,
                                    0x43586D8A, 0x42707982}))
          : Log1pSmall(b, x,
                       Consts64(x, {0x3F07BC0962B395CAull, 0x3FDFE818A0FE1A83ull,
                                    0x401A509F46F4FA53ull, 0x403DE9738B8CB9C9ull,
                                    0x404E798EB86C3351ull, 0x404C8E7597479A10ull,
                                    0x40340A202D99830Aull}),
                       Consts64(x, {0x3FF0000000000000ull, 0x402E20359E903E37ull,
                                    0x4054C30B52213498ull, 0x406BB86590FCFB56ull,
                                    0x407351945DC908A5ull, 0x406B0DB13E48E066ull,
                                    0x404E0F304466448Eull}));
  Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  Value* threshold = f32 ? Bits(x, 0x3ED413CD) : Bits64(x, 0x3FDA827999FCEF32ull);
  return b.CreateSelect(b.CreateFCmpOLT(ax, threshold), small, large);
}

// e^x - 1: the rounded e^x minus 1 for |x| > 1/2; below, tanh(x/2) (e^x + 1),
// which keeps the small result's bits; x itself when x/2 is zero (so -0 stays
// -0). About 2 ulp.
Value* EmitExpm1(llvm::IRBuilder<>& b, Value* x) {
  const bool f32 = x->getType()->getScalarType()->isFloatTy();
  auto c = [&](double v) { return llvm::ConstantFP::get(x->getType(), v); };
  Value* e = f32 ? ExpCore(b, x) : EmitExpF64(b, x);
  Value* large = b.CreateFAdd(e, c(-1.0));
  Value* half = b.CreateFMul(x, c(0.5));
  Value* th = f32 ? TanhCore(b, half) : EmitTanhF64(b, half);
  Value* small = b.CreateFMul(th, b.CreateFAdd(e, c(1.0)));
  Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  Value* y = b.CreateSelect(b.CreateFCmpOGT(ax, c(0.5)), large, small);
  return b.CreateSelect(b.CreateFCmpOEQ(half, c(0.0)), x, y);
}

// tanh for f64: x P(x^2) / Q(x^2), both of degree 9 in x^2, on x clamped to
// +-17.71, and +-1 from |x| >= 20. About 1 ulp.
Value* EmitTanhF64(llvm::IRBuilder<>& b, Value* x) {
  Value* bound = Bits64(x, 0x4031B6D58F246197ull);
  Value* xc = Clamp(b, x, b.CreateFNeg(bound), bound);
  Value* x2 = b.CreateFMul(xc, xc);
  auto horner = [&](std::initializer_list<uint64_t> bits) {
    auto it = bits.begin();
    Value* acc = Bits64(x, *it++);
    Value* c = Bits64(x, *it++);
    acc = MulAdd(b, x2, acc, c);
    for (; it != bits.end(); ++it) acc = MulAdd(b, x2, acc, Bits64(x, *it));
    return MulAdd(b, x2, acc, llvm::ConstantFP::get(x->getType(), 1.0));
  };
  Value* num = b.CreateFMul(
      xc, horner({0x3B3F9F82E5D782DFull, 0x3C2C3C836C04B4C8ull, 0x3CEC3379F905E662ull,
                  0x3D929AFF6C8EDD96ull, 0x3E2525A389DCE7C2ull, 0x3EA708819BE51CD9ull,
                  0x3F18996F4026A7FAull, 0x3F787F80B957ED00ull, 0x3FC36FBA9B450E5Aull}));
  Value* den = horner({0x3BBE8630CF903250ull, 0x3C90AABCA9A5FEA0ull, 0x3D4232981AA2BBA8ull,
                       0x3DDEE2F015EA8065ull, 0x3E681F1947C52304ull, 0x3EE26C82AB46D140ull,
                       0x3F4B2E7C4D488C04ull, 0x3FA1998830265B50ull, 0x3FDF0D32A2F7DC79ull});
  Value* y = b.CreateFDiv(num, den);
  Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  Value* one = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign,
                                       llvm::ConstantFP::get(x->getType(), 1.0), x);
  return b.CreateSelect(b.CreateFCmpOGE(ax, llvm::ConstantFP::get(x->getType(), 20.0)), one, y);
}

// erf(x) = x P(x^2) / Q(x^2), degrees 4 and 6, and +-1 from a threshold on:
// 3.8325 for arrays, 3.7439 (with x clamped there) for rank-0 values.
// About 2 ulp.
Value* EmitErfF32(llvm::IRBuilder<>& b, Value* x, bool scalar) {
  const uint32_t threshold = scalar ? 0x406F9C68 : 0x407547CB;
  Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  Value* saturated = b.CreateFCmpOGE(ax, Bits(x, threshold));
  Value* one = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, F(x, 1.0f), x);
  Value* xc = x;
  if (scalar) {
    xc = b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, x, Bits(x, threshold | kSign));
    xc = b.CreateBinaryIntrinsic(llvm::Intrinsic::minimum, xc, Bits(x, threshold));
  }
  Value* x2 = b.CreateFMul(xc, xc);
  Value* num = FmaHorner(b, x2, Bits(x, 0x39702D51), {0x3B5F5DA2});
  num = b.CreateFMul(xc, FmaHorner(b, num, x2, {0x3D50B6EB, 0x3E3DA740, 0x3F906EBA}));
  Value* den = FmaHorner(b, x2, Bits(x, 0xB3FD3906), {0x37C588DF});
  den = FmaHorner(b, den, x2, {0x3A856D28, 0x3C6687D4, 0x3DE34C21, 0x3EFEB44A, 0x3F800000});
  return b.CreateSelect(saturated, one, b.CreateFDiv(num, den));
}

}  // namespace xla::cpu
