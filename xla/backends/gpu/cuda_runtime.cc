#include "xla/backends/gpu/cuda_runtime.h"

#include <vector>

#include "xla/backends/gpu/gpu_runtime.h"
#include "xla/backends/gpu/gpu_target.h"

namespace xla::gpu {
namespace {

// cublasOperation_t.
constexpr int kCublasOpN = 0;
constexpr int kCublasOpT = 1;

struct CudaDeviceState {
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  std::string name;
};

// GpuDriver over the CUDA driver API: a primary context and a stream per device.
class CudaGpuDriver final : public GpuDriver {
 public:
  CudaGpuDriver(std::unique_ptr<CudaDriver> cuda, std::vector<CudaDeviceState> devices)
      : cuda_(std::move(cuda)), devices_(std::move(devices)) {}
  ~CudaGpuDriver() override {
    for (const CudaDeviceState& d : devices_) {
      if (cuda_->cuCtxSetCurrent(d.context) != 0) continue;
      cuda_->cuStreamDestroy(d.stream);
      cuda_->cuDevicePrimaryCtxRelease(d.device);
    }
  }

  std::string backend_name() const override { return "CUDA"; }
  int device_count() const override { return static_cast<int>(devices_.size()); }
  std::string device_name(int device) const override { return devices_[device].name; }

  StatusOr<DevicePtr> Allocate(int device, size_t bytes) override {
    RETURN_IF_ERROR(Use(device));
    CUdeviceptr ptr = 0;
    RETURN_IF_ERROR(cuda_->Check(cuda_->cuMemAlloc(&ptr, bytes), "cuMemAlloc"));
    return DevicePtr{ptr};
  }
  void Free(int device, DevicePtr ptr) override {
    if (!Use(device).ok()) return;
    cuda_->cuStreamSynchronize(stream(device));
    cuda_->cuMemFree(ptr);
  }
  Status CopyToDevice(int device, DevicePtr dst, const void* src, size_t bytes) override {
    RETURN_IF_ERROR(Use(device));
    return cuda_->Check(cuda_->cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
  }
  Status CopyToHost(int device, void* dst, DevicePtr src, size_t bytes) override {
    RETURN_IF_ERROR(Synchronize(device));
    return cuda_->Check(cuda_->cuMemcpyDtoH(dst, src, bytes), "copying a buffer to the host");
  }
  Status CopyOnDevice(int device, DevicePtr dst, DevicePtr src, size_t bytes) override {
    RETURN_IF_ERROR(Use(device));
    return cuda_->Check(cuda_->cuMemcpyDtoDAsync(dst, src, bytes, stream(device)), "cuMemcpyDtoDAsync");
  }

  StatusOr<std::string> PrepareCode(const GpuCompiledModule& compiled) override {
    return compiled.code;  // the driver's JIT takes PTX text
  }
  StatusOr<ModuleHandle> LoadModule(int device, const std::string& image) override {
    RETURN_IF_ERROR(Use(device));
    CUmodule module = nullptr;
    char log[8192] = {0};
    int options[] = {5, 6};  // CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
    void* values[] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof(log)))};
    RETURN_IF_ERROR(cuda_->Check(cuda_->cuModuleLoadDataEx(&module, image.c_str(), 2, options, values),
                                 std::string("JIT-compiling the PTX (") + log + ")"));
    return static_cast<ModuleHandle>(module);
  }
  void UnloadModule(int device, ModuleHandle module) override {
    if (Use(device).ok()) cuda_->cuModuleUnload(static_cast<CUmodule>(module));
  }
  StatusOr<KernelHandle> GetKernel(int device, ModuleHandle module, const std::string& name) override {
    RETURN_IF_ERROR(Use(device));
    CUfunction fn = nullptr;
    RETURN_IF_ERROR(cuda_->Check(
        cuda_->cuModuleGetFunction(&fn, static_cast<CUmodule>(module), name.c_str()),
        "cuModuleGetFunction"));
    return static_cast<KernelHandle>(fn);
  }
  Status Launch(int device, KernelHandle kernel, const LaunchDims& dims, KernelArgs& args,
                const std::string& name) override {
    RETURN_IF_ERROR(Use(device));
    return cuda_->Check(cuda_->cuLaunchKernel(static_cast<CUfunction>(kernel), dims.blocks, 1, 1,
                                              dims.threads_per_block, 1, 1, 0, stream(device),
                                              args.data(), nullptr),
                        "launching " + name);
  }
  Status LoadBlas() override {
    if (cublas_ == nullptr) {
      ASSIGN_OR_RETURN(cublas_, Cublas::Load());
    }
    return OkStatus();
  }
  Status Gemm(int device, const GemmCall& g, const std::string& name) override {
    if (cublas_ == nullptr) return FailedPrecondition("cuBLAS is not loaded");
    RETURN_IF_ERROR(Use(device));
    cublasHandle_t handle = nullptr;
    if (cublas_->cublasCreate(&handle) != 0) return FailedPrecondition("cublasCreate failed");
    cublas_->cublasSetStream(handle, stream(device));
    const int op_a = g.transpose_a ? kCublasOpT : kCublasOpN;
    const int op_b = g.transpose_b ? kCublasOpT : kCublasOpN;
    int rc;
    if (g.type == PrimitiveType::F32) {
      const float one = 1, zero = 0;
      rc = cublas_->cublasSgemmStridedBatched(
          handle, op_a, op_b, g.m, g.n, g.k, &one, reinterpret_cast<const float*>(g.a), g.lda,
          g.stride_a, reinterpret_cast<const float*>(g.b), g.ldb, g.stride_b, &zero,
          reinterpret_cast<float*>(g.c), g.ldc, g.stride_c, g.batch);
    } else {
      const double one = 1, zero = 0;
      rc = cublas_->cublasDgemmStridedBatched(
          handle, op_a, op_b, g.m, g.n, g.k, &one, reinterpret_cast<const double*>(g.a), g.lda,
          g.stride_a, reinterpret_cast<const double*>(g.b), g.ldb, g.stride_b, &zero,
          reinterpret_cast<double*>(g.c), g.ldc, g.stride_c, g.batch);
    }
    cublas_->cublasDestroy(handle);
    if (rc != 0) {
      return FailedPrecondition("cuBLAS gemm for " + name + " failed with status " + std::to_string(rc));
    }
    return OkStatus();
  }
  Status Synchronize(int device) override {
    RETURN_IF_ERROR(Use(device));
    return cuda_->Check(cuda_->cuStreamSynchronize(stream(device)), "cuStreamSynchronize");
  }

