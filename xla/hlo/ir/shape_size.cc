#include "xla/hlo/ir/shape_size.h"

#include <string>

namespace xla {

Status CheckArraySize(PrimitiveType type, const std::vector<int64_t>& dims) {
  auto too_large = [&](const std::string& what) {
    return InvalidArgument("shape " + Shape(type, dims).ToString(/*print_layout=*/false) +
                           " is too large: its " + what + " overflows int64");
  };
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      return InvalidArgument("shape " + Shape(type, dims).ToString(false) +
                             " has a negative dimension");
    }
    if (__builtin_mul_overflow(count, d, &count)) return too_large("element count");
  }
  int64_t bytes;
  if (__builtin_mul_overflow(count, static_cast<int64_t>(ByteWidth(type)), &bytes)) {
    return too_large("size in bytes");
  }
  return OkStatus();
}

Status CheckShapeSize(const Shape& shape) {
  if (shape.IsArray()) return CheckArraySize(shape.element_type(), shape.dimensions());
  if (!shape.IsTuple()) return OkStatus();
  int64_t total = 0;
  for (const Shape& leaf : shape.tuple_shapes()) {
    RETURN_IF_ERROR(CheckShapeSize(leaf));
    if (__builtin_add_overflow(total, leaf.byte_size(), &total)) {
      return InvalidArgument("tuple shape " + shape.ToString(false) +
                             " is too large: its size in bytes overflows int64");
    }
  }
  return OkStatus();
}

}  // namespace xla
