#include "xla/backends/gpu/gpu_client.h"

#include <cstdlib>
#include <sstream>

#include "xla/backends/gpu/gpu_compiler.h"
#include "xla/backends/gpu/gpu_target.h"
#include "xla/hlo/parser/parser.h"
#include "xla/pjrt/compile_only.h"

#ifndef JAX_PLUGIN_VERSION
#define JAX_PLUGIN_VERSION "dev"
#endif

namespace xla::gpu {
namespace {

using compile_only::kMaxDevices;

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
        dump_dir_(std::move(dump_dir)),
        devices_(num_devices, platform_, platform_ + " " + target_->arch() + " (compile-only)") {
    version_ = platform_ + " " + target_->arch() + " compile-only (jax plugin " +
               JAX_PLUGIN_VERSION + ")";
    // Completed by what was attempted: "... to execute on", "... to transfer buffers to".
    what_ = "(this " + platform_ + " client was created with mock=True for topology " + topology +
            ", " + target_->arch() + "). " + fix;
  }

  const std::string& platform_name() const override { return platform_; }
  const std::string& platform_version() const override { return version_; }
  const std::vector<Device*>& devices() const override { return devices_.devices(); }

  StatusOr<std::unique_ptr<Executable>> Compile(std::unique_ptr<HloModule> module,
                                                const Options& options,
                                                const std::vector<Device*>& devices) override {
    ASSIGN_OR_RETURN(std::vector<Device*> targets,
                     compile_only::CompileTargets(options, devices, devices_.devices(), platform_));
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
  compile_only::MockDevices devices_;
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
                                                       compile_only::DumpDirFromXlaFlags(flags ? flags : ""),
                                                       fix));
}

}  // namespace xla::gpu
