// Shapes and literals to and from their wire messages (internal to
// //xla/hlo/proto). Readers check everything the text parser checks, so a
// shape or literal that comes out of them satisfies the same invariants.
#ifndef XLA_HLO_PROTO_LITERAL_PROTO_H_
#define XLA_HLO_PROTO_LITERAL_PROTO_H_

#include <string>

#include "xla/hlo/ir/literal.h"
#include "xla/hlo/ir/shape.h"
#include "xla/hlo/proto/xla_data.pb.h"
#include "xla/status.h"

namespace xla {

// Wire enum value of an element type, and back (InvalidArgument for types our
// IR has no representation of, naming them).
wire::PrimitiveType PrimitiveTypeToProto(PrimitiveType type);
StatusOr<PrimitiveType> PrimitiveTypeFromProto(int wire_type);

void ShapeToProto(const Shape& shape, wire::ShapeProto* proto);
StatusOr<Shape> ShapeFromProto(const wire::ShapeProto& proto);

void LiteralToProto(const Literal& literal, wire::LiteralProto* proto);
// The payload field of the literal's element type must hold exactly one value
// per element; every other payload field must be empty.
StatusOr<Literal> LiteralFromProto(const wire::LiteralProto& proto);

}  // namespace xla

#endif  // XLA_HLO_PROTO_LITERAL_PROTO_H_
