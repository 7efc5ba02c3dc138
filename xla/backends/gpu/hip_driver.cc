#include "xla/backends/gpu/hip_driver.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "xla/backends/gpu/driver_util.h"

namespace xla::gpu {
namespace {

using driver_util::ResolveSymbol;

// A NUL-terminated string field of at most `size` bytes.
std::string FixedString(const char* field, size_t size) {
  return std::string(field, strnlen(field, size));
}

bool IsHexDigit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

}  // namespace

HipDeviceInfo ParseHipDeviceProperties(const char* props) {
  HipDeviceInfo info;
  info.name = FixedString(props + kHipDevicePropsNameOffset, kHipDevicePropsStringSize);
  info.gcn_arch_name = FixedString(props + kHipDevicePropsGcnArchNameOffset, kHipDevicePropsStringSize);
  return info;
}

StatusOr<std::string> GfxArchOf(const std::string& gcn_arch_name) {
  const std::string arch = gcn_arch_name.substr(0, gcn_arch_name.find(':'));
  bool valid = arch.size() > 3 && arch.rfind("gfx", 0) == 0;
  for (size_t i = 3; valid && i < arch.size(); ++i) valid = IsHexDigit(arch[i]);
  size_t pos = arch.size();
  while (valid && pos < gcn_arch_name.size()) {
    const size_t next = gcn_arch_name.find(':', pos + 1);
    const std::string feature = gcn_arch_name.substr(pos + 1, next - pos - 1);
    valid = feature.size() > 1 && (feature.back() == '+' || feature.back() == '-');
    pos = next == std::string::npos ? gcn_arch_name.size() : next;
  }
  if (!valid) {
    return InvalidArgument("the HIP runtime reports the GPU architecture \"" + gcn_arch_name +
                           "\", expected e.g. \"gfx90a\" or \"gfx90a:sramecc+:xnack-\"");
  }
  return arch;
}

StatusOr<std::unique_ptr<HipDriver>> HipDriver::Load() {
  const std::vector<std::string> names = {"libamdhip64.so", "libamdhip64.so.6"};
  auto d = std::make_unique<HipDriver>();
  ASSIGN_OR_RETURN(driver_util::OpenedLibrary opened,
                   driver_util::OpenFirstDriver(
                       names, "The ROCm plugin",
                       "Install ROCm 6 (the HIP runtime) on a machine with an AMD GPU and put its "
                       "lib folder on LD_LIBRARY_PATH (or pass mock=True for a compile-only client)."));
  d->library = opened.handle;
  d->library_name = opened.name;
  const std::string& lib = d->library_name;
#define XLA_RESOLVE(field) RETURN_IF_ERROR(ResolveSymbol(d->library, lib, #field, &d->field))
  XLA_RESOLVE(hipInit);
  XLA_RESOLVE(hipGetErrorName);
  XLA_RESOLVE(hipGetErrorString);
  XLA_RESOLVE(hipGetDeviceCount);
  XLA_RESOLVE(hipGetDevicePropertiesR0600);
  XLA_RESOLVE(hipSetDevice);
  XLA_RESOLVE(hipStreamCreate);
  XLA_RESOLVE(hipStreamDestroy);
  XLA_RESOLVE(hipStreamSynchronize);
  XLA_RESOLVE(hipMalloc);
  XLA_RESOLVE(hipFree);
  XLA_RESOLVE(hipMemcpyHtoDAsync);
  XLA_RESOLVE(hipMemcpyDtoHAsync);
  XLA_RESOLVE(hipMemcpyDtoDAsync);
  XLA_RESOLVE(hipModuleLoadData);
  XLA_RESOLVE(hipModuleUnload);
  XLA_RESOLVE(hipModuleGetFunction);
  XLA_RESOLVE(hipModuleLaunchKernel);
#undef XLA_RESOLVE
  return d;
}

Status HipDriver::Check(hipError_t rc, const std::string& function) const {
  if (rc == kHipSuccess) return OkStatus();
  const char* name = hipGetErrorName(rc);
  const char* text = hipGetErrorString(rc);
  return FailedPrecondition(library_name + ": " + function + " failed: HIP error " +
                            (name ? name : std::to_string(rc)) + " (" +
                            (text ? text : "no description") + ")");
}

StatusOr<HipDeviceInfo> HipDriver::DeviceInfo(int ordinal) const {
  // Aligned like the struct (it holds size_t and pointers).
  std::vector<uint64_t> props(kHipDevicePropsBufferSize / sizeof(uint64_t), 0);
  RETURN_IF_ERROR(Check(hipGetDevicePropertiesR0600(props.data(), ordinal),
                        "hipGetDevicePropertiesR0600"));
  return ParseHipDeviceProperties(reinterpret_cast<const char*>(props.data()));
}

StatusOr<std::unique_ptr<Hipblas>> Hipblas::Load() {
  const std::vector<std::string> names = {"libhipblas.so", "libhipblas.so.2", "libhipblas.so.3"};
  auto b = std::make_unique<Hipblas>();
  ASSIGN_OR_RETURN(driver_util::OpenedLibrary opened,
                   driver_util::OpenFirstDriver(
                       names, "Dots on ROCm devices",
                       "Install hipBLAS from ROCm 6 (the hipblas package) and put its lib folder "
                       "on LD_LIBRARY_PATH."));
  b->library = opened.handle;
  b->library_name = opened.name;
  const std::string& lib = b->library_name;
#define XLA_RESOLVE(field) RETURN_IF_ERROR(ResolveSymbol(b->library, lib, #field, &b->field))
  XLA_RESOLVE(hipblasCreate);
  XLA_RESOLVE(hipblasDestroy);
  XLA_RESOLVE(hipblasSetStream);
  XLA_RESOLVE(hipblasSgemmStridedBatched);
  XLA_RESOLVE(hipblasDgemmStridedBatched);
#undef XLA_RESOLVE
  return b;
}

}  // namespace xla::gpu
