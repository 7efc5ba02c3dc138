// Pipeline tests: passes run in order, the verifier catches a pass that
// breaks the module and names it, and HloPassFix stops at a fixed point.
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"
#include "xla/passes/cse.h"
#include "xla/passes/dce.h"
#include "xla/passes/pipeline.h"

namespace xla {
namespace {

constexpr char kModule[] = R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  a = f32[4]{0} negate(x)
  b = f32[4]{0} negate(x)
  dead = f32[4]{0} exponential(a)
  ROOT r = f32[4]{0} add(a, b)
}

)";

// CSE then DCE leaves one negate and no dead code.
TEST(RunsPassesInOrder) {
  auto m = ParseHloModule(kModule);
  CHECK_OK(m);
  HloPassPipeline pipeline("simplify");
  pipeline.AddPass<HloCSE>();
  pipeline.AddPass<HloDCE>();  // after CSE: merging can leave new dead code
  auto changed = pipeline.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ((*m)->entry_computation()->instruction_count(), 3);
}

// A pass that corrupts a shape is reported by name.
class BreakShapes : public HloPassInterface {
 public:
  std::string_view name() const override { return "break-shapes"; }
  StatusOr<bool> Run(HloModule* module) override {
    *module->entry_computation()->root_instruction()->mutable_shape() = Shape(PrimitiveType::F32, {5});
    return true;
  }
};

TEST(VerifierNamesTheBrokenPass) {
  auto m = ParseHloModule(kModule);
  CHECK_OK(m);
  HloPassPipeline pipeline("p");
  pipeline.AddPass<BreakShapes>();
  auto changed = pipeline.Run(m->get());
  EXPECT_TRUE(!changed.ok());
  EXPECT_EQ(changed.status().message(),
            std::string("pipeline 'p': module invalid after pass 'break-shapes': instruction 'r' in "
                        "computation 'e': shape f32[5] does not match the inferred shape f32[4]"));
}

// A pass that needs several rounds converges under HloPassFix.
class RemoveOneDead : public HloPassInterface {
 public:
  std::string_view name() const override { return "remove-one-dead"; }
  StatusOr<bool> Run(HloModule* module) override {
    HloComputation* c = module->entry_computation();
    for (HloInstruction* i : c->instructions()) {
      if (i->user_count() == 0 && i != c->root_instruction() && i->opcode() != HloOpcode::kParameter) {
        RETURN_IF_ERROR(c->RemoveInstruction(i));
        return true;
      }
    }
    return false;
  }
};

TEST(FixedPoint) {
  auto m = ParseHloModule(R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  d1 = f32[4]{0} negate(x)
  d2 = f32[4]{0} negate(d1)
  d3 = f32[4]{0} negate(d2)
  ROOT r = f32[4]{0} abs(x)
}

)");
  CHECK_OK(m);
  HloPassFix<RemoveOneDead> fix;
  auto changed = fix.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ((*m)->entry_computation()->instruction_count(), 2);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
