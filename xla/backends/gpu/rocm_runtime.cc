#include "xla/backends/gpu/rocm_runtime.h"

#include <vector>

#include "xla/backends/gpu/comgr.h"
#include "xla/backends/gpu/gpu_runtime.h"
#include "xla/backends/gpu/gpu_target.h"

namespace xla::gpu {
namespace {

void* Address(DevicePtr ptr) { return reinterpret_cast<void*>(static_cast<uintptr_t>(ptr)); }

struct HipDeviceState {
  hipStream_t stream = nullptr;
  std::string name;
};

// GpuDriver over HIP: one stream per device, hipSetDevice before each call.
class HipGpuDriver final : public GpuDriver {
 public:
  HipGpuDriver(std::unique_ptr<HipDriver> hip, std::unique_ptr<Comgr> comgr, std::string isa_name,
               std::vector<HipDeviceState> devices)
      : hip_(std::move(hip)), comgr_(std::move(comgr)), isa_name_(std::move(isa_name)),
        devices_(std::move(devices)) {}
  ~HipGpuDriver() override {
    for (int d = 0; d < device_count(); ++d) {
      if (Use(d).ok()) hip_->hipStreamDestroy(stream(d));
    }
  }

  std::string backend_name() const override { return "ROCm"; }
  int device_count() const override { return static_cast<int>(devices_.size()); }
  std::string device_name(int device) const override { return devices_[device].name; }

  StatusOr<DevicePtr> Allocate(int device, size_t bytes) override {
    RETURN_IF_ERROR(Use(device));
    void* ptr = nullptr;
    RETURN_IF_ERROR(hip_->Check(hip_->hipMalloc(&ptr, bytes), "hipMalloc"));
    return static_cast<DevicePtr>(reinterpret_cast<uintptr_t>(ptr));
  }
  void Free(int device, DevicePtr ptr) override {
    if (!Use(device).ok()) return;
    hip_->hipStreamSynchronize(stream(device));
    hip_->hipFree(Address(ptr));
  }
  Status CopyToDevice(int device, DevicePtr dst, const void* src, size_t bytes) override {
    RETURN_IF_ERROR(Use(device));
    RETURN_IF_ERROR(hip_->Check(hip_->hipMemcpyHtoDAsync(Address(dst), src, bytes, stream(device)),
                                "hipMemcpyHtoDAsync"));
    // The caller may reuse `src` once we return.
    return hip_->Check(hip_->hipStreamSynchronize(stream(device)), "hipStreamSynchronize");
  }
  Status CopyToHost(int device, void* dst, DevicePtr src, size_t bytes) override {
    RETURN_IF_ERROR(Use(device));
    RETURN_IF_ERROR(hip_->Check(hip_->hipMemcpyDtoHAsync(dst, Address(src), bytes, stream(device)),
                                "hipMemcpyDtoHAsync"));
    return hip_->Check(hip_->hipStreamSynchronize(stream(device)), "hipStreamSynchronize");
  }
  Status CopyOnDevice(int device, DevicePtr dst, DevicePtr src, size_t bytes) override {
    RETURN_IF_ERROR(Use(device));
    return hip_->Check(hip_->hipMemcpyDtoDAsync(Address(dst), Address(src), bytes, stream(device)),
                       "hipMemcpyDtoDAsync");
  }

