// HloCSE tests, written in HLO text.
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"
#include "xla/passes/cse.h"

namespace xla {
namespace {

// Duplicate constants and the chains built on them collapse to one copy.
TEST(MergesDuplicateChains) {
  auto m = ParseHloModule(R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  c1 = f32[] constant(2)
  c2 = f32[] constant(2)
  b1 = f32[4]{0} broadcast(c1), dimensions={}
  b2 = f32[4]{0} broadcast(c2), dimensions={}
  m1 = f32[4]{0} multiply(x, b1)
  m2 = f32[4]{0} multiply(x, b2)
  ROOT r = f32[4]{0} add(m1, m2)
}

)");
  CHECK_OK(m);
  HloCSE cse;
  auto changed = cse.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(ToString(**m), std::string(R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  c1 = f32[] constant(2)
  b1 = f32[4]{0} broadcast(c1), dimensions={}
  m1 = f32[4]{0} multiply(x, b1)
  ROOT r = f32[4]{0} add(m1, m1)
}

)"));
}

// Different attributes, constants or layouts keep instructions apart.
TEST(KeepsDifferentInstructions) {
  auto m = ParseHloModule(R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  c1 = f32[] constant(2)
  c2 = f32[] constant(3)
  lt = pred[4]{0} compare(x, y), direction=LT
  gt = pred[4]{0} compare(x, y), direction=GT
  a = f32[4]{0} add(x, y)
  b = f32[4]{0} add(y, x)
  ROOT t = (f32[], f32[], pred[4]{0}, pred[4]{0}, f32[4]{0}, /*index=5*/f32[4]{0}) tuple(c1, c2, lt, gt, a, b)
}

)");
  CHECK_OK(m);
  HloCSE cse;
  auto changed = cse.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(!*changed);
}

// The merged duplicate may be the root: the root moves to the survivor.
TEST(RootMoves) {
  auto m = ParseHloModule(R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  a = f32[4]{0} negate(x)
  ROOT b = f32[4]{0} negate(x)
}

)");
  CHECK_OK(m);
  HloCSE cse;
  auto changed = cse.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ((*m)->entry_computation()->root_instruction()->name(), "a");
}

}  // namespace
}  // namespace xla

TEST_MAIN()
