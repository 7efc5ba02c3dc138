#include "xla/backends/gpu/gpu_runtime.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "xla/backends/gpu/gpu_target.h"
#include "xla/hlo/parser/parser.h"

namespace xla::gpu {

StatusOr<LaunchDims> LaunchDimsOf(const GpuKernelSpec& spec) {
  constexpr int64_t kMaxBlocks = (int64_t{1} << 31) - 1;
  constexpr int64_t kMaxThreadsPerBlock = 1024;
  if (spec.blocks < 0 || spec.blocks > kMaxBlocks) {
    return InvalidArgument("kernel " + spec.name + ": " + std::to_string(spec.blocks) +
                           " blocks, a grid holds 0 to " + std::to_string(kMaxBlocks));
  }
  if (spec.blocks > 0 && (spec.threads_per_block < 1 || spec.threads_per_block > kMaxThreadsPerBlock)) {
    return InvalidArgument("kernel " + spec.name + ": " + std::to_string(spec.threads_per_block) +
                           " threads per block, a block holds 1 to " +
                           std::to_string(kMaxThreadsPerBlock));
  }
  return LaunchDims{static_cast<unsigned>(spec.blocks), static_cast<unsigned>(spec.threads_per_block)};
}

KernelArgs::KernelArgs(std::vector<DevicePtr> values) : values_(std::move(values)) {
  // values_ is never resized again, so these addresses stay valid.
  for (DevicePtr& v : values_) pointers_.push_back(&v);
}

std::vector<DevicePtr> KernelParameters(const GpuKernelSpec& spec,
                                        const std::vector<DevicePtr>& slots) {
  std::vector<DevicePtr> values;
  values.reserve(spec.param_slots.size());
  for (int s : spec.param_slots) values.push_back(slots.at(s));
  return values;
}

GemmCall ColumnMajorGemm(const cpu::DotParams& p, const std::vector<DevicePtr>& slots) {
  GemmCall g;
  g.type = p.type;
  g.transpose_a = p.rhs_transposed;
  g.transpose_b = p.lhs_transposed;
  g.m = static_cast<int>(p.n);
  g.n = static_cast<int>(p.m);
  g.k = static_cast<int>(p.k);
  g.a = slots.at(p.rhs_slot);
  g.lda = static_cast<int>(p.rhs_transposed ? p.k : p.n);
  g.stride_a = p.k * p.n;
  g.b = slots.at(p.lhs_slot);
  g.ldb = static_cast<int>(p.lhs_transposed ? p.m : p.k);
  g.stride_b = p.m * p.k;
  g.c = slots.at(p.out_slot);
  g.ldc = static_cast<int>(p.n);
  g.stride_c = p.m * p.n;
  g.batch = static_cast<int>(p.batch);
  return g;
}

namespace {

class GpuMemory final : public Memory {
 public:
  explicit GpuMemory(int id) : id_(id) {}
  int id() const override { return id_; }
  const std::string& kind() const override { return kind_; }

 private:
  int id_;
  std::string kind_ = "device";
};

class GpuDevice final : public Device {
 public:
  GpuDevice(int id, std::string name, const std::string& platform)
      : id_(id), kind_(std::move(name)), debug_string_(platform + ":" + std::to_string(id)),
        memory_(id) {}
  int id() const override { return id_; }
  int process_index() const override { return 0; }
  int local_hardware_id() const override { return id_; }
  const std::string& kind() const override { return kind_; }
  const std::string& debug_string() const override { return debug_string_; }
  std::vector<Memory*> memories() const override { return {const_cast<GpuMemory*>(&memory_)}; }
  Memory* default_memory() const override { return const_cast<GpuMemory*>(&memory_); }

 private:
  int id_;
  std::string kind_, debug_string_;
  GpuMemory memory_;
};

// Device memory; zero bytes need no allocation (address 0).
class GpuBuffer final : public Buffer {
 public:
  static StatusOr<std::unique_ptr<GpuBuffer>> Allocate(GpuDriver& driver, GpuDevice* device,
                                                       PrimitiveType type,
                                                       std::vector<int64_t> dims) {
    int64_t bytes = ByteWidth(type);
    for (int64_t d : dims) bytes *= d;
    DevicePtr ptr = 0;
    if (bytes > 0) {
      auto allocated = driver.Allocate(device->id(), bytes);
      if (!allocated.ok()) {
        return allocated.status().WithContext("allocating " + std::to_string(bytes) +
                                              " bytes on " + device->debug_string());
      }
      ptr = *allocated;
    }
    return std::unique_ptr<GpuBuffer>(
        new GpuBuffer(driver, device, type, std::move(dims), static_cast<size_t>(bytes), ptr));
  }
  ~GpuBuffer() override { Delete(); }

