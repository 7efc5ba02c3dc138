// Unit tests for the IR value types: shapes print like XLA, literals print
// and convert, instructions keep users in sync.
#include <cmath>
#include <vector>

#include "xla/hlo/ir/module.h"
#include "xla/hlo/testing/check.h"

namespace xla {
namespace {

// Shapes print in HLO text form, layouts included, scalars without one.
TEST(ShapeToString) {
  EXPECT_EQ(Shape(PrimitiveType::F32, {3, 4}).ToString(), "f32[3,4]{1,0}");
  EXPECT_EQ(Shape(PrimitiveType::F32, {4, 4}, {0, 1}).ToString(), "f32[4,4]{0,1}");
  EXPECT_EQ(Shape::Scalar(PrimitiveType::S32).ToString(), "s32[]");
  std::vector<Shape> six(6, Shape(PrimitiveType::PRED, {2}));
  EXPECT_EQ(Shape::MakeTuple(six).ToString(),
            "(pred[2]{0}, pred[2]{0}, pred[2]{0}, pred[2]{0}, pred[2]{0}, /*index=5*/pred[2]{0})");
  EXPECT_EQ(Shape(PrimitiveType::C64, {2, 3}).byte_size(), 48);
  EXPECT_EQ(Shape(PrimitiveType::F32, {0, 3}).element_count(), 0);
}

// The opcode table round-trips spellings and knows arities.
TEST(OpcodeTable) {
  EXPECT_EQ(HloOpcodeString(HloOpcode::kGetTupleElement), "get-tuple-element");
  EXPECT_TRUE(StringToHloOpcode("round-nearest-afz") == HloOpcode::kRoundNearestAfz);
  EXPECT_TRUE(!StringToHloOpcode("bogus").has_value());
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kSelect), 3);
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kTuple), -1);
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    HloOpcode op = static_cast<HloOpcode>(i);
    EXPECT_TRUE(StringToHloOpcode(HloOpcodeString(op)) == op);
  }
}

// Literals print the way XLA prints constants.
TEST(LiteralToString) {
  EXPECT_EQ(Literal::CreateR0<float>(PrimitiveType::F32, std::log(2.0f)).ToStringWithoutShape(),
            "0.693147182");
  EXPECT_EQ(Literal::CreateR0<double>(PrimitiveType::F64, 0.1).ToStringWithoutShape(), "0.1");
  EXPECT_EQ(Literal::CreateR0<float>(PrimitiveType::F32, -INFINITY).ToStringWithoutShape(), "-inf");
  EXPECT_EQ(Literal::CreateR1<uint32_t>(PrimitiveType::U32, {13, 15}).ToStringWithoutShape(),
            "{13, 15}");
  EXPECT_EQ(Literal(Shape(PrimitiveType::F32, {0, 3})).ToStringWithoutShape(), "{  }");
  Literal l(Shape(PrimitiveType::F32, {1, 1}));
  l.SetFromDouble(0, 60);
  EXPECT_EQ(l.ToStringWithoutShape(), "{ {60} }");
  EXPECT_EQ(Literal::CreateR0(PrimitiveType::C64, std::complex<float>(2, 0)).ToStringWithoutShape(),
            "(2, 0)");
}

// f16 and bf16 conversions round to nearest even and keep specials.
TEST(HalfConversions) {
  EXPECT_EQ(FloatToHalf(1.0f).bits, 0x3c00);
  EXPECT_EQ(FloatToHalf(65504.0f).bits, 0x7bff);
  EXPECT_EQ(FloatToHalf(70000.0f).bits, 0x7c00);
  EXPECT_EQ(HalfToFloat(half{0x0001}), std::ldexp(1.0f, -24));
  EXPECT_EQ(FloatToBF16(1.0f).bits, 0x3f80);
  EXPECT_EQ(BF16ToFloat(bfloat16{0x4049}), 3.140625f);
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(NAN))));
}

// double -> f16 rounds once: values just above a tie round up even where the
// float in between would be the tie itself (and round to even, down).
TEST(DoubleToHalfRoundsOnce) {
  EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)).bits, 0x3c01);
  EXPECT_EQ(FloatToHalf(static_cast<float>(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40))).bits,
            0x3c00);
  EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11)).bits, 0x3c00);  // a real tie: to even
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -25) + std::ldexp(1.0, -50)).bits, 0x0001);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -25)).bits, 0x0000);
  EXPECT_EQ(DoubleToHalf(-std::ldexp(1.0, -14)).bits, 0x8400);
  EXPECT_EQ(DoubleToHalf(65519.99).bits, 0x7bff);
  EXPECT_EQ(DoubleToHalf(65520.0).bits, 0x7c00);
  EXPECT_EQ(DoubleToHalf(-1e300).bits, 0xfc00);
  EXPECT_EQ(DoubleToHalf(-0.0).bits, 0x8000);
  EXPECT_EQ(DoubleToHalf(INFINITY).bits, 0x7c00);
  EXPECT_TRUE(std::isnan(HalfToFloat(DoubleToHalf(NAN))));
  for (float f : {0.1f, 1.5f, 3.14159f, 1e-5f, 6e-8f, 65504.0f, 2e-3f}) {
    EXPECT_EQ(DoubleToHalf(f).bits, FloatToHalf(f).bits);  // exact floats agree
  }
}

