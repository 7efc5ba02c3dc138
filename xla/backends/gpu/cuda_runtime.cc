#include "xla/backends/gpu/cuda_runtime.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "xla/backends/gpu/gpu_compiler.h"
#include "xla/backends/gpu/gpu_target.h"
#include "xla/hlo/parser/parser.h"

namespace xla::gpu {
namespace {

class CudaMemory final : public Memory {
 public:
  explicit CudaMemory(int id) : id_(id) {}
  int id() const override { return id_; }
  const std::string& kind() const override { return kind_; }

 private:
  int id_;
  std::string kind_ = "device";
};

class CudaDevice final : public Device {
 public:
  CudaDevice(int id, std::string name, CUdevice device, CUcontext context, CUstream stream)
      : id_(id), kind_(std::move(name)), debug_string_("cuda:" + std::to_string(id)),
        memory_(id), device_(device), context_(context), stream_(stream) {}
  int id() const override { return id_; }
  int process_index() const override { return 0; }
  int local_hardware_id() const override { return id_; }
  const std::string& kind() const override { return kind_; }
  const std::string& debug_string() const override { return debug_string_; }
  std::vector<Memory*> memories() const override { return {const_cast<CudaMemory*>(&memory_)}; }
  Memory* default_memory() const override { return const_cast<CudaMemory*>(&memory_); }

  CUdevice device() const { return device_; }
  CUcontext context() const { return context_; }
  CUstream stream() const { return stream_; }

 private:
  int id_;
  std::string kind_, debug_string_;
  CudaMemory memory_;
  CUdevice device_;
  CUcontext context_;
  CUstream stream_;
};

// Makes the device's context current on this thread.
Status Use(const CudaDriver& driver, const CudaDevice& device) {
  return driver.Check(driver.cuCtxSetCurrent(device.context()), "cuCtxSetCurrent");
}

// Device memory; zero bytes need no allocation (pointer 0).
class CudaBuffer final : public Buffer {
 public:
  static StatusOr<std::unique_ptr<CudaBuffer>> Allocate(const CudaDriver& driver,
                                                        CudaDevice* device, PrimitiveType type,
                                                        std::vector<int64_t> dims) {
    int64_t bytes = ByteWidth(type);
    for (int64_t d : dims) bytes *= d;
    CUdeviceptr ptr = 0;
    if (bytes > 0) {
      RETURN_IF_ERROR(Use(driver, *device));
      RETURN_IF_ERROR(driver.Check(driver.cuMemAlloc(&ptr, bytes),
                                   "allocating " + std::to_string(bytes) + " bytes on " +
                                       device->debug_string()));
    }
    return std::unique_ptr<CudaBuffer>(
        new CudaBuffer(driver, device, type, std::move(dims), static_cast<size_t>(bytes), ptr));
  }
  ~CudaBuffer() override { Delete(); }

  PrimitiveType element_type() const override { return type_; }
  const std::vector<int64_t>& dimensions() const override { return dims_; }
  Device* device() const override { return device_; }
  size_t size_in_bytes() const override { return bytes_; }
  Status ToHost(void* dst) override {
    if (deleted_) return FailedPrecondition("ToHost: the buffer was deleted");
    if (bytes_ == 0) return OkStatus();
    RETURN_IF_ERROR(Use(driver_, *device_));
    RETURN_IF_ERROR(driver_.Check(driver_.cuStreamSynchronize(device_->stream()), "cuStreamSynchronize"));
    return driver_.Check(driver_.cuMemcpyDtoH(dst, ptr_, bytes_), "copying a buffer to the host");
  }
  void Delete() override {
    if (deleted_) return;
    deleted_ = true;
    if (ptr_ != 0 && Use(driver_, *device_).ok()) {
      driver_.cuStreamSynchronize(device_->stream());
      driver_.cuMemFree(ptr_);
    }
  }
  bool is_deleted() const override { return deleted_; }
  CUdeviceptr ptr() const { return ptr_; }

 private:
  CudaBuffer(const CudaDriver& driver, CudaDevice* device, PrimitiveType type,
             std::vector<int64_t> dims, size_t bytes, CUdeviceptr ptr)
      : driver_(driver), device_(device), type_(type), dims_(std::move(dims)), bytes_(bytes),
        ptr_(ptr) {}

