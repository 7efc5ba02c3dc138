// The GPU runtime shared by the CUDA and ROCm clients: devices, device
// buffers and executables that walk the compiler's program (gpu_compiler.h)
// and issue its kernel launches, device copies and BLAS gemms in order.
//
// Everything vendor-specific sits behind GpuDriver, a small interface over
// one vendor API (the CUDA driver API with cuBLAS, HIP with hipBLAS and
// comgr); the driver owns the per-device state (contexts, streams).
//
// Not yet: while loops and conditionals (they need host-driven subprograms),
// donation, strided host buffers, and more than one process.
#ifndef XLA_BACKENDS_GPU_GPU_RUNTIME_H_
#define XLA_BACKENDS_GPU_GPU_RUNTIME_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xla/backends/cpu/runtime/program.h"
#include "xla/backends/gpu/gpu_compiler.h"
#include "xla/pjrt/client.h"

namespace xla::gpu {

class GpuTarget;

// A device address (CUdeviceptr, or a HIP pointer as an integer).
using DevicePtr = uint64_t;
// Vendor handles the runtime only passes back to the driver.
using ModuleHandle = void*;
using KernelHandle = void*;

// Grid and block of a one-dimensional launch.
struct LaunchDims {
  unsigned blocks = 0;
  unsigned threads_per_block = 0;
};

// The launch of `spec`, or INVALID_ARGUMENT if it exceeds what GPUs accept
// (grids of up to 2^31-1 blocks, blocks of up to 1024 threads).
StatusOr<LaunchDims> LaunchDimsOf(const GpuKernelSpec& spec);

// Kernel parameters as the launch APIs take them: an array of pointers, one
// per parameter, each to that parameter's value (here a device address).
class KernelArgs {
 public:
  explicit KernelArgs(std::vector<DevicePtr> values);
  KernelArgs(const KernelArgs&) = delete;
  KernelArgs& operator=(const KernelArgs&) = delete;
  void** data() { return pointers_.data(); }
  size_t size() const { return values_.size(); }

 private:
  std::vector<DevicePtr> values_;
  std::vector<void*> pointers_;
};

// The parameters of kernel `spec` given the device address of every program slot.
std::vector<DevicePtr> KernelParameters(const GpuKernelSpec& spec,
                                        const std::vector<DevicePtr>& slots);

// A column-major strided batched gemm C = op(A).op(B), as cuBLAS and hipBLAS
// take it. A row-major dot is the column-major C^T = B^T.A^T, so A here is
// the dot's right-hand side.
struct GemmCall {
  PrimitiveType type = PrimitiveType::F32;  // F32 or F64
  bool transpose_a = false, transpose_b = false;
  int m = 0, n = 0, k = 0;
  DevicePtr a = 0, b = 0, c = 0;
  int lda = 0, ldb = 0, ldc = 0;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  int batch = 0;
};

// The gemm for a recorded dot step, given the slots' device addresses.
GemmCall ColumnMajorGemm(const cpu::DotParams& dot, const std::vector<DevicePtr>& slots);

// One vendor API. Devices are ordinals 0..device_count()-1; every call that
// names a device makes it current first. Errors say which call failed and why.
class GpuDriver {
 public:
  virtual ~GpuDriver() = default;

  // "CUDA" / "ROCm": names the backend in errors.
  virtual std::string backend_name() const = 0;
  virtual int device_count() const = 0;
  // The marketing name, e.g. "NVIDIA A100-SXM4-40GB", "AMD Instinct MI250X".
  virtual std::string device_name(int device) const = 0;

  virtual StatusOr<DevicePtr> Allocate(int device, size_t bytes) = 0;
  // Waits for the device's queued work first, so nothing still uses `ptr`.
  virtual void Free(int device, DevicePtr ptr) = 0;
  // Returns once `src` may be reused.
  virtual Status CopyToDevice(int device, DevicePtr dst, const void* src, size_t bytes) = 0;
  // After the device's queued work; returns when `dst` holds the data.
  virtual Status CopyToHost(int device, void* dst, DevicePtr src, size_t bytes) = 0;
  // Queued on the device's stream.
  virtual Status CopyOnDevice(int device, DevicePtr dst, DevicePtr src, size_t bytes) = 0;

  // Code as the compiler made it (PTX, a relocatable AMDGPU object) -> the
  // image LoadModule takes. Called once per executable.
  virtual StatusOr<std::string> PrepareCode(const GpuCompiledModule& compiled) = 0;
  virtual StatusOr<ModuleHandle> LoadModule(int device, const std::string& image) = 0;
  virtual void UnloadModule(int device, ModuleHandle module) = 0;
  virtual StatusOr<KernelHandle> GetKernel(int device, ModuleHandle module,
                                           const std::string& name) = 0;
  // Queued on the device's stream.
  virtual Status Launch(int device, KernelHandle kernel, const LaunchDims& dims, KernelArgs& args,
                        const std::string& name) = 0;
  // Loads the BLAS library on first use; the error names it and how to get it.
  virtual Status LoadBlas() = 0;
  // Queued on the device's stream; LoadBlas has succeeded.
  virtual Status Gemm(int device, const GemmCall& gemm, const std::string& name) = 0;
  // Waits for the device's queued work.
  virtual Status Synchronize(int device) = 0;
};

// A client over every device of `driver` (at least one), compiling for `target`.
// `platform` is "cuda" or "rocm"; devices are "<platform>:<ordinal>".
StatusOr<std::unique_ptr<Client>> CreateGpuRuntimeClient(const std::string& platform,
                                                         std::unique_ptr<GpuDriver> driver,
                                                         std::unique_ptr<GpuTarget> target);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_GPU_RUNTIME_H_
