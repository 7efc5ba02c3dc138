#include "xla/hlo/ir/native_type.h"

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

}  // namespace xla
