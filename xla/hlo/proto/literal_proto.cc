#include "xla/hlo/proto/literal_proto.h"

#include <cstring>
#include <utility>
#include <vector>

#include "xla/hlo/ir/attributes.h"
#include "xla/hlo/ir/shape_size.h"

namespace xla {
namespace {

struct TypePair {
  PrimitiveType ours;
  wire::PrimitiveType wire;
};

constexpr TypePair kTypePairs[] = {
    {PrimitiveType::PRED, wire::PRED},
    {PrimitiveType::S4, wire::S4},
    {PrimitiveType::S8, wire::S8},
    {PrimitiveType::S16, wire::S16},
    {PrimitiveType::S32, wire::S32},
    {PrimitiveType::S64, wire::S64},
    {PrimitiveType::U4, wire::U4},
    {PrimitiveType::U8, wire::U8},
    {PrimitiveType::U16, wire::U16},
    {PrimitiveType::U32, wire::U32},
    {PrimitiveType::U64, wire::U64},
    {PrimitiveType::F16, wire::F16},
    {PrimitiveType::F32, wire::F32},
    {PrimitiveType::F64, wire::F64},
    {PrimitiveType::BF16, wire::BF16},
    {PrimitiveType::C64, wire::C64},
    {PrimitiveType::C128, wire::C128},
    {PrimitiveType::TOKEN, wire::TOKEN},
    {PrimitiveType::TUPLE, wire::TUPLE},
    {PrimitiveType::F8E4M3FN, wire::F8E4M3FN},
    {PrimitiveType::F8E5M2, wire::F8E5M2},
    {PrimitiveType::F8E4M3FNUZ, wire::F8E4M3FNUZ},
    {PrimitiveType::F8E5M2FNUZ, wire::F8E5M2FNUZ},
    {PrimitiveType::F8E4M3B11FNUZ, wire::F8E4M3B11FNUZ},
    {PrimitiveType::F8E4M3, wire::F8E4M3},
    {PrimitiveType::F8E3M4, wire::F8E3M4},
};

// The bytes field that carries `type`'s elements, for types sent as raw
// little-endian bytes (every type narrower than 32 bits but pred).
std::string* MutableBytesPayload(PrimitiveType type, wire::LiteralProto* p) {
  switch (type) {
    case PrimitiveType::S4: return p->mutable_s4s();
    case PrimitiveType::U4: return p->mutable_u4s();
    case PrimitiveType::S8: return p->mutable_s8s();
    case PrimitiveType::U8: return p->mutable_u8s();
    case PrimitiveType::S16: return p->mutable_s16s();
    case PrimitiveType::U16: return p->mutable_u16s();
    case PrimitiveType::F16: return p->mutable_f16s();
    case PrimitiveType::BF16: return p->mutable_bf16s();
    case PrimitiveType::F8E4M3FN: return p->mutable_f8e4m3fns();
    case PrimitiveType::F8E5M2: return p->mutable_f8e5m2s();
    case PrimitiveType::F8E4M3FNUZ: return p->mutable_f8e4m3fnuzs();
    case PrimitiveType::F8E5M2FNUZ: return p->mutable_f8e5m2fnuzs();
    case PrimitiveType::F8E4M3B11FNUZ: return p->mutable_f8e4m3b11fnuzs();
    case PrimitiveType::F8E4M3: return p->mutable_f8e4m3s();
    case PrimitiveType::F8E3M4: return p->mutable_f8e3m4s();
    default: return nullptr;
  }
}

const std::string* BytesPayload(PrimitiveType type, const wire::LiteralProto& p) {
  // The const accessors name the same fields; reuse the table above without
  // mutating (the pointer is only read).
  return MutableBytesPayload(type, const_cast<wire::LiteralProto*>(&p));
}

// How many values each payload field holds, to find stray ones.
std::vector<std::pair<const char*, size_t>> PayloadSizes(const wire::LiteralProto& p) {
  return {{"preds", p.preds_size()},     {"s4s", p.s4s().size()},
          {"s8s", p.s8s().size()},       {"s16s", p.s16s().size()},
          {"s32s", p.s32s_size()},       {"s64s", p.s64s_size()},
          {"u4s", p.u4s().size()},       {"u8s", p.u8s().size()},
          {"u16s", p.u16s().size()},     {"u32s", p.u32s_size()},
          {"u64s", p.u64s_size()},       {"f16s", p.f16s().size()},
          {"bf16s", p.bf16s().size()},   {"f32s", p.f32s_size()},
          {"f64s", p.f64s_size()},       {"c64s", p.c64s_size()},
          {"c128s", p.c128s_size()},     {"f8e4m3fns", p.f8e4m3fns().size()},
          {"f8e5m2s", p.f8e5m2s().size()}, {"f8e4m3fnuzs", p.f8e4m3fnuzs().size()},
          {"f8e5m2fnuzs", p.f8e5m2fnuzs().size()},
          {"f8e4m3b11fnuzs", p.f8e4m3b11fnuzs().size()},
          {"f8e4m3s", p.f8e4m3s().size()}, {"f8e3m4s", p.f8e3m4s().size()},
          {"tuple_literals", p.tuple_literals_size()}};
}

// Name of the payload field that `type` uses (for messages).
const char* PayloadName(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::PRED: return "preds";
    case PrimitiveType::S32: return "s32s";
    case PrimitiveType::S64: return "s64s";
    case PrimitiveType::U32: return "u32s";
    case PrimitiveType::U64: return "u64s";
    case PrimitiveType::F32: return "f32s";
    case PrimitiveType::F64: return "f64s";
    case PrimitiveType::C64: return "c64s";
    case PrimitiveType::C128: return "c128s";
    case PrimitiveType::TUPLE: return "tuple_literals";
    default: break;
  }
  static thread_local std::string name;
  name = std::string(PrimitiveTypeName(type)) + "s";
  return name.c_str();
}

template <typename T, typename Repeated>
void AppendValues(const Literal& literal, Repeated* out) {
  const T* data = literal.data<T>();
  out->Reserve(static_cast<int>(literal.element_count()));
  for (int64_t i = 0; i < literal.element_count(); ++i) out->Add(data[i]);
}

template <typename T, typename Repeated>
void CopyValues(const Repeated& in, Literal* literal) {
  T* data = literal->data<T>();
  for (int i = 0; i < in.size(); ++i) data[i] = static_cast<T>(in.Get(i));
}

void ArrayPayloadToProto(const Literal& literal, wire::LiteralProto* p) {
  PrimitiveType type = literal.shape().element_type();
  if (std::string* bytes = MutableBytesPayload(type, p)) {
    bytes->assign(static_cast<const char*>(literal.untyped_data()), literal.size_bytes());
    return;
  }
  switch (type) {
    case PrimitiveType::PRED: {
      const uint8_t* data = literal.data<uint8_t>();
      p->mutable_preds()->Reserve(static_cast<int>(literal.element_count()));
      for (int64_t i = 0; i < literal.element_count(); ++i) p->add_preds(data[i] != 0);
      return;
    }
    case PrimitiveType::S32: AppendValues<int32_t>(literal, p->mutable_s32s()); return;
    case PrimitiveType::S64: AppendValues<int64_t>(literal, p->mutable_s64s()); return;
    case PrimitiveType::U32: AppendValues<uint32_t>(literal, p->mutable_u32s()); return;
    case PrimitiveType::U64: AppendValues<uint64_t>(literal, p->mutable_u64s()); return;
    case PrimitiveType::F32: AppendValues<float>(literal, p->mutable_f32s()); return;
    case PrimitiveType::F64: AppendValues<double>(literal, p->mutable_f64s()); return;
    case PrimitiveType::C64: {
      // (real, imaginary) pairs are two floats each, in memory order.
      const float* parts = literal.data<float>();
      for (int64_t i = 0; i < 2 * literal.element_count(); ++i) p->add_c64s(parts[i]);
      return;
    }
    case PrimitiveType::C128: {
      const double* parts = literal.data<double>();
      for (int64_t i = 0; i < 2 * literal.element_count(); ++i) p->add_c128s(parts[i]);
      return;
    }
    default:
      return;  // tokens carry no values
  }
}

// Checks, before anything is allocated, that the payload field of `shape`'s
// element type holds exactly one value per element and no other field holds any.
Status CheckPayload(const wire::LiteralProto& p, const Shape& shape) {
  PrimitiveType type = shape.element_type();
  const char* field = PayloadName(type);
  size_t expected = static_cast<size_t>(shape.element_count());
  if (IsComplex(type)) expected *= 2;
  if (BytesPayload(type, p) != nullptr) expected *= ByteWidth(type);
  for (const auto& [name, size] : PayloadSizes(p)) {
    bool own = std::strcmp(name, field) == 0;
    if (own && size != expected) {
      return InvalidArgument("literal of shape " + shape.ToString() + " needs " +
                             std::to_string(expected) + " values in " + name + ", has " +
                             std::to_string(size));
    }
    if (!own && size != 0) {
      return InvalidArgument("literal of shape " + shape.ToString() + " has values in " + name +
                             " (expected only " + field + ")");
    }
  }
  return OkStatus();
}

// Fills `literal` (shaped and zeroed) from a payload CheckPayload accepted.
void ArrayPayloadFromProto(const wire::LiteralProto& p, Literal* literal) {
  PrimitiveType type = literal->shape().element_type();
  int64_t count = literal->element_count();
  if (const std::string* bytes = BytesPayload(type, p)) {
    if (!bytes->empty()) std::memcpy(literal->mutable_untyped_data(), bytes->data(), bytes->size());
    if (IsInt4(type)) {
      // Our 4-bit values keep zeros above the low nibble.
      uint8_t* data = static_cast<uint8_t*>(literal->mutable_untyped_data());
      for (int64_t i = 0; i < count; ++i) data[i] &= 0xf;
    }
    return;
  }
  switch (type) {
    case PrimitiveType::PRED: CopyValues<uint8_t>(p.preds(), literal); break;
    case PrimitiveType::S32: CopyValues<int32_t>(p.s32s(), literal); break;
    case PrimitiveType::S64: CopyValues<int64_t>(p.s64s(), literal); break;
    case PrimitiveType::U32: CopyValues<uint32_t>(p.u32s(), literal); break;
    case PrimitiveType::U64: CopyValues<uint64_t>(p.u64s(), literal); break;
    case PrimitiveType::F32: CopyValues<float>(p.f32s(), literal); break;
    case PrimitiveType::F64: CopyValues<double>(p.f64s(), literal); break;
    case PrimitiveType::C64: CopyValues<float>(p.c64s(), literal); break;
    case PrimitiveType::C128: CopyValues<double>(p.c128s(), literal); break;
    default: break;
  }
}

Status CheckLayout(const wire::LayoutProto& layout, PrimitiveType type, int rank) {
  std::vector<bool> used(rank, false);
  bool ok = layout.minor_to_major_size() == rank;
  for (int64_t d : layout.minor_to_major()) {
    if (!ok || d < 0 || d >= rank || used[d]) {
      ok = false;
      break;
    }
    used[d] = true;
  }
  if (!ok) {
    std::vector<int64_t> m2m(layout.minor_to_major().begin(), layout.minor_to_major().end());
    return InvalidArgument("layout {" + JoinInts(m2m) + "} is not a permutation of the " +
                           std::to_string(rank) + " dimensions");
  }
  int64_t natural_bits = IsInt4(type) ? 4 : 8 * ByteWidth(type);
  if (layout.element_size_in_bits() != 0 && layout.element_size_in_bits() != natural_bits) {
    return InvalidArgument("layout element size of " + std::to_string(layout.element_size_in_bits()) +
                           " bits for " + std::string(PrimitiveTypeName(type)) + " is not supported");
  }
  if (layout.memory_space() < 0) {
    return InvalidArgument("layout memory space " + std::to_string(layout.memory_space()) +
                           " must not be negative");
  }
  // A tile may have more dimensions than the array (a TPU scalar's T(128)), and
  // a later tile more than the one before: each tiles what the others made.
  for (const wire::TileProto& tile : layout.tiles()) {
    if (tile.dimensions_size() == 0) return InvalidArgument("a layout tile has no dimensions");
    for (int64_t size : tile.dimensions()) {
      if (size < 1) return InvalidArgument("tile size " + std::to_string(size) + " must be positive");
    }
  }
  return OkStatus();
}

StatusOr<Shape> ArrayShapeFromProto(const wire::ShapeProto& proto, PrimitiveType type) {
  std::vector<int64_t> dims(proto.dimensions().begin(), proto.dimensions().end());
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("negative dimension size " + std::to_string(d));
  }
  for (bool dynamic : proto.is_dynamic_dimension()) {
    if (dynamic) return InvalidArgument("dynamic dimensions are not supported");
  }
  RETURN_IF_ERROR(CheckArraySize(type, dims));
  Shape shape(type, dims);
  if (!proto.has_layout()) {
    shape.clear_layout();
    return shape;
  }
  RETURN_IF_ERROR(CheckLayout(proto.layout(), type, shape.rank()));
  shape.set_minor_to_major({proto.layout().minor_to_major().begin(), proto.layout().minor_to_major().end()});
  std::vector<std::vector<int64_t>> tiles;
  for (const wire::TileProto& tile : proto.layout().tiles()) {
    tiles.emplace_back(tile.dimensions().begin(), tile.dimensions().end());
  }
  shape.set_tiles(std::move(tiles));
  shape.set_memory_space(proto.layout().memory_space());
  return shape;
}

}  // namespace