  PrimitiveType element_type() const override { return type_; }
  const std::vector<int64_t>& dimensions() const override { return dims_; }
  Device* device() const override { return device_; }
  size_t size_in_bytes() const override { return bytes_; }
  Status ToHost(void* dst) override {
    if (deleted_) return FailedPrecondition("ToHost: the buffer was deleted");
    if (bytes_ == 0) return OkStatus();
    return driver_.CopyToHost(device_->id(), dst, ptr_, bytes_);
  }
  void Delete() override {
    if (deleted_) return;
    deleted_ = true;
    if (ptr_ != 0) driver_.Free(device_->id(), ptr_);
  }
  bool is_deleted() const override { return deleted_; }
  DevicePtr ptr() const { return ptr_; }

 private:
  GpuBuffer(GpuDriver& driver, GpuDevice* device, PrimitiveType type, std::vector<int64_t> dims,
            size_t bytes, DevicePtr ptr)
      : driver_(driver), device_(device), type_(type), dims_(std::move(dims)), bytes_(bytes),
        ptr_(ptr) {}

  GpuDriver& driver_;
  GpuDevice* device_;
  PrimitiveType type_;
  std::vector<int64_t> dims_;
  size_t bytes_;
  DevicePtr ptr_;
  bool deleted_ = false;
};

// The code loaded on one device, with its kernels and constant slots.
struct LoadedModule {
  ModuleHandle module = nullptr;
  std::map<std::string, KernelHandle> kernels;
  std::map<int, DevicePtr> constants;  // entry program slot -> device copy
};

class GpuExecutable final : public Executable {
 public:
  GpuExecutable(GpuDriver& driver, GpuCompiledModule compiled, std::vector<GpuDevice*> devices,
                std::vector<LoadedModule> loaded)
      : driver_(driver), compiled_(std::move(compiled)), gpu_devices_(std::move(devices)),
        loaded_(std::move(loaded)) {
    for (GpuDevice* d : gpu_devices_) devices_.push_back(d);
    for (const GpuKernelSpec& k : compiled_.kernels) kernels_[k.name] = &k;
  }
  ~GpuExecutable() override {
    for (size_t d = 0; d < loaded_.size(); ++d) Unload(driver_, gpu_devices_[d]->id(), loaded_[d]);
  }

  // Frees what Load put on `device`.
  static void Unload(GpuDriver& driver, int device, LoadedModule& m) {
    for (auto& [slot, ptr] : m.constants) {
      if (ptr != 0) driver.Free(device, ptr);
    }
    if (m.module != nullptr) driver.UnloadModule(device, m.module);
    m = LoadedModule();
  }

  const std::vector<Device*>& devices() const override { return devices_; }
  size_t num_outputs() const override { return compiled_.program.outputs.size(); }
  size_t num_replicas() const override { return devices_.size(); }
  std::string optimized_hlo() const override { return compiled_.optimized_hlo; }
  MemoryStats memory_stats() const override { return MemoryStatsOf(compiled_); }

