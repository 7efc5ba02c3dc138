// Reductions fused into the consumers that broadcast them back along the row
// (softmax, log-softmax, layer norm): the plan is one kernel, and its results
// match references computed on the host, including rows holding inf and NaN.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "xla/backends/cpu/codegen/compiler.h"
#include "xla/backends/cpu/cpu_client.h"
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"
#include "xla/passes/optimization_pipeline.h"

namespace xla::cpu {
namespace {

constexpr int64_t kRows = 67;  // not a multiple of any vector width or thread count
constexpr int64_t kCols = 301;

std::string Module(const std::string& body) {
  return R"(HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

ENTRY e {
  x = f32[67,301]{1,0} parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
)" + body + "}\n";
}

const std::string kSoftmax = Module(R"(  mx = f32[67]{0} reduce(x, ninf), dimensions={1}, to_apply=max
  bm = f32[67,301]{1,0} broadcast(mx), dimensions={0}
  d = f32[67,301]{1,0} subtract(x, bm)
  ex = f32[67,301]{1,0} exponential(d)
  sm = f32[67]{0} reduce(ex, zero), dimensions={1}, to_apply=add
  bs = f32[67,301]{1,0} broadcast(sm), dimensions={0}
  ROOT out = f32[67,301]{1,0} divide(ex, bs)
)");

const std::string kLogSoftmax = Module(R"(  mx = f32[67]{0} reduce(x, ninf), dimensions={1}, to_apply=max
  bm = f32[67,301]{1,0} broadcast(mx), dimensions={0}
  d = f32[67,301]{1,0} subtract(x, bm)
  ex = f32[67,301]{1,0} exponential(d)
  sm = f32[67]{0} reduce(ex, zero), dimensions={1}, to_apply=add
  lg = f32[67]{0} log(sm)
  bl = f32[67,301]{1,0} broadcast(lg), dimensions={0}
  ROOT out = f32[67,301]{1,0} subtract(d, bl)
)");

// exp(x - max) read back reversed along the row: the output loop needs
// other elements of the row than the one it writes, so exp(x - max) may not
// be kept in the output row (it would be overwritten before it is read);
// the row sum is still fused.
const std::string kReversedSoftmax = Module(R"(  mx = f32[67]{0} reduce(x, ninf), dimensions={1}, to_apply=max
  bm = f32[67,301]{1,0} broadcast(mx), dimensions={0}
  d = f32[67,301]{1,0} subtract(x, bm)
  ex = f32[67,301]{1,0} exponential(d)
  sm = f32[67]{0} reduce(ex, zero), dimensions={1}, to_apply=add
  bs = f32[67,301]{1,0} broadcast(sm), dimensions={0}
  rv = f32[67,301]{1,0} reverse(ex), dimensions={1}
  ROOT out = f32[67,301]{1,0} divide(rv, bs)
)");

// (x - mean) / sqrt(mean((x - mean)^2) + eps), mean = sum / n.
const std::string kLayerNorm = Module(R"(  n = f32[] constant(301)
  eps = f32[] constant(1e-5)
  s1 = f32[67]{0} reduce(x, zero), dimensions={1}, to_apply=add
  bn = f32[67]{0} broadcast(n), dimensions={}
  mean = f32[67]{0} divide(s1, bn)
  bmean = f32[67,301]{1,0} broadcast(mean), dimensions={0}
  c = f32[67,301]{1,0} subtract(x, bmean)
  sq = f32[67,301]{1,0} multiply(c, c)
  s2 = f32[67]{0} reduce(sq, zero), dimensions={1}, to_apply=add
  var = f32[67]{0} divide(s2, bn)
  be = f32[67]{0} broadcast(eps), dimensions={}
  ve = f32[67]{0} add(var, be)
  r = f32[67]{0} rsqrt(ve)
  br = f32[67,301]{1,0} broadcast(r), dimensions={0}
  ROOT out = f32[67,301]{1,0} multiply(c, br)
)");

std::vector<float> Input() {
  std::vector<float> x(kRows * kCols);
  for (int64_t i = 0; i < kRows * kCols; ++i) {
    x[i] = 0.01f * static_cast<float>((i * 7919) % 2003) - 10.0f;
  }
  const float inf = std::numeric_limits<float>::infinity();
  x[3 * kCols + 5] = inf;                                          // row 3: one +inf
  x[5 * kCols + 7] = std::numeric_limits<float>::quiet_NaN();      // row 5: a NaN
  for (int64_t j = 0; j < kCols; ++j) x[7 * kCols + j] = -inf;     // row 7: all -inf
  x[9 * kCols] = 80.0f;                                            // row 9: exp would overflow
  return x;
}

// Host references, row by row, in double.
std::vector<float> Reference(const std::vector<float>& x, const std::string& which) {
  std::vector<float> out(x.size());
  for (int64_t r = 0; r < kRows; ++r) {
    const float* row = &x[r * kCols];
    double mx = -INFINITY, sum = 0, mean = 0, var = 0;
    bool nan = false;
    for (int64_t j = 0; j < kCols; ++j) {
      nan |= std::isnan(row[j]);
      mx = std::max<double>(mx, row[j]);
      mean += row[j];
    }
    if (nan) mx = NAN;
    mean /= kCols;
    for (int64_t j = 0; j < kCols; ++j) {
      sum += std::exp(row[j] - mx);
      var += (row[j] - mean) * (row[j] - mean);
    }
    var /= kCols;
    for (int64_t j = 0; j < kCols; ++j) {
      double v;
      if (which == "softmax") {
        v = std::exp(row[j] - mx) / sum;
      } else if (which == "reversed_softmax") {
        v = std::exp(row[kCols - 1 - j] - mx) / sum;
      } else if (which == "log_softmax") {
        v = (row[j] - mx) - std::log(sum);
      } else {
        v = (row[j] - mean) / std::sqrt(var + 1e-5);
      }
      out[r * kCols + j] = static_cast<float>(v);
    }
  }
  return out;
}

// Number of kernel steps the optimised module plans.
StatusOr<int> KernelSteps(const std::string& hlo) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(hlo));
  OptimizationOptions options;
  options.fusion.fuse_row_reductions = true;
  RETURN_IF_ERROR(RunOptimizationPipeline(module.get(), options));
  ASSIGN_OR_RETURN(CompiledProgram compiled, CompileHloModule(*module, {}));
  int kernels = 0;
  for (const Step& step : compiled.program.steps) kernels += step.kind == Step::Kind::kKernel;
  return kernels;
}

