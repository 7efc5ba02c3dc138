// Dynamic-update-slice and scatter roots whose operand has a buffer of its own
// are planned as copy steps plus a kernel that writes only the update. A while
// body that updates a loop-carried buffer this way shares that buffer between
// its state and its result, so a loop writing one row per step (lax.scan's
// stacked outputs) does work proportional to the rows it writes. Results are
// checked against host references, including updates that read the buffer
// they write, clamped starts and scatters.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "xla/backends/cpu/codegen/compiler.h"
#include "xla/backends/cpu/cpu_client.h"
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"
#include "xla/passes/optimization_pipeline.h"

namespace xla::cpu {
namespace {

constexpr int64_t kSteps = 1000;

// ys[i, :] = 2 * xs[i, :], one row per step, as lax.scan lowers a stacked output.
const char kScan[] = R"(HloModule scan

body {
  p = (f32[1000,3]{1,0}, s32[], f32[1000,3]{1,0}) parameter(0)
  xs = f32[1000,3]{1,0} get-tuple-element(p), index=0
  i = s32[] get-tuple-element(p), index=1
  ys = f32[1000,3]{1,0} get-tuple-element(p), index=2
  zero = s32[] constant(0)
  x = f32[1,3]{1,0} dynamic-slice(xs, i, zero), dynamic_slice_sizes={1,3}
  two = f32[] constant(2)
  b2 = f32[1,3]{1,0} broadcast(two), dimensions={}
  y = f32[1,3]{1,0} multiply(x, b2)
  ys2 = f32[1000,3]{1,0} dynamic-update-slice(ys, y, i, zero)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (f32[1000,3]{1,0}, s32[], f32[1000,3]{1,0}) tuple(xs, i2, ys2)
}

cond {
  p = (f32[1000,3]{1,0}, s32[], f32[1000,3]{1,0}) parameter(0)
  i = s32[] get-tuple-element(p), index=1
  n = s32[] constant(1000)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  xs = f32[1000,3]{1,0} parameter(0)
  z = f32[] constant(0)
  ys = f32[1000,3]{1,0} broadcast(z), dimensions={}
  i = s32[] constant(0)
  init = (f32[1000,3]{1,0}, s32[], f32[1000,3]{1,0}) tuple(xs, i, ys)
  w = (f32[1000,3]{1,0}, s32[], f32[1000,3]{1,0}) while(init), condition=cond, body=body
  ROOT out = f32[1000,3]{1,0} get-tuple-element(w), index=2
}
)";

// buf[i] = 2 * buf[i - 1] + 1 for i = 1..99: the update reads the buffer it
// writes (one element back), so the body may not share it with its result.
const char kRecurrence[] = R"(HloModule recurrence

body {
  p = (s32[], f32[100]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  buf = f32[100]{0} get-tuple-element(p), index=1
  one = s32[] constant(1)
  im1 = s32[] subtract(i, one)
  prev = f32[1]{0} dynamic-slice(buf, im1), dynamic_slice_sizes={1}
  two = f32[] constant(2)
  onef = f32[] constant(1)
  b2 = f32[1]{0} broadcast(two), dimensions={}
  b1 = f32[1]{0} broadcast(onef), dimensions={}
  m = f32[1]{0} multiply(prev, b2)
  v = f32[1]{0} add(m, b1)
  buf2 = f32[100]{0} dynamic-update-slice(buf, v, i)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[100]{0}) tuple(i2, buf2)
}

cond {
  p = (s32[], f32[100]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(100)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  buf = f32[100]{0} parameter(0)
  i = s32[] constant(1)
  init = (s32[], f32[100]{0}) tuple(i, buf)
  w = (s32[], f32[100]{0}) while(init), condition=cond, body=body
  ROOT out = f32[100]{0} get-tuple-element(w), index=1
}
)";

// counts[i % 10] += 1 for 95 steps, a scatter into the loop-carried buffer;
// the entry then writes [7, 8] at start 9 of a 5-element copy of the
// parameter, clamped to start 3.
const char kScatterAndClamp[] = R"(HloModule scatter

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

body {
  p = (s32[], f32[10]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  c = f32[10]{0} get-tuple-element(p), index=1
  ten = s32[] constant(10)
  r = s32[] remainder(i, ten)
  idx = s32[1]{0} reshape(r)
  onef = f32[] constant(1)
  upd = f32[1]{0} broadcast(onef), dimensions={}
  c2 = f32[10]{0} scatter(c, idx, upd), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[10]{0}) tuple(i2, c2)
}

cond {
  p = (s32[], f32[10]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(95)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  x = f32[5]{0} parameter(0)
  z = f32[] constant(0)
  counts = f32[10]{0} broadcast(z), dimensions={}
  i = s32[] constant(0)
  init = (s32[], f32[10]{0}) tuple(i, counts)
  w = (s32[], f32[10]{0}) while(init), condition=cond, body=body
  c = f32[10]{0} get-tuple-element(w), index=1
  u = f32[2]{0} constant({7, 8})
  nine = s32[] constant(9)
  d = f32[5]{0} dynamic-update-slice(x, u, nine)
  ROOT out = (f32[10]{0}, f32[5]{0}) tuple(c, d)
}
)";

StatusOr<CompiledProgram> Plan(const std::string& hlo) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(hlo));
  RETURN_IF_ERROR(RunOptimizationPipeline(module.get(), {}));
  return CompileHloModule(*module, {});
}

