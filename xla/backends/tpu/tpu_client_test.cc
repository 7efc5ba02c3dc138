// The TPU plugin's clients: the compile-only client of a mock topology, and
// every way creating a real client fails without TPUs or without libtpu.
#include "xla/backends/tpu/tpu_client.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>

#include "xla/backends/tpu/tpu_runtime_bridge.h"
#include "xla/hlo/testing/check.h"

namespace xla::tpu {
namespace {

constexpr char kMatmul[] = R"(HloModule jit_matmul, entry_computation_layout={(f32[8,32]{1,0}, f32[32,12]{1,0})->f32[8,12]{1,0}}

ENTRY main.1 {
  a.1 = f32[8,32]{1,0} parameter(0)
  b.1 = f32[32,12]{1,0} parameter(1)
  ROOT dot_general.1 = f32[8,12]{1,0} dot(a.1, b.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

bool Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return true;
  std::fprintf(stderr, "missing \"%s\" in:\n%s\n", part.c_str(), text.c_str());
  return false;
}

std::string TempDir() {
  const char* tmp = std::getenv("TEST_TMPDIR");  // set by bazel test
  CHECK_TRUE(tmp != nullptr);
  std::string pattern = std::string(tmp) + "/tpu_client_XXXXXX";
  CHECK_TRUE(mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

std::unique_ptr<Client> Mock(const std::string& topology) {
  auto client = CreateTpuClient({{"mock", true}, {"topology", topology}});
  CHECK_OK(client);
  return std::move(client).value();
}

// A v5e:2x2 topology is four compile-only v5e devices.
TEST(MockTopologyDevices) {
  std::unique_ptr<Client> client = Mock("v5e:2x2");
  EXPECT_EQ(client->platform_name(), std::string("tpu"));
  CHECK_TRUE(client->devices().size() == 4);
  EXPECT_EQ(client->devices()[3]->kind(), std::string("TPU v5 lite (compile-only)"));
  EXPECT_EQ(client->devices()[3]->debug_string(), std::string("tpu:3"));
  EXPECT_TRUE(Contains(client->platform_version(), "tpu v5e compile-only"));
  auto one = CreateTpuClient({{"mock", true}});
  CHECK_OK(one);
  EXPECT_EQ((*one)->devices().size(), size_t{1});
}

// Compiling gives the optimised HLO, tiled memory stats and a readable
// record; executing and transfers fail saying what would run them.
TEST(CompilesButDoesNotExecute) {
  std::unique_ptr<Client> client = Mock("v4:2x2x1");
  auto exe = client->CompileText(kMatmul, {}, {});
  CHECK_OK(exe);
  EXPECT_TRUE(Contains((*exe)->optimized_hlo(), "bf16[8,32]{1,0:T(8,128)(2,1)} convert(a.1)"));
  EXPECT_EQ((*exe)->memory_stats().output_size, 4096);
  EXPECT_EQ((*exe)->num_outputs(), size_t{1});
  auto record = (*exe)->Serialize();
  CHECK_OK(record);
  EXPECT_TRUE(Contains(*record, "xla-tpu-compile-only 1\ntopology v4:2x2x1\n"
                                "device_kind TPU v4 (compile-only)\nreplicas 1\n"
                                "argument_bytes 20480\noutput_bytes 4096\ntemp_bytes 10240\n"));
  EXPECT_TRUE(Contains(*record, (*exe)->optimized_hlo()));
  auto run = (*exe)->Execute({{}}, {});
  CHECK_TRUE(!run.ok());
  EXPECT_TRUE(run.status().code() == StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Contains(run.status().message(),
                       "compile-only client: no TPU to execute on (this tpu client was created "
                       "with mock=True for topology v4:2x2x1)"));
  EXPECT_TRUE(Contains(run.status().message(), "pip install libtpu"));
  float x = 1;
  auto buffer = client->BufferFromHost(&x, PrimitiveType::F32, {}, {}, client->devices()[0]);
  CHECK_TRUE(!buffer.ok());
  EXPECT_TRUE(buffer.status().code() == StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Contains(buffer.status().message(), "no TPU to transfer buffers to"));
}

// Replicas come from the topology; bad input is refused by name.
TEST(CompileAndOptionErrors) {
  std::unique_ptr<Client> client = Mock("v5e:2x2");
  auto four = client->CompileText(kMatmul, {{"num_replicas", int64_t{4}}}, {});
  CHECK_OK(four);
  EXPECT_EQ((*four)->num_replicas(), size_t{4});
  auto five = client->CompileText(kMatmul, {{"num_replicas", int64_t{5}}}, {});
  EXPECT_TRUE(!five.ok() && Contains(five.status().message(), "the topology has 4 devices"));
  auto bad_hlo = client->CompileText("HloModule m\nENTRY e {\n", {}, {});
  EXPECT_TRUE(!bad_hlo.ok() && Contains(bad_hlo.status().message(), "3:1: expected '}' to close computation"));
  auto topo = CreateTpuClient({{"mock", true}, {"topology", std::string("v5e:2x2x2")}});
  EXPECT_TRUE(!topo.ok() && Contains(topo.status().message(), "v5e takes 2 chip counts"));
  auto topo_type = CreateTpuClient({{"mock", true}, {"topology", int64_t{4}}});
  EXPECT_TRUE(!topo_type.ok() && Contains(topo_type.status().message(), "option topology must be a string"));
  auto mock_type = CreateTpuClient({{"mock", int64_t{1}}});
  EXPECT_TRUE(!mock_type.ok() && Contains(mock_type.status().message(), "option mock must be a bool"));
  auto no_mock = CreateTpuClient({{"topology", std::string("v5e:2x2")}});
  EXPECT_TRUE(!no_mock.ok() && Contains(no_mock.status().message(), "pass mock=True"));
}

TpuChips FourChips() {
  TpuChips chips;
  for (int i = 0; i < 4; ++i) chips.device_files.push_back("/fake/dev/vfio/" + std::to_string(i));
  chips.generation = FindTpuGeneration("v5e");
  return chips;
}

// No chips: the message names where it looked and the compile-only way.
TEST(NoChipsSaysWhereItLooked) {
  const std::string root = TempDir();
  auto client = CreateTpuClient({{"device_root", root}});
  CHECK_TRUE(!client.ok());
  EXPECT_TRUE(client.status().code() == StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Contains(client.status().message(),
                       "no TPU found: the TPU plugin looks for TPU chips as " + root +
                           "/dev/accel* and " + root + "/dev/vfio/<n> and there are none"));
  EXPECT_TRUE(Contains(client.status().message(), "mock=True"));
}

// Chips without libtpu: every place searched, and the pip command.
TEST(ChipsWithoutLibtpuNameEverySearchedPlace) {
  const std::string site = TempDir();
  auto client = CreateTpuRuntimeClient(FourChips(), {"", site});
  CHECK_TRUE(!client.ok());
  EXPECT_TRUE(client.status().code() == StatusCode::kFailedPrecondition);
  const std::string& m = client.status().message();
  EXPECT_TRUE(Contains(m, "found 4 TPU chips (/fake/dev/vfio/0 .. /fake/dev/vfio/3, TPU v5 lite)"));
  EXPECT_TRUE(Contains(m, "TPU_LIBRARY_PATH is not set; " + site + "/libtpu/libtpu.so does not exist; "
                          "dlopen(\"libtpu.so\"): libtpu.so: cannot open shared object file"));
  EXPECT_TRUE(Contains(m, "pip install libtpu"));
}

// A libtpu.so that is not a library: the dlopen error names the file.
TEST(BogusLibtpuNamesTheFile) {
  const std::string site = TempDir();
  mkdir((site + "/libtpu").c_str(), 0755);
  const std::string bogus = site + "/libtpu/libtpu.so";
  std::ofstream(bogus) << "not an ELF file";
  auto installed = CreateTpuRuntimeClient(FourChips(), {"", site});
  CHECK_TRUE(!installed.ok());
  EXPECT_TRUE(Contains(installed.status().message(),
                       "the TPU runtime " + bogus + " could not be loaded: " + bogus));
  auto by_env = CreateTpuRuntimeClient(FourChips(), {bogus, ""});
  CHECK_TRUE(!by_env.ok());
  EXPECT_TRUE(Contains(by_env.status().message(),
                       "the TPU runtime TPU_LIBRARY_PATH=" + bogus + " could not be loaded: " + bogus));
}

// A library without GetPjrtApi is not a TPU runtime.
TEST(LibraryWithoutGetPjrtApi) {
  const std::string path = std::string("./") + std::getenv("NOT_LIBTPU");
  auto client = CreateTpuRuntimeClient(FourChips(), {path, ""});
  CHECK_TRUE(!client.ok());
  EXPECT_TRUE(Contains(client.status().message(), "TPU_LIBRARY_PATH=" + path +
                                                       " loaded but does not export GetPjrtApi"));
}

// A loadable libtpu is found and named, and the missing forwarding is said plainly.
TEST(LoadableLibtpuIsNamedButNotDriven) {
  const std::string path = std::string("./") + std::getenv("FAKE_LIBTPU");
  auto client = CreateTpuRuntimeClient(FourChips(), {path, ""});
  CHECK_TRUE(!client.ok());
  EXPECT_TRUE(client.status().code() == StatusCode::kUnimplemented);
  EXPECT_TRUE(Contains(client.status().message(), "TPU_LIBRARY_PATH=" + path + " (PJRT C API 0.77)"));
  EXPECT_TRUE(Contains(client.status().message(), "does not forward execution to libtpu"));
  // Through the plugin's entry, with a fake device tree and the environment.
  const std::string root = TempDir();
  mkdir((root + "/dev").c_str(), 0755);
  std::ofstream(root + "/dev/accel0") << "";
  setenv("XLA_TPU_DEVICE_ROOT", root.c_str(), 1);
  setenv("TPU_LIBRARY_PATH", path.c_str(), 1);
  auto plugin = TpuPluginInfo().create_client({});
  unsetenv("TPU_LIBRARY_PATH");
  unsetenv("XLA_TPU_DEVICE_ROOT");
  CHECK_TRUE(!plugin.ok());
  EXPECT_TRUE(Contains(plugin.status().message(), "found 1 TPU chip (" + root + "/dev/accel0, "
                                                  "generation unknown) and the TPU runtime"));
}

}  // namespace
}  // namespace xla::tpu

TEST_MAIN()
