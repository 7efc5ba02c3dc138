// Very long chains of fused elementwise ops: the emitter computes them with an
// explicit stack, so a 10,000-op chain compiles (it used to overflow the stack
// near 3,000) and matches the same chain computed on the host.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "xla/backends/cpu/cpu_client.h"
#include "xla/hlo/testing/check.h"

namespace xla::cpu {
namespace {

constexpr int64_t kSize = 37;  // not a multiple of any vector width
constexpr int kOps = 10000;    // sine and multiply, alternating

// x -> sin(x) * 1.0001, kOps / 2 times, all in one fused kernel.
std::string ChainModule() {
  std::string text = "HloModule chain\n\nENTRY e {\n  v0 = f32[37]{0} parameter(0)\n"
                     "  c = f32[] constant(1.0001)\n  k = f32[37]{0} broadcast(c), dimensions={}\n";
  int last = 0;
  for (int i = 1; i <= kOps; ++i) {
    const std::string prev = "v" + std::to_string(last);
    const std::string op = i % 2 == 1 ? "sine(" + prev + ")" : "multiply(" + prev + ", k)";
    text += std::string(i == kOps ? "  ROOT " : "  ") + "v" + std::to_string(i) +
            " = f32[37]{0} " + op + "\n";
    last = i;
  }
  return text + "}\n";
}

TEST(TenThousandOpChainCompilesAndMatchesTheHost) {
  auto client = CpuPluginInfo().create_client({});
  CHECK_OK(client);
  Client& c = **client;
  auto exe = c.CompileText(ChainModule(), {}, {});
  CHECK_OK(exe);
  std::vector<float> x(kSize);
  for (int64_t i = 0; i < kSize; ++i) x[i] = -1.0f + 2.0f * static_cast<float>(i) / (kSize - 1);
  auto arg = c.BufferFromHost(x.data(), PrimitiveType::F32, {kSize}, {}, c.devices()[0]);
  CHECK_OK(arg);
  auto outs = (*exe)->Execute({{arg->get()}}, {});
  CHECK_OK(outs);
  std::vector<float> got(kSize);
  CHECK_OK((*outs)[0][0]->ToHost(got.data()));
  int bad = 0;
  for (int64_t i = 0; i < kSize; ++i) {
    float want = x[i];
    for (int k = 0; k < kOps / 2; ++k) want = std::sin(want) * 1.0001f;
    if (std::fabs(got[i] - want) > 1e-4f * std::fabs(want) + 1e-7f && bad++ < 5) {
      std::fprintf(stderr, "  [%lld] got %.9g want %.9g\n", static_cast<long long>(i), got[i], want);
    }
  }
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