constexpr PrimitiveType kF8Types[] = {
    PrimitiveType::F8E4M3FN, PrimitiveType::F8E5M2, PrimitiveType::F8E4M3FNUZ,
    PrimitiveType::F8E5M2FNUZ, PrimitiveType::F8E4M3B11FNUZ, PrimitiveType::F8E4M3,
    PrimitiveType::F8E3M4};

// Every F8 bit pattern converts to its value and back to itself; NaNs come
// back as the format's one quiet NaN (with their sign where the format has one).
TEST(Float8BitPatternsRoundTrip) {
  for (PrimitiveType t : kF8Types) {
    EXPECT_EQ(ByteWidth(t), 1);
    EXPECT_TRUE(PrimitiveTypeFromName(PrimitiveTypeName(t)) == t);
    const Float8Format f = Float8FormatOf(t);
    for (int bits = 0; bits < 256; ++bits) {
      const float v = Float8ToFloat(t, static_cast<uint8_t>(bits));
      uint8_t expected = static_cast<uint8_t>(bits);
      if (std::isnan(v)) {
        expected = f.style == Float8Style::kUnsignedZero ? f.nan
                                                         : static_cast<uint8_t>((bits & 0x80) | f.nan);
      }
      EXPECT_EQ(DoubleToFloat8(t, v), expected);
    }
  }
}

// Values at the edges of each format, as ml_dtypes converts them.
TEST(Float8Conversions) {
  using P = PrimitiveType;
  EXPECT_EQ(Float8ToFloat(P::F8E4M3FN, 0x7e), 448.0f);
  EXPECT_EQ(Float8ToFloat(P::F8E4M3FN, 0x01), std::ldexp(1.0f, -9));
  EXPECT_TRUE(std::isnan(Float8ToFloat(P::F8E4M3FN, 0xff)));
  EXPECT_EQ(DoubleToFloat8(P::F8E4M3FN, 463.99), 0x7e);
  EXPECT_EQ(DoubleToFloat8(P::F8E4M3FN, 464.0), 0x7e);       // the tie above the max: to even
  EXPECT_EQ(DoubleToFloat8(P::F8E4M3FN, 464.5), 0x7f);       // overflow: NaN, no inf
  EXPECT_EQ(DoubleToFloat8(P::F8E4M3FN, -INFINITY), 0xff);
  EXPECT_EQ(DoubleToFloat8(P::F8E4M3FN, 1.0625), 0x38);      // tie: to even (1.0)
  EXPECT_EQ(DoubleToFloat8(P::F8E4M3FN, 1.1875), 0x3a);      // tie: to even (1.25)
  EXPECT_EQ(DoubleToFloat8(P::F8E4M3FN, 15.5), 0x58);        // 15.5 rounds up a binade, to 16
  EXPECT_EQ(DoubleToFloat8(P::F8E4M3FN, std::ldexp(1.0, -10)), 0x00);  // half the least: to even
  EXPECT_EQ(DoubleToFloat8(P::F8E4M3FN, -0.0), 0x80);
  EXPECT_EQ(DoubleToFloat8(P::F8E5M2, 57344.0), 0x7b);
  EXPECT_EQ(DoubleToFloat8(P::F8E5M2, 61440.0), 0x7c);       // the tie above the max: inf
  EXPECT_EQ(DoubleToFloat8(P::F8E5M2, -NAN), 0xfe);
  EXPECT_EQ(Float8ToFloat(P::F8E5M2, 0xfc), -INFINITY);
  EXPECT_EQ(DoubleToFloat8(P::F8E4M3FNUZ, -0.0), 0x00);      // no -0
  EXPECT_EQ(DoubleToFloat8(P::F8E4M3FNUZ, -1e-30), 0x00);
  EXPECT_EQ(DoubleToFloat8(P::F8E4M3FNUZ, 240.0), 0x7f);
  EXPECT_EQ(DoubleToFloat8(P::F8E4M3FNUZ, 1e9), 0x80);       // overflow: the NaN
  EXPECT_TRUE(std::isnan(Float8ToFloat(P::F8E4M3FNUZ, 0x80)));
  EXPECT_EQ(Float8ToFloat(P::F8E4M3B11FNUZ, 0x7f), 30.0f);
  EXPECT_EQ(Float8ToFloat(P::F8E5M2FNUZ, 0x01), std::ldexp(1.0f, -17));
  EXPECT_EQ(Float8ToFloat(P::F8E4M3, 0x77), 240.0f);
  EXPECT_EQ(DoubleToFloat8(P::F8E4M3, 248.0), 0x78);         // inf
  EXPECT_EQ(Float8ToFloat(P::F8E3M4, 0x6f), 15.5f);
  EXPECT_EQ(DoubleToFloat8(P::F8E3M4, 0.015625), 0x01);
}

