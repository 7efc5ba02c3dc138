// C++ types for HLO element types, and a switch that runs generic code with
// the right one. f16 and bf16 are 16-bit wrappers with float conversions
// (round-to-nearest-even), enough for literals and the reference evaluator;
// they are not arithmetic types.
#ifndef XLA_HLO_IR_NATIVE_TYPE_H_
#define XLA_HLO_IR_NATIVE_TYPE_H_

#include <complex>
#include <cstdint>
#include <cstring>
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
#undef XLA_CASE
    default:
      break;
  }
  return fallback;
}

}  // namespace xla

#endif  // XLA_HLO_IR_NATIVE_TYPE_H_