  StatusOr<std::string> PrepareCode(const GpuCompiledModule& compiled) override {
    return comgr_->LinkExecutable(compiled.code, isa_name_);
  }
  StatusOr<ModuleHandle> LoadModule(int device, const std::string& image) override {
    RETURN_IF_ERROR(Use(device));
    hipModule_t module = nullptr;
    RETURN_IF_ERROR(hip_->Check(hip_->hipModuleLoadData(&module, image.data()), "hipModuleLoadData"));
    return static_cast<ModuleHandle>(module);
  }
  void UnloadModule(int device, ModuleHandle module) override {
    if (Use(device).ok()) hip_->hipModuleUnload(static_cast<hipModule_t>(module));
  }
  StatusOr<KernelHandle> GetKernel(int device, ModuleHandle module, const std::string& name) override {
    RETURN_IF_ERROR(Use(device));
    hipFunction_t fn = nullptr;
    RETURN_IF_ERROR(hip_->Check(
        hip_->hipModuleGetFunction(&fn, static_cast<hipModule_t>(module), name.c_str()),
        "hipModuleGetFunction"));
    return static_cast<KernelHandle>(fn);
  }
  Status Launch(int device, KernelHandle kernel, const LaunchDims& dims, KernelArgs& args,
                const std::string& name) override {
    RETURN_IF_ERROR(Use(device));
    Status launched = hip_->Check(
        hip_->hipModuleLaunchKernel(static_cast<hipFunction_t>(kernel), dims.blocks, 1, 1,
                                    dims.threads_per_block, 1, 1, 0, stream(device), args.data(),
                                    nullptr),
        "hipModuleLaunchKernel");
    return launched.WithContext("launching " + name);
  }
  Status LoadBlas() override {
    if (hipblas_ == nullptr) {
      ASSIGN_OR_RETURN(hipblas_, Hipblas::Load());
    }
    return OkStatus();
  }
  Status Gemm(int device, const GemmCall& g, const std::string& name) override {
    if (hipblas_ == nullptr) return FailedPrecondition("hipBLAS is not loaded");
    RETURN_IF_ERROR(Use(device));
    hipblasHandle_t handle = nullptr;
    if (int rc = hipblas_->hipblasCreate(&handle); rc != 0) {
      return FailedPrecondition(hipblas_->library_name + ": hipblasCreate failed with status " +
                                std::to_string(rc));
    }
    int rc = hipblas_->hipblasSetStream(handle, stream(device));
    const int op_a = g.transpose_a ? kHipblasOpT : kHipblasOpN;
    const int op_b = g.transpose_b ? kHipblasOpT : kHipblasOpN;
    if (rc == 0 && g.type == PrimitiveType::F32) {
      const float one = 1, zero = 0;
      rc = hipblas_->hipblasSgemmStridedBatched(
          handle, op_a, op_b, g.m, g.n, g.k, &one, reinterpret_cast<const float*>(g.a), g.lda,
          g.stride_a, reinterpret_cast<const float*>(g.b), g.ldb, g.stride_b, &zero,
          reinterpret_cast<float*>(g.c), g.ldc, g.stride_c, g.batch);
    } else if (rc == 0) {
      const double one = 1, zero = 0;
      rc = hipblas_->hipblasDgemmStridedBatched(
          handle, op_a, op_b, g.m, g.n, g.k, &one, reinterpret_cast<const double*>(g.a), g.lda,
          g.stride_a, reinterpret_cast<const double*>(g.b), g.ldb, g.stride_b, &zero,
          reinterpret_cast<double*>(g.c), g.ldc, g.stride_c, g.batch);
    }
    hipblas_->hipblasDestroy(handle);
    if (rc != 0) {
      return FailedPrecondition(hipblas_->library_name + ": gemm for " + name +
                                " failed with status " + std::to_string(rc));
    }
    return OkStatus();
  }
  Status Synchronize(int device) override {
    RETURN_IF_ERROR(Use(device));
    return hip_->Check(hip_->hipStreamSynchronize(stream(device)), "hipStreamSynchronize");
  }

 private:
  Status Use(int device) const { return hip_->Check(hip_->hipSetDevice(device), "hipSetDevice"); }
  hipStream_t stream(int device) const { return devices_[device].stream; }

  std::unique_ptr<HipDriver> hip_;
  std::unique_ptr<Comgr> comgr_;
  std::string isa_name_;
  std::vector<HipDeviceState> devices_;
  std::unique_ptr<Hipblas> hipblas_;
};

constexpr char kNoDeviceFix[] =
    "Check that the machine has an AMD GPU, that the amdgpu kernel driver is loaded and that this "
    "user may open /dev/kfd and /dev/dri (the video and render groups); pass mock=True for a "
    "compile-only client.";

}  // namespace

StatusOr<std::unique_ptr<Client>> CreateRocmRuntimeClient(std::unique_ptr<HipDriver> hip) {
  int count = 0;
  hipError_t rc = hip->hipInit(0);
  if (rc == kHipSuccess) rc = hip->hipGetDeviceCount(&count);
  if (rc == kHipErrorNoDevice || (rc == kHipSuccess && count == 0)) {
    return FailedPrecondition("The ROCm plugin found no AMD GPU: " + hip->library_name +
                              " reports no devices. " + kNoDeviceFix);
  }
  if (rc != kHipSuccess) {
    Status failed = hip->Check(rc, "hipInit or hipGetDeviceCount");
    return FailedPrecondition("The ROCm plugin could not initialise HIP (" + failed.message() +
                              "). " + kNoDeviceFix);
  }
  std::vector<HipDeviceState> devices;
  std::string arch;
  for (int i = 0; i < count; ++i) {
    ASSIGN_OR_RETURN(HipDeviceInfo info, hip->DeviceInfo(i));
    if (i == 0) {
      ASSIGN_OR_RETURN(arch, GfxArchOf(info.gcn_arch_name));
    }
    devices.push_back(HipDeviceState{nullptr, info.name});
  }
  auto target = CreateAmdgpuTarget(arch);
  if (!target.ok()) return target.status().WithContext("device 0");
  ASSIGN_OR_RETURN(std::unique_ptr<Comgr> comgr, Comgr::Load());
  for (int i = 0; i < count; ++i) {
    RETURN_IF_ERROR(hip->Check(hip->hipSetDevice(i), "hipSetDevice"));
    RETURN_IF_ERROR(hip->Check(hip->hipStreamCreate(&devices[i].stream), "hipStreamCreate"));
  }
  return CreateGpuRuntimeClient(
      "rocm",
      std::make_unique<HipGpuDriver>(std::move(hip), std::move(comgr), ComgrIsaName(arch),
                                     std::move(devices)),
      std::move(target).value());
}

}  // namespace xla::gpu
