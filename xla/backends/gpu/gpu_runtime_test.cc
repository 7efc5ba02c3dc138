// The GPU runtime without a GPU: its pure parts (launch sizes, kernel
// argument packing, the row-major dot -> column-major gemm mapping, gfx
// architectures, comgr versions), and its program walking over a driver
// whose "device memory" is host memory. That driver copies and multiplies
// for real (a reference gemm), and records the kernel launches it cannot
// run, so the tests check what the runtime asks a GPU to do.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "xla/backends/gpu/comgr.h"
#include "xla/backends/gpu/gpu_runtime.h"
#include "xla/backends/gpu/gpu_target.h"
#include "xla/backends/gpu/hip_driver.h"
#include "xla/hlo/testing/check.h"

namespace xla::gpu {
namespace {

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Blocks that fit are passed through; an empty kernel launches nothing.
TEST(LaunchDimsFollowTheKernelSpec) {
  GpuKernelSpec spec{"k", "add", {0, 1}, 1000, 4, 256};
  auto dims = LaunchDimsOf(spec);
  CHECK_OK(dims);
  EXPECT_EQ(dims->blocks, 4u);
  EXPECT_EQ(dims->threads_per_block, 256u);
  spec.blocks = 0;
  spec.threads_per_block = 0;
  auto empty = LaunchDimsOf(spec);
  CHECK_OK(empty);
  EXPECT_EQ(empty->blocks, 0u);
}

// Grids and blocks beyond what GPUs launch are refused with the kernel's name.
TEST(LaunchDimsRefuseOversizedGrids) {
  GpuKernelSpec spec{"big_kernel", "add", {}, 0, int64_t{1} << 31, 256};
  auto dims = LaunchDimsOf(spec);
  CHECK_TRUE(!dims.ok());
  EXPECT_TRUE(dims.status().code() == StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(dims.status().message(), "big_kernel"));
  spec.blocks = 8;
  spec.threads_per_block = 2048;
  dims = LaunchDimsOf(spec);
  CHECK_TRUE(!dims.ok());
  EXPECT_TRUE(Contains(dims.status().message(), "2048 threads per block"));
}

// Parameters follow the kernel's slot order; each launch pointer points at
// its parameter's value.
TEST(KernelArgumentsArePointersToSlotAddresses) {
  GpuKernelSpec spec{"k", "add", {2, 0, 2}, 1, 1, 256};
  std::vector<DevicePtr> slots = {0x1000, 0x2000, 0x3000};
  KernelArgs args(KernelParameters(spec, slots));
  CHECK_TRUE(args.size() == 3);
  EXPECT_EQ(*static_cast<DevicePtr*>(args.data()[0]), DevicePtr{0x3000});
  EXPECT_EQ(*static_cast<DevicePtr*>(args.data()[1]), DevicePtr{0x1000});
  EXPECT_EQ(*static_cast<DevicePtr*>(args.data()[2]), DevicePtr{0x3000});
  EXPECT_TRUE(args.data()[0] != args.data()[2]);
}

// A column-major gemm as cuBLAS and hipBLAS define it, on host memory.
void ReferenceGemm(const GemmCall& g) {
  auto at = [](DevicePtr base, int64_t i) { return reinterpret_cast<float*>(base) + i; };
  for (int b = 0; b < g.batch; ++b) {
    for (int i = 0; i < g.m; ++i) {
      for (int j = 0; j < g.n; ++j) {
        float sum = 0;
        for (int l = 0; l < g.k; ++l) {
          float a = g.transpose_a ? *at(g.a, b * g.stride_a + l + int64_t{i} * g.lda)
                                  : *at(g.a, b * g.stride_a + i + int64_t{l} * g.lda);
          float bv = g.transpose_b ? *at(g.b, b * g.stride_b + j + int64_t{l} * g.ldb)
                                   : *at(g.b, b * g.stride_b + l + int64_t{j} * g.ldb);
          sum += a * bv;
        }
        *at(g.c, b * g.stride_c + i + int64_t{j} * g.ldc) = sum;
      }
    }
  }
}

// The gemm computes the row-major batched dot, with either operand stored transposed.
TEST(ColumnMajorGemmComputesTheRowMajorDot) {
  const int64_t batch = 2, m = 3, k = 4, n = 5;
  for (bool lhs_t : {false, true}) {
    for (bool rhs_t : {false, true}) {
      std::vector<float> lhs(batch * m * k), rhs(batch * k * n), out(batch * m * n, -1);
      for (size_t i = 0; i < lhs.size(); ++i) lhs[i] = static_cast<float>(i % 7) - 3;
      for (size_t i = 0; i < rhs.size(); ++i) rhs[i] = static_cast<float>(i % 5) * 0.5f;
      cpu::DotParams p;
      p.lhs_slot = 0;
      p.rhs_slot = 1;
      p.out_slot = 2;
      p.batch = batch;
      p.m = m;
      p.k = k;
      p.n = n;
      p.lhs_transposed = lhs_t;
      p.rhs_transposed = rhs_t;
      std::vector<DevicePtr> slots = {reinterpret_cast<DevicePtr>(lhs.data()),
                                      reinterpret_cast<DevicePtr>(rhs.data()),
                                      reinterpret_cast<DevicePtr>(out.data())};
      ReferenceGemm(ColumnMajorGemm(p, slots));
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            float want = 0;
            for (int64_t l = 0; l < k; ++l) {
              float x = lhs_t ? lhs[(b * k + l) * m + i] : lhs[(b * m + i) * k + l];
              float y = rhs_t ? rhs[(b * n + j) * k + l] : rhs[(b * k + l) * n + j];
              want += x * y;
            }
            EXPECT_EQ(out[(b * m + i) * n + j], want);
          }
        }
      }
    }
  }
}

