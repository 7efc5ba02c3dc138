// Elementwise ops: unary, binary, compare, select, clamp, convert,
// bitcast-convert, reduce-precision. Scalar semantics are spelled out once in
// UnaryScalar / BinaryScalar; the loops around them are generic.
#include <cmath>
#include <cstring>
#include <limits>

#include "xla/hlo/evaluator/evaluator_internal.h"
#include "xla/hlo/ir/instruction.h"

namespace xla::eval {
namespace {

Status Unsupported(const HloInstruction& instr, PrimitiveType t) {
  return Unimplemented("evaluator: " + std::string(HloOpcodeString(instr.opcode())) + " on " +
                       std::string(PrimitiveTypeName(t)) + " (" + instr.name() + ")");
}

template <typename F>
F NanPropagatingMax(F a, F b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  return a > b ? a : b;
}
template <typename F>
F NanPropagatingMin(F a, F b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  return a < b ? a : b;
}

template <typename I>
int CountLeadingZeros(I v) {
  using U = std::make_unsigned_t<I>;
  U u = static_cast<U>(v);
  int bits = sizeof(I) * 8;
  int n = 0;
  for (int i = bits - 1; i >= 0 && !((u >> i) & 1); --i) ++n;
  return n;
}

template <typename I>
int PopCount(I v) {
  using U = std::make_unsigned_t<I>;
  U u = static_cast<U>(v);
  int n = 0;
  while (u) {
    n += u & 1;
    u >>= 1;
  }
  return n;
}

// Rounds to `m` mantissa bits and clamps to `e` exponent bits, in the bit
// pattern of float (23, 8) or double (52, 11).
template <typename F, typename Bits, int kMant, int kExp>
F ReducePrecision(F x, int64_t e, int64_t m) {
  if (std::isnan(x)) return x;
  Bits bits;
  std::memcpy(&bits, &x, sizeof(F));
  if (m < kMant) {
    Bits last = Bits{1} << (kMant - m);
    Bits bias = (last >> 1) - 1 + ((bits & last) >> (kMant - m));
    bits = (bits + bias) & ~(last - 1);
  }
  if (e < kExp) {
    const Bits sign = Bits{1} << (kMant + kExp);
    const Bits exp_mask = ((Bits{1} << kExp) - 1) << kMant;
    const int64_t bias = (int64_t{1} << (kExp - 1)) - 1;
    const int64_t reduced_bias = (int64_t{1} << (e - 1)) - 1;
    const Bits max_exp = static_cast<Bits>(bias + reduced_bias) << kMant;
    const Bits min_exp = static_cast<Bits>(bias - reduced_bias) << kMant;
    Bits exponent = bits & exp_mask;
    if (exponent > max_exp) bits = (bits & sign) | exp_mask;   // overflow -> inf
    else if (exponent <= min_exp) bits = bits & sign;          // underflow -> 0
  }
  F out;
  std::memcpy(&out, &bits, sizeof(F));
  return out;
}

template <typename C>
StatusOr<C> UnaryScalar(const HloInstruction& instr, C x) {
  const HloOpcode op = instr.opcode();
  if constexpr (std::is_same_v<C, bool>) {
    if (op == HloOpcode::kNot) return !x;
  } else if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    switch (op) {
      case HloOpcode::kNegate: return static_cast<C>(U{0} - static_cast<U>(x));
      case HloOpcode::kAbs:
        if constexpr (std::is_signed_v<C>) return x < 0 ? static_cast<C>(U{0} - static_cast<U>(x)) : x;
        else return x;
      case HloOpcode::kSign:
        if constexpr (std::is_signed_v<C>) return static_cast<C>((x > 0) - (x < 0));
        else return static_cast<C>(x > 0);
      case HloOpcode::kNot: return static_cast<C>(~x);
      case HloOpcode::kPopulationCount: return static_cast<C>(PopCount(x));
      case HloOpcode::kClz: return static_cast<C>(CountLeadingZeros(x));
      case HloOpcode::kCopy: return x;
      default: break;
    }
  } else if constexpr (IsComplexT<C>::value) {
    switch (op) {
      case HloOpcode::kNegate: return -x;
      case HloOpcode::kExp: return std::exp(x);
      case HloOpcode::kExpm1: return std::exp(x) - C(1);
      case HloOpcode::kLog: return std::log(x);
      case HloOpcode::kLog1p: return std::log(C(1) + x);
      case HloOpcode::kSqrt: return std::sqrt(x);
      case HloOpcode::kRsqrt: return C(1) / std::sqrt(x);
      case HloOpcode::kSin: return std::sin(x);
      case HloOpcode::kCos: return std::cos(x);
      case HloOpcode::kTan: return std::tan(x);
      case HloOpcode::kTanh: return std::tanh(x);
      case HloOpcode::kSign: return x == C(0) ? C(0) : x / std::abs(x);
      case HloOpcode::kCopy: return x;
      default: break;
    }
  } else {  // float / double
    switch (op) {
      case HloOpcode::kNegate: return -x;
      case HloOpcode::kAbs: return std::fabs(x);
      case HloOpcode::kSign:
        if (std::isnan(x)) return x;
        return x > 0 ? C(1) : x < 0 ? C(-1) : x;
      case HloOpcode::kExp: return std::exp(x);
      case HloOpcode::kExpm1: return std::expm1(x);
      case HloOpcode::kLog: return std::log(x);
      case HloOpcode::kLog1p: return std::log1p(x);
      case HloOpcode::kSqrt: return std::sqrt(x);
      case HloOpcode::kRsqrt: return C(1) / std::sqrt(x);
      case HloOpcode::kCbrt: return std::cbrt(x);
      case HloOpcode::kSin: return std::sin(x);
      case HloOpcode::kCos: return std::cos(x);
      case HloOpcode::kTan: return std::tan(x);
      case HloOpcode::kTanh: return std::tanh(x);
      case HloOpcode::kErf: return std::erf(x);
      case HloOpcode::kFloor: return std::floor(x);
      case HloOpcode::kCeil: return std::ceil(x);
      case HloOpcode::kRoundNearestAfz: return std::round(x);
      case HloOpcode::kRoundNearestEven: return std::nearbyint(x);
      case HloOpcode::kLogistic: return C(1) / (C(1) + std::exp(-x));
      case HloOpcode::kCopy: return x;
      case HloOpcode::kReducePrecision:
        if constexpr (std::is_same_v<C, float>) {
          return ReducePrecision<float, uint32_t, 23, 8>(x, instr.exponent_bits(), instr.mantissa_bits());
        } else {
          return ReducePrecision<double, uint64_t, 52, 11>(x, instr.exponent_bits(), instr.mantissa_bits());
        }
      default: break;
    }
  }
  return Unimplemented("evaluator: unary " + std::string(HloOpcodeString(op)) + " on " +
                       std::string(PrimitiveTypeName(instr.shape().element_type())));
}

// Integer division and remainder as XLA defines them: x/0 = -1, x%0 = x,
// INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0.
template <typename C>
C IntDivide(C a, C b) {
  if (b == 0) return static_cast<C>(-1);
  if constexpr (std::is_signed_v<C>) {
    if (a == std::numeric_limits<C>::min() && b == -1) return a;
  }
  return static_cast<C>(a / b);
}
template <typename C>
C IntRemainder(C a, C b) {
  if (b == 0) return a;
  if constexpr (std::is_signed_v<C>) {
    if (a == std::numeric_limits<C>::min() && b == -1) return 0;
  }
  return static_cast<C>(a % b);
}
template <typename C>
C IntPower(C base, C exp) {
  if constexpr (std::is_signed_v<C>) {
    if (exp < 0) return base == 1 ? 1 : base == -1 ? ((exp & 1) ? -1 : 1) : 0;
  }
  using U = std::make_unsigned_t<C>;
  U result = 1, b = static_cast<U>(base);
  U e = static_cast<U>(exp);
  while (e) {
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<C>(result);
}

template <typename C>
StatusOr<C> BinaryScalar(HloOpcode op, C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    switch (op) {
      case HloOpcode::kAnd: case HloOpcode::kMinimum: case HloOpcode::kMultiply: return a && b;
      case HloOpcode::kOr: case HloOpcode::kMaximum: case HloOpcode::kAdd: return a || b;
      case HloOpcode::kXor: case HloOpcode::kSubtract: return a != b;
      default: break;
    }
  } else if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    constexpr int kBits = sizeof(C) * 8;
    switch (op) {
      case HloOpcode::kAdd: return static_cast<C>(static_cast<U>(a) + static_cast<U>(b));
      case HloOpcode::kSubtract: return static_cast<C>(static_cast<U>(a) - static_cast<U>(b));
      case HloOpcode::kMultiply: return static_cast<C>(static_cast<U>(a) * static_cast<U>(b));
      case HloOpcode::kDivide: return IntDivide(a, b);
      case HloOpcode::kRemainder: return IntRemainder(a, b);
      case HloOpcode::kMaximum: return a > b ? a : b;
      case HloOpcode::kMinimum: return a < b ? a : b;
      case HloOpcode::kAnd: return static_cast<C>(a & b);
      case HloOpcode::kOr: return static_cast<C>(a | b);
      case HloOpcode::kXor: return static_cast<C>(a ^ b);
      case HloOpcode::kPower: return IntPower(a, b);
      case HloOpcode::kShiftLeft:
        if (static_cast<U>(b) >= kBits) return 0;
        return static_cast<C>(static_cast<U>(a) << static_cast<U>(b));
      case HloOpcode::kShiftRightLogical:
        if (static_cast<U>(b) >= kBits) return 0;
        return static_cast<C>(static_cast<U>(a) >> static_cast<U>(b));
      case HloOpcode::kShiftRightArithmetic: {
        using S = std::make_signed_t<C>;
        S sa = static_cast<S>(a);
        if (static_cast<U>(b) >= kBits) return static_cast<C>(sa < 0 ? S(-1) : S(0));
        return static_cast<C>(sa >> static_cast<U>(b));
      }
      default: break;
    }
  } else if constexpr (IsComplexT<C>::value) {
    switch (op) {
      case HloOpcode::kAdd: return a + b;
      case HloOpcode::kSubtract: return a - b;
      case HloOpcode::kMultiply: return a * b;
      case HloOpcode::kDivide: return a / b;
      case HloOpcode::kPower: return std::pow(a, b);
      default: break;
    }
  } else {
    switch (op) {
      case HloOpcode::kAdd: return a + b;
      case HloOpcode::kSubtract: return a - b;
      case HloOpcode::kMultiply: return a * b;
      case HloOpcode::kDivide: return a / b;
      case HloOpcode::kRemainder: return std::fmod(a, b);
      case HloOpcode::kPower: return std::pow(a, b);
      case HloOpcode::kMaximum: return NanPropagatingMax(a, b);
      case HloOpcode::kMinimum: return NanPropagatingMin(a, b);
      case HloOpcode::kAtan2: return std::atan2(a, b);
      default: break;
    }
  }
  return Unimplemented("evaluator: binary " + std::string(HloOpcodeString(op)));
}

