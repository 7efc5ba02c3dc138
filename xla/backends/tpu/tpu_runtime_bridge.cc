#include "xla/backends/tpu/tpu_runtime_bridge.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include "xla/pjrt/c/pjrt_c_api.h"

namespace xla::tpu {
namespace {

constexpr char kInstall[] = "Install it with: pip install libtpu";
constexpr char kMock[] =
    "For ahead-of-time compilation without TPUs, create the client with mock=True and a "
    "topology such as \"v5e:2x2\".";

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string DlError() {
  const char* why = dlerror();
  return why ? why : "unknown error";
}

// What an opened libtpu offers, as a failure: forwarding is not implemented.
Status Describe(const TpuChips& chips, void* handle, const std::string& where) {
  using GetApi = const PJRT_Api* (*)();
  auto get_api = reinterpret_cast<GetApi>(dlsym(handle, "GetPjrtApi"));
  if (get_api == nullptr) {
    return FailedPrecondition(where + " loaded but does not export GetPjrtApi, so it is not a "
                              "TPU runtime (libtpu). " + kInstall);
  }
  const PJRT_Api* api = get_api();
  std::string version = "unknown";
  if (api != nullptr) {
    version = std::to_string(api->pjrt_api_version.major_version) + "." +
              std::to_string(api->pjrt_api_version.minor_version);
  }
  return Unimplemented("found " + DescribeChips(chips) + " and the TPU runtime " + where +
                       " (PJRT C API " + version + "), but this plugin does not forward "
                       "execution to libtpu: jaxlib-tpu compiles for TPUs (mock=True) and "
                       "cannot run programs on them yet.");
}

Status Opened(const TpuChips& chips, void* handle, const std::string& where) {
  Status status = Describe(chips, handle, where);
  dlclose(handle);
  return status;
}

}  // namespace

std::string PluginSitePackages() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&PluginSitePackages), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  // <site-packages>/jax_plugins/xla_tpu/xla_tpu_plugin.so
  std::string path = info.dli_fname;
  for (int i = 0; i < 3; ++i) {
    size_t slash = path.rfind('/');
    if (slash == std::string::npos) return "";
    path.resize(slash);
  }
  return path;
}

StatusOr<std::unique_ptr<Client>> CreateTpuRuntimeClient(const TpuChips& chips,
                                                         const LibtpuSearch& search) {
  if (chips.device_files.empty()) {
    return FailedPrecondition("no TPU found: the TPU plugin looks for TPU chips as " +
                              chips.searched + " and there are none on this machine. Run on a "
                              "Cloud TPU VM. " + kMock);
  }
  const std::string found = "found " + DescribeChips(chips) + ", but ";
  if (!search.library_path_env.empty()) {
    const std::string& path = search.library_path_env;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      return FailedPrecondition(found + "the TPU runtime TPU_LIBRARY_PATH=" + path +
                                " could not be loaded: " + DlError());
    }
    return Opened(chips, handle, "TPU_LIBRARY_PATH=" + path);
  }
  std::string tried = "TPU_LIBRARY_PATH is not set";
  if (!search.site_packages.empty()) {
    const std::string path = search.site_packages + "/libtpu/libtpu.so";
    if (FileExists(path)) {
      void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) {
        return FailedPrecondition(found + "the TPU runtime " + path + " could not be loaded: " +
                                  DlError());
      }
      return Opened(chips, handle, path);
    }
    tried += "; " + path + " does not exist";
  }
  void* handle = dlopen("libtpu.so", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return FailedPrecondition(found + "executing needs Google's TPU runtime libtpu, which was "
                              "not found (" + tried + "; dlopen(\"libtpu.so\"): " + DlError() +
                              "). " + kInstall + ", or set TPU_LIBRARY_PATH to its libtpu.so.");
  }
  return Opened(chips, handle, "libtpu.so (found by the dynamic loader)");
}

}  // namespace xla::tpu
