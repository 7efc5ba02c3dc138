// Literal: a Shape plus its values, dense and row-major (the layout of the
// shape is ignored for storage). Tuple literals hold element literals.
// Used for constants, evaluator inputs/outputs and constant folding.
#ifndef XLA_HLO_IR_LITERAL_H_
#define XLA_HLO_IR_LITERAL_H_

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "xla/hlo/ir/native_type.h"
#include "xla/hlo/ir/shape.h"

namespace xla {

class Literal {
 public:
  Literal() = default;
  // Zero-filled literal of `shape` (tuples: zero-filled elements).
  explicit Literal(const Shape& shape);
  static Literal MakeTuple(std::vector<Literal> elements);
  // Takes `bytes` as the row-major contents; size must equal shape.byte_size().
  static Literal FromBytes(const Shape& shape, const void* bytes, size_t size);

  template <typename T>
  static Literal CreateR0(PrimitiveType type, T value) {
    Literal l(Shape::Scalar(type));
    l.Set<T>(0, value);
    return l;
  }
  template <typename T>
  static Literal CreateR1(PrimitiveType type, const std::vector<T>& values) {
    Literal l(Shape(type, {static_cast<int64_t>(values.size())}));
    for (size_t i = 0; i < values.size(); ++i) l.Set<T>(i, values[i]);
    return l;
  }

  const Shape& shape() const { return shape_; }
  int64_t element_count() const { return shape_.element_count(); }
  size_t size_bytes() const { return data_.size(); }
  const void* untyped_data() const { return data_.data(); }
  void* mutable_untyped_data() { return data_.data(); }

  // Typed access by linear (row-major) index. T must be NativeTypeOf the
  // element type; the caller guarantees it (no RTTI, no checks in release).
  template <typename T>
  const T* data() const { return reinterpret_cast<const T*>(data_.data()); }
  template <typename T>
  T* data() { return reinterpret_cast<T*>(data_.data()); }
  template <typename T>
  T Get(int64_t linear_index) const {
    T v;
    std::memcpy(&v, data_.data() + linear_index * sizeof(T), sizeof(T));
    return v;
  }
  template <typename T>
  void Set(int64_t linear_index, T v) {
    std::memcpy(data_.data() + linear_index * sizeof(T), &v, sizeof(T));
  }
  // Row-major multi-index to linear index.
  int64_t LinearIndex(const std::vector<int64_t>& index) const;

  // Conversions through the widest type of the same kind, for generic code
  // (printing, comparisons in tests). Complex -> real part for GetAsDouble.
  double GetAsDouble(int64_t i) const;
  std::complex<double> GetAsComplex(int64_t i) const;
  int64_t GetAsInt64(int64_t i) const;    // integers and pred; floats truncate
  uint64_t GetAsUInt64(int64_t i) const;  // raw unsigned value of integer types
  void SetFromDouble(int64_t i, double v);
  void SetFromComplex(int64_t i, std::complex<double> v);
  void SetFromInt64(int64_t i, int64_t v);  // wraps to the element width

  // Tuples.
  bool IsTuple() const { return shape_.IsTuple(); }
  const std::vector<Literal>& tuple_elements() const { return elements_; }
  std::vector<Literal>* mutable_tuple_elements() { return &elements_; }

  // HLO constant text without the shape: "1", "{1, 2}", "{ {1, 2}, {3, 4} }",
  // "(1, 0)" for complex, "(1, {2, 3})" for tuples, "{  }" for no elements.
  // Floats print with the fewest of digits10 / max_digits10 significant
  // digits that round-trips in the element type.
  std::string ToStringWithoutShape() const;
  // "f32[2]{0} {1, 2}".
  std::string ToString() const;

  // Same shape (ignoring layout) and bitwise-equal contents.
  bool operator==(const Literal& other) const;
  bool operator!=(const Literal& other) const { return !(*this == other); }

 private:
  Shape shape_;
  std::vector<uint8_t> data_;
  std::vector<Literal> elements_;
};

// Tuple literals flattened depth-first into their array leaves.
std::vector<Literal> FlattenLiteral(Literal literal);

}  // namespace xla

#endif  // XLA_HLO_IR_LITERAL_H_
