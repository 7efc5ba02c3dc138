#include <cmath>
#include <string>

#include "xla/backends/gpu/cuda_driver.h"
#include "xla/backends/gpu/cuda_runtime.h"
#include "xla/backends/gpu/device_clients.h"
#include "xla/backends/gpu/driver_util.h"
#include "xla/backends/gpu/gpu_client.h"
#include "xla/backends/gpu/gpu_target.h"

namespace xla {
namespace {

using driver_util::OptionSet;

// Option compute_capability: "8.0", "sm_80", "80", 80 or 8.0 -> "sm_80".
StatusOr<std::string> ComputeCapability(const Options& options) {
  auto it = options.find("compute_capability");
  if (it == options.end()) return std::string("sm_80");
  const std::string bad = "option compute_capability must look like \"8.0\", \"sm_80\" or 80";
  int major = 0, minor = 0;
  if (const std::string* s = std::get_if<std::string>(&it->second)) {
    std::string v = s->rfind("sm_", 0) == 0 ? s->substr(3) : *s;
    size_t dot = v.find('.');
    if (v.empty() || v.find_first_not_of("0123456789.") != std::string::npos) {
      return InvalidArgument(bad + ", got \"" + *s + "\"");
    }
    if (dot != std::string::npos) {
      if (dot == 0 || dot + 2 != v.size()) return InvalidArgument(bad + ", got \"" + *s + "\"");
      major = std::stoi(v.substr(0, dot));
      minor = v[dot + 1] - '0';
    } else {
      if (v.size() < 2 || v.size() > 3) return InvalidArgument(bad + ", got \"" + *s + "\"");
      major = std::stoi(v.substr(0, v.size() - 1));
      minor = v.back() - '0';
    }
  } else if (const int64_t* n = std::get_if<int64_t>(&it->second)) {
    major = static_cast<int>(*n / 10);
    minor = static_cast<int>(*n % 10);
  } else if (const float* f = std::get_if<float>(&it->second)) {
    major = static_cast<int>(*f);
    minor = static_cast<int>(std::lround((*f - major) * 10));
  } else {
    return InvalidArgument(bad);
  }
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

StatusOr<std::string> StringOption(const Options& options, const std::string& name) {
  auto it = options.find(name);
  if (it == options.end()) return std::string();
  const std::string* s = std::get_if<std::string>(&it->second);
  if (s == nullptr) return InvalidArgument("option " + name + " must be a string");
  return *s;
}

// With mock=True the client compiles for a topology of mock devices;
// otherwise it runs on the GPUs the driver reports (cuda_runtime.h).
StatusOr<std::unique_ptr<Client>> CreateCudaClient(const Options& options) {
  ASSIGN_OR_RETURN(std::string arch, ComputeCapability(options));
  ASSIGN_OR_RETURN(std::string cuda_dir, StringOption(options, "cuda_data_dir"));
  ASSIGN_OR_RETURN(std::unique_ptr<gpu::GpuTarget> target, gpu::CreateNvptxTarget(arch, cuda_dir));
  if (OptionSet(options, "mock")) {
    return gpu::CreateCompileOnlyClient("cuda", std::move(target), options,
                                        "Run on a machine with an NVIDIA GPU and driver to execute.");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<gpu::CudaDriver> driver, gpu::CudaDriver::Load());
  if (int rc = driver->cuInit(0); rc != 0) {
    return driver->Check(rc, "cuInit failed (is an NVIDIA GPU present and the driver loaded?)");
  }
  return gpu::CreateCudaRuntimeClient(std::move(driver), cuda_dir);
}

}  // namespace

const PluginInfo& CudaPluginInfo() {
  static const PluginInfo info{"cuda,gpu", "dev", &CreateCudaClient};
  return info;
}

}  // namespace xla
