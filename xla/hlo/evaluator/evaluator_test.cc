// Evaluator unit tests, each a small HLO module with hand-checked results.
#include <cmath>

#include "xla/hlo/evaluator/evaluator.h"
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"

namespace xla {
namespace {

std::vector<Literal> Run(const char* text, std::vector<Literal> args) {
  auto m = ParseHloModule(text);
  if (!m.ok()) {
    ::xla::testing::ReportFailure(__FILE__, __LINE__, m.status().ToString());
    throw ::xla::testing::TestAbort();
  }
  auto out = Evaluate(**m, args);
  if (!out.ok()) {
    ::xla::testing::ReportFailure(__FILE__, __LINE__, out.status().ToString());
    throw ::xla::testing::TestAbort();
  }
  return std::move(out).value();
}

Literal F32(std::vector<float> v) { return Literal::CreateR1<float>(PrimitiveType::F32, v); }
Literal S32(std::vector<int32_t> v) { return Literal::CreateR1<int32_t>(PrimitiveType::S32, v); }

// Elementwise arithmetic, broadcast and tuple outputs (flattened).
TEST(ElementwiseAndTuple) {
  auto out = Run(R"(HloModule m
ENTRY e {
  x = f32[3]{0} parameter(0)
  c = f32[] constant(2)
  b = f32[3]{0} broadcast(c), dimensions={}
  m = f32[3]{0} multiply(x, b)
  n = f32[3]{0} maximum(x, b)
  ROOT t = (f32[3]{0}, f32[3]{0}) tuple(m, n)
})", {F32({1, 5, NAN})});
  EXPECT_EQ(out.size(), size_t{2});
  EXPECT_EQ(out[0].ToStringWithoutShape(), "{2, 10, nan}");
  EXPECT_EQ(out[1].ToStringWithoutShape(), "{2, 5, nan}");  // max propagates NaN
}

// Integer division and shifts follow XLA's edge-case rules.
TEST(IntegerEdgeCases) {
  auto out = Run(R"(HloModule m
ENTRY e {
  a = s32[3]{0} parameter(0)
  b = s32[3]{0} parameter(1)
  d = s32[3]{0} divide(a, b)
  r = s32[3]{0} remainder(a, b)
  s = s32[3]{0} shift-right-arithmetic(a, b)
  ROOT t = (s32[3]{0}, s32[3]{0}, s32[3]{0}) tuple(d, r, s)
})", {S32({7, -2147483647 - 1, -8}), S32({0, -1, 40})});
  EXPECT_EQ(out[0].ToStringWithoutShape(), "{-1, -2147483648, 0}");
  EXPECT_EQ(out[1].ToStringWithoutShape(), "{7, 0, -8}");
  EXPECT_EQ(out[2].ToStringWithoutShape(), "{7, -1, -1}");
}

// Reduce with a reducer computation, and a while loop counting to 10.
TEST(ReduceAndWhile) {
  auto out = Run(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  p = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(i, ten), direction=LT
}
body {
  p = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  half = f32[] constant(0.5)
  x2 = f32[] add(x, half)
  ROOT t = (s32[], f32[]) tuple(i2, x2)
}
ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  z = f32[] constant(0)
  r = f32[2]{0} reduce(x, z), dimensions={1}, to_apply=add
  i0 = s32[] constant(0)
  init = (s32[], f32[]) tuple(i0, z)
  w = (s32[], f32[]) while(init), condition=cond, body=body
  ROOT t = (f32[2]{0}, (s32[], f32[])) tuple(r, w)
})", {Literal::FromBytes(Shape(PrimitiveType::F32, {2, 3}),
                         std::vector<float>{1, 2, 3, 4, 5, 6}.data(), 24)});
  EXPECT_EQ(out.size(), size_t{3});
  EXPECT_EQ(out[0].ToStringWithoutShape(), "{6, 15}");
  EXPECT_EQ(out[1].ToStringWithoutShape(), "10");
  EXPECT_EQ(out[2].ToStringWithoutShape(), "5");
}

// Dot, transpose with a layout, slice with strides, clamped dynamic-slice.
TEST(DotAndDataMovement) {
  auto out = Run(R"(HloModule m
ENTRY e {
  a = f32[2,3]{1,0} parameter(0)
  t = f32[3,2]{0,1} transpose(a), dimensions={1,0}
  d = f32[2,2]{1,0} dot(a, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[1,2]{1,0} slice(a), slice={[1:2], [0:3:2]}
  i = s32[] constant(5)
  ds = f32[2,2]{1,0} dynamic-slice(a, i, i), dynamic_slice_sizes={2,2}
  ROOT r = (f32[2,2]{1,0}, f32[1,2]{1,0}, f32[2,2]{1,0}) tuple(d, s, ds)
})", {Literal::FromBytes(Shape(PrimitiveType::F32, {2, 3}),
                         std::vector<float>{1, 2, 3, 4, 5, 6}.data(), 24)});
  EXPECT_EQ(out[0].ToStringWithoutShape(), "{ {14, 32}, {32, 77} }");
  EXPECT_EQ(out[1].ToStringWithoutShape(), "{ {4, 6} }");
  EXPECT_EQ(out[2].ToStringWithoutShape(), "{ {2, 3}, {5, 6} }");
}

// Float to int converts saturate and send NaN to 0.
TEST(ConvertSaturates) {
  auto out = Run(R"(HloModule m
ENTRY e {
  x = f32[4]{0} parameter(0)
  ROOT c = s8[4]{0} convert(x)
})", {F32({1000, -1000, NAN, -2.7f})});
  EXPECT_EQ(out[0].ToStringWithoutShape(), "{127, -128, 0, -2}");
}

}  // namespace
}  // namespace xla

TEST_MAIN()