  const CudaDriver& driver_;
  CudaDevice* device_;
  PrimitiveType type_;
  std::vector<int64_t> dims_;
  size_t bytes_;
  CUdeviceptr ptr_;
  bool deleted_ = false;
};

// The PTX loaded on one device, with its kernels and constant slots.
struct LoadedModule {
  CUmodule module = nullptr;
  std::map<std::string, CUfunction> functions;
  std::map<int, CUdeviceptr> constants;  // entry program slot -> device copy
};

class CudaExecutable final : public Executable {
 public:
  CudaExecutable(const CudaDriver& driver, Cublas* cublas, GpuCompiledModule compiled,
                 std::vector<CudaDevice*> devices, std::vector<LoadedModule> loaded)
      : driver_(driver), cublas_(cublas), compiled_(std::move(compiled)),
        cuda_devices_(std::move(devices)), loaded_(std::move(loaded)) {
    for (CudaDevice* d : cuda_devices_) devices_.push_back(d);
    for (const GpuKernelSpec& k : compiled_.kernels) kernels_[k.name] = &k;
  }
  ~CudaExecutable() override {
    for (size_t d = 0; d < cuda_devices_.size(); ++d) {
      if (!Use(driver_, *cuda_devices_[d]).ok()) continue;
      for (auto& [slot, ptr] : loaded_[d].constants) driver_.cuMemFree(ptr);
      if (loaded_[d].module != nullptr) driver_.cuModuleUnload(loaded_[d].module);
    }
  }

  const std::vector<Device*>& devices() const override { return devices_; }
  size_t num_outputs() const override { return compiled_.program.outputs.size(); }
  size_t num_replicas() const override { return devices_.size(); }
  std::string optimized_hlo() const override { return compiled_.optimized_hlo; }
  MemoryStats memory_stats() const override { return MemoryStatsOf(compiled_); }

  StatusOr<std::vector<std::vector<std::unique_ptr<Buffer>>>> Execute(
      const std::vector<std::vector<Buffer*>>& args, const std::vector<int64_t>&) override {
    if (args.size() != cuda_devices_.size()) {
      return InvalidArgument("Execute: arguments for " + std::to_string(args.size()) +
                             " devices, the executable runs on " +
                             std::to_string(cuda_devices_.size()));
    }
    std::vector<std::vector<std::unique_ptr<Buffer>>> out;
    for (size_t d = 0; d < args.size(); ++d) {
      ASSIGN_OR_RETURN(auto outputs, Run(d, args[d]));
      out.push_back(std::move(outputs));
    }
    return out;
  }

 private:
  StatusOr<std::vector<std::unique_ptr<Buffer>>> Run(size_t d, const std::vector<Buffer*>& args) {
    const cpu::Program& program = compiled_.program;
    CudaDevice& device = *cuda_devices_[d];
    if (args.size() != program.parameters.size()) {
      return InvalidArgument("Execute: " + std::to_string(args.size()) + " arguments, expected " +
                             std::to_string(program.parameters.size()));
    }
    RETURN_IF_ERROR(Use(driver_, device));
    std::vector<std::unique_ptr<Buffer>> outputs;
    for (const cpu::ArrayShape& shape : program.outputs) {
      ASSIGN_OR_RETURN(auto buffer, CudaBuffer::Allocate(driver_, &device, shape.type, shape.dims));
      outputs.push_back(std::move(buffer));
    }
    CUdeviceptr arena = 0;
    if (program.temp_bytes > 0) {
      RETURN_IF_ERROR(driver_.Check(driver_.cuMemAlloc(&arena, program.temp_bytes),
                                    "allocating temporaries"));
    }
    Status status = RunSteps(d, args, outputs, arena);
    Status synced =
        driver_.Check(driver_.cuStreamSynchronize(device.stream()), "running the program");
    if (arena != 0) driver_.cuMemFree(arena);
    RETURN_IF_ERROR(status);
    RETURN_IF_ERROR(synced);
    return outputs;
  }