// gcnArchName carries target features after the processor; the compiler wants the processor.
TEST(GfxArchStripsFeatureSuffixes) {
  const std::pair<const char*, const char*> cases[] = {
      {"gfx90a:sramecc+:xnack-", "gfx90a"}, {"gfx942:sramecc+:xnack-", "gfx942"}, {"gfx1100", "gfx1100"}};
  for (const auto& [name, want] : cases) {
    auto arch = GfxArchOf(name);
    CHECK_OK(arch);
    EXPECT_EQ(*arch, std::string(want));
  }
  for (const char* bad : {"", "sm_80", "gfx", "gfx90a:", "gfx90a:xnack", "gfx9z0", "GFX90A"}) {
    auto arch = GfxArchOf(bad);
    EXPECT_TRUE(!arch.ok());
    if (!arch.ok()) EXPECT_TRUE(Contains(arch.status().message(), "\"" + std::string(bad) + "\""));
  }
}

// The two fields the runtime reads, at their hipDeviceProp_tR0600 offsets.
TEST(DevicePropertiesAreReadAtTheirOffsets) {
  std::vector<char> props(kHipDevicePropsBufferSize, 'x');
  std::strcpy(props.data(), "AMD Instinct MI300X");
  std::strcpy(props.data() + 1160, "gfx942:sramecc+:xnack-");
  HipDeviceInfo info = ParseHipDeviceProperties(props.data());
  EXPECT_EQ(info.name, std::string("AMD Instinct MI300X"));
  EXPECT_EQ(info.gcn_arch_name, std::string("gfx942:sramecc+:xnack-"));
  // An unterminated field is cut at its size rather than read past.
  std::memset(props.data(), 'n', 256);
  EXPECT_EQ(ParseHipDeviceProperties(props.data()).name, std::string(256, 'n'));
}

