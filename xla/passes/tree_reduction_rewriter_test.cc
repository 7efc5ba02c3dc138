// TreeReductionRewriter tests: the windows and padding XLA:CPU uses, and sums
// that, run through the evaluator, add in blocks of 32.
#include <vector>

#include "xla/hlo/evaluator/evaluator.h"
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"
#include "xla/passes/dce.h"
#include "xla/passes/tree_reduction_rewriter.h"

namespace xla {
namespace {

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::unique_ptr<HloModule> Rewritten(const std::string& text, bool* changed) {
  auto m = ParseHloModule(text);
  CHECK_OK(m);
  TreeReductionRewriter rewriter(32, 4096);
  auto c = rewriter.Run(m->get());
  CHECK_OK(c);
  *changed = *c;
  HloDCE dce;
  CHECK_OK(dce.Run(m->get()));
  CHECK_OK(ParseHloModule(ToString(**m)));  // still valid text
  return std::move(*m);
}

std::string SumModule(const std::string& in, const std::string& out, const std::string& dims) {
  return R"(HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = )" + in + R"( parameter(0)
  z = f32[] constant(0)
  ROOT r = )" + out + R"( reduce(x, z), dimensions={)" + dims + R"(}, to_apply=add
}

)";
}

TEST(FiftyElementsSumInTwoPaddedBlocks) {
  bool changed = false;
  auto m = Rewritten(SumModule("f32[50]{0}", "f32[]", "0"), &changed);
  EXPECT_TRUE(changed);
  const std::string text = ToString(*m);
  EXPECT_TRUE(Contains(text, "f32[2]{0} reduce-window("));
  EXPECT_TRUE(Contains(text, "window={size=32 stride=32 pad=7_7}"));
  // 1e8 then 49 ones: in order, float drops every 1; in blocks, the second
  // block's 25 ones survive.
  std::vector<float> xs(50, 1.0f);
  xs[0] = 1e8f;
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<float>(PrimitiveType::F32, xs));
  auto out = Evaluate(*m, args);
  CHECK_OK(out);
  EXPECT_TRUE((*out)[0] == Literal::CreateR0<float>(PrimitiveType::F32, 1e8f + 24.0f));
}

TEST(LongSumsAreRewrittenTwice) {
  bool changed = false;
  const std::string text = ToString(*Rewritten(SumModule("f32[2000]{0}", "f32[]", "0"), &changed));
  EXPECT_TRUE(Contains(text, "f32[63]{0} reduce-window("));
  EXPECT_TRUE(Contains(text, "window={size=32 stride=32 pad=8_8}"));
  EXPECT_TRUE(Contains(text, "f32[2]{0} reduce-window("));
  EXPECT_TRUE(Contains(text, "window={size=32 stride=32 pad=0_1}"));
}

TEST(ShortReducedDimensionsTakeOneWindow) {
  bool changed = false;
  const std::string text =
      ToString(*Rewritten(SumModule("f32[50,10]{1,0}", "f32[]", "0,1"), &changed));
  EXPECT_TRUE(Contains(text, "f32[2,1]{1,0} reduce-window("));
  EXPECT_TRUE(Contains(text, "window={size=32x10 stride=32x10 pad=7_7x0_0}"));
  const std::string rows =
      ToString(*Rewritten(SumModule("f32[3,50]{1,0}", "f32[3]{0}", "1"), &changed));
  EXPECT_TRUE(Contains(rows, "window={size=1x32 stride=1x32 pad=0_0x7_7}"));
}

TEST(ShortAndLargeReductionsAreLeftAlone) {
  bool changed = true;
  Rewritten(SumModule("f32[32]{0}", "f32[]", "0"), &changed);
  EXPECT_TRUE(!changed);
  Rewritten(SumModule("f32[4096]{0}", "f32[]", "0"), &changed);
  EXPECT_TRUE(!changed);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
