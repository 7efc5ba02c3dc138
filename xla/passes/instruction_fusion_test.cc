// InstructionFusion tests, written in HLO text.
#include <string>

#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"
#include "xla/passes/instruction_fusion.h"

namespace xla {
namespace {

constexpr char kAdd[] = R"(add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

)";

// Row softmax as JAX lowers it.
constexpr char kSoftmax[] = R"(ENTRY e {
  x = f32[8,16]{1,0} parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[8]{0} reduce(x, ninf), dimensions={1}, to_apply=max
  bm = f32[8,16]{1,0} broadcast(mx), dimensions={0}
  d = f32[8,16]{1,0} subtract(x, bm)
  ex = f32[8,16]{1,0} exponential(d)
  zero = f32[] constant(0)
  sm = f32[8]{0} reduce(ex, zero), dimensions={1}, to_apply=add
  bs = f32[8,16]{1,0} broadcast(sm), dimensions={0}
  ROOT out = f32[8,16]{1,0} divide(ex, bs)
}

)";

StatusOr<std::unique_ptr<HloModule>> Fused(const std::string& text, FusionOptions options) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> m, ParseHloModule(text));
  InstructionFusion fusion(options);
  RETURN_IF_ERROR(fusion.Run(m.get()).status());
  return m;
}

int Count(const HloComputation& c, HloOpcode op) {
  int n = 0;
  for (const HloInstruction* instr : c.instructions()) n += instr->opcode() == op;
  return n;
}

// Fusions of `kind` ("kLoop", "kInput") in `c`.
int CountFusions(const HloComputation& c, const std::string& kind) {
  int n = 0;
  for (const HloInstruction* instr : c.instructions()) {
    n += instr->opcode() == HloOpcode::kFusion && instr->fusion_kind() == kind;
  }
  return n;
}

// An elementwise chain becomes one loop fusion; the module prints and parses
// back (fused computations come before their callers).
TEST(FusesElementwiseChain) {
  auto m = Fused(R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  a = f32[4]{0} add(x, y)
  n = f32[4]{0} exponential(a)
  ROOT r = f32[4]{0} multiply(n, x)
}

)", {});
  CHECK_OK(m);
  EXPECT_EQ(ToString(**m), std::string(R"(HloModule m

fused_r {
  param_0 = f32[4]{0} parameter(0)
  param_1 = f32[4]{0} parameter(1)
  a = f32[4]{0} add(param_0, param_1)
  n = f32[4]{0} exponential(a)
  ROOT r = f32[4]{0} multiply(n, param_0)
}

ENTRY e {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  ROOT fusion_r = f32[4]{0} fusion(x, y), kind=kLoop, calls=fused_r
}

)"));
  CHECK_OK(ParseHloModule(ToString(**m)));
}

// With max_fused_instructions, a chain of ten ops becomes fusions of at most
// four instructions (consumers first, so the last group is the short one);
// the broadcast is copied into each of them and does not count.
TEST(BoundedFusionSplitsLongChains) {
  std::string text = "HloModule m\n\nENTRY e {\n  x0 = f32[4]{0} parameter(0)\n"
                     "  k = f32[] constant(2)\n  kb = f32[4]{0} broadcast(k), dimensions={}\n";
  for (int i = 0; i < 10; ++i) {
    text += "  x" + std::to_string(i + 1) + " = f32[4]{0} " + (i % 2 ? "multiply" : "sine") +
            "(x" + std::to_string(i) + (i % 2 ? ", kb" : "") + ")\n";
  }
  text += "  ROOT r = f32[4]{0} negate(x10)\n}\n\n";
  FusionOptions options;
  options.max_fused_instructions = 4;
  auto m = Fused(text, options);
  CHECK_OK(m);
  const HloComputation& entry = *(*m)->entry_computation();
  EXPECT_EQ(CountFusions(entry, "kLoop"), 3);
  for (const HloInstruction* instr : entry.instructions()) {
    if (instr->opcode() != HloOpcode::kFusion) continue;
    int ops = 0;
    for (const HloInstruction* f : instr->called_computations()[0]->instructions()) {
      ops += f->opcode() != HloOpcode::kParameter && f->opcode() != HloOpcode::kConstant &&
             f->opcode() != HloOpcode::kBroadcast;
    }
    EXPECT_TRUE(ops <= 4);
  }
  EXPECT_EQ(Count(entry, HloOpcode::kBroadcast), 0);
  auto unbounded = Fused(text, {});
  CHECK_OK(unbounded);
  EXPECT_EQ(CountFusions(*(*unbounded)->entry_computation(), "kLoop"), 1);
}

