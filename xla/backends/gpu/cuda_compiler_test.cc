// The CUDA plugin's compile-only client end to end: HLO text in, PTX out.
// Numbers cannot be checked without a GPU; the PTX is checked for the
// kernels, launch bounds and libdevice math it must contain, and
// tests/plugins/test_gpu_codegen.py assembles it with ptxas.
#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "xla/backends/gpu/device_clients.h"
#include "xla/backends/gpu/gpu_client.h"
#include "xla/hlo/testing/check.h"
#include "xla/pjrt/compile_only.h"

namespace xla::gpu {
namespace {

StatusOr<std::unique_ptr<Client>> MockClient(Options options = {}) {
  options["mock"] = true;
  return CudaPluginInfo().create_client(options);
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The code section of Serialize(): everything after the "code ptx <n>" line.
std::string PtxOf(Executable& exe) {
  auto serialized = exe.Serialize();
  if (!serialized.ok()) return "";
  size_t at = serialized->find("\ncode ptx ");
  if (at == std::string::npos) return "";
  return serialized->substr(serialized->find('\n', at + 1) + 1);
}

constexpr char kTanhAdd[] = R"(HloModule tanh_add
ENTRY main {
  p0 = f32[1000]{0} parameter(0)
  p1 = f32[1000]{0} parameter(1)
  t = f32[1000]{0} tanh(p0)
  ROOT a = f32[1000]{0} add(t, p1)
})";

// A fused elementwise kernel becomes one PTX entry with the libdevice tanh
// inlined (no call left) and 256-thread launch bounds.
TEST(ElementwiseKernelIsPtxWithLibdeviceMath) {
  auto client = MockClient();
  CHECK_OK(client);
  auto exe = (*client)->CompileText(kTanhAdd, {}, {});
  CHECK_OK(exe);
  std::string ptx = PtxOf(**exe);
  EXPECT_TRUE(Contains(ptx, ".target sm_80"));
  EXPECT_TRUE(Contains(ptx, ".visible .entry xla_0_tanh_add_a("));
  EXPECT_TRUE(Contains(ptx, ".maxntid 256, 1, 1"));
  EXPECT_TRUE(Contains(ptx, "ld.global"));
  EXPECT_TRUE(!Contains(ptx, "call.uni"));  // libdevice inlined
  EXPECT_TRUE(!Contains(ptx, "tanhf"));
  Executable::MemoryStats stats = (*exe)->memory_stats();
  EXPECT_EQ(stats.argument_size, int64_t{8000});
  EXPECT_EQ(stats.output_size, int64_t{4000});
  EXPECT_TRUE(stats.generated_code_size > 0);
}

// The compute capability is an option; the PTX targets it.
TEST(ComputeCapabilityOption) {
  Options options;
  options["compute_capability"] = std::string("9.0");
  auto client = MockClient(options);
  CHECK_OK(client);
  auto exe = (*client)->CompileText(kTanhAdd, {}, {});
  CHECK_OK(exe);
  EXPECT_TRUE(Contains(PtxOf(**exe), ".target sm_90"));
  options["compute_capability"] = std::string("sm_12");
  auto bad = MockClient(options);
  EXPECT_TRUE(!bad.ok() && Contains(bad.status().message(), "unsupported compute capability 'sm_12'"));
  options["compute_capability"] = std::string("eight");
  bad = MockClient(options);
  EXPECT_TRUE(!bad.ok() && Contains(bad.status().message(), "compute_capability must look like"));
}

// Topologies give the device count; malformed ones are refused by name.
TEST(TopologyGivesDevices) {
  Options options;
  options["mock_gpu_topology"] = std::string("2x1x4");
  auto client = MockClient(options);
  CHECK_OK(client);
  EXPECT_EQ((*client)->devices().size(), size_t{8});
  EXPECT_EQ((*client)->platform_name(), std::string("cuda"));
  auto one = DevicesInTopology("1x1x1");
  EXPECT_TRUE(one.ok() && *one == 1);
  for (const char* bad : {"4", "1x4", "1x1x", "1xax4", "0x1x1", "1x1x4x2"}) {
    EXPECT_TRUE(!DevicesInTopology(bad).ok());
  }
}

// Running and transferring fail with a message that says why.
TEST(ExecuteAndTransferFailClearly) {
  auto client = MockClient();
  CHECK_OK(client);
  float x = 1;
  auto buffer = (*client)->BufferFromHost(&x, PrimitiveType::F32, {}, {}, nullptr);
  CHECK_TRUE(!buffer.ok());
  EXPECT_TRUE(Contains(buffer.status().message(), "compile-only client: no GPU"));
  EXPECT_TRUE(buffer.status().code() == StatusCode::kFailedPrecondition);
  auto exe = (*client)->CompileText(kTanhAdd, {}, {});
  CHECK_OK(exe);
  auto run = (*exe)->Execute({{}}, {});
  CHECK_TRUE(!run.ok());
  EXPECT_TRUE(Contains(run.status().message(), "compile-only client: no GPU to execute on"));
}

// f32 dots are cuBLAS calls, not kernels; reductions are per-output loops.
TEST(DotIsBlasCallAndReduceIsKernel) {
  auto client = MockClient();
  CHECK_OK(client);
  auto exe = (*client)->CompileText(R"(HloModule dot_sum
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[64,32]{1,0} parameter(0)
  y = f32[32,16]{1,0} parameter(1)
  d = f32[64,16]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  ROOT r = f32[64]{0} reduce(d, z), dimensions={1}, to_apply=add
})", {}, {});
  CHECK_OK(exe);
  std::string serialized = (*exe)->Serialize().value();
  EXPECT_TRUE(Contains(serialized, "blas_calls 1\n"));
  EXPECT_TRUE(Contains(serialized, "kernel xla_0_dot_sum_r instruction r blocks 1 threads 256"));
  EXPECT_TRUE(!Contains(serialized, "instruction d "));
}

// Ops without a GPU implementation are refused at compile time by name.
TEST(UnsupportedOpNamesOpAndBackend) {
  auto client = MockClient();
  CHECK_OK(client);
  auto exe = (*client)->CompileText(R"(HloModule s
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY main {
  p = f32[8]{0} parameter(0)
  ROOT s = f32[8]{0} sort(p), dimensions={0}, to_apply=lt
})", {}, {});
  CHECK_TRUE(!exe.ok());
  EXPECT_TRUE(exe.status().code() == StatusCode::kUnimplemented);
  EXPECT_TRUE(Contains(exe.status().message(), "CUDA backend: opcode sort is not supported"));
}

// --xla_dump_to in XLA_FLAGS writes the PTX, the LLVM IR and the HLO.
TEST(DumpToWritesPtx) {
  EXPECT_EQ(compile_only::DumpDirFromXlaFlags("--xla_foo=1 --xla_dump_to=/a/b"), std::string("/a/b"));
  EXPECT_EQ(compile_only::DumpDirFromXlaFlags(""), std::string());
  const char* tmp = std::getenv("TEST_TMPDIR");
  CHECK_TRUE(tmp != nullptr);
  std::string dir = std::string(tmp) + "/dump";
  CHECK_TRUE(std::system(("mkdir -p " + dir).c_str()) == 0);
  setenv("XLA_FLAGS", ("--xla_dump_to=" + dir).c_str(), 1);
  auto client = MockClient();
  unsetenv("XLA_FLAGS");
  CHECK_OK(client);
  CHECK_OK((*client)->CompileText(kTanhAdd, {}, {}));
  for (const char* ext : {".ptx", ".ll", ".after_optimizations.txt"}) {
    std::ifstream in(dir + "/tanh_add" + ext);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_TRUE(in.good() || !text.str().empty());
    EXPECT_TRUE(!text.str().empty());
  }
}

// Without mock=True the client needs the driver; where there is none (as in
// CI) creation says which library is missing and how to get a client anyway.
TEST(WithoutDriverCreationFailsClearly) {
  if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(driver);
    std::fprintf(stderr, "a CUDA driver is installed: nothing to check here\n");
    return;
  }
  auto client = CudaPluginInfo().create_client({});
  CHECK_TRUE(!client.ok());
  EXPECT_TRUE(client.status().code() == StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Contains(client.status().message(), "needs the driver library libcuda.so.1"));
  EXPECT_TRUE(Contains(client.status().message(), "mock=True"));
}

}  // namespace
}  // namespace xla::gpu

TEST_MAIN()
