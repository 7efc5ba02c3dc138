// Unit tests for the IR value types: shapes print like XLA, literals print
// and convert, instructions keep users in sync.
#include <cmath>

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
