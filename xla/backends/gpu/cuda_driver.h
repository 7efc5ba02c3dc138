// The CUDA driver API and cuBLAS, opened with dlopen at client creation so
// the plugin builds and loads without a CUDA SDK. Only the entry points the
// runtime (cuda_runtime.cc) uses are declared, with the driver's own types
// reduced to what crosses the calls (handles are opaque pointers).
#ifndef XLA_BACKENDS_GPU_CUDA_DRIVER_H_
#define XLA_BACKENDS_GPU_CUDA_DRIVER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "xla/status.h"

namespace xla::gpu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = uint64_t;
using CUcontext = struct CUctx_st*;
using CUstream = struct CUstream_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using cublasHandle_t = struct cublasContext*;

// cuDeviceGetAttribute: the compute capability.
constexpr int kCuComputeCapabilityMajor = 75;
constexpr int kCuComputeCapabilityMinor = 76;

struct CudaDriver {
  // Opens libcuda.so.1 and resolves every entry point; the error names the
  // library or the missing symbol.
  static StatusOr<std::unique_ptr<CudaDriver>> Load();
  // OK, or FAILED_PRECONDITION "<what>: CUDA error <name> (<description>)".
  Status Check(CUresult rc, const std::string& what) const;

  void* library = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;  // _v2
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuStreamCreate)(CUstream*, unsigned) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream) = nullptr;  // _v2
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;  // _v2
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;            // _v2
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;  // _v2
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;        // _v2
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream) = nullptr;  // _v2
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void**, void**) = nullptr;
};

// cuBLAS (libcublas.so.12), for the dots the compiler records as BLAS calls.
struct Cublas {
  static StatusOr<std::unique_ptr<Cublas>> Load();

  void* library = nullptr;
  int (*cublasCreate)(cublasHandle_t*) = nullptr;   // _v2
  int (*cublasDestroy)(cublasHandle_t) = nullptr;   // _v2
  int (*cublasSetStream)(cublasHandle_t, CUstream) = nullptr;  // _v2
  // (handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB,
  //  beta, C, ldc, strideC, batch), column-major.
  int (*cublasSgemmStridedBatched)(cublasHandle_t, int, int, int, int, int, const float*,
                                   const float*, int, long long, const float*, int, long long,
                                   const float*, float*, int, long long, int) = nullptr;
  int (*cublasDgemmStridedBatched)(cublasHandle_t, int, int, int, int, int, const double*,
                                   const double*, int, long long, const double*, int, long long,
                                   const double*, double*, int, long long, int) = nullptr;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CUDA_DRIVER_H_
