// HloConstantFolding tests, written in HLO text.
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"
#include "xla/passes/constant_folding.h"
#include "xla/passes/dce.h"

namespace xla {
namespace {

// A chain of constant arithmetic folds into one constant, printed where its
// first user needs it; the broadcast stays (folding it would grow constants).
TEST(FoldsChains) {
  auto m = ParseHloModule(R"(HloModule m

ENTRY e {
  x = f32[3]{0} parameter(0)
  a = f32[] constant(1.5)
  b = f32[] constant(2)
  s = f32[] add(a, b)
  n = f32[] negate(s)
  bn = f32[3]{0} broadcast(n), dimensions={}
  ROOT r = f32[3]{0} multiply(x, bn)
}

)");
  CHECK_OK(m);
  HloConstantFolding folding;
  auto changed = folding.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(*changed);
  HloDCE dce;
  CHECK_OK(dce.Run(m->get()));
  EXPECT_EQ(ToString(**m), std::string(R"(HloModule m

ENTRY e {
  x = f32[3]{0} parameter(0)
  n = f32[] constant(-3.5)
  bn = f32[3]{0} broadcast(n), dimensions={}
  ROOT r = f32[3]{0} multiply(x, bn)
}

)"));
  // The printed module is valid input again.
  CHECK_OK(ParseHloModule(ToString(**m)));
}

// Calls and reduces with constant operands fold through their computations.
TEST(FoldsThroughCalledComputations) {
  auto m = ParseHloModule(R"(HloModule m

add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}

ENTRY e {
  c = s32[4]{0} constant({1, 2, 3, 4})
  z = s32[] constant(0)
  ROOT r = s32[] reduce(c, z), dimensions={0}, to_apply=add
}

)");
  CHECK_OK(m);
  HloConstantFolding folding;
  auto changed = folding.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(*changed);
  const HloInstruction* root = (*m)->entry_computation()->root_instruction();
  EXPECT_TRUE(root->opcode() == HloOpcode::kConstant);
  EXPECT_EQ(root->literal().ToStringWithoutShape(), "10");
}

// Parameters block folding: nothing changes.
TEST(NothingToFold) {
  auto m = ParseHloModule(R"(HloModule m

ENTRY e {
  x = f32[] parameter(0)
  c = f32[] constant(1)
  ROOT r = f32[] add(x, c)
}

)");
  CHECK_OK(m);
  HloConstantFolding folding;
  auto changed = folding.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(!*changed);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
