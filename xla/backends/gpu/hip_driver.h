// The HIP runtime API (libamdhip64.so, ROCm 6) and hipBLAS, opened with
// dlopen at client creation so the plugin builds and loads without ROCm.
// Only the entry points the ROCm runtime (rocm_runtime.cc) uses are
// declared; handles are opaque pointers and hipError_t is an int.
#ifndef XLA_BACKENDS_GPU_HIP_DRIVER_H_
#define XLA_BACKENDS_GPU_HIP_DRIVER_H_

#include <cstddef>
#include <memory>
#include <string>

#include "xla/status.h"

namespace xla::gpu {

using hipError_t = int;
using hipStream_t = struct ihipStream_t*;
using hipModule_t = struct ihipModule_t*;
using hipFunction_t = struct ihipModuleSymbol_t*;
using hipblasHandle_t = void*;

constexpr hipError_t kHipSuccess = 0;
constexpr hipError_t kHipErrorNoDevice = 100;

// hipDeviceProp_tR0600, the properties struct of ROCm 6, read as bytes: we
// need two of its fields and do not declare the whole struct. The buffer is
// larger than the struct (1.5 KB) so a runtime with a longer one is safe.
constexpr size_t kHipDevicePropsBufferSize = 4096;
constexpr size_t kHipDevicePropsNameOffset = 0;        // char name[256]
constexpr size_t kHipDevicePropsGcnArchNameOffset = 1160;  // char gcnArchName[256]
constexpr size_t kHipDevicePropsStringSize = 256;

// What the runtime needs of a device's properties.
struct HipDeviceInfo {
  std::string name;           // "AMD Instinct MI250X"
  std::string gcn_arch_name;  // "gfx90a:sramecc+:xnack-"
};

// Reads the fields of a hipDeviceProp_tR0600 filled by hipGetDevicePropertiesR0600.
HipDeviceInfo ParseHipDeviceProperties(const char* props);

// The processor of a gcnArchName: "gfx90a:sramecc+:xnack-" -> "gfx90a".
// INVALID_ARGUMENT unless it is "gfx" and hex digits, then optional
// ":feature+" / ":feature-" suffixes.
StatusOr<std::string> GfxArchOf(const std::string& gcn_arch_name);

struct HipDriver {
  // Opens libamdhip64.so (or libamdhip64.so.6) and resolves every entry point;
  // the error names the library or the missing symbol.
  static StatusOr<std::unique_ptr<HipDriver>> Load();
  // OK, or FAILED_PRECONDITION "<library>: <function> failed: HIP error
  // <name> (<description>)".
  Status Check(hipError_t rc, const std::string& function) const;
  // The properties of device `ordinal`.
  StatusOr<HipDeviceInfo> DeviceInfo(int ordinal) const;

  std::string library_name;
  void* library = nullptr;
  hipError_t (*hipInit)(unsigned) = nullptr;
  const char* (*hipGetErrorName)(hipError_t) = nullptr;
  const char* (*hipGetErrorString)(hipError_t) = nullptr;
  hipError_t (*hipGetDeviceCount)(int*) = nullptr;
  hipError_t (*hipGetDevicePropertiesR0600)(void*, int) = nullptr;
  hipError_t (*hipSetDevice)(int) = nullptr;
  hipError_t (*hipStreamCreate)(hipStream_t*) = nullptr;
  hipError_t (*hipStreamDestroy)(hipStream_t) = nullptr;
  hipError_t (*hipStreamSynchronize)(hipStream_t) = nullptr;
  hipError_t (*hipMalloc)(void**, size_t) = nullptr;
  hipError_t (*hipFree)(void*) = nullptr;
  hipError_t (*hipMemcpyHtoDAsync)(void*, const void*, size_t, hipStream_t) = nullptr;
  hipError_t (*hipMemcpyDtoHAsync)(void*, void*, size_t, hipStream_t) = nullptr;
  hipError_t (*hipMemcpyDtoDAsync)(void*, void*, size_t, hipStream_t) = nullptr;
  hipError_t (*hipModuleLoadData)(hipModule_t*, const void*) = nullptr;
  hipError_t (*hipModuleUnload)(hipModule_t) = nullptr;
  hipError_t (*hipModuleGetFunction)(hipFunction_t*, hipModule_t, const char*) = nullptr;
  // (function, grid x y z, block x y z, shared bytes, stream, params, extra)
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, hipStream_t, void**,
                                      void**) = nullptr;
};

// hipblasOperation_t (the CBLAS values).
constexpr int kHipblasOpN = 111;
constexpr int kHipblasOpT = 112;

// hipBLAS (libhipblas.so), for the dots the compiler records as BLAS calls.
struct Hipblas {
  static StatusOr<std::unique_ptr<Hipblas>> Load();

  std::string library_name;
  void* library = nullptr;
  int (*hipblasCreate)(hipblasHandle_t*) = nullptr;
  int (*hipblasDestroy)(hipblasHandle_t) = nullptr;
  int (*hipblasSetStream)(hipblasHandle_t, hipStream_t) = nullptr;
  // (handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB,
  //  beta, C, ldc, strideC, batch), column-major.
  int (*hipblasSgemmStridedBatched)(hipblasHandle_t, int, int, int, int, int, const float*,
                                    const float*, int, long long, const float*, int, long long,
                                    const float*, float*, int, long long, int) = nullptr;
  int (*hipblasDgemmStridedBatched)(hipblasHandle_t, int, int, int, int, int, const double*,
                                    const double*, int, long long, const double*, int, long long,
                                    const double*, double*, int, long long, int) = nullptr;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_HIP_DRIVER_H_
