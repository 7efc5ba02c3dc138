// Element types of HLO shapes, listed once.
#ifndef XLA_HLO_IR_PRIMITIVE_TYPE_H_
#define XLA_HLO_IR_PRIMITIVE_TYPE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace xla {

// V(enum name, HLO spelling, byte size (0: not an array element)). s4/u4 take a
// byte each, the value in its low 4 bits and zeros above (ml_dtypes' layout).
#define XLA_PRIMITIVE_TYPES(V) \
  V(PRED, "pred", 1)           \
  V(S8, "s8", 1)               \
  V(S16, "s16", 2)             \
  V(S32, "s32", 4)             \
  V(S64, "s64", 8)             \
  V(U8, "u8", 1)               \
  V(U16, "u16", 2)             \
  V(U32, "u32", 4)             \
  V(U64, "u64", 8)             \
  V(F16, "f16", 2)             \
  V(F32, "f32", 4)             \
  V(F64, "f64", 8)             \
  V(BF16, "bf16", 2)           \
  V(C64, "c64", 8)             \
  V(C128, "c128", 16)          \
  V(TOKEN, "token", 0)         \
  V(TUPLE, "tuple", 0)         \
  V(F8E4M3FN, "f8e4m3fn", 1)   \
  V(F8E5M2, "f8e5m2", 1)       \
  V(F8E4M3FNUZ, "f8e4m3fnuz", 1) \
  V(F8E5M2FNUZ, "f8e5m2fnuz", 1) \
  V(F8E4M3B11FNUZ, "f8e4m3b11fnuz", 1) \
  V(F8E4M3, "f8e4m3", 1)       \
  V(F8E3M4, "f8e3m4", 1)       \
  V(S4, "s4", 1)               \
  V(U4, "u4", 1)

enum class PrimitiveType : int32_t {
  INVALID = 0,
#define XLA_PT_ENUM(name, spelling, size) name,
  XLA_PRIMITIVE_TYPES(XLA_PT_ENUM)
#undef XLA_PT_ENUM
};

// Lowercase HLO spelling ("f32"); "invalid" for INVALID.
std::string_view PrimitiveTypeName(PrimitiveType type);
// Parses "f32" etc.; nullopt for an unknown name.
std::optional<PrimitiveType> PrimitiveTypeFromName(std::string_view name);
// Bytes per element; 0 for TOKEN, TUPLE and INVALID.
int ByteWidth(PrimitiveType type);

// The 8-bit floats (stored in one byte, computed in f32).
inline bool IsF8(PrimitiveType t) {
  return t == PrimitiveType::F8E4M3FN || t == PrimitiveType::F8E5M2 ||
         t == PrimitiveType::F8E4M3FNUZ || t == PrimitiveType::F8E5M2FNUZ ||
         t == PrimitiveType::F8E4M3B11FNUZ || t == PrimitiveType::F8E4M3 ||
         t == PrimitiveType::F8E3M4;
}
inline bool IsFloatingPoint(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::F32 ||
         t == PrimitiveType::F64 || t == PrimitiveType::BF16 || IsF8(t);
}
inline bool IsComplex(PrimitiveType t) {
  return t == PrimitiveType::C64 || t == PrimitiveType::C128;
}
inline bool IsSignedInteger(PrimitiveType t) {
  return t == PrimitiveType::S4 || t == PrimitiveType::S8 || t == PrimitiveType::S16 ||
         t == PrimitiveType::S32 || t == PrimitiveType::S64;
}
inline bool IsUnsignedInteger(PrimitiveType t) {
  return t == PrimitiveType::U4 || t == PrimitiveType::U8 || t == PrimitiveType::U16 ||
         t == PrimitiveType::U32 || t == PrimitiveType::U64;
}
// 4-bit integers: one per byte in memory, 4 bits wide in arithmetic.
inline bool IsInt4(PrimitiveType t) { return t == PrimitiveType::S4 || t == PrimitiveType::U4; }
inline bool IsInteger(PrimitiveType t) { return IsSignedInteger(t) || IsUnsignedInteger(t); }
inline bool IsArrayType(PrimitiveType t) {
  return t != PrimitiveType::INVALID && t != PrimitiveType::TOKEN && t != PrimitiveType::TUPLE;
}

}  // namespace xla

#endif  // XLA_HLO_IR_PRIMITIVE_TYPE_H_