wire::PrimitiveType PrimitiveTypeToProto(PrimitiveType type) {
  for (const TypePair& p : kTypePairs) {
    if (p.ours == type) return p.wire;
  }
  return wire::PRIMITIVE_TYPE_INVALID;
}

StatusOr<PrimitiveType> PrimitiveTypeFromProto(int wire_type) {
  for (const TypePair& p : kTypePairs) {
    if (static_cast<int>(p.wire) == wire_type) return p.ours;
  }
  std::string name = wire::PrimitiveType_IsValid(wire_type)
                         ? wire::PrimitiveType_Name(static_cast<wire::PrimitiveType>(wire_type))
                         : "number " + std::to_string(wire_type);
  return InvalidArgument("element type " + name + " is not supported");
}

void ShapeToProto(const Shape& shape, wire::ShapeProto* proto) {
  proto->set_element_type(PrimitiveTypeToProto(shape.element_type()));
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) ShapeToProto(element, proto->add_tuple_shapes());
    return;
  }
  if (!shape.IsArray()) return;
  for (int64_t d : shape.dimensions()) proto->add_dimensions(d);
  // A scalar's layout is empty, so writing one never changes its meaning;
  // XLA insists on it where it checks literal shapes against instructions.
  if (!shape.has_layout() && shape.rank() > 0) return;
  wire::LayoutProto* layout = proto->mutable_layout();
  for (int64_t d : shape.minor_to_major()) layout->add_minor_to_major(d);
  for (const std::vector<int64_t>& tile : shape.tiles()) {
    wire::TileProto* t = layout->add_tiles();
    for (int64_t size : tile) t->add_dimensions(size);
  }
  if (shape.memory_space() != 0) layout->set_memory_space(shape.memory_space());
}