StatusOr<std::vector<float>> Run(const std::string& hlo, const std::vector<float>& x) {
  auto client = CpuPluginInfo().create_client({});
  if (!client.ok()) return client.status();
  Client& c = **client;
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe, c.CompileText(hlo, {}, {}));
  ASSIGN_OR_RETURN(std::unique_ptr<Buffer> arg,
                   c.BufferFromHost(x.data(), PrimitiveType::F32, {kRows, kCols}, {},
                                    c.devices()[0]));
  ASSIGN_OR_RETURN(auto outs, exe->Execute({{arg.get()}}, {}));
  std::vector<float> result(kRows * kCols);
  RETURN_IF_ERROR(outs[0][0]->ToHost(result.data()));
  return result;
}

// Same NaN-ness, and otherwise within a relative 2e-5 (float rounding of
// the row sums) or `atol` (cancellation in x - mean).
void ExpectClose(const std::vector<float>& got, const std::vector<float>& want, float atol) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const bool ok = std::isnan(want[i])
                        ? std::isnan(got[i])
                        : (got[i] == want[i] ||
                           std::fabs(got[i] - want[i]) <= atol + 2e-5f * std::fabs(want[i]));
    if (!ok && bad++ < 5) {
      std::fprintf(stderr, "  [%zu] (row %zu) got %.9g want %.9g\n", i, i / kCols, got[i],
                   want[i]);
    }
  }
  EXPECT_EQ(bad, 0);
}

void CheckCase(const std::string& hlo, const std::string& which, float atol,
               int expected_kernels = 1) {
  auto kernels = KernelSteps(hlo);
  CHECK_OK(kernels);
  EXPECT_EQ(*kernels, expected_kernels);
  const std::vector<float> x = Input();
  auto got = Run(hlo, x);
  CHECK_OK(got);
  ExpectClose(*got, Reference(x, which), atol);
}

TEST(SoftmaxIsOneKernel) { CheckCase(kSoftmax, "softmax", 1e-12f); }
// The max stays its own kernel: the fusion pass does not follow a reverse
// when it checks that a reduce is used only along its own row.
TEST(ReversedSoftmaxKeepsExpOutOfTheOutputRow) {
  CheckCase(kReversedSoftmax, "reversed_softmax", 1e-12f, 2);
}
TEST(LogSoftmaxIsOneKernel) { CheckCase(kLogSoftmax, "log_softmax", 1e-6f); }
TEST(LayerNormIsOneKernel) { CheckCase(kLayerNorm, "layer_norm", 2e-5f); }

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
