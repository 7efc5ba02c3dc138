// Size limits of shapes: element counts and byte sizes are int64 everywhere
// after the parser (Shape::element_count(), byte_size(), buffer allocation),
// so a shape whose product does not fit must be refused before anything
// multiplies its dimensions.
#ifndef XLA_HLO_IR_SHAPE_SIZE_H_
#define XLA_HLO_IR_SHAPE_SIZE_H_

#include <cstdint>
#include <vector>

#include "xla/hlo/ir/primitive_type.h"
#include "xla/hlo/ir/shape.h"
#include "xla/status.h"

namespace xla {

// OK when an array of `type` and `dims` has non-negative dimensions and an
// element count and byte size that fit in int64; otherwise InvalidArgument
// naming the shape.
Status CheckArraySize(PrimitiveType type, const std::vector<int64_t>& dims);
// CheckArraySize for every array leaf of `shape`, and the sum over a tuple's leaves.
Status CheckShapeSize(const Shape& shape);

}  // namespace xla

#endif  // XLA_HLO_IR_SHAPE_SIZE_H_