 private:
  // Makes the device's context current on this thread.
  Status Use(int device) const {
    return cuda_->Check(cuda_->cuCtxSetCurrent(devices_[device].context), "cuCtxSetCurrent");
  }
  CUstream stream(int device) const { return devices_[device].stream; }

  std::unique_ptr<CudaDriver> cuda_;
  std::vector<CudaDeviceState> devices_;
  std::unique_ptr<Cublas> cublas_;
};

}  // namespace

StatusOr<std::unique_ptr<Client>> CreateCudaRuntimeClient(std::unique_ptr<CudaDriver> driver,
                                                          const std::string& cuda_data_dir) {
  const CudaDriver& d = *driver;
  int count = 0;
  RETURN_IF_ERROR(d.Check(d.cuDeviceGetCount(&count), "cuDeviceGetCount"));
  if (count == 0) return FailedPrecondition("the NVIDIA driver reports no CUDA devices");
  std::vector<CudaDeviceState> devices;
  int major = 0, minor = 0;
  for (int i = 0; i < count; ++i) {
    CudaDeviceState state;
    RETURN_IF_ERROR(d.Check(d.cuDeviceGet(&state.device, i), "cuDeviceGet"));
    char name[256] = {0};
    RETURN_IF_ERROR(d.Check(d.cuDeviceGetName(name, sizeof(name) - 1, state.device), "cuDeviceGetName"));
    state.name = name;
    if (i == 0) {
      RETURN_IF_ERROR(d.Check(d.cuDeviceGetAttribute(&major, kCuComputeCapabilityMajor, state.device),
                              "reading the compute capability"));
      RETURN_IF_ERROR(d.Check(d.cuDeviceGetAttribute(&minor, kCuComputeCapabilityMinor, state.device),
                              "reading the compute capability"));
    }
    RETURN_IF_ERROR(d.Check(d.cuDevicePrimaryCtxRetain(&state.context, state.device),
                            "cuDevicePrimaryCtxRetain"));
    RETURN_IF_ERROR(d.Check(d.cuCtxSetCurrent(state.context), "cuCtxSetCurrent"));
    RETURN_IF_ERROR(d.Check(d.cuStreamCreate(&state.stream, 0), "cuStreamCreate"));
    devices.push_back(std::move(state));
  }
  const std::string arch = "sm_" + std::to_string(major) + std::to_string(minor);
  ASSIGN_OR_RETURN(std::unique_ptr<GpuTarget> target, CreateNvptxTarget(arch, cuda_data_dir));
  return CreateGpuRuntimeClient(
      "cuda", std::make_unique<CudaGpuDriver>(std::move(driver), std::move(devices)), std::move(target));
}

}  // namespace xla::gpu