StatusOr<Shape> ShapeFromProto(const wire::ShapeProto& proto) {
  ASSIGN_OR_RETURN(PrimitiveType type, PrimitiveTypeFromProto(proto.element_type()));
  if (type == PrimitiveType::TOKEN) return Shape::MakeToken();
  if (type != PrimitiveType::TUPLE) {
    if (proto.tuple_shapes_size() != 0) {
      return InvalidArgument("an array shape cannot have tuple elements");
    }
    return ArrayShapeFromProto(proto, type);
  }
  if (proto.dimensions_size() != 0) return InvalidArgument("a tuple shape cannot have dimensions");
  std::vector<Shape> elements;
  elements.reserve(proto.tuple_shapes_size());
  for (int i = 0; i < proto.tuple_shapes_size(); ++i) {
    StatusOr<Shape> element = ShapeFromProto(proto.tuple_shapes(i));
    if (!element.ok()) {
      return element.status().WithContext("tuple element " + std::to_string(i));
    }
    elements.push_back(std::move(*element));
  }
  return Shape::MakeTuple(std::move(elements));
}

void LiteralToProto(const Literal& literal, wire::LiteralProto* proto) {
  // XLA refuses literals without a layout; ours may have none (a scalar
  // written "f32[]"), and storage is row-major either way.
  Shape shape = literal.shape();
  if (shape.IsArray() && !shape.has_layout()) shape.SetDefaultLayout();
  ShapeToProto(shape, proto->mutable_shape());
  if (literal.IsTuple()) {
    for (const Literal& element : literal.tuple_elements()) {
      LiteralToProto(element, proto->add_tuple_literals());
    }
    return;
  }
  ArrayPayloadToProto(literal, proto);
}

