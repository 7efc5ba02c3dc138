// CallInliner tests, written in HLO text.
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"
#include "xla/passes/call_inliner.h"

namespace xla {
namespace {

// Nested calls are replaced by the callees' instructions, the names kept
// unique (inner's `n` meets outer's call `n`), and the callees deleted.
TEST(InlinesNestedCalls) {
  auto m = ParseHloModule(R"(HloModule m

inner {
  p = f32[4]{0} parameter(0)
  ROOT n = f32[4]{0} negate(p)
}

outer {
  a = f32[4]{0} parameter(0)
  b = f32[4]{0} parameter(1)
  n = f32[4]{0} call(a), to_apply=inner
  ROOT s = f32[4]{0} add(n, b)
}

ENTRY e {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  c = f32[4]{0} call(x, y), to_apply=outer
  ROOT r = f32[4]{0} multiply(c, x)
}

)");
  CHECK_OK(m);
  CallInliner inliner;
  auto changed = inliner.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(ToString(**m), std::string(R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  n.1 = f32[4]{0} negate(x)
  s = f32[4]{0} add(n.1, y)
  ROOT r = f32[4]{0} multiply(s, x)
}

)"));
}

// A callee used twice gets two copies with distinct names; reducers keep
// their own computations.
TEST(InlinesEachCallSite) {
  auto m = ParseHloModule(R"(HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

total {
  p = f32[4]{0} parameter(0)
  z = f32[] constant(0)
  ROOT t = f32[] reduce(p, z), dimensions={0}, to_apply=add
}

ENTRY e {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  t1 = f32[] call(x), to_apply=total
  t2 = f32[] call(y), to_apply=total
  ROOT r = f32[] add(t1, t2)
}

)");
  CHECK_OK(m);
  CallInliner inliner;
  auto changed = inliner.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ((*m)->computations().size(), size_t{2});
  const HloComputation* entry = (*m)->entry_computation();
  EXPECT_TRUE(entry->GetInstructionWithName("t") != nullptr);
  EXPECT_TRUE(entry->GetInstructionWithName("t.1") != nullptr);
  for (const HloInstruction* instr : entry->instructions()) {
    EXPECT_TRUE(instr->opcode() != HloOpcode::kCall);
  }
}

// Without calls nothing changes.
TEST(NoChange) {
  auto m = ParseHloModule(R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  ROOT y = f32[4]{0} negate(x)
}

)");
  CHECK_OK(m);
  CallInliner inliner;
  auto changed = inliner.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(!*changed);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
