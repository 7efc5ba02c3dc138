#include "xla/backends/gpu/gpu_client.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "xla/backends/gpu/gpu_compiler.h"
#include "xla/backends/gpu/gpu_target.h"
#include "xla/hlo/parser/parser.h"

#ifndef JAX_PLUGIN_VERSION
#define JAX_PLUGIN_VERSION "dev"
#endif

namespace xla::gpu {
namespace {

constexpr int64_t kMaxDevices = 4096;

class MockMemory final : public Memory {
 public:
  explicit MockMemory(int id) : id_(id) {}
  int id() const override { return id_; }
  const std::string& kind() const override { return kind_; }

 private:
  int id_;
  std::string kind_ = "device";
};

class MockDevice final : public Device {
 public:
  MockDevice(int id, const std::string& platform, const std::string& arch)
      : id_(id), kind_(platform + " " + arch + " (compile-only)"),
        debug_string_(platform + ":" + std::to_string(id)), memory_(id) {}
  int id() const override { return id_; }
  int process_index() const override { return 0; }
  int local_hardware_id() const override { return id_; }
  const std::string& kind() const override { return kind_; }
  const std::string& debug_string() const override { return debug_string_; }
  std::vector<Memory*> memories() const override { return {const_cast<MockMemory*>(&memory_)}; }
  Memory* default_memory() const override { return const_cast<MockMemory*>(&memory_); }

 private:
  int id_;
  std::string kind_, debug_string_;
  MockMemory memory_;
};

class CompileOnlyExecutable final : public Executable {
 public:
  CompileOnlyExecutable(GpuCompiledModule compiled, std::vector<Device*> devices,
                        std::string platform, std::string arch, std::string no_gpu)
      : compiled_(std::move(compiled)), devices_(std::move(devices)),
        platform_(std::move(platform)), arch_(std::move(arch)), no_gpu_(std::move(no_gpu)) {}

  const std::vector<Device*>& devices() const override { return devices_; }
  size_t num_outputs() const override { return compiled_.program.outputs.size(); }
  size_t num_replicas() const override { return devices_.size(); }
  std::string optimized_hlo() const override { return compiled_.optimized_hlo; }
  MemoryStats memory_stats() const override { return MemoryStatsOf(compiled_); }
  StatusOr<std::vector<std::vector<std::unique_ptr<Buffer>>>> Execute(
      const std::vector<std::vector<Buffer*>>&, const std::vector<int64_t>&) override {
    return FailedPrecondition(no_gpu_);
  }
  // A readable record of the compilation: launches, then the code.
  StatusOr<std::string> Serialize() const override {
    std::ostringstream out;
    out << "xla-gpu-compile-only 1\nplatform " << platform_ << "\narch " << arch_ << "\n";
    for (const GpuKernelSpec& k : compiled_.kernels) {
      out << "kernel " << k.name << " instruction " << k.instruction << " blocks " << k.blocks
          << " threads " << k.threads_per_block << " params " << k.param_slots.size() << "\n";
    }
    out << "blas_calls " << compiled_.blas_calls << "\ncode " << compiled_.code_extension << " "
        << compiled_.code.size() << "\n"
        << compiled_.code;
    return out.str();
  }

 private:
  GpuCompiledModule compiled_;
  std::vector<Device*> devices_;
  std::string platform_, arch_, no_gpu_;
};

class CompileOnlyClient final : public Client {
 public:
  CompileOnlyClient(std::string platform, std::unique_ptr<GpuTarget> target, int64_t num_devices,
                    std::string topology, std::string dump_dir, std::string fix)
      : platform_(std::move(platform)), target_(std::move(target)),
        dump_dir_(std::move(dump_dir)) {
    version_ = platform_ + " " + target_->arch() + " compile-only (jax plugin " +
               JAX_PLUGIN_VERSION + ")";
    // Completed by what was attempted: "... to execute on", "... to transfer buffers to".
    what_ = "(this " + platform_ + " client was created with mock=True for topology " + topology +
            ", " + target_->arch() + "). " + fix;
    for (int64_t i = 0; i < num_devices; ++i) {
      owned_.push_back(std::make_unique<MockDevice>(static_cast<int>(i), platform_, target_->arch()));
      devices_.push_back(owned_.back().get());
    }
  }

  const std::string& platform_name() const override { return platform_; }
  const std::string& platform_version() const override { return version_; }
  const std::vector<Device*>& devices() const override { return devices_; }

