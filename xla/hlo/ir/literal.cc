#include "xla/hlo/ir/literal.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace xla {

Literal::Literal(const Shape& shape) : shape_(shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) elements_.emplace_back(s);
  } else if (shape.IsArray()) {
    data_.assign(static_cast<size_t>(shape.byte_size()), 0);
  }
}

Literal Literal::MakeTuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  for (const Literal& e : elements) shapes.push_back(e.shape());
  Literal l;
  l.shape_ = Shape::MakeTuple(std::move(shapes));
  l.elements_ = std::move(elements);
  return l;
}

Literal Literal::FromBytes(const Shape& shape, const void* bytes, size_t size) {
  Literal l(shape);
  if (size == l.data_.size() && size > 0) std::memcpy(l.data_.data(), bytes, size);
  return l;
}

int64_t Literal::LinearIndex(const std::vector<int64_t>& index) const {
  int64_t linear = 0;
  for (size_t i = 0; i < index.size(); ++i) linear = linear * shape_.dimensions(i) + index[i];
  return linear;
}

double Literal::GetAsDouble(int64_t i) const {
  return ArrayTypeSwitch<double>(
      shape_.element_type(),
      [&](auto tag) -> double {
        using T = typename decltype(tag)::type;
        T v = Get<T>(i);
        if constexpr (std::is_same_v<T, half>) return HalfToFloat(v);
        else if constexpr (std::is_same_v<T, bfloat16>) return BF16ToFloat(v);
        else if constexpr (kIsFloat8<T>) return Float8ToFloat(tag.kType, v.bits);
        else if constexpr (kIsInt4<T>) return v.value();
        else if constexpr (std::is_same_v<T, std::complex<float>> ||
                           std::is_same_v<T, std::complex<double>>) return v.real();
        else return static_cast<double>(v);
      },
      0.0);
}

std::complex<double> Literal::GetAsComplex(int64_t i) const {
  PrimitiveType t = shape_.element_type();
  if (t == PrimitiveType::C64) return std::complex<double>(Get<std::complex<float>>(i));
  if (t == PrimitiveType::C128) return Get<std::complex<double>>(i);
  return {GetAsDouble(i), 0.0};
}

int64_t Literal::GetAsInt64(int64_t i) const {
  return ArrayTypeSwitch<int64_t>(
      shape_.element_type(),
      [&](auto tag) -> int64_t {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_integral_v<T>) return static_cast<int64_t>(Get<T>(i));
        else if constexpr (kIsInt4<T>) return Get<T>(i).value();
        else return static_cast<int64_t>(GetAsDouble(i));
      },
      0);
}

uint64_t Literal::GetAsUInt64(int64_t i) const {
  return ArrayTypeSwitch<uint64_t>(
      shape_.element_type(),
      [&](auto tag) -> uint64_t {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, bool>) {
          return Get<T>(i) ? 1 : 0;
        } else if constexpr (std::is_integral_v<T>) {
          return static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(Get<T>(i)));
        } else if constexpr (kIsInt4<T>) {
          return Get<T>(i).bits & 0xf;
        } else {
          return static_cast<uint64_t>(GetAsDouble(i));
        }
      },
      0);
}

void Literal::SetFromDouble(int64_t i, double v) {
  ArrayTypeSwitch<int>(
      shape_.element_type(),
      [&](auto tag) -> int {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, half>) Set<T>(i, DoubleToHalf(v));
        else if constexpr (std::is_same_v<T, bfloat16>) Set<T>(i, FloatToBF16(static_cast<float>(v)));
        else if constexpr (kIsFloat8<T>) Set<T>(i, T{DoubleToFloat8(tag.kType, v)});
        else if constexpr (kIsInt4<T>) Set<T>(i, T::Wrap(static_cast<int64_t>(v)));
        else if constexpr (std::is_same_v<T, bool>) Set<T>(i, v != 0);
        else Set<T>(i, static_cast<T>(v));
        return 0;
      },
      0);
}

void Literal::SetFromComplex(int64_t i, std::complex<double> v) {
  PrimitiveType t = shape_.element_type();
  if (t == PrimitiveType::C64) Set(i, std::complex<float>(v));
  else if (t == PrimitiveType::C128) Set(i, v);
  else SetFromDouble(i, v.real());
}

void Literal::SetFromInt64(int64_t i, int64_t v) {
  ArrayTypeSwitch<int>(
      shape_.element_type(),
      [&](auto tag) -> int {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, bool>) Set<T>(i, v != 0);
        else if constexpr (std::is_integral_v<T>) Set<T>(i, static_cast<T>(v));
        else if constexpr (kIsInt4<T>) Set<T>(i, T::Wrap(v));
        else SetFromDouble(i, static_cast<double>(v));
        return 0;
      },
      0);
}