// The link action's number moved in comgr 3; unknown versions are refused.
TEST(ComgrLinkActionFollowsTheInterfaceVersion) {
  auto v2 = ComgrLinkToExecutableAction(2, 6);
  auto v3 = ComgrLinkToExecutableAction(3, 0);
  CHECK_OK(v2);
  CHECK_OK(v3);
  EXPECT_EQ(*v2, 0x9);
  EXPECT_EQ(*v3, 0x7);
  auto v4 = ComgrLinkToExecutableAction(4, 0);
  CHECK_TRUE(!v4.ok());
  EXPECT_TRUE(v4.status().code() == StatusCode::kUnimplemented);
  EXPECT_TRUE(Contains(v4.status().message(), "4.0"));
  EXPECT_EQ(ComgrIsaName("gfx90a"), std::string("amdgcn-amd-amdhsa--gfx90a"));
}

// A GpuDriver over host memory: copies and gemms run, launches are recorded.
class HostDriver final : public GpuDriver {
 public:
  struct LaunchRecord {
    int device;
    std::string name;
    LaunchDims dims;
    std::vector<DevicePtr> params;
  };

  explicit HostDriver(int devices, std::vector<std::string>* log) : devices_(devices), log_(log) {}
  ~HostDriver() override { EXPECT_EQ(live_allocations_, 0); }

  std::string backend_name() const override { return "Test"; }
  int device_count() const override { return devices_; }
  std::string device_name(int device) const override { return "host gpu " + std::to_string(device); }
  StatusOr<DevicePtr> Allocate(int, size_t bytes) override {
    ++live_allocations_;
    return reinterpret_cast<DevicePtr>(std::calloc(bytes, 1));
  }
  void Free(int, DevicePtr ptr) override {
    --live_allocations_;
    std::free(reinterpret_cast<void*>(ptr));
  }
  Status CopyToDevice(int, DevicePtr dst, const void* src, size_t bytes) override {
    std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
    return OkStatus();
  }
  Status CopyToHost(int, void* dst, DevicePtr src, size_t bytes) override {
    std::memcpy(dst, reinterpret_cast<void*>(src), bytes);
    return OkStatus();
  }
  Status CopyOnDevice(int, DevicePtr dst, DevicePtr src, size_t bytes) override {
    log_->push_back("copy " + std::to_string(bytes));
    std::memcpy(reinterpret_cast<void*>(dst), reinterpret_cast<void*>(src), bytes);
    return OkStatus();
  }
  StatusOr<std::string> PrepareCode(const GpuCompiledModule& compiled) override {
    log_->push_back("prepare " + compiled.code_extension);
    return "image:" + compiled.code;
  }
  StatusOr<ModuleHandle> LoadModule(int device, const std::string& image) override {
    if (image.rfind("image:", 0) != 0) return Internal("LoadModule got unprepared code");
    log_->push_back("load on " + std::to_string(device));
    return reinterpret_cast<ModuleHandle>(&modules_);
  }
  void UnloadModule(int device, ModuleHandle) override {
    log_->push_back("unload on " + std::to_string(device));
  }
  StatusOr<KernelHandle> GetKernel(int, ModuleHandle, const std::string& name) override {
    kernel_names_.push_back(name);
    return reinterpret_cast<KernelHandle>(kernel_names_.size());
  }
  Status Launch(int device, KernelHandle kernel, const LaunchDims& dims, KernelArgs& args,
                const std::string& name) override {
    if (kernel_names_.at(reinterpret_cast<size_t>(kernel) - 1) != name) {
      return Internal("kernel handle does not match " + name);
    }
    std::vector<DevicePtr> params;
    for (size_t i = 0; i < args.size(); ++i) params.push_back(*static_cast<DevicePtr*>(args.data()[i]));
    launches.push_back({device, name, dims, params});
    log_->push_back("launch " + name);
    return OkStatus();
  }
  Status LoadBlas() override {
    log_->push_back("load blas");
    return OkStatus();
  }
  Status Gemm(int, const GemmCall& gemm, const std::string&) override {
    log_->push_back("gemm");
    ReferenceGemm(gemm);
    return OkStatus();
  }
  Status Synchronize(int) override { return OkStatus(); }