StatusOr<Literal> LiteralFromProto(const wire::LiteralProto& proto) {
  if (!proto.has_shape()) return InvalidArgument("literal has no shape");
  ASSIGN_OR_RETURN(Shape shape, ShapeFromProto(proto.shape()));
  RETURN_IF_ERROR(CheckShapeSize(shape));
  if (shape.IsTuple()) {
    if (proto.tuple_literals_size() != shape.tuple_shapes_size()) {
      return InvalidArgument("tuple literal of shape " + shape.ToString() + " has " +
                             std::to_string(proto.tuple_literals_size()) + " elements");
    }
    std::vector<Literal> elements;
    for (int i = 0; i < proto.tuple_literals_size(); ++i) {
      StatusOr<Literal> element = LiteralFromProto(proto.tuple_literals(i));
      if (!element.ok()) return element.status().WithContext("tuple element " + std::to_string(i));
      if (!element->shape().Compatible(shape.tuple_shapes(i))) {
        return InvalidArgument("tuple literal element " + std::to_string(i) + " has shape " +
                               element->shape().ToString() + ", expected " +
                               shape.tuple_shapes(i).ToString());
      }
      elements.push_back(std::move(*element));
    }
    Literal literal = Literal::MakeTuple(std::move(elements));
    return literal;
  }
  if (shape.IsToken()) return InvalidArgument("a literal cannot have a token shape");
  RETURN_IF_ERROR(CheckPayload(proto, shape));
  Literal literal(shape);
  ArrayPayloadFromProto(proto, &literal);
  return literal;
}

}  // namespace xla