// The body of the entry's (first) while loop.
const Program* WhileBody(const Program& program) {
  for (const Step& step : program.steps) {
    if (step.kind == Step::Kind::kWhile) {
      return program.subprograms[step.while_params.body].get();
    }
  }
  return nullptr;
}

bool MayAlias(const Program& program, int64_t param, int64_t output) {
  for (const auto& pair : program.may_alias) {
    if (pair == std::make_pair(param, output)) return true;
  }
  return false;
}

// The kernel that writes output `o` of `program`.
const Step* KernelWriting(const Program& program, int64_t o) {
  for (const Step& step : program.steps) {
    if (step.kind != Step::Kind::kKernel) continue;
    for (int s : step.writes) {
      const Slot& slot = program.slots[s];
      if (slot.kind == Slot::Kind::kOutput && slot.index == o) return &step;
    }
  }
  return nullptr;
}

StatusOr<std::vector<std::vector<float>>> Run(const std::string& hlo, const std::vector<float>& x,
                                              const std::vector<int64_t>& dims,
                                              const std::vector<int64_t>& out_sizes) {
  auto client = CpuPluginInfo().create_client({});
  if (!client.ok()) return client.status();
  Client& c = **client;
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe, c.CompileText(hlo, {}, {}));
  ASSIGN_OR_RETURN(std::unique_ptr<Buffer> arg,
                   c.BufferFromHost(x.data(), PrimitiveType::F32, dims, {}, c.devices()[0]));
  ASSIGN_OR_RETURN(auto outs, exe->Execute({{arg.get()}}, {}));
  std::vector<std::vector<float>> results;
  for (size_t k = 0; k < out_sizes.size(); ++k) {
    results.emplace_back(out_sizes[k]);
    RETURN_IF_ERROR(outs[0][k]->ToHost(results.back().data()));
  }
  return results;
}

TEST(StackedOutputIsWrittenInPlace) {
  auto compiled = Plan(kScan);
  CHECK_OK(compiled);
  const Program* body = WhileBody(compiled->program);
  CHECK_TRUE(body != nullptr);
  // The stacked buffer (leaf 2) and the pass-through xs (leaf 0) stay in place.
  EXPECT_TRUE(MayAlias(*body, 2, 2));
  EXPECT_TRUE(MayAlias(*body, 0, 0));
  const Step* update = KernelWriting(*body, 2);
  CHECK_TRUE(update != nullptr);
  EXPECT_EQ(update->work_items, 1);  // one row of the update, not 1000 of the output

  std::vector<float> xs(kSteps * 3);
  for (int64_t k = 0; k < kSteps * 3; ++k) xs[k] = 0.25f * static_cast<float>(k % 97) - 3.0f;
  auto got = Run(kScan, xs, {kSteps, 3}, {kSteps * 3});
  CHECK_OK(got);
  int bad = 0;
  for (int64_t k = 0; k < kSteps * 3; ++k) bad += (*got)[0][k] != 2.0f * xs[k];
  EXPECT_EQ(bad, 0);
}

TEST(UpdateThatReadsItsBufferIsNotAliased) {
  auto compiled = Plan(kRecurrence);
  CHECK_OK(compiled);
  const Program* body = WhileBody(compiled->program);
  CHECK_TRUE(body != nullptr);
  EXPECT_TRUE(!MayAlias(*body, 1, 1));

  std::vector<float> buf(100, -1.0f);
  buf[0] = 0.5f;
  auto got = Run(kRecurrence, buf, {100}, {100});
  CHECK_OK(got);
  std::vector<float> want = buf;
  for (int k = 1; k < 100; ++k) want[k] = 2.0f * want[k - 1] + 1.0f;
  int bad = 0;
  for (int k = 0; k < 100; ++k) bad += (*got)[0][k] != want[k];
  EXPECT_EQ(bad, 0);
}

TEST(ScatterIntoLoopStateAndClampedStart) {
  auto compiled = Plan(kScatterAndClamp);
  CHECK_OK(compiled);
  const Program* body = WhileBody(compiled->program);
  CHECK_TRUE(body != nullptr);
  EXPECT_TRUE(MayAlias(*body, 1, 1));

  const std::vector<float> x = {1, 2, 3, 4, 5};
  auto got = Run(kScatterAndClamp, x, {5}, {10, 5});
  CHECK_OK(got);
  for (int k = 0; k < 10; ++k) EXPECT_EQ((*got)[0][k], k < 5 ? 10.0f : 9.0f);
  const std::vector<float> clamped = {1, 2, 3, 7, 8};
  for (int k = 0; k < 5; ++k) EXPECT_EQ((*got)[1][k], clamped[k]);
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