  std::vector<LaunchRecord> launches;

 private:
  int devices_;
  std::vector<std::string>* log_;
  int live_allocations_ = 0;
  int modules_ = 0;
  std::vector<std::string> kernel_names_;
};

StatusOr<std::unique_ptr<Client>> HostClient(HostDriver** driver, std::vector<std::string>* log,
                                             int devices = 1) {
  auto owned = std::make_unique<HostDriver>(devices, log);
  *driver = owned.get();
  ASSIGN_OR_RETURN(std::unique_ptr<GpuTarget> target, CreateAmdgpuTarget("gfx90a"));
  return CreateGpuRuntimeClient("rocm", std::move(owned), std::move(target));
}

std::unique_ptr<Buffer> Upload(Client& client, const std::vector<float>& values,
                               std::vector<int64_t> dims, Device* device = nullptr) {
  auto buffer = client.BufferFromHost(values.data(), PrimitiveType::F32, dims, {}, device);
  CHECK_OK(buffer);
  return std::move(buffer).value();
}

// Devices, names and the platform version come from the driver and target.
TEST(ClientDescribesTheDriversDevices) {
  std::vector<std::string> log;
  HostDriver* driver = nullptr;
  auto client = HostClient(&driver, &log, 2);
  CHECK_OK(client);
  CHECK_TRUE((*client)->devices().size() == 2);
  EXPECT_EQ((*client)->devices()[1]->debug_string(), std::string("rocm:1"));
  EXPECT_EQ((*client)->devices()[1]->kind(), std::string("host gpu 1"));
  EXPECT_EQ((*client)->platform_version(), std::string("rocm gfx90a"));
}

// A driver without devices gives no client.
TEST(NoDevicesIsAnError) {
  std::vector<std::string> log;
  auto target = CreateAmdgpuTarget("gfx90a");
  CHECK_OK(target);
  auto client = CreateGpuRuntimeClient("rocm", std::make_unique<HostDriver>(0, &log),
                                       std::move(target).value());
  CHECK_TRUE(!client.ok());
  EXPECT_TRUE(Contains(client.status().message(), "reports no devices"));
}

// Buffers go to the device and back unchanged.
TEST(BuffersRoundTrip) {
  std::vector<std::string> log;
  HostDriver* driver = nullptr;
  auto client = HostClient(&driver, &log);
  CHECK_OK(client);
  auto buffer = Upload(**client, {1.5f, -2, 3}, {3});
  std::vector<float> back(3);
  CHECK_OK(buffer->ToHost(back.data()));
  EXPECT_EQ(back[0], 1.5f);
  EXPECT_EQ(back[2], 3.0f);
}

