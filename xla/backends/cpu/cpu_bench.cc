// Timing of a few representative modules (not a test: prints numbers).
//   bazel run //xla/backends/cpu:cpu_bench
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "xla/backends/cpu/cpu_client.h"

namespace {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void Bench(xla::Client& client, const char* label, const std::string& hlo,
           const std::vector<std::vector<int64_t>>& arg_dims, double work, const char* unit) {
  auto t0 = Clock::now();
  auto exe = client.CompileText(hlo, {}, {});
  auto t1 = Clock::now();
  if (!exe.ok()) {
    std::printf("%-28s compile failed: %s\n", label, exe.status().ToString().c_str());
    return;
  }
  std::vector<std::unique_ptr<xla::Buffer>> owned;
  std::vector<xla::Buffer*> args;
  for (const auto& dims : arg_dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<float> host(n);
    for (int64_t i = 0; i < n; ++i) host[i] = 0.001f * static_cast<float>(i % 1000);
    auto buf = client.BufferFromHost(host.data(), xla::PrimitiveType::F32, dims, {},
                                     client.devices()[0]);
    args.push_back(buf->get());
    owned.push_back(std::move(buf).value());
  }
  (void)(*exe)->Execute({args}, {});  // warm up
  int reps = 0;
  auto t2 = Clock::now();
  while (Seconds(t2, Clock::now()) < 1.0 || reps < 3) {
    auto outs = (*exe)->Execute({args}, {});
    if (!outs.ok()) {
      std::printf("%s failed: %s\n", label, outs.status().ToString().c_str());
      return;
    }
    ++reps;
  }
  double per_run = Seconds(t2, Clock::now()) / reps;
  std::printf("%-28s compile %7.1f ms   run %9.3f ms   %8.2f %s\n", label, 1e3 * Seconds(t0, t1),
              1e3 * per_run, work / per_run / 1e9, unit);
}

// An f32 add-reduction of `in` over `dims` (comma list) to `out`, as HLO text.
std::string SumModule(const std::string& in, const std::string& dims, const std::string& out) {
  return "HloModule sum\n"
         "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
         "ENTRY main {\n  x = " + in + " parameter(0)\n  z = f32[] constant(0)\n"
         "  ROOT r = " + out + " reduce(x, z), dimensions={" + dims + "}, to_apply=add\n}\n";
}

}  // namespace

int main() {
  auto client = xla::CpuPluginInfo().create_client({});
  if (!client.ok()) return 1;
  xla::Client& c = **client;
  const int64_t n = 1 << 24;
  Bench(c, "add 16M f32", R"(HloModule add
ENTRY main {
  x = f32[16777216]{0} parameter(0)
  y = f32[16777216]{0} parameter(1)
  ROOT a = f32[16777216]{0} add(x, y)
})", {{n}, {n}}, 3.0 * 4 * n, "GB/s");
  Bench(c, "fused x*y+2*x-y (16M)", R"(HloModule fma
ENTRY main {
  x = f32[4096,4096]{1,0} parameter(0)
  y = f32[4096,4096]{1,0} parameter(1)
  m = f32[4096,4096]{1,0} multiply(x, y)
  two = f32[] constant(2)
  tb = f32[4096,4096]{1,0} broadcast(two), dimensions={}
  t = f32[4096,4096]{1,0} multiply(tb, x)
  s = f32[4096,4096]{1,0} add(m, t)
  ROOT r = f32[4096,4096]{1,0} subtract(s, y)
})", {{4096, 4096}, {4096, 4096}}, 3.0 * 4 * n, "GB/s");
  Bench(c, "bias add row bcast (16M)", R"(HloModule bias
ENTRY main {
  x = f32[4096,4096]{1,0} parameter(0)
  b = f32[4096]{0} parameter(1)
  bb = f32[4096,4096]{1,0} broadcast(b), dimensions={1}
  ROOT r = f32[4096,4096]{1,0} add(x, bb)
})", {{4096, 4096}, {4096}}, 2.0 * 4 * n, "GB/s");
  Bench(c, "exp 16M f32", R"(HloModule exp
ENTRY main {
  x = f32[16777216]{0} parameter(0)
  ROOT e = f32[16777216]{0} exponential(x)
})", {{n}}, 1.0 * n, "Gelem/s");
  Bench(c, "transpose 4096^2", R"(HloModule tr
ENTRY main {
  x = f32[4096,4096]{1,0} parameter(0)
  ROOT t = f32[4096,4096]{0,1} transpose(x), dimensions={1,0}
})", {{4096, 4096}}, 2.0 * 4 * n, "GB/s");
  Bench(c, "row sum 4096x4096", SumModule("f32[4096,4096]{1,0}", "1", "f32[4096]{0}"),
        {{4096, 4096}}, 4.0 * n, "GB/s");
  Bench(c, "column sum 4096x4096", SumModule("f32[4096,4096]{1,0}", "0", "f32[4096]{0}"),
        {{4096, 4096}}, 4.0 * n, "GB/s");
  Bench(c, "full sum 16M", SumModule("f32[16777216]{0}", "0", "f32[]"), {{n}}, 4.0 * n, "GB/s");
  Bench(c, "dot 1024^3 f32 (Eigen)", R"(HloModule dot
ENTRY main {
  a = f32[1024,1024]{1,0} parameter(0)
  b = f32[1024,1024]{1,0} parameter(1)
  ROOT d = f32[1024,1024]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})", {{1024, 1024}, {1024, 1024}}, 2.0 * 1024 * 1024 * 1024, "GFLOP/s");
  Bench(c, "softmax 4096x1024", R"(HloModule softmax
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4096,1024]{1,0} parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[4096]{0} reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[4096,1024]{1,0} broadcast(mx), dimensions={0}
  sh = f32[4096,1024]{1,0} subtract(x, mb)
  e = f32[4096,1024]{1,0} exponential(sh)
  z = f32[] constant(0)
  s = f32[4096]{0} reduce(e, z), dimensions={1}, to_apply=add
  sb = f32[4096,1024]{1,0} broadcast(s), dimensions={0}
  ROOT r = f32[4096,1024]{1,0} divide(e, sb)
})", {{4096, 1024}}, 4.0 * 4096 * 1024, "Gelem/s");
  return 0;
}