  StatusOr<std::vector<std::vector<std::unique_ptr<Buffer>>>> Execute(
      const std::vector<std::vector<Buffer*>>& args, const std::vector<int64_t>&) override {
    if (args.size() != gpu_devices_.size()) {
      return InvalidArgument("Execute: arguments for " + std::to_string(args.size()) +
                             " devices, the executable runs on " +
                             std::to_string(gpu_devices_.size()));
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
    GpuDevice& device = *gpu_devices_[d];
    if (args.size() != program.parameters.size()) {
      return InvalidArgument("Execute: " + std::to_string(args.size()) + " arguments, expected " +
                             std::to_string(program.parameters.size()));
    }
    std::vector<std::unique_ptr<Buffer>> outputs;
    for (const cpu::ArrayShape& shape : program.outputs) {
      ASSIGN_OR_RETURN(auto buffer, GpuBuffer::Allocate(driver_, &device, shape.type, shape.dims));
      outputs.push_back(std::move(buffer));
    }
    DevicePtr arena = 0;
    if (program.temp_bytes > 0) {
      auto allocated = driver_.Allocate(device.id(), program.temp_bytes);
      if (!allocated.ok()) return allocated.status().WithContext("allocating temporaries");
      arena = *allocated;
    }
    Status status = RunSteps(d, args, outputs, arena);
    Status synced = driver_.Synchronize(device.id());
    if (arena != 0) driver_.Free(device.id(), arena);
    RETURN_IF_ERROR(status);
    if (!synced.ok()) return synced.WithContext("running the program");
    return outputs;
  }

  // The device address behind every program slot.
  StatusOr<std::vector<DevicePtr>> SlotAddresses(size_t d, const std::vector<Buffer*>& args,
                                                 const std::vector<std::unique_ptr<Buffer>>& outputs,
                                                 DevicePtr arena) const {
    const cpu::Program& program = compiled_.program;
    const GpuDevice& device = *gpu_devices_[d];
    std::vector<DevicePtr> slots(program.slots.size(), 0);
    for (size_t s = 0; s < program.slots.size(); ++s) {
      const cpu::Slot& slot = program.slots[s];
      switch (slot.kind) {
        case cpu::Slot::Kind::kParameter: {
          auto* buffer = dynamic_cast<GpuBuffer*>(args.at(slot.index));
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
          slots[s] = static_cast<GpuBuffer*>(outputs.at(slot.index).get())->ptr();
          break;
      }
    }
    return slots;
  }

  Status RunSteps(size_t d, const std::vector<Buffer*>& args,
                  const std::vector<std::unique_ptr<Buffer>>& outputs, DevicePtr arena) {
    ASSIGN_OR_RETURN(std::vector<DevicePtr> slots, SlotAddresses(d, args, outputs, arena));
    const int device = gpu_devices_[d]->id();
    for (const cpu::Step& step : compiled_.program.steps) {
      switch (step.kind) {
        case cpu::Step::Kind::kKernel:
          RETURN_IF_ERROR(Launch(d, step, slots));
          break;
        case cpu::Step::Kind::kCopy:
          if (step.bytes > 0) {
            Status copied = driver_.CopyOnDevice(device, slots[step.dst_slot], slots[step.src_slot],
                                                 step.bytes);
            if (!copied.ok()) return copied.WithContext("copy for " + step.name);
          }
          break;
        case cpu::Step::Kind::kDot:
          RETURN_IF_ERROR(driver_.Gemm(device, ColumnMajorGemm(step.dot, slots), step.name));
          break;
        default:
          return Unimplemented(driver_.backend_name() + " backend: running " + step.name +
                               " (while loops and conditionals) is not implemented yet");
      }
    }
    return OkStatus();
  }

  Status Launch(size_t d, const cpu::Step& step, const std::vector<DevicePtr>& slots) {
    const GpuKernelSpec& spec = *kernels_.at(step.kernel_name);
    ASSIGN_OR_RETURN(LaunchDims dims, LaunchDimsOf(spec));
    if (dims.blocks == 0) return OkStatus();
    KernelArgs params(KernelParameters(spec, slots));
    return driver_.Launch(gpu_devices_[d]->id(), loaded_[d].kernels.at(spec.name), dims, params,
                          spec.name);
  }

  GpuDriver& driver_;
  GpuCompiledModule compiled_;
  std::vector<GpuDevice*> gpu_devices_;
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

class GpuRuntimeClient final : public Client {
 public:
  GpuRuntimeClient(std::string platform, std::unique_ptr<GpuDriver> driver,
                   std::unique_ptr<GpuTarget> target)
      : platform_(std::move(platform)), driver_(std::move(driver)), target_(std::move(target)) {
    for (int i = 0; i < driver_->device_count(); ++i) {
      owned_.push_back(std::make_unique<GpuDevice>(i, driver_->device_name(i), platform_));
      devices_.push_back(owned_.back().get());
    }
    version_ = platform_ + " " + target_->arch();
  }

  const std::string& platform_name() const override { return platform_; }
  const std::string& platform_version() const override { return version_; }
  const std::vector<Device*>& devices() const override { return devices_; }

  StatusOr<std::unique_ptr<Executable>> Compile(std::unique_ptr<HloModule> module, const Options&,
                                                const std::vector<Device*>& devices) override {
    const std::string backend = driver_->backend_name() + " backend";
    std::vector<GpuDevice*> targets;
    for (Device* d : devices) {
      ASSIGN_OR_RETURN(GpuDevice * device, Find(d, "Compile"));
      targets.push_back(device);
    }
    if (targets.empty()) targets.push_back(owned_[0].get());
    auto compiled = CompileForGpu(module.get(), *target_, {});
    if (!compiled.ok()) return compiled.status().WithContext("compiling module " + module->name());
    if (HasControlFlow(compiled->program)) {
      return Unimplemented(backend + ": module " + module->name() +
                           " has while loops or conditionals, which the runtime cannot run yet");
    }
    if (compiled->blas_calls > 0) {
      std::lock_guard<std::mutex> lock(mu_);
      RETURN_IF_ERROR(driver_->LoadBlas());
    }
    auto image = driver_->PrepareCode(*compiled);
    if (!image.ok()) return image.status().WithContext("preparing the code of " + module->name());
    std::vector<LoadedModule> loaded;
    for (GpuDevice* device : targets) {
      auto m = Load(*device, *image, *compiled);
      if (!m.ok()) {
        for (size_t i = 0; i < loaded.size(); ++i) {
          GpuExecutable::Unload(*driver_, targets[i]->id(), loaded[i]);
        }
        return m.status();
      }
      loaded.push_back(std::move(m).value());
    }
    return std::unique_ptr<Executable>(new GpuExecutable(
        *driver_, std::move(compiled).value(), std::move(targets), std::move(loaded)));
  }

  StatusOr<std::unique_ptr<Buffer>> BufferFromHost(const void* data, PrimitiveType type,
                                                   const std::vector<int64_t>& dims,
                                                   const std::vector<int64_t>& byte_strides,
                                                   Device* device) override {
    GpuDevice* target = owned_[0].get();
    if (device != nullptr) {
      ASSIGN_OR_RETURN(target, Find(device, "BufferFromHost"));
    }
    int64_t stride = ByteWidth(type);
    for (size_t i = byte_strides.size(); i-- > 0;) {
      if (byte_strides[i] != stride) {
        return Unimplemented(driver_->backend_name() +
                             " backend: host buffers with non-row-major byte strides");
      }
      stride *= dims[i];
    }
    ASSIGN_OR_RETURN(auto buffer, GpuBuffer::Allocate(*driver_, target, type, dims));
    if (buffer->size_in_bytes() > 0) {
      if (data == nullptr) return InvalidArgument("BufferFromHost: null data");
      Status copied = driver_->CopyToDevice(target->id(), buffer->ptr(), data, buffer->size_in_bytes());
      if (!copied.ok()) return copied.WithContext("copying a buffer to " + target->debug_string());
    }
    return std::unique_ptr<Buffer>(std::move(buffer));
  }

 private:
  StatusOr<GpuDevice*> Find(Device* device, const std::string& what) const {
    auto it = std::find(devices_.begin(), devices_.end(), device);
    if (it == devices_.end()) {
      return InvalidArgument(what + ": device is not a " + platform_ + " device of this client");
    }
    return owned_[it - devices_.begin()].get();
  }

  // Loads the image on `device`, finds its kernels and uploads the constants.
  StatusOr<LoadedModule> Load(GpuDevice& device, const std::string& image,
                              const GpuCompiledModule& compiled) {
    LoadedModule m;
    auto module = driver_->LoadModule(device.id(), image);
    if (!module.ok()) return module.status().WithContext("loading the code on " + device.debug_string());
    m.module = *module;
    Status status = FillModule(device, compiled, m);
    if (!status.ok()) GpuExecutable::Unload(*driver_, device.id(), m);
    RETURN_IF_ERROR(status);
    return m;
  }

  Status FillModule(GpuDevice& device, const GpuCompiledModule& compiled, LoadedModule& m) {
    for (const GpuKernelSpec& k : compiled.kernels) {
      auto kernel = driver_->GetKernel(device.id(), m.module, k.name);
      if (!kernel.ok()) return kernel.status().WithContext("finding kernel " + k.name);
      m.kernels[k.name] = *kernel;
    }
    const std::vector<cpu::Slot>& slots = compiled.program.slots;
    for (size_t s = 0; s < slots.size(); ++s) {
      if (slots[s].kind != cpu::Slot::Kind::kConstant) continue;
      m.constants[static_cast<int>(s)] = 0;
      if (slots[s].size == 0) continue;
      ASSIGN_OR_RETURN(DevicePtr ptr, driver_->Allocate(device.id(), slots[s].size));
      m.constants[static_cast<int>(s)] = ptr;  // from here on, Unload frees it
      Status copied = driver_->CopyToDevice(device.id(), ptr, slots[s].data, slots[s].size);
      if (!copied.ok()) return copied.WithContext("uploading a constant");
    }
    return OkStatus();
  }

  std::string platform_, version_;
  std::unique_ptr<GpuDriver> driver_;
  std::unique_ptr<GpuTarget> target_;
  std::vector<std::unique_ptr<GpuDevice>> owned_;
  std::vector<Device*> devices_;
  std::mutex mu_;
};

}  // namespace

StatusOr<std::unique_ptr<Client>> CreateGpuRuntimeClient(const std::string& platform,
                                                         std::unique_ptr<GpuDriver> driver,
                                                         std::unique_ptr<GpuTarget> target) {
  if (driver->device_count() < 1) {
    return FailedPrecondition("the " + driver->backend_name() + " driver reports no devices");
  }
  return std::unique_ptr<Client>(
      new GpuRuntimeClient(platform, std::move(driver), std::move(target)));
}

}  // namespace xla::gpu