template <typename C>
bool CompareScalar(ComparisonDirection dir, ComparisonType type, C a, C b) {
  if constexpr (IsComplexT<C>::value) {
    return dir == ComparisonDirection::kEq ? a == b : a != b;
  } else {
    if constexpr (std::is_floating_point_v<C>) {
      if (type == ComparisonType::kTotalOrder) {
        // Sign-magnitude -> two's complement ordering on the raw bits.
        using I = std::conditional_t<sizeof(C) == 4, int32_t, int64_t>;
        I ia, ib;
        std::memcpy(&ia, &a, sizeof(C));
        std::memcpy(&ib, &b, sizeof(C));
        const I mask = std::numeric_limits<I>::max();
        if (ia < 0) ia = static_cast<I>(~(ia & mask));
        if (ib < 0) ib = static_cast<I>(~(ib & mask));
        return CompareScalar<I>(dir, ComparisonType::kSigned, ia, ib);
      }
    }
    switch (dir) {
      case ComparisonDirection::kEq: return a == b;
      case ComparisonDirection::kNe: return a != b;
      case ComparisonDirection::kGe: return a >= b;
      case ComparisonDirection::kGt: return a > b;
      case ComparisonDirection::kLe: return a <= b;
      case ComparisonDirection::kLt: return a < b;
    }
  }
  return false;
}