namespace {

// Shortest of "%.{digits10}g" and "%.{max_digits10}g" that reads back as the
// same value in the element type (XLA's convention, so printed text is stable).
template <typename Narrow>
std::string FloatToString(double v, int digits10, int max_digits10, Narrow narrow) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", digits10, v);
  if (narrow(std::strtod(buf, nullptr)) == narrow(v)) return buf;
  std::snprintf(buf, sizeof(buf), "%.*g", max_digits10, v);
  return buf;
}

std::string ElementToString(const Literal& l, int64_t i) {
  PrimitiveType t = l.shape().element_type();
  switch (t) {
    case PrimitiveType::PRED:
      return l.Get<bool>(i) ? "true" : "false";
    case PrimitiveType::F16:
      return FloatToString(l.GetAsDouble(i), 3, 5,
                           [](double d) { return DoubleToHalf(d).bits; });
    case PrimitiveType::BF16:
      return FloatToString(l.GetAsDouble(i), 2, 4,
                           [](double d) { return FloatToBF16(static_cast<float>(d)).bits; });
    case PrimitiveType::F8E4M3FN:
    case PrimitiveType::F8E5M2:
    case PrimitiveType::F8E4M3FNUZ:
    case PrimitiveType::F8E5M2FNUZ:
    case PrimitiveType::F8E4M3B11FNUZ:
    case PrimitiveType::F8E4M3:
    case PrimitiveType::F8E3M4:
      // At most 5 significant bits: 3 digits always read back, often fewer do.
      return FloatToString(l.GetAsDouble(i), 1, 3,
                           [t](double d) { return DoubleToFloat8(t, d); });
    case PrimitiveType::F32:
      return FloatToString(l.GetAsDouble(i), 6, 9, [](double d) { return static_cast<float>(d); });
    case PrimitiveType::F64:
      return FloatToString(l.GetAsDouble(i), 15, 17, [](double d) { return d; });
    case PrimitiveType::C64: {
      auto c = l.Get<std::complex<float>>(i);
      auto f = [](double d) { return static_cast<float>(d); };
      return "(" + FloatToString(c.real(), 6, 9, f) + ", " + FloatToString(c.imag(), 6, 9, f) + ")";
    }
    case PrimitiveType::C128: {
      auto c = l.Get<std::complex<double>>(i);
      auto f = [](double d) { return d; };
      return "(" + FloatToString(c.real(), 15, 17, f) + ", " + FloatToString(c.imag(), 15, 17, f) +
             ")";
    }
    default:
      if (IsUnsignedInteger(t)) return std::to_string(l.GetAsUInt64(i));
      return std::to_string(l.GetAsInt64(i));
  }
}

// Rank 1: "{a, b}"; higher ranks: "{ sub, sub }" (so f32[1,1] is "{ {60} }").
void ArrayToString(const Literal& l, int dim, int64_t* next, std::string* out) {
  const Shape& s = l.shape();
  if (dim == s.rank() - 1) {
    *out += "{";
    for (int64_t j = 0; j < s.dimensions(dim); ++j) {
      if (j > 0) *out += ", ";
      *out += ElementToString(l, (*next)++);
    }
    *out += "}";
    return;
  }
  *out += "{ ";
  for (int64_t j = 0; j < s.dimensions(dim); ++j) {
    if (j > 0) *out += ", ";
    ArrayToString(l, dim + 1, next, out);
  }
  *out += " }";
}

}  // namespace

std::string Literal::ToStringWithoutShape() const {
  if (IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (i > 0) out += ", ";
      out += elements_[i].ToStringWithoutShape();
    }
    return out + ")";
  }
  if (!shape_.IsArray()) return "";
  if (shape_.rank() == 0) return ElementToString(*this, 0);
  std::string out;
  int64_t next = 0;
  ArrayToString(*this, 0, &next, &out);
  return out;
}

std::string Literal::ToString() const { return shape_.ToString() + " " + ToStringWithoutShape(); }

bool Literal::operator==(const Literal& other) const {
  return shape_.Compatible(other.shape_) && data_ == other.data_ && elements_ == other.elements_;
}

static void FlattenInto(Literal literal, std::vector<Literal>* out) {
  if (!literal.IsTuple()) {
    out->push_back(std::move(literal));
    return;
  }
  for (Literal& e : *literal.mutable_tuple_elements()) FlattenInto(std::move(e), out);
}

std::vector<Literal> FlattenLiteral(Literal literal) {
  std::vector<Literal> out;
  FlattenInto(std::move(literal), &out);
  return out;
}

}  // namespace xla
