// HloDCE tests, written in HLO text.
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"
#include "xla/passes/dce.h"

namespace xla {
namespace {

// Dead chains disappear; the root, parameters and live values stay.
TEST(RemovesDeadChains) {
  auto m = ParseHloModule(R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  unused = f32[4]{0} parameter(1)
  dead1 = f32[4]{0} exponential(x)
  dead2 = f32[4]{0} negate(dead1)
  ROOT live = f32[4]{0} add(x, x)
}

)");
  CHECK_OK(m);
  HloDCE dce;
  auto changed = dce.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(ToString(**m), std::string(R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  unused = f32[4]{0} parameter(1)
  ROOT live = f32[4]{0} add(x, x)
}

)"));
}

// Computations no longer called are deleted with their callers.
TEST(RemovesUnreachableComputations) {
  auto m = ParseHloModule(R"(HloModule m

helper {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}

ENTRY e {
  x = f32[] parameter(0)
  c = f32[] call(x), to_apply=helper
  ROOT r = f32[] add(x, x)
}

)");
  CHECK_OK(m);
  HloDCE dce;
  auto changed = dce.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ((*m)->computations().size(), size_t{1});
  EXPECT_EQ((*m)->entry_computation()->instruction_count(), 2);
}

// A module with nothing dead reports no change.
TEST(NoChange) {
  auto m = ParseHloModule(R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  ROOT y = f32[4]{0} negate(x)
}

)");
  CHECK_OK(m);
  HloDCE dce;
  auto changed = dce.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(!*changed);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