// Converts one compute-type value to another with XLA's rules.
template <typename To, typename From>
To ConvertScalar(From x) {
  if constexpr (IsComplexT<From>::value) {
    if constexpr (IsComplexT<To>::value) return To(x);
    else return ConvertScalar<To>(x.real());
  } else if constexpr (IsComplexT<To>::value) {
    return To(static_cast<typename To::value_type>(x), 0);
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // Saturating, NaN -> 0.
    if (std::isnan(x)) return 0;
    if (x <= static_cast<From>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    if (x >= static_cast<From>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

// Index into an operand that may be a scalar standing for every element.
inline int64_t Bcast(const Literal& l, int64_t i) { return l.shape().rank() == 0 ? 0 : i; }

StatusOr<Literal> EvalConvert(const HloInstruction& instr, const Literal& in) {
  Literal out(instr.shape());
  int64_t n = in.element_count();
  if (IsF8(out.shape().element_type()) && in.shape().element_type() == PrimitiveType::F64) {
    // Straight from double: going through float would round twice.
    for (int64_t i = 0; i < n; ++i) out.SetFromDouble(i, in.Get<double>(i));
    return out;
  }
  ArrayTypeSwitch<int>(in.shape().element_type(), [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    ArrayTypeSwitch<int>(out.shape().element_type(), [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      using CTo = typename ComputeType<To>::type;
      for (int64_t i = 0; i < n; ++i) Store<To>(&out, i, ConvertScalar<CTo>(Load<From>(in, i)));
      return 0;
    }, 0);
    return 0;
  }, 0);
  return out;
}

}  // namespace

StatusOr<Literal> EvalScalarBinary(HloOpcode op, const Literal& a, const Literal& b,
                                   const HloInstruction* compare_attrs) {
  Shape shape = op == HloOpcode::kCompare ? Shape::Scalar(PrimitiveType::PRED) : a.shape();
  Literal out(shape);
  Status status;
  ArrayTypeSwitch<int>(a.shape().element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = typename ComputeType<T>::type;
    if (op == HloOpcode::kCompare) {
      out.Set<bool>(0, CompareScalar<C>(compare_attrs->comparison_direction(),
                                        compare_attrs->comparison_type(), Load<T>(a, 0), Load<T>(b, 0)));
      return 0;
    }
    StatusOr<C> r = BinaryScalar<C>(op, Load<T>(a, 0), Load<T>(b, 0));
    if (!r.ok()) status = r.status();
    else Store<T>(&out, 0, *r);
    return 0;
  }, 0);
  RETURN_IF_ERROR(status);
  return out;
}

StatusOr<Literal> EvalElementwise(const HloInstruction& instr, const std::vector<const Literal*>& ops) {
  const HloOpcode op = instr.opcode();
  Literal out(instr.shape());
  const int64_t n = instr.shape().element_count();
  const Literal& a = *ops[0];
  const PrimitiveType in_type = a.shape().element_type();
  Status status;
  if ((IsInt4(in_type) || IsInt4(instr.shape().element_type())) && op != HloOpcode::kSelect &&
      op != HloOpcode::kBitcastConvert) {
    // 4-bit wrap-around and saturation rules are the backend's; the folder leaves these.
    return Unsupported(instr, in_type);
  }

  switch (op) {
    case HloOpcode::kConvert:
      return EvalConvert(instr, a);
    case HloOpcode::kBitcastConvert:
      if (a.size_bytes() != out.size_bytes()) return Internal("bitcast-convert size mismatch");
      if (out.size_bytes() > 0) std::memcpy(out.mutable_untyped_data(), a.untyped_data(), out.size_bytes());
      return out;
    case HloOpcode::kIsFinite:
      for (int64_t i = 0; i < n; ++i) out.Set<bool>(i, std::isfinite(a.GetAsDouble(i)));
      return out;
    case HloOpcode::kReal: case HloOpcode::kImag:
      for (int64_t i = 0; i < n; ++i) {
        std::complex<double> z = a.GetAsComplex(i);
        out.SetFromDouble(i, op == HloOpcode::kReal ? z.real() : z.imag());
      }
      return out;
    case HloOpcode::kAbs:
      if (IsComplex(in_type)) {
        for (int64_t i = 0; i < n; ++i) {
          if (in_type == PrimitiveType::C64) out.Set<float>(i, std::abs(a.Get<std::complex<float>>(i)));
          else out.Set<double>(i, std::abs(a.Get<std::complex<double>>(i)));
        }
        return out;
      }
      break;
    case HloOpcode::kComplex:
      for (int64_t i = 0; i < n; ++i) {
        out.SetFromComplex(i, {a.GetAsDouble(i), ops[1]->GetAsDouble(i)});
      }
      return out;
    case HloOpcode::kSelect: {
      const Literal& p = a;
      for (int64_t i = 0; i < n; ++i) {
        CopyElement(p.Get<bool>(Bcast(p, i)) ? *ops[1] : *ops[2], i, &out, i);
      }
      return out;
    }
    case HloOpcode::kCompare:
      ArrayTypeSwitch<int>(in_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using C = typename ComputeType<T>::type;
        for (int64_t i = 0; i < n; ++i) {
          out.Set<bool>(i, CompareScalar<C>(instr.comparison_direction(), instr.comparison_type(),
                                            Load<T>(a, i), Load<T>(*ops[1], i)));
        }
        return 0;
      }, 0);
      return out;
    case HloOpcode::kClamp: {
      const Literal& lo = *ops[0];
      const Literal& x = *ops[1];
      const Literal& hi = *ops[2];
      ArrayTypeSwitch<int>(x.shape().element_type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        using C = typename ComputeType<T>::type;
        for (int64_t i = 0; i < n && status.ok(); ++i) {
          StatusOr<C> m = BinaryScalar<C>(HloOpcode::kMaximum, Load<T>(x, i), Load<T>(lo, Bcast(lo, i)));
          if (!m.ok()) { status = m.status(); break; }
          StatusOr<C> r = BinaryScalar<C>(HloOpcode::kMinimum, *m, Load<T>(hi, Bcast(hi, i)));
          if (!r.ok()) { status = r.status(); break; }
          Store<T>(&out, i, *r);
        }
        return 0;
      }, 0);
      RETURN_IF_ERROR(status);
      return out;
    }
    default:
      break;
  }

  if (IsElementwiseBinary(op)) {
    const Literal& b = *ops[1];
    ArrayTypeSwitch<int>(in_type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = typename ComputeType<T>::type;
      for (int64_t i = 0; i < n; ++i) {
        StatusOr<C> r = BinaryScalar<C>(op, Load<T>(a, i), Load<T>(b, i));
        if (!r.ok()) { status = r.status(); break; }
        Store<T>(&out, i, *r);
      }
      return 0;
    }, 0);
    RETURN_IF_ERROR(status);
    return out;
  }
  if (IsElementwiseUnary(op)) {
    ArrayTypeSwitch<int>(in_type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = typename ComputeType<T>::type;
      for (int64_t i = 0; i < n; ++i) {
        StatusOr<C> r = UnaryScalar<C>(instr, Load<T>(a, i));
        if (!r.ok()) { status = r.status(); break; }
        Store<T>(&out, i, *r);
      }
      return 0;
    }, 0);
    RETURN_IF_ERROR(status);
    return out;
  }
  return Unsupported(instr, in_type);
}

}  // namespace xla::eval