// An elementwise module: prepared once, loaded per device, its kernel
// launched with the parameter and output addresses and the compiler's sizes.
TEST(ElementwiseModuleLaunchesItsKernel) {
  std::vector<std::string> log;
  HostDriver* driver = nullptr;
  auto client = HostClient(&driver, &log);
  CHECK_OK(client);
  auto exe = (*client)->CompileText(R"(HloModule add
ENTRY main {
  x = f32[1000]{0} parameter(0)
  y = f32[1000]{0} parameter(1)
  ROOT a = f32[1000]{0} add(x, y)
})", {}, {});
  CHECK_OK(exe);
  std::vector<float> values(1000, 1.0f);
  auto x = Upload(**client, values, {1000});
  auto y = Upload(**client, values, {1000});
  auto out = (*exe)->Execute({{x.get(), y.get()}}, {});
  CHECK_OK(out);
  CHECK_TRUE(driver->launches.size() == 1);
  const HostDriver::LaunchRecord& launch = driver->launches[0];
  EXPECT_EQ(launch.dims.blocks, 4u);  // 1000 threads in blocks of 256
  EXPECT_EQ(launch.dims.threads_per_block, 256u);
  // The kernel's parameters are exactly the two arguments and the output:
  // a mark written through each parameter shows up in one buffer each.
  CHECK_TRUE(launch.params.size() == 3);
  for (size_t i = 0; i < 3; ++i) *reinterpret_cast<float*>(launch.params[i]) = 10.0f + i;
  std::vector<float> marks;
  for (Buffer* b : {static_cast<Buffer*>(x.get()), static_cast<Buffer*>(y.get()), (*out)[0][0].get()}) {
    std::vector<float> host(1000);
    CHECK_OK(b->ToHost(host.data()));
    marks.push_back(host[0]);
  }
  std::sort(marks.begin(), marks.end());
  EXPECT_EQ(marks[0], 10.0f);
  EXPECT_EQ(marks[1], 11.0f);
  EXPECT_EQ(marks[2], 12.0f);
  EXPECT_EQ(log.front(), std::string("prepare o"));
  EXPECT_EQ(log[1], std::string("load on 0"));
}

// Dots are gemms: the numbers come out of the (reference) BLAS call.
TEST(DotRunsAsAGemm) {
  std::vector<std::string> log;
  HostDriver* driver = nullptr;
  auto client = HostClient(&driver, &log);
  CHECK_OK(client);
  auto exe = (*client)->CompileText(R"(HloModule dot
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  y = f32[3,2]{1,0} parameter(1)
  ROOT d = f32[2,2]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})", {}, {});
  CHECK_OK(exe);
  auto x = Upload(**client, {1, 2, 3, 4, 5, 6}, {2, 3});
  auto y = Upload(**client, {1, 0, 0, 1, 1, 1}, {3, 2});
  auto out = (*exe)->Execute({{x.get(), y.get()}}, {});
  CHECK_OK(out);
  std::vector<float> result(4);
  CHECK_OK((*out)[0][0]->ToHost(result.data()));
  EXPECT_EQ(result[0], 4.0f);   // 1*1 + 2*0 + 3*1
  EXPECT_EQ(result[1], 5.0f);   // 1*0 + 2*1 + 3*1
  EXPECT_EQ(result[2], 10.0f);  // 4 + 6
  EXPECT_EQ(result[3], 11.0f);  // 5 + 6
  EXPECT_TRUE(std::find(log.begin(), log.end(), "load blas") != log.end());
  EXPECT_TRUE(std::find(log.begin(), log.end(), "gemm") != log.end());
}

// Buffers of another device, and deleted buffers, are refused by name.
TEST(ArgumentsMustLiveOnTheDevice) {
  std::vector<std::string> log;
  HostDriver* driver = nullptr;
  auto client = HostClient(&driver, &log, 2);
  CHECK_OK(client);
  Device* dev0 = (*client)->devices()[0];
  auto exe = (*client)->CompileText(R"(HloModule neg
ENTRY main {
  x = f32[4]{0} parameter(0)
  ROOT n = f32[4]{0} negate(x)
})", {}, {dev0});
  CHECK_OK(exe);
  auto elsewhere = Upload(**client, {1, 2, 3, 4}, {4}, (*client)->devices()[1]);
  auto out = (*exe)->Execute({{elsewhere.get()}}, {});
  CHECK_TRUE(!out.ok());
  EXPECT_TRUE(Contains(out.status().message(), "argument 0 is not a live buffer on rocm:0"));
  auto here = Upload(**client, {1, 2, 3, 4}, {4}, dev0);
  here->Delete();
  out = (*exe)->Execute({{here.get()}}, {});
  CHECK_TRUE(!out.ok());
  EXPECT_TRUE(Contains(out.status().message(), "not a live buffer"));
}

}  // namespace
}  // namespace xla::gpu

TEST_MAIN()