// An expensive value used by two kernels is materialised once; a cheap
// broadcast is copied into both of its users' fusions.
TEST(DuplicatesOnlyCheapProducers) {
  auto m = Fused(std::string("HloModule m\n\n") + kAdd + R"(ENTRY e {
  x = f32[4,8]{1,0} parameter(0)
  s = f32[4]{0} parameter(1)
  b = f32[4,8]{1,0} broadcast(s), dimensions={0}
  ex = f32[4,8]{1,0} exponential(x)
  p = f32[4,8]{1,0} multiply(ex, b)
  q = f32[4,8]{1,0} add(ex, b)
  ROOT t = (f32[4,8]{1,0}, f32[4,8]{1,0}) tuple(p, q)
}

)", {});
  CHECK_OK(m);
  const HloComputation& entry = *(*m)->entry_computation();
  EXPECT_EQ(Count(entry, HloOpcode::kFusion), 2);
  EXPECT_EQ(Count(entry, HloOpcode::kExp), 1);
  EXPECT_EQ(Count(entry, HloOpcode::kBroadcast), 0);
}

// Without row fusion, softmax is four kernels: the two reduces (with their
// init constants), exp (used by two of them) and the divide.
TEST(SoftmaxWithoutRowFusion) {
  auto m = Fused(std::string("HloModule m\n\n") + kAdd + kSoftmax, {});
  CHECK_OK(m);
  const HloComputation& entry = *(*m)->entry_computation();
  EXPECT_EQ(CountFusions(entry, "kLoop"), 2);  // exp(x - max), out
  EXPECT_EQ(CountFusions(entry, "kInput"), 2);
  EXPECT_EQ(Count(entry, HloOpcode::kExp), 0);
}

// With row fusion, the whole softmax is one fusion reading x once.
TEST(SoftmaxWithRowFusionIsOneKernel) {
  FusionOptions options;
  options.fuse_row_reductions = true;
  options.min_rows_for_row_fusion = 1;
  auto m = Fused(std::string("HloModule m\n\n") + kAdd + kSoftmax, options);
  CHECK_OK(m);
  const HloComputation& entry = *(*m)->entry_computation();
  EXPECT_EQ(entry.instruction_count(), 2);
  const HloInstruction* root = entry.root_instruction();
  CHECK_TRUE(root->opcode() == HloOpcode::kFusion);
  EXPECT_EQ(root->fusion_kind(), std::string("kLoop"));
  EXPECT_EQ(root->operand_count(), 1);
  EXPECT_EQ(Count(*root->to_apply(), HloOpcode::kReduce), 2);
  CHECK_OK(ParseHloModule(ToString(**m)));
}

