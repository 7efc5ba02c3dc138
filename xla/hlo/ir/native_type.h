// C++ types for HLO element types, and a switch that runs generic code with
// the right one. f16, bf16 and the 8-bit floats are bit wrappers with float conversions
// (round-to-nearest-even), enough for literals and the reference evaluator;
// they are not arithmetic types.
#ifndef XLA_HLO_IR_NATIVE_TYPE_H_
#define XLA_HLO_IR_NATIVE_TYPE_H_

#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "xla/hlo/ir/primitive_type.h"

namespace xla {

struct half {
  uint16_t bits = 0;
};
struct bfloat16 {
  uint16_t bits = 0;
};

float HalfToFloat(half h);
half FloatToHalf(float f);  // round to nearest even; overflow -> inf; NaN kept
// The same, rounding once from double: going through float first rounds twice and
// can land one ulp off when the float is a tie that the double was not.
half DoubleToHalf(double d);
inline float BF16ToFloat(bfloat16 b) {
  uint32_t u = static_cast<uint32_t>(b.bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
bfloat16 FloatToBF16(float f);  // round to nearest even; NaN kept quiet

// 4-bit integers as stored: the value's low 4 bits, zeros above.
struct int4 {
  uint8_t bits = 0;
  int value() const { return static_cast<int8_t>(static_cast<uint8_t>(bits << 4)) >> 4; }
  static int4 Wrap(int64_t v) { return int4{static_cast<uint8_t>(v & 0xf)}; }
};
struct uint4 {
  uint8_t bits = 0;
  int value() const { return bits & 0xf; }
  static uint4 Wrap(int64_t v) { return uint4{static_cast<uint8_t>(v & 0xf)}; }
};
template <typename T> inline constexpr bool kIsInt4 =
    std::is_same_v<T, int4> || std::is_same_v<T, uint4>;

// An 8-bit float of HLO type P (one of the F8 types), as raw bits.
template <PrimitiveType P>
struct float8 {
  uint8_t bits = 0;
};
template <typename T> inline constexpr bool kIsFloat8 = false;
template <PrimitiveType P> inline constexpr bool kIsFloat8<float8<P>> = true;

// How an F8 type encodes values. Every format has a sign bit; `kIeee` ones
// keep an all-ones exponent for inf/NaN, `kFiniteOnly` ("fn") ones have no
// inf and use only S.1111.111 for NaN, `kUnsignedZero` ("fnuz") ones have
// neither inf nor -0 and use 0x80 as their only NaN.
enum class Float8Style { kIeee, kFiniteOnly, kUnsignedZero };
struct Float8Format {
  int mantissa_bits;
  int bias;
  Float8Style style;
  uint8_t max_finite;  // bits of the largest finite magnitude
  uint8_t nan;         // bits of the (positive, quiet) NaN
};
// The format of an F8 type; undefined for other types.
Float8Format Float8FormatOf(PrimitiveType type);

// Exact value of F8 bits of `type` (every F8 value is a float).
float Float8ToFloat(PrimitiveType type, uint8_t bits);
// `v` rounded once to nearest-even F8 of `type`; beyond the largest finite
// value it becomes inf (IEEE-like types) or NaN (the others).
uint8_t DoubleToFloat8(PrimitiveType type, double v);

template <PrimitiveType T> struct NativeTypeOf;
#define XLA_NATIVE(P, C)                      \
  template <> struct NativeTypeOf<PrimitiveType::P> { using type = C; };
XLA_NATIVE(PRED, bool)
XLA_NATIVE(S8, int8_t)
XLA_NATIVE(S16, int16_t)
XLA_NATIVE(S32, int32_t)
XLA_NATIVE(S64, int64_t)
XLA_NATIVE(U8, uint8_t)
XLA_NATIVE(U16, uint16_t)
XLA_NATIVE(U32, uint32_t)
XLA_NATIVE(U64, uint64_t)
XLA_NATIVE(F16, half)
XLA_NATIVE(BF16, bfloat16)
XLA_NATIVE(F32, float)
XLA_NATIVE(F64, double)
XLA_NATIVE(C64, std::complex<float>)
XLA_NATIVE(C128, std::complex<double>)
XLA_NATIVE(F8E4M3FN, float8<PrimitiveType::F8E4M3FN>)
XLA_NATIVE(F8E5M2, float8<PrimitiveType::F8E5M2>)
XLA_NATIVE(F8E4M3FNUZ, float8<PrimitiveType::F8E4M3FNUZ>)
XLA_NATIVE(F8E5M2FNUZ, float8<PrimitiveType::F8E5M2FNUZ>)
XLA_NATIVE(F8E4M3B11FNUZ, float8<PrimitiveType::F8E4M3B11FNUZ>)
XLA_NATIVE(F8E4M3, float8<PrimitiveType::F8E4M3>)
XLA_NATIVE(F8E3M4, float8<PrimitiveType::F8E3M4>)
XLA_NATIVE(S4, int4)
XLA_NATIVE(U4, uint4)
#undef XLA_NATIVE

// A value-less tag carrying the primitive type and its C++ type.
template <PrimitiveType P>
struct TypeTag {
  static constexpr PrimitiveType kType = P;
  using type = typename NativeTypeOf<P>::type;
};

// Calls fn(TypeTag<P>{}) for array element type `t`; returns fn's result.
// `fallback` is returned for TOKEN/TUPLE/INVALID.
template <typename R, typename Fn>
R ArrayTypeSwitch(PrimitiveType t, Fn&& fn, R fallback) {
  switch (t) {
#define XLA_CASE(P)         \
  case PrimitiveType::P:    \
    return fn(TypeTag<PrimitiveType::P>{});
    XLA_CASE(PRED) XLA_CASE(S8) XLA_CASE(S16) XLA_CASE(S32) XLA_CASE(S64)
    XLA_CASE(U8) XLA_CASE(U16) XLA_CASE(U32) XLA_CASE(U64) XLA_CASE(F16)
    XLA_CASE(BF16) XLA_CASE(F32) XLA_CASE(F64) XLA_CASE(C64) XLA_CASE(C128)
    XLA_CASE(F8E4M3FN) XLA_CASE(F8E5M2) XLA_CASE(F8E4M3FNUZ) XLA_CASE(F8E5M2FNUZ)
    XLA_CASE(F8E4M3B11FNUZ) XLA_CASE(F8E4M3) XLA_CASE(F8E3M4) XLA_CASE(S4) XLA_CASE(U4)
#undef XLA_CASE
    default:
      break;
  }
  return fallback;
}

}  // namespace xla

#endif  // XLA_HLO_IR_NATIVE_TYPE_H_