  Status RunSteps(size_t d, const std::vector<Buffer*>& args,
                  const std::vector<std::unique_ptr<Buffer>>& outputs, CUdeviceptr arena) {
    const cpu::Program& program = compiled_.program;
    CudaDevice& device = *cuda_devices_[d];
    std::vector<CUdeviceptr> slots(program.slots.size(), 0);
    for (size_t s = 0; s < program.slots.size(); ++s) {
      const cpu::Slot& slot = program.slots[s];
      switch (slot.kind) {
        case cpu::Slot::Kind::kParameter: {
          auto* buffer = dynamic_cast<CudaBuffer*>(args.at(slot.index));
          if (buffer == nullptr || buffer->device() != &device || buffer->is_deleted()) {
            return InvalidArgument("Execute: argument " + std::to_string(slot.index) +
                                   " is not a live buffer on " + device.debug_string());
          }
          slots[s] = buffer->ptr();
          break;
        }
        case cpu::Slot::Kind::kConstant:
          slots[s] = loaded_[d].constants.at(static_cast<int>(s));
          break;
        case cpu::Slot::Kind::kTemp:
          slots[s] = arena + slot.offset;
          break;
        case cpu::Slot::Kind::kOutput:
          slots[s] = static_cast<CudaBuffer*>(outputs.at(slot.index).get())->ptr();
          break;
      }
    }
    for (const cpu::Step& step : program.steps) {
      switch (step.kind) {
        case cpu::Step::Kind::kKernel:
          RETURN_IF_ERROR(Launch(d, step, slots));
          break;
        case cpu::Step::Kind::kCopy:
          if (step.bytes > 0) {
            RETURN_IF_ERROR(driver_.Check(
                driver_.cuMemcpyDtoDAsync(slots[step.dst_slot], slots[step.src_slot], step.bytes,
                                          device.stream()),
                "copy for " + step.name));
          }
          break;
        case cpu::Step::Kind::kDot:
          RETURN_IF_ERROR(Gemm(device, step, slots));
          break;
        default:
          return Unimplemented("CUDA backend: running " + step.name +
                               " (while loops and conditionals) is not implemented yet");
      }
    }
    return OkStatus();
  }

  Status Launch(size_t d, const cpu::Step& step, const std::vector<CUdeviceptr>& slots) {
    const GpuKernelSpec& spec = *kernels_.at(step.kernel_name);
    if (spec.blocks == 0) return OkStatus();
    std::vector<CUdeviceptr> values;
    for (int s : spec.param_slots) values.push_back(slots[s]);
    std::vector<void*> params;
    for (CUdeviceptr& v : values) params.push_back(&v);
    return driver_.Check(
        driver_.cuLaunchKernel(loaded_[d].functions.at(spec.name), spec.blocks, 1, 1,
                               spec.threads_per_block, 1, 1, 0, cuda_devices_[d]->stream(),
                               params.data(), nullptr),
        "launching " + spec.name);
  }

  // Row-major C = A.B is column-major C^T = B^T.A^T: cuBLAS gets B first.
  Status Gemm(CudaDevice& device, const cpu::Step& step, const std::vector<CUdeviceptr>& slots) {
    const cpu::DotParams& p = step.dot;
    if (cublas_ == nullptr) return FailedPrecondition("cuBLAS is not loaded");
    cublasHandle_t handle = nullptr;
    if (cublas_->cublasCreate(&handle) != 0) return FailedPrecondition("cublasCreate failed");
    cublas_->cublasSetStream(handle, device.stream());
    const int op_b = p.rhs_transposed ? 1 : 0, op_a = p.lhs_transposed ? 1 : 0;
    const int ldb = p.rhs_transposed ? p.k : p.n, lda = p.lhs_transposed ? p.m : p.k;
    int rc;
    if (p.type == PrimitiveType::F32) {
      const float one = 1, zero = 0;
      rc = cublas_->cublasSgemmStridedBatched(
          handle, op_b, op_a, p.n, p.m, p.k, &one, reinterpret_cast<const float*>(slots[p.rhs_slot]),
          ldb, p.k * p.n, reinterpret_cast<const float*>(slots[p.lhs_slot]), lda, p.m * p.k, &zero,
          reinterpret_cast<float*>(slots[p.out_slot]), p.n, p.m * p.n, p.batch);
    } else {
      const double one = 1, zero = 0;
      rc = cublas_->cublasDgemmStridedBatched(
          handle, op_b, op_a, p.n, p.m, p.k, &one, reinterpret_cast<const double*>(slots[p.rhs_slot]),
          ldb, p.k * p.n, reinterpret_cast<const double*>(slots[p.lhs_slot]), lda, p.m * p.k, &zero,
          reinterpret_cast<double*>(slots[p.out_slot]), p.n, p.m * p.n, p.batch);
    }
    cublas_->cublasDestroy(handle);
    if (rc != 0) return FailedPrecondition("cuBLAS gemm for " + step.name + " failed with status " + std::to_string(rc));
    return OkStatus();
  }