  StatusOr<std::unique_ptr<Executable>> Compile(const std::string& format, const std::string& code,
                                                const Options& options,
                                                const std::vector<Device*>& devices) override {
    if (format != "hlo") {
      return InvalidArgument("the " + target_->backend_name() +
                             " compiles HLO text (format \"hlo\"), got format \"" + format + "\"");
    }
    int64_t num_replicas = 1;
    if (auto it = options.find("num_replicas"); it != options.end()) {
      const int64_t* n = std::get_if<int64_t>(&it->second);
      if (n == nullptr || *n < 1) return InvalidArgument("option num_replicas must be a positive integer");
      num_replicas = *n;
    }
    std::vector<Device*> targets = devices;
    if (targets.empty()) {
      if (num_replicas > static_cast<int64_t>(devices_.size())) {
        return InvalidArgument("num_replicas=" + std::to_string(num_replicas) +
                               " but the topology has " + std::to_string(devices_.size()) +
                               " devices");
      }
      targets.assign(devices_.begin(), devices_.begin() + num_replicas);
    }
    for (Device* d : targets) {
      if (std::find(devices_.begin(), devices_.end(), d) == devices_.end()) {
        return InvalidArgument("Compile: device is not a device of this " + platform_ + " client");
      }
    }
    ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(code));
    GpuCompileOptions compile_options;
    compile_options.dump_dir = dump_dir_;
    auto compiled = CompileForGpu(module.get(), *target_, compile_options);
    if (!compiled.ok()) return compiled.status().WithContext("compiling module " + module->name());
    return std::unique_ptr<Executable>(new CompileOnlyExecutable(
        std::move(compiled).value(), std::move(targets), platform_, target_->arch(),
        "compile-only client: no GPU to execute on " + what_));
  }

  StatusOr<std::unique_ptr<Buffer>> BufferFromHost(const void*, PrimitiveType,
                                                   const std::vector<int64_t>&,
                                                   const std::vector<int64_t>&, Device*) override {
    return FailedPrecondition("compile-only client: no GPU to transfer buffers to " + what_);
  }

 private:
  std::string platform_, version_, what_;
  std::unique_ptr<GpuTarget> target_;
  std::string dump_dir_;
  std::vector<std::unique_ptr<MockDevice>> owned_;
  std::vector<Device*> devices_;
};

}  // namespace

StatusOr<int64_t> DevicesInTopology(const std::string& topology) {
  const std::string expected =
      "expected <slices>x<hosts per slice>x<devices per host>, e.g. \"1x1x4\"";
  int64_t product = 1;
  int parts = 0;
  std::stringstream in(topology);
  std::string part;
  while (std::getline(in, part, 'x')) {
    ++parts;
    if (part.empty() || part.size() > 4 ||
        part.find_first_not_of("0123456789") != std::string::npos) {
      return InvalidArgument("mock_gpu_topology \"" + topology + "\": " + expected);
    }
    product *= std::stoll(part);
  }
  if (parts != 3 || topology.back() == 'x') {
    return InvalidArgument("mock_gpu_topology \"" + topology + "\": " + expected);
  }
  if (product < 1 || product > kMaxDevices) {
    return InvalidArgument("mock_gpu_topology \"" + topology + "\" has " + std::to_string(product) +
                           " devices; it must have between 1 and " + std::to_string(kMaxDevices));
  }
  return product;
}

std::string DumpDirFromXlaFlags(const std::string& xla_flags) {
  const std::string flag = "--xla_dump_to=";
  std::string dir;
  std::stringstream in(xla_flags);
  std::string word;
  while (in >> word) {
    if (word.rfind(flag, 0) == 0) dir = word.substr(flag.size());  // the last one wins
  }
  return dir;
}

StatusOr<std::unique_ptr<Client>> CreateCompileOnlyClient(const std::string& platform,
                                                          std::unique_ptr<GpuTarget> target,
                                                          const Options& options,
                                                          const std::string& fix) {
  int64_t num_devices = 1;
  std::string topology;
  if (auto it = options.find("mock_gpu_topology"); it != options.end()) {
    const std::string* t = std::get_if<std::string>(&it->second);
    if (t == nullptr) return InvalidArgument("option mock_gpu_topology must be a string like \"1x1x4\"");
    topology = *t;
    ASSIGN_OR_RETURN(num_devices, DevicesInTopology(topology));
  } else if (auto it = options.find("num_devices"); it != options.end()) {
    const int64_t* n = std::get_if<int64_t>(&it->second);
    if (n == nullptr || *n < 1 || *n > kMaxDevices) {
      return InvalidArgument("option num_devices must be an integer between 1 and " +
                             std::to_string(kMaxDevices));
    }
    num_devices = *n;
  }
  if (topology.empty()) topology = "1x1x" + std::to_string(num_devices);
  const char* flags = std::getenv("XLA_FLAGS");
  return std::unique_ptr<Client>(new CompileOnlyClient(platform, std::move(target), num_devices,
                                                       topology,
                                                       DumpDirFromXlaFlags(flags ? flags : ""),
                                                       fix));
}

}  // namespace xla::gpu
