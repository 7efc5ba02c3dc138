// DefaultLayoutAssignment tests, written in HLO text.
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"
#include "xla/passes/layout_assignment.h"
#include "xla/passes/optimization_pipeline.h"

namespace xla {
namespace {

constexpr char kColumnMajor[] = R"(HloModule m, entry_computation_layout={(f32[2,3]{0,1}, (f32[4]{0}, s32[]))->f32[3,2]{0,1}}

ENTRY e {
  p = f32[2,3]{0,1} parameter(0)
  t = (f32[4]{0}, s32[]) parameter(1)
  c = f32[2,3]{1,0} copy(p)
  tiled = f32[2,3]{1,0:T(8,128)} negate(c)
  ROOT r = f32[3,2]{0,1} transpose(tiled), dimensions={1,0}
}

)";

// Every array, tuple element and the entry layout become row-major; scalars
// and shapes already row-major are left alone.
TEST(AssignsRowMajorEverywhere) {
  auto m = ParseHloModule(kColumnMajor);
  CHECK_OK(m);
  DefaultLayoutAssignment pass;
  auto changed = pass.Run(m->get());
  CHECK_OK(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(ToString(**m), std::string(R"(HloModule m, entry_computation_layout={(f32[2,3]{1,0}, (f32[4]{0}, s32[]))->f32[3,2]{1,0}}

ENTRY e {
  p = f32[2,3]{1,0} parameter(0)
  t = (f32[4]{0}, s32[]) parameter(1)
  c = f32[2,3]{1,0} copy(p)
  tiled = f32[2,3]{1,0} negate(c)
  ROOT r = f32[3,2]{1,0} transpose(tiled), dimensions={1,0}
}

)"));
  auto again = pass.Run(m->get());
  CHECK_OK(again);
  EXPECT_TRUE(!*again);
}

// In the pipeline, a copy that only changed the layout is then removed.
TEST(LayoutOnlyCopiesDisappearInThePipeline) {
  auto m = ParseHloModule(kColumnMajor);
  CHECK_OK(m);
  CHECK_OK(RunOptimizationPipeline(m->get(), OptimizationOptions{true, false, {}}));
  for (const HloInstruction* instr : (*m)->entry_computation()->instructions()) {
    EXPECT_TRUE(instr->opcode() != HloOpcode::kCopy);
  }
}

// A backend with tiled layouts turns the pass off and keeps what the text says.
TEST(PipelineKeepsLayoutsWhenAskedTo) {
  auto m = ParseHloModule(kColumnMajor);
  CHECK_OK(m);
  OptimizationOptions options;
  options.assign_default_layouts = false;
  options.run_fusion = false;
  CHECK_OK(RunOptimizationPipeline(m->get(), options));
  EXPECT_TRUE((*m)->entry_computation()->root_instruction()->shape().minor_to_major() ==
              (std::vector<int64_t>{0, 1}));
}

}  // namespace
}  // namespace xla

TEST_MAIN()
