// Bf16DotRewriter tests, written in HLO text.
#include "xla/backends/tpu/bf16_dot_rewriter.h"

#include "xla/hlo/evaluator/evaluator.h"
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"

namespace xla::tpu {
namespace {

// Runs the pass; returns the module text, or "unchanged".
std::string Rewrite(const std::string& text) {
  auto m = ParseHloModule(text);
  CHECK_OK(m);
  Bf16DotRewriter pass;
  auto changed = pass.Run(m->get());
  CHECK_OK(changed);
  return *changed ? ToString(**m) : "unchanged";
}

// A default-precision f32 dot reads bf16 operands and still produces f32.
TEST(DefaultPrecisionDotGetsBf16Operands) {
  EXPECT_EQ(Rewrite(R"(HloModule m

ENTRY e {
  a = f32[8,32]{1,0} parameter(0)
  b = f32[32,12]{1,0} parameter(1)
  ROOT d = f32[8,12]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

)"),
            std::string(R"(HloModule m

ENTRY e {
  a = f32[8,32]{1,0} parameter(0)
  b = f32[32,12]{1,0} parameter(1)
  a.bf16 = bf16[8,32]{1,0} convert(a)
  b.bf16 = bf16[32,12]{1,0} convert(b)
  ROOT d = f32[8,12]{1,0} dot(a.bf16, b.bf16), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

)"));
}

// HIGHEST or HIGH on either operand keeps the op in f32; so do other types.
TEST(FullPrecisionAndOtherTypesStay) {
  EXPECT_EQ(Rewrite(R"(HloModule m

ENTRY e {
  a = f32[4,4]{1,0} parameter(0)
  ROOT d = f32[4,4]{1,0} dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={highest,highest}
}
)"),
            std::string("unchanged"));
  EXPECT_EQ(Rewrite(R"(HloModule m

ENTRY e {
  a = f32[4,4]{1,0} parameter(0)
  ROOT d = f32[4,4]{1,0} dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={DEFAULT,HIGH}
}
)"),
            std::string("unchanged"));
  EXPECT_EQ(Rewrite(R"(HloModule m

ENTRY e {
  a = s32[4,4]{1,0} parameter(0)
  b = bf16[4,4]{1,0} parameter(1)
  c = f32[4,4]{1,0} parameter(2)
  i = s32[4,4]{1,0} dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  m = f32[4,4]{1,0} dot(b, c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (s32[4,4]{1,0}, f32[4,4]{1,0}) tuple(i, m)
}
)"),
            std::string("unchanged"));
}

// One convert per value, shared by its uses; a value converted from bf16 is
// read as that bf16 (the f32 convert is left for DCE); convolutions are
// rewritten like dots.
TEST(SharesConvertsAndReusesBf16Sources) {
  EXPECT_EQ(Rewrite(R"(HloModule m

ENTRY e {
  x = f32[1,4,8,8]{3,2,1,0} parameter(0)
  k16 = bf16[4,4,3,3]{3,2,1,0} parameter(1)
  k = f32[4,4,3,3]{3,2,1,0} convert(k16)
  c1 = f32[1,4,6,6]{3,2,1,0} convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01
  c2 = f32[1,4,6,6]{3,2,1,0} convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01, operand_precision={default,default}
  ROOT s = f32[1,4,6,6]{3,2,1,0} add(c1, c2)
}

)"),
            std::string(R"(HloModule m

ENTRY e {
  x = f32[1,4,8,8]{3,2,1,0} parameter(0)
  k16 = bf16[4,4,3,3]{3,2,1,0} parameter(1)
  k = f32[4,4,3,3]{3,2,1,0} convert(k16)
  x.bf16 = bf16[1,4,8,8]{3,2,1,0} convert(x)
  c1 = f32[1,4,6,6]{3,2,1,0} convolution(x.bf16, k16), window={size=3x3}, dim_labels=bf01_oi01->bf01
  c2 = f32[1,4,6,6]{3,2,1,0} convolution(x.bf16, k16), window={size=3x3}, dim_labels=bf01_oi01->bf01, operand_precision={default,default}
  ROOT s = f32[1,4,6,6]{3,2,1,0} add(c1, c2)
}

)"));
}

// The evaluator shows the precision the rewrite models: 1 + 2^-9 is not a
// bf16 value, so the default-precision dot sees 1; HIGHEST keeps it.
TEST(DefaultPrecisionRoundsOperandsToBf16) {
  auto dot_of = [](const std::string& precision) {
    auto m = ParseHloModule(R"(HloModule m

ENTRY e {
  a = f32[1,2]{1,0} parameter(0)
  b = f32[2,1]{1,0} parameter(1)
  ROOT d = f32[1,1]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})" +
                            precision + "\n}\n");
    CHECK_OK(m);
    Bf16DotRewriter pass;
    CHECK_OK(pass.Run(m->get()));
    Literal a(Shape(PrimitiveType::F32, {1, 2}));
    a.Set<float>(0, 1.0f + 1.0f / 512);
    a.Set<float>(1, 1.0f);
    Literal b(Shape(PrimitiveType::F32, {2, 1}));
    b.Set<float>(0, 1.0f);
    b.Set<float>(1, 1.0f);
    auto out = Evaluate(**m, {a, b});
    CHECK_OK(out);
    return (*out)[0].Get<float>(0);
  };
  EXPECT_EQ(dot_of(""), 2.0f);
  EXPECT_EQ(dot_of(", operand_precision={highest,highest}"), 2.0f + 1.0f / 512);
}

// New names never clash with existing ones.
TEST(NamesAreUnique) {
  std::string out = Rewrite(R"(HloModule m

ENTRY e {
  a = f32[2,2]{1,0} parameter(0)
  a.bf16 = f32[2,2]{1,0} negate(a)
  ROOT d = f32[2,2]{1,0} dot(a, a.bf16), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
  EXPECT_TRUE(out.find("a.bf16.1 = bf16[2,2]{1,0} convert(a)") != std::string::npos);
  EXPECT_TRUE(out.find("a.bf16.bf16 = bf16[2,2]{1,0} convert(a.bf16)") != std::string::npos);
  CHECK_OK(ParseHloModule(out));
}

}  // namespace
}  // namespace xla::tpu

TEST_MAIN()