  const CudaDriver& driver_;
  Cublas* cublas_;
  GpuCompiledModule compiled_;
  std::vector<CudaDevice*> cuda_devices_;
  std::vector<Device*> devices_;
  std::vector<LoadedModule> loaded_;
  std::map<std::string, const GpuKernelSpec*> kernels_;
};

bool HasControlFlow(const cpu::Program& program) {
  for (const cpu::Step& step : program.steps) {
    if (step.kind == cpu::Step::Kind::kWhile || step.kind == cpu::Step::Kind::kConditional) return true;
  }
  return false;
}

class CudaClient final : public Client {
 public:
  CudaClient(std::unique_ptr<CudaDriver> driver, std::unique_ptr<GpuTarget> target,
             std::vector<std::unique_ptr<CudaDevice>> devices)
      : driver_(std::move(driver)), target_(std::move(target)), owned_(std::move(devices)) {
    for (auto& d : owned_) devices_.push_back(d.get());
    version_ = "cuda " + target_->arch();
  }
  ~CudaClient() override {
    for (auto& d : owned_) {
      if (!Use(*driver_, *d).ok()) continue;
      driver_->cuStreamDestroy(d->stream());
      driver_->cuDevicePrimaryCtxRelease(d->device());
    }
  }

  const std::string& platform_name() const override { return platform_; }
  const std::string& platform_version() const override { return version_; }
  const std::vector<Device*>& devices() const override { return devices_; }

  StatusOr<std::unique_ptr<Executable>> Compile(const std::string& format, const std::string& code,
                                                const Options&,
                                                const std::vector<Device*>& devices) override {
    if (format != "hlo") return InvalidArgument("the CUDA backend compiles HLO text (format \"hlo\")");
    std::vector<CudaDevice*> targets;
    for (Device* d : devices) {
      auto it = std::find(devices_.begin(), devices_.end(), d);
      if (it == devices_.end()) return InvalidArgument("Compile: device is not a CUDA device of this client");
      targets.push_back(owned_[it - devices_.begin()].get());
    }
    if (targets.empty()) targets.push_back(owned_[0].get());
    ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(code));
    auto compiled = CompileForGpu(module.get(), *target_, {});
    if (!compiled.ok()) return compiled.status().WithContext("compiling module " + module->name());
    if (HasControlFlow(compiled->program)) {
      return Unimplemented("CUDA backend: module " + module->name() +
                           " has while loops or conditionals, which the CUDA runtime cannot run yet");
    }
    if (compiled->blas_calls > 0 && cublas_ == nullptr) {
      std::lock_guard<std::mutex> lock(mu_);
      if (cublas_ == nullptr) {
        ASSIGN_OR_RETURN(cublas_, Cublas::Load());
      }
    }
    std::vector<LoadedModule> loaded;
    for (CudaDevice* device : targets) {
      ASSIGN_OR_RETURN(LoadedModule m, Load(*device, *compiled));
      loaded.push_back(std::move(m));
    }
    return std::unique_ptr<Executable>(new CudaExecutable(
        *driver_, cublas_.get(), std::move(compiled).value(), std::move(targets), std::move(loaded)));
  }

  StatusOr<std::unique_ptr<Buffer>> BufferFromHost(const void* data, PrimitiveType type,
                                                   const std::vector<int64_t>& dims,
                                                   const std::vector<int64_t>& byte_strides,
                                                   Device* device) override {
    CudaDevice* target = owned_[0].get();
    if (device != nullptr) {
      auto it = std::find(devices_.begin(), devices_.end(), device);
      if (it == devices_.end()) return InvalidArgument("BufferFromHost: device is not a CUDA device of this client");
      target = owned_[it - devices_.begin()].get();
    }
    int64_t stride = ByteWidth(type);
    for (size_t i = byte_strides.size(); i-- > 0;) {
      if (byte_strides[i] != stride) {
        return Unimplemented("CUDA backend: host buffers with non-row-major byte strides");
      }
      stride *= dims[i];
    }
    ASSIGN_OR_RETURN(auto buffer, CudaBuffer::Allocate(*driver_, target, type, dims));
    if (buffer->size_in_bytes() > 0) {
      if (data == nullptr) return InvalidArgument("BufferFromHost: null data");
      RETURN_IF_ERROR(driver_->Check(driver_->cuMemcpyHtoD(buffer->ptr(), data, buffer->size_in_bytes()),
                                     "copying a buffer to " + target->debug_string()));
    }
    return std::unique_ptr<Buffer>(std::move(buffer));
  }

