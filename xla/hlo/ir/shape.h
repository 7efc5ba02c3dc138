// Shape: the type of an HLO value (an array, a tuple of shapes, or a token).
//
// An array shape has an element type, int64 dimensions and an optional layout
// (minor_to_major, as HLO text prints it: f32[3,4]{1,0}). Layout is kept only
// so text round-trips and the backend can honour non-default layouts such as
// the {0,1} JAX prints on transposes; shape equality for type checking uses
// Compatible(), which ignores layout.
//
// A layout may also carry tiles, as TPU layouts do: f32[3,5]{1,0:T(8,128)}
// stores the array in 8x128 tiles of its two minor-most dimensions, and a
// further tile applies inside the previous one (bf16[..]{1,0:T(8,128)(2,1)}).
// Tiles change the storage size (padding), never the values. A tile may have
// more dimensions than the array (a TPU scalar: f32[]{:T(128)}). A layout may
// also name a memory space other than the default 0 (f32[8]{0:S(1)}), as
// backends that place values in several memories print their programs.
#ifndef XLA_HLO_IR_SHAPE_H_
#define XLA_HLO_IR_SHAPE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "xla/hlo/ir/primitive_type.h"

namespace xla {

class Shape {
 public:
  Shape() = default;  // element_type() == INVALID
  // Array shape with the default (row-major) layout {rank-1, ..., 0}.
  Shape(PrimitiveType element_type, std::vector<int64_t> dimensions);
  // Array shape with an explicit layout (must be a permutation of 0..rank-1).
  Shape(PrimitiveType element_type, std::vector<int64_t> dimensions,
        std::vector<int64_t> minor_to_major);
  static Shape MakeTuple(std::vector<Shape> elements);
  static Shape MakeToken();
  static Shape Scalar(PrimitiveType element_type) { return Shape(element_type, {}); }

  PrimitiveType element_type() const { return element_type_; }
  void set_element_type(PrimitiveType t) { element_type_ = t; }

  bool IsTuple() const { return element_type_ == PrimitiveType::TUPLE; }
  bool IsToken() const { return element_type_ == PrimitiveType::TOKEN; }
  bool IsArray() const { return IsArrayType(element_type_); }

  // Arrays only.
  int rank() const { return static_cast<int>(dimensions_.size()); }
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  int64_t dimensions(int i) const { return dimensions_[i]; }
  std::vector<int64_t>* mutable_dimensions() { return &dimensions_; }
  // Product of the dimensions (1 for a scalar); 0 for tuples and tokens.
  int64_t element_count() const;
  // element_count * ByteWidth for arrays; the sum over the leaves for tuples.
  int64_t byte_size() const;

  // Layout. has_layout() is false for shapes written without `{...}`.
  bool has_layout() const { return has_layout_; }
  const std::vector<int64_t>& minor_to_major() const { return minor_to_major_; }
  void set_minor_to_major(std::vector<int64_t> m2m);
  // Tiles, outermost first; each lists sizes for the minor-most dimensions.
  const std::vector<std::vector<int64_t>>& tiles() const { return tiles_; }
  void set_tiles(std::vector<std::vector<int64_t>> tiles) { tiles_ = std::move(tiles); }
  // The layout's memory space (0: the default memory).
  int64_t memory_space() const { return memory_space_; }
  void set_memory_space(int64_t memory_space) { memory_space_ = memory_space; }
  void clear_layout();
  // Sets the default row-major layout (recursively for tuples).
  void SetDefaultLayout();

  // Tuples only.
  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  const Shape& tuple_shapes(int i) const { return tuple_shapes_[i]; }
  int tuple_shapes_size() const { return static_cast<int>(tuple_shapes_.size()); }
  std::vector<Shape>* mutable_tuple_shapes() { return &tuple_shapes_; }

  // HLO text: "f32[3,4]{1,0}", "(f32[], s32[2]{0})", "token[]".
  // Tuples with more than five elements get "/*index=5*/" markers, as XLA prints.
  std::string ToString(bool print_layout = true) const;

  // Exact equality, including layout and tiles.
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }
  // Same type and dimensions (recursively), ignoring layout.
  bool Compatible(const Shape& other) const;

 private:
  PrimitiveType element_type_ = PrimitiveType::INVALID;
  std::vector<int64_t> dimensions_;
  std::vector<int64_t> minor_to_major_;
  bool has_layout_ = false;
  std::vector<std::vector<int64_t>> tiles_;
  int64_t memory_space_ = 0;
  std::vector<Shape> tuple_shapes_;
};

// The default row-major minor_to_major for a rank: {rank-1, ..., 0}.
std::vector<int64_t> DefaultMinorToMajor(int rank);

// Row-major strides, in elements, for `dims` (the layout is not consulted:
// Literal data is always dense row-major).
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

// Number of array leaves and the leaves themselves in depth-first order
// (how the evaluator and the runtime flatten tuple results).
std::vector<Shape> FlattenShape(const Shape& shape);

}  // namespace xla

#endif  // XLA_HLO_IR_SHAPE_H_
