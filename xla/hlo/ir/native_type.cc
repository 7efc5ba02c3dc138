#include "xla/hlo/ir/native_type.h"

#include <algorithm>
#include <cmath>

namespace xla {

float HalfToFloat(half h) {
  uint32_t sign = (h.bits >> 15) & 1;
  uint32_t exp = (h.bits >> 10) & 0x1f;
  uint32_t mant = h.bits & 0x3ff;
  float value;
  if (exp == 0) {
    value = std::ldexp(static_cast<float>(mant), -24);  // zero or subnormal
  } else if (exp == 31) {
    value = mant == 0 ? INFINITY : NAN;
  } else {
    value = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -value : value;
}

half FloatToHalf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  uint32_t abs = u & 0x7fffffff;
  half h;
  if (abs >= 0x7f800000) {  // inf or nan
    h.bits = sign | 0x7c00 | (abs > 0x7f800000 ? 0x200 : 0);
    return h;
  }
  if (abs >= 0x477ff000) {  // rounds to >= 65520: overflow to inf
    h.bits = sign | 0x7c00;
    return h;
  }
  if (abs < 0x38800000) {  // below the smallest normal half: subnormal or zero
    // Scale so the half subnormal unit (2^-24) becomes 1, then round to even.
    float a;
    std::memcpy(&a, &abs, 4);
    float scaled = a * 16777216.0f;  // exact: power of two
    h.bits = sign | static_cast<uint16_t>(std::nearbyint(scaled));
    return h;
  }
  // Normal: rebias the exponent and round the 13 dropped mantissa bits to even.
  uint32_t rebased = abs - ((127 - 15) << 23);
  uint32_t lsb = (rebased >> 13) & 1;
  rebased += 0xfff + lsb;
  h.bits = sign | static_cast<uint16_t>(rebased >> 13);
  return h;
}

half DoubleToHalf(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  uint16_t sign = static_cast<uint16_t>((u >> 48) & 0x8000);
  uint64_t abs = u & 0x7fffffffffffffffull;
  half h;
  if (abs >= 0x7ff0000000000000ull) {  // inf or nan
    h.bits = sign | 0x7c00 | (abs > 0x7ff0000000000000ull ? 0x200 : 0);
    return h;
  }
  if (abs >= 0x40effe0000000000ull) {  // >= 65520 rounds to inf
    h.bits = sign | 0x7c00;
    return h;
  }
  if (abs < 0x3f10000000000000ull) {  // below 2^-14: subnormal or zero half
    double a;
    std::memcpy(&a, &abs, 8);
    // 2^24 * a is exact; rounding it to an integer (ties to even) is the subnormal.
    h.bits = sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0));
    return h;
  }
  // Normal: rebias the exponent (1023 -> 15) and round the 42 dropped bits to even.
  uint64_t rebased = abs - (static_cast<uint64_t>(1023 - 15) << 52);
  uint64_t lsb = (rebased >> 42) & 1;
  rebased += ((1ull << 41) - 1) + lsb;
  h.bits = sign | static_cast<uint16_t>(rebased >> 42);
  return h;
}

bfloat16 FloatToBF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  bfloat16 b;
  if ((u & 0x7fffffff) > 0x7f800000) {
    b.bits = static_cast<uint16_t>((u >> 16) | 0x40);  // keep NaN, make it quiet
    return b;
  }
  uint32_t lsb = (u >> 16) & 1;
  u += 0x7fff + lsb;
  b.bits = static_cast<uint16_t>(u >> 16);
  return b;
}

Float8Format Float8FormatOf(PrimitiveType type) {
  using S = Float8Style;
  switch (type) {
    case PrimitiveType::F8E4M3FN: return {3, 7, S::kFiniteOnly, 0x7e, 0x7f};
    case PrimitiveType::F8E5M2: return {2, 15, S::kIeee, 0x7b, 0x7e};
    case PrimitiveType::F8E4M3FNUZ: return {3, 8, S::kUnsignedZero, 0x7f, 0x80};
    case PrimitiveType::F8E5M2FNUZ: return {2, 16, S::kUnsignedZero, 0x7f, 0x80};
    case PrimitiveType::F8E4M3B11FNUZ: return {3, 11, S::kUnsignedZero, 0x7f, 0x80};
    case PrimitiveType::F8E4M3: return {3, 7, S::kIeee, 0x77, 0x7c};
    case PrimitiveType::F8E3M4: return {4, 3, S::kIeee, 0x6f, 0x78};
    default: return {0, 0, S::kIeee, 0, 0};
  }
}

float Float8ToFloat(PrimitiveType type, uint8_t bits) {
  const Float8Format f = Float8FormatOf(type);
  const bool negative = (bits & 0x80) != 0;
  const int magnitude = bits & 0x7f;
  // The sign bit of 0x80 stays on its NaN (as ml_dtypes reads it).
  if (f.style == Float8Style::kUnsignedZero && bits == 0x80) return -NAN;
  if (magnitude > f.max_finite) {
    const bool inf = f.style == Float8Style::kIeee && magnitude == f.max_finite + 1;
    const float special = inf ? INFINITY : NAN;
    return negative ? -special : special;
  }
  const int exponent = magnitude >> f.mantissa_bits;
  const int mantissa = magnitude & ((1 << f.mantissa_bits) - 1);
  // Subnormals have no implicit leading one and the exponent of the first binade.
  const float value =
      exponent == 0
          ? std::ldexp(static_cast<float>(mantissa), 1 - f.bias - f.mantissa_bits)
          : std::ldexp(static_cast<float>(mantissa | (1 << f.mantissa_bits)),
                       exponent - f.bias - f.mantissa_bits);
  return negative ? -value : value;
}

uint8_t DoubleToFloat8(PrimitiveType type, double v) {
  const Float8Format f = Float8FormatOf(type);
  const bool unsigned_zero = f.style == Float8Style::kUnsignedZero;
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  const uint8_t overflow =
      unsigned_zero ? f.nan
                    : static_cast<uint8_t>(sign | (f.style == Float8Style::kIeee ? f.max_finite + 1
                                                                                  : f.nan));
  if (std::isnan(v)) return unsigned_zero ? f.nan : static_cast<uint8_t>(sign | f.nan);
  if (std::isinf(v)) return overflow;
  const double a = std::fabs(v);
  if (a == 0) return unsigned_zero ? 0 : sign;
  // With s the binade of a (never below the first normal one), a * 2^(m - s)
  // rounded to an integer is the significand with its implicit bit; adding it
  // to the exponent field carries into the next binade when rounding overflows.
  int e;
  std::frexp(a, &e);
  const int min_exponent = 1 - f.bias;
  const int s = std::max(e - 1, min_exponent);
  // Far beyond every F8 range (whose binades span at most 2^5): keeps the shift small.
  if (s - min_exponent > 64) return overflow;
  const int64_t magnitude = (static_cast<int64_t>(s - min_exponent) << f.mantissa_bits) +
                            static_cast<int64_t>(std::nearbyint(std::ldexp(a, f.mantissa_bits - s)));
  if (magnitude > f.max_finite) return overflow;
  if (magnitude == 0 && unsigned_zero) return 0;
  return static_cast<uint8_t>(sign | magnitude);
}

}  // namespace xla
