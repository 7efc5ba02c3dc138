#include "xla/backends/tpu/tpu_client.h"

#include <cstdlib>
#include <sstream>
#include <utility>

#include "xla/backends/tpu/tpu_compiler.h"
#include "xla/backends/tpu/tpu_discovery.h"
#include "xla/backends/tpu/tpu_runtime_bridge.h"
#include "xla/hlo/parser/parser.h"
#include "xla/pjrt/compile_only.h"

#ifndef JAX_PLUGIN_VERSION
#define JAX_PLUGIN_VERSION "dev"
#endif

namespace xla::tpu {
namespace {

class CompileOnlyTpuExecutable final : public Executable {
 public:
  CompileOnlyTpuExecutable(TpuCompiledModule compiled, std::vector<Device*> devices,
                           std::string topology, std::string no_tpu)
      : compiled_(std::move(compiled)), devices_(std::move(devices)),
        topology_(std::move(topology)), no_tpu_(std::move(no_tpu)) {}

  const std::vector<Device*>& devices() const override { return devices_; }
  size_t num_outputs() const override { return static_cast<size_t>(compiled_.num_outputs); }
  size_t num_replicas() const override { return devices_.size(); }
  std::string optimized_hlo() const override { return compiled_.optimized_hlo; }
  MemoryStats memory_stats() const override { return compiled_.memory_stats; }
  StatusOr<std::vector<std::vector<std::unique_ptr<Buffer>>>> Execute(
      const std::vector<std::vector<Buffer*>>&, const std::vector<int64_t>&) override {
    return FailedPrecondition(no_tpu_);
  }
  // A readable record: the target, the tiled buffer sizes, then the HLO.
  StatusOr<std::string> Serialize() const override {
    const MemoryStats& m = compiled_.memory_stats;
    std::ostringstream out;
    out << "xla-tpu-compile-only 1\ntopology " << topology_ << "\ndevice_kind "
        << devices_.front()->kind() << "\nreplicas " << devices_.size() << "\nargument_bytes "
        << m.argument_size << "\noutput_bytes " << m.output_size << "\ntemp_bytes " << m.temp_size
        << "\nhlo " << compiled_.optimized_hlo.size() << "\n"
        << compiled_.optimized_hlo;
    return out.str();
  }

 private:
  TpuCompiledModule compiled_;
  std::vector<Device*> devices_;
  std::string topology_, no_tpu_;
};

class CompileOnlyTpuClient final : public Client {
 public:
  explicit CompileOnlyTpuClient(const TpuTopology& topology)
      : topology_(topology),
        devices_(topology.num_devices, "tpu",
                 std::string(topology.generation->device_kind) + " (compile-only)") {
    version_ = std::string("tpu ") + topology.generation->name + " compile-only (jax plugin " +
               JAX_PLUGIN_VERSION + ")";
    // Completed by what was attempted: "... to execute on", "... to transfer buffers to".
    what_ = "(this tpu client was created with mock=True for topology " + topology.name +
            "). Executing needs a Cloud TPU VM with " + topology.generation->device_kind +
            " chips and Google's TPU runtime (pip install libtpu), which this plugin does not "
            "drive yet: jaxlib-tpu compiles for TPUs but cannot run on them.";
  }

  const std::string& platform_name() const override { return platform_; }
  const std::string& platform_version() const override { return version_; }
  const std::vector<Device*>& devices() const override { return devices_.devices(); }

  StatusOr<std::unique_ptr<Executable>> Compile(std::unique_ptr<HloModule> module,
                                                const Options& options,
                                                const std::vector<Device*>& devices) override {
    ASSIGN_OR_RETURN(std::vector<Device*> targets,
                     compile_only::CompileTargets(options, devices, devices_.devices(), platform_));
    auto compiled = CompileForTpu(module.get());
    if (!compiled.ok()) return compiled.status().WithContext("compiling module " + module->name());
    return std::unique_ptr<Executable>(new CompileOnlyTpuExecutable(
        std::move(compiled).value(), std::move(targets), topology_.name,
        "compile-only client: no TPU to execute on " + what_));
  }

  StatusOr<std::unique_ptr<Buffer>> BufferFromHost(const void*, PrimitiveType,
                                                   const std::vector<int64_t>&,
                                                   const std::vector<int64_t>&, Device*) override {
    return FailedPrecondition("compile-only client: no TPU to transfer buffers to " + what_);
  }

 private:
  const std::string platform_ = "tpu";
  TpuTopology topology_;
  std::string version_, what_;
  compile_only::MockDevices devices_;
};

StatusOr<std::string> StringOption(const Options& options, const std::string& name,
                                   const std::string& fallback, const std::string& example) {
  auto it = options.find(name);
  if (it == options.end()) return fallback;
  const std::string* s = std::get_if<std::string>(&it->second);
  if (s == nullptr) return InvalidArgument("option " + name + " must be a string like " + example);
  return *s;
}

StatusOr<bool> MockOption(const Options& options) {
  auto it = options.find("mock");
  if (it == options.end()) return false;
  const bool* b = std::get_if<bool>(&it->second);
  if (b == nullptr) return InvalidArgument("option mock must be a bool");
  return *b;
}

}  // namespace

std::unique_ptr<Client> CreateCompileOnlyTpuClient(const TpuTopology& topology) {
  return std::make_unique<CompileOnlyTpuClient>(topology);
}

StatusOr<std::unique_ptr<Client>> CreateTpuClient(const Options& options) {
  ASSIGN_OR_RETURN(bool mock, MockOption(options));
  if (mock) {
    ASSIGN_OR_RETURN(std::string text,
                     StringOption(options, "topology", kDefaultTpuTopology, "\"v5e:2x2\""));
    ASSIGN_OR_RETURN(TpuTopology topology, ParseTpuTopology(text));
    return CreateCompileOnlyTpuClient(topology);
  }
  if (options.count("topology")) {
    return InvalidArgument("option topology is for compile-only clients; pass mock=True with it");
  }
  const char* env_root = std::getenv("XLA_TPU_DEVICE_ROOT");
  ASSIGN_OR_RETURN(std::string root,
                   StringOption(options, "device_root", env_root ? env_root : "/", "\"/\""));
  const char* library = std::getenv("TPU_LIBRARY_PATH");
  return CreateTpuRuntimeClient(DiscoverTpuChips(root),
                                LibtpuSearch{library ? library : "", PluginSitePackages()});
}

}  // namespace xla::tpu

namespace xla {

const PluginInfo& TpuPluginInfo() {
  static const PluginInfo info{"tpu", "dev", &tpu::CreateTpuClient};
  return info;
}

}  // namespace xla