 private:
  // JIT-compiles the PTX on `device` and uploads the constants.
  StatusOr<LoadedModule> Load(CudaDevice& device, const GpuCompiledModule& compiled) {
    RETURN_IF_ERROR(Use(*driver_, device));
    LoadedModule m;
    char log[8192] = {0};
    int options[] = {5, 6};  // CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
    void* values[] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof(log)))};
    RETURN_IF_ERROR(driver_->Check(
        driver_->cuModuleLoadDataEx(&m.module, compiled.code.c_str(), 2, options, values),
        std::string("loading the PTX on ") + device.debug_string() + " (" + log + ")"));
    for (const GpuKernelSpec& k : compiled.kernels) {
      CUfunction fn = nullptr;
      RETURN_IF_ERROR(driver_->Check(driver_->cuModuleGetFunction(&fn, m.module, k.name.c_str()),
                                     "finding kernel " + k.name));
      m.functions[k.name] = fn;
    }
    const std::vector<cpu::Slot>& slots = compiled.program.slots;
    for (size_t s = 0; s < slots.size(); ++s) {
      if (slots[s].kind != cpu::Slot::Kind::kConstant) continue;
      CUdeviceptr ptr = 0;
      if (slots[s].size > 0) {
        RETURN_IF_ERROR(driver_->Check(driver_->cuMemAlloc(&ptr, slots[s].size), "allocating a constant"));
        RETURN_IF_ERROR(driver_->Check(driver_->cuMemcpyHtoD(ptr, slots[s].data, slots[s].size),
                                       "uploading a constant"));
      }
      m.constants[static_cast<int>(s)] = ptr;
    }
    return m;
  }

  std::string platform_ = "cuda", version_;
  std::unique_ptr<CudaDriver> driver_;
  std::unique_ptr<GpuTarget> target_;
  std::vector<std::unique_ptr<CudaDevice>> owned_;
  std::vector<Device*> devices_;
  std::mutex mu_;
  std::unique_ptr<Cublas> cublas_;
};

}  // namespace

StatusOr<std::unique_ptr<Client>> CreateCudaRuntimeClient(std::unique_ptr<CudaDriver> driver,
                                                          const std::string& cuda_data_dir) {
  const CudaDriver& d = *driver;
  int count = 0;
  RETURN_IF_ERROR(d.Check(d.cuDeviceGetCount(&count), "cuDeviceGetCount"));
  if (count == 0) return FailedPrecondition("the NVIDIA driver reports no CUDA devices");
  std::vector<std::unique_ptr<CudaDevice>> devices;
  int major = 0, minor = 0;
  for (int i = 0; i < count; ++i) {
    CUdevice device = 0;
    RETURN_IF_ERROR(d.Check(d.cuDeviceGet(&device, i), "cuDeviceGet"));
    char name[256] = {0};
    RETURN_IF_ERROR(d.Check(d.cuDeviceGetName(name, sizeof(name) - 1, device), "cuDeviceGetName"));
    if (i == 0) {
      RETURN_IF_ERROR(d.Check(d.cuDeviceGetAttribute(&major, kCuComputeCapabilityMajor, device),
                              "reading the compute capability"));
      RETURN_IF_ERROR(d.Check(d.cuDeviceGetAttribute(&minor, kCuComputeCapabilityMinor, device),
                              "reading the compute capability"));
    }
    CUcontext context = nullptr;
    RETURN_IF_ERROR(d.Check(d.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain"));
    RETURN_IF_ERROR(d.Check(d.cuCtxSetCurrent(context), "cuCtxSetCurrent"));
    CUstream stream = nullptr;
    RETURN_IF_ERROR(d.Check(d.cuStreamCreate(&stream, 0), "cuStreamCreate"));
    devices.push_back(std::make_unique<CudaDevice>(i, name, device, context, stream));
  }
  const std::string arch = "sm_" + std::to_string(major) + std::to_string(minor);
  ASSIGN_OR_RETURN(std::unique_ptr<GpuTarget> target, CreateNvptxTarget(arch, cuda_data_dir));
  return std::unique_ptr<Client>(
      new CudaClient(std::move(driver), std::move(target), std::move(devices)));
}

}  // namespace xla::gpu