// A reduce whose result leaves the fusion's rows (a sum of the row sums, or
// a reduce over the first dimension) stays its own kernel.
TEST(RowFusionNeedsRowAlignedUses) {
  FusionOptions options;
  options.fuse_row_reductions = true;
  options.min_rows_for_row_fusion = 1;
  auto m = Fused(std::string("HloModule m\n\n") + kAdd + R"(ENTRY e {
  x = f32[8,16]{1,0} parameter(0)
  zero = f32[] constant(0)
  cols = f32[16]{0} reduce(x, zero), dimensions={0}, to_apply=add
  bc = f32[8,16]{1,0} broadcast(cols), dimensions={1}
  rows = f32[8]{0} reduce(x, zero), dimensions={1}, to_apply=add
  br = f32[16,8]{1,0} broadcast(rows), dimensions={1}
  t = f32[8,16]{1,0} transpose(br), dimensions={1,0}
  a = f32[8,16]{1,0} add(bc, t)
  ROOT out = f32[8,16]{1,0} multiply(a, x)
}

)", options);
  CHECK_OK(m);
  const HloComputation& entry = *(*m)->entry_computation();
  EXPECT_EQ(CountFusions(entry, "kInput"), 2);
  EXPECT_EQ(CountFusions(entry, "kLoop"), 1);
}

// Too few rows to share among threads: the reduces stay their own kernels.
TEST(RowFusionNeedsEnoughRows) {
  FusionOptions options;
  options.fuse_row_reductions = true;
  options.min_rows_for_row_fusion = 9;
  auto m = Fused(std::string("HloModule m\n\n") + kAdd + kSoftmax, options);
  CHECK_OK(m);
  EXPECT_EQ(CountFusions(*(*m)->entry_computation(), "kInput"), 2);
}

// A reduce used by two kernels is not fused into either.
TEST(RowFusionNeedsOneUserKernel) {
  FusionOptions options;
  options.fuse_row_reductions = true;
  options.min_rows_for_row_fusion = 1;
  auto m = Fused(std::string("HloModule m\n\n") + kAdd + R"(ENTRY e {
  x = f32[8,16]{1,0} parameter(0)
  zero = f32[] constant(0)
  rows = f32[8]{0} reduce(x, zero), dimensions={1}, to_apply=add
  b = f32[8,16]{1,0} broadcast(rows), dimensions={0}
  out = f32[8,16]{1,0} divide(x, b)
  ROOT t = (f32[8,16]{1,0}, f32[8]{0}) tuple(out, rows)
}

)", options);
  CHECK_OK(m);
  const HloComputation& entry = *(*m)->entry_computation();
  EXPECT_EQ(CountFusions(entry, "kInput"), 1);
  EXPECT_EQ(CountFusions(entry, "kLoop"), 1);
}

// Producers fuse into a reduce (kInput); loop bodies are fused too, while
// the reducer computation is left alone.
TEST(FusesIntoReductionsAndLoopBodies) {
  auto m = Fused(std::string("HloModule m\n\n") + kAdd + R"(body {
  st = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  v = f32[4]{0} get-tuple-element(st), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  e = f32[4]{0} exponential(v)
  w = f32[4]{0} negate(e)
  ROOT nt = (s32[], f32[4]{0}) tuple(j, w)
}

cond {
  st = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  x = f32[4]{0} parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]{0}) tuple(zero, x)
  loop = (s32[], f32[4]{0}) while(init), condition=cond, body=body
  v = f32[4]{0} get-tuple-element(loop), index=1
  sq = f32[4]{0} multiply(v, v)
  z = f32[] constant(0)
  ROOT s = f32[] reduce(sq, z), dimensions={0}, to_apply=add
}

)", {});
  CHECK_OK(m);
  const HloComputation& entry = *(*m)->entry_computation();
  CHECK_TRUE(entry.root_instruction()->opcode() == HloOpcode::kFusion);
  EXPECT_EQ(entry.root_instruction()->fusion_kind(), std::string("kInput"));
  const HloComputation* body = (*m)->GetComputationWithName("body");
  CHECK_TRUE(body != nullptr);
  EXPECT_EQ(Count(*body, HloOpcode::kFusion), 2);  // exp-negate, and i + 1 with its constant
  EXPECT_EQ(Count(*body, HloOpcode::kExp), 0);
  EXPECT_EQ(Count(*body, HloOpcode::kConstant), 0);
  EXPECT_EQ((*m)->GetComputationWithName("add")->instruction_count(), 3);
}

}  // namespace
}  // namespace xla

TEST_MAIN()
