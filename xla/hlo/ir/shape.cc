#include "xla/hlo/ir/shape.h"

#include <string>
#include <utility>

namespace xla {

std::vector<int64_t> DefaultMinorToMajor(int rank) {
  std::vector<int64_t> m2m(rank);
  for (int i = 0; i < rank; ++i) m2m[i] = rank - 1 - i;
  return m2m;
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

Shape::Shape(PrimitiveType element_type, std::vector<int64_t> dimensions)
    : element_type_(element_type), dimensions_(std::move(dimensions)) {
  minor_to_major_ = DefaultMinorToMajor(rank());
  has_layout_ = true;
}

Shape::Shape(PrimitiveType element_type, std::vector<int64_t> dimensions,
             std::vector<int64_t> minor_to_major)
    : element_type_(element_type),
      dimensions_(std::move(dimensions)),
      minor_to_major_(std::move(minor_to_major)),
      has_layout_(true) {}

Shape Shape::MakeTuple(std::vector<Shape> elements) {
  Shape s;
  s.element_type_ = PrimitiveType::TUPLE;
  s.tuple_shapes_ = std::move(elements);
  return s;
}

Shape Shape::MakeToken() {
  Shape s;
  s.element_type_ = PrimitiveType::TOKEN;
  return s;
}

int64_t Shape::element_count() const {
  if (!IsArray()) return 0;
  int64_t n = 1;
  for (int64_t d : dimensions_) n *= d;
  return n;
}

int64_t Shape::byte_size() const {
  if (IsTuple()) {
    int64_t total = 0;
    for (const Shape& s : tuple_shapes_) total += s.byte_size();
    return total;
  }
  if (!IsArray()) return 0;
  return element_count() * ByteWidth(element_type_);
}

void Shape::set_minor_to_major(std::vector<int64_t> m2m) {
  minor_to_major_ = std::move(m2m);
  has_layout_ = true;
}

void Shape::clear_layout() {
  minor_to_major_.clear();
  tiles_.clear();
  memory_space_ = 0;
  has_layout_ = false;
  for (Shape& s : tuple_shapes_) s.clear_layout();
}

void Shape::SetDefaultLayout() {
  if (IsTuple()) {
    for (Shape& s : tuple_shapes_) s.SetDefaultLayout();
    return;
  }
  if (IsArray()) set_minor_to_major(DefaultMinorToMajor(rank()));
}

std::string Shape::ToString(bool print_layout) const {
  if (IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (i > 0) out += ", ";
      // XLA marks every fifth element of long tuples; kept for byte-identical text.
      if (i > 0 && i % 5 == 0) out += "/*index=" + std::to_string(i) + "*/";
      out += tuple_shapes_[i].ToString(print_layout);
    }
    return out + ")";
  }
  if (IsToken()) return "token[]";
  std::string out(PrimitiveTypeName(element_type_));
  out += "[";
  for (size_t i = 0; i < dimensions_.size(); ++i) {
    if (i > 0) out += ",";
    out += std::to_string(dimensions_[i]);
  }
  out += "]";
  // Scalars print no layout ("f32[]") unless it has tiles or a memory space
  // ("f32[]{:T(128)}"), as XLA does.
  const bool details = !tiles_.empty() || memory_space_ != 0;
  if (print_layout && has_layout_ && (!dimensions_.empty() || details)) {
    out += "{";
    for (size_t i = 0; i < minor_to_major_.size(); ++i) {
      if (i > 0) out += ",";
      out += std::to_string(minor_to_major_[i]);
    }
    // XLA's form: ":", then "T" once with every tile in parentheses, then S(n).
    if (details) out += ":";
    if (!tiles_.empty()) out += "T";
    for (const std::vector<int64_t>& tile : tiles_) {
      out += "(";
      for (size_t i = 0; i < tile.size(); ++i) {
        if (i > 0) out += ",";
        out += std::to_string(tile[i]);
      }
      out += ")";
    }
    if (memory_space_ != 0) out += "S(" + std::to_string(memory_space_) + ")";
    out += "}";
  }
  return out;
}

bool Shape::operator==(const Shape& other) const {
  if (element_type_ != other.element_type_) return false;
  if (IsTuple()) return tuple_shapes_ == other.tuple_shapes_;
  if (dimensions_ != other.dimensions_) return false;
  if (rank() == 0) return true;
  return has_layout_ == other.has_layout_ && minor_to_major_ == other.minor_to_major_ &&
         tiles_ == other.tiles_ && memory_space_ == other.memory_space_;
}

bool Shape::Compatible(const Shape& other) const {
  if (element_type_ != other.element_type_) return false;
  if (IsTuple()) {
    if (tuple_shapes_.size() != other.tuple_shapes_.size()) return false;
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (!tuple_shapes_[i].Compatible(other.tuple_shapes_[i])) return false;
    }
    return true;
  }
  return dimensions_ == other.dimensions_;
}

static void Flatten(const Shape& shape, std::vector<Shape>* out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) Flatten(s, out);
  } else {
    out->push_back(shape);
  }
}

std::vector<Shape> FlattenShape(const Shape& shape) {
  std::vector<Shape> out;
  Flatten(shape, &out);
  return out;
}

}  // namespace xla
