#include "xla/backends/gpu/cuda_driver.h"

#include "xla/backends/gpu/driver_util.h"

namespace xla::gpu {

using driver_util::ResolveSymbol;


StatusOr<std::unique_ptr<CudaDriver>> CudaDriver::Load() {
  auto d = std::make_unique<CudaDriver>();
  ASSIGN_OR_RETURN(d->library, driver_util::OpenDriver(
                                   "libcuda.so.1", "The CUDA plugin",
                                   "Install the NVIDIA driver on a machine with an NVIDIA GPU "
                                   "(or pass mock=True for a compile-only client)."));
  const char* lib = "libcuda.so.1";
#define XLA_RESOLVE(field, symbol) RETURN_IF_ERROR(ResolveSymbol(d->library, lib, symbol, &d->field))
  XLA_RESOLVE(cuInit, "cuInit");
  XLA_RESOLVE(cuGetErrorName, "cuGetErrorName");
  XLA_RESOLVE(cuGetErrorString, "cuGetErrorString");
  XLA_RESOLVE(cuDeviceGetCount, "cuDeviceGetCount");
  XLA_RESOLVE(cuDeviceGet, "cuDeviceGet");
  XLA_RESOLVE(cuDeviceGetName, "cuDeviceGetName");
  XLA_RESOLVE(cuDeviceGetAttribute, "cuDeviceGetAttribute");
  XLA_RESOLVE(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  XLA_RESOLVE(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  XLA_RESOLVE(cuCtxSetCurrent, "cuCtxSetCurrent");
  XLA_RESOLVE(cuStreamCreate, "cuStreamCreate");
  XLA_RESOLVE(cuStreamDestroy, "cuStreamDestroy_v2");
  XLA_RESOLVE(cuStreamSynchronize, "cuStreamSynchronize");
  XLA_RESOLVE(cuMemAlloc, "cuMemAlloc_v2");
  XLA_RESOLVE(cuMemFree, "cuMemFree_v2");
  XLA_RESOLVE(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  XLA_RESOLVE(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  XLA_RESOLVE(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
  XLA_RESOLVE(cuModuleLoadDataEx, "cuModuleLoadDataEx");
  XLA_RESOLVE(cuModuleUnload, "cuModuleUnload");
  XLA_RESOLVE(cuModuleGetFunction, "cuModuleGetFunction");
  XLA_RESOLVE(cuLaunchKernel, "cuLaunchKernel");
#undef XLA_RESOLVE
  return d;
}

Status CudaDriver::Check(CUresult rc, const std::string& what) const {
  if (rc == 0) return OkStatus();
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(rc, &name);
  cuGetErrorString(rc, &text);
  return FailedPrecondition(what + ": CUDA error " + (name ? name : std::to_string(rc)) + " (" +
                            (text ? text : "no description") + ")");
}

StatusOr<std::unique_ptr<Cublas>> Cublas::Load() {
  auto b = std::make_unique<Cublas>();
  ASSIGN_OR_RETURN(b->library,
                   driver_util::OpenDriver("libcublas.so.12", "Dots on CUDA devices",
                                           "Install cuBLAS 12 (pip install nvidia-cublas-cu12)."));
  const char* lib = "libcublas.so.12";
#define XLA_RESOLVE(field, symbol) RETURN_IF_ERROR(ResolveSymbol(b->library, lib, symbol, &b->field))
  XLA_RESOLVE(cublasCreate, "cublasCreate_v2");
  XLA_RESOLVE(cublasDestroy, "cublasDestroy_v2");
  XLA_RESOLVE(cublasSetStream, "cublasSetStream_v2");
  XLA_RESOLVE(cublasSgemmStridedBatched, "cublasSgemmStridedBatched");
  XLA_RESOLVE(cublasDgemmStridedBatched, "cublasDgemmStridedBatched");
#undef XLA_RESOLVE
  return b;
}

}  // namespace xla::gpu
