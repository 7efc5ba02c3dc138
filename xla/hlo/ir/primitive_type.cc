#include "xla/hlo/ir/primitive_type.h"

namespace xla {

std::string_view PrimitiveTypeName(PrimitiveType type) {
  switch (type) {
#define XLA_PT_NAME(name, spelling, size) \
  case PrimitiveType::name:               \
    return spelling;
    XLA_PRIMITIVE_TYPES(XLA_PT_NAME)
#undef XLA_PT_NAME
    case PrimitiveType::INVALID:
      break;
  }
  return "invalid";
}

std::optional<PrimitiveType> PrimitiveTypeFromName(std::string_view name) {
#define XLA_PT_PARSE(n, spelling, size) \
  if (name == spelling) return PrimitiveType::n;
  XLA_PRIMITIVE_TYPES(XLA_PT_PARSE)
#undef XLA_PT_PARSE
  return std::nullopt;
}

int ByteWidth(PrimitiveType type) {
  switch (type) {
#define XLA_PT_SIZE(name, spelling, size) \
  case PrimitiveType::name:               \
    return size;
    XLA_PRIMITIVE_TYPES(XLA_PT_SIZE)
#undef XLA_PT_SIZE
    case PrimitiveType::INVALID:
      break;
  }
  return 0;
}

}  // namespace xla
