// The ROCm plugin's compile-only client: HLO text in, an AMDGPU ELF code
// object out; math the backend cannot lower without the ROCm device
// libraries is refused by op name. tests/plugins/test_gpu_codegen.py reads
// the objects with llvm-readelf.
#include <string>

#include "xla/backends/gpu/device_clients.h"
#include "xla/hlo/testing/check.h"

namespace xla::gpu {
namespace {

StatusOr<std::unique_ptr<Client>> MockClient(Options options = {}) {
  options["mock"] = true;
  return RocmPluginInfo().create_client(options);
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string CodeOf(Executable& exe) {
  auto serialized = exe.Serialize();
  if (!serialized.ok()) return "";
  size_t at = serialized->find("\ncode o ");
  if (at == std::string::npos) return "";
  return serialized->substr(serialized->find('\n', at + 1) + 1);
}

constexpr char kExpMul[] = R"(HloModule exp_mul
ENTRY main {
  p0 = f32[300]{0} parameter(0)
  e = f32[300]{0} exponential(p0)
  ROOT m = f32[300]{0} multiply(e, p0)
})";

// f32 exp is native on AMDGPU: the module becomes an ELF object for the
// chosen architecture (EM_AMDGPU = 224) holding the kernel symbol.
TEST(ElementwiseKernelIsAmdgpuElf) {
  for (const char* arch : {"gfx90a", "gfx942"}) {
    Options options;
    options["gfx_arch"] = std::string(arch);
    auto client = MockClient(options);
    CHECK_OK(client);
    auto exe = (*client)->CompileText(kExpMul, {}, {});
    CHECK_OK(exe);
    std::string elf = CodeOf(**exe);
    CHECK_TRUE(elf.size() > 64);
    EXPECT_EQ(elf.substr(0, 4), std::string("\x7f" "ELF"));
    EXPECT_EQ(static_cast<int>(static_cast<unsigned char>(elf[18])), 224);
    EXPECT_TRUE(Contains(elf, "xla_0_exp_mul_m"));
  }
}

// sin would need ocml (tanh and exp no longer do: the shared elemental
// emitter computes them inline): the error names the op, the type and the
// backend.
TEST(MathWithoutDeviceLibrariesIsRefusedByName) {
  auto client = MockClient();
  CHECK_OK(client);
  auto exe = (*client)->CompileText(R"(HloModule t
ENTRY main {
  p0 = f64[4]{0} parameter(0)
  ROOT t = f64[4]{0} sine(p0)
})", {}, {});
  CHECK_TRUE(!exe.ok());
  EXPECT_TRUE(exe.status().code() == StatusCode::kUnimplemented);
  EXPECT_TRUE(Contains(exe.status().message(),
                       "ROCm backend: sine on f64 (llvm.sin.f64 in xla_0_t_t)"));
  EXPECT_TRUE(Contains(exe.status().message(), "ROCm device libraries"));
}

TEST(UnknownArchitectureIsRefused) {
  Options options;
  options["gfx_arch"] = std::string("gfx1");
  auto client = MockClient(options);
  CHECK_TRUE(!client.ok());
  EXPECT_TRUE(Contains(client.status().message(), "unsupported GPU architecture 'gfx1'"));
}

}  // namespace
}  // namespace xla::gpu

TEST_MAIN()