// double -> f8 rounds once: just above a tie rounds up, where the float in
// between would be the tie itself and round to even.
TEST(DoubleToFloat8RoundsOnce) {
  const double above_tie = 1.0625 + std::ldexp(1.0, -40);
  EXPECT_EQ(DoubleToFloat8(PrimitiveType::F8E4M3FN, above_tie), 0x39);
  EXPECT_EQ(DoubleToFloat8(PrimitiveType::F8E4M3FN, static_cast<float>(above_tie)), 0x38);
}

// F8 literals print with as few digits as read back, and set from doubles.
TEST(Float8Literals) {
  Literal l(Shape(PrimitiveType::F8E4M3FN, {4}));
  for (int i = 0; i < 4; ++i) l.SetFromDouble(i, std::vector<double>{1.5, 448, -0.3, NAN}[i]);
  EXPECT_EQ(l.ToStringWithoutShape(), "{1.5, 448, -0.3, nan}");
  EXPECT_EQ(l.Get<float8<PrimitiveType::F8E4M3FN>>(1).bits, 0x7e);
  Literal e(Shape(PrimitiveType::F8E5M2, {2}));
  e.SetFromDouble(0, 1e6);
  e.SetFromDouble(1, 0.75);
  EXPECT_EQ(e.ToStringWithoutShape(), "{inf, 0.8}");  // 0.8 reads back as 0.75
  EXPECT_EQ(Shape(PrimitiveType::F8E3M4, {3, 2}).ToString(), "f8e3m4[3,2]{1,0}");
}

// s4/u4 literals hold the low 4 bits per byte (ml_dtypes' layout), wrap like XLA's
// integer converts, and print their values.
TEST(Int4Literals) {
  Literal s(Shape(PrimitiveType::S4, {4}));
  for (int i = 0; i < 4; ++i) s.SetFromInt64(i, std::vector<int64_t>{-2, 7, -8, 300}[i]);
  EXPECT_EQ(s.ToStringWithoutShape(), "{-2, 7, -8, -4}");
  EXPECT_EQ(s.Get<int4>(0).bits, 0x0e);
  EXPECT_EQ(s.GetAsInt64(2), -8);
  EXPECT_EQ(s.GetAsDouble(1), 7.0);
  Literal u(Shape(PrimitiveType::U4, {2}));
  u.SetFromInt64(0, 15);
  u.SetFromInt64(1, 17);
  EXPECT_EQ(u.ToStringWithoutShape(), "{15, 1}");
  EXPECT_EQ(ByteWidth(PrimitiveType::S4), 1);
  EXPECT_TRUE(IsSignedInteger(PrimitiveType::S4) && IsUnsignedInteger(PrimitiveType::U4));
  EXPECT_TRUE(PrimitiveTypeFromName("u4") == PrimitiveType::U4);
}

// Operand mutation keeps users lists in sync; RAUW moves the root too.
TEST(UsersAndReplace) {
  HloComputation comp("c");
  Shape s(PrimitiveType::F32, {2});
  HloInstruction* p0 = comp.AddInstruction(HloInstruction::CreateParameter(0, s, "p0"));
  HloInstruction* p1 = comp.AddInstruction(HloInstruction::CreateParameter(1, s, "p1"));
  HloInstruction* add = comp.AddInstruction(HloInstruction::Create(HloOpcode::kAdd, s, {p0, p0}, "add"));
  comp.set_root_instruction(add);
  EXPECT_EQ(p0->user_count(), 1);
  add->ReplaceOperandWith(0, p1);
  EXPECT_EQ(p0->user_count(), 1);
  EXPECT_EQ(p1->user_count(), 1);
  HloInstruction* neg = comp.AddInstruction(HloInstruction::Create(HloOpcode::kNegate, s, {p1}, "neg"));
  CHECK_OK(add->ReplaceAllUsesWith(neg));
  EXPECT_TRUE(comp.root_instruction() == neg);
  CHECK_OK(comp.RemoveInstruction(add));
  EXPECT_EQ(p0->user_count(), 0);
  EXPECT_EQ(comp.instruction_count(), 3);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
