#include "xla/backends/gpu/comgr.h"

#include <vector>

#include "xla/backends/gpu/driver_util.h"

namespace xla::gpu {
namespace {

// Releases comgr objects when a link returns, whichever way.
class LinkObjects {
 public:
  explicit LinkObjects(const Comgr& c) : c_(c) {}
  ~LinkObjects() {
    for (ComgrData d : data) c_.amd_comgr_release_data(d);
    for (ComgrDataSet s : sets) c_.amd_comgr_destroy_data_set(s);
    if (has_info) c_.amd_comgr_destroy_action_info(info);
  }
  std::vector<ComgrData> data;
  std::vector<ComgrDataSet> sets;
  ComgrActionInfo info{0};
  bool has_info = false;

 private:
  const Comgr& c_;
};

}  // namespace

StatusOr<int> ComgrLinkToExecutableAction(size_t major, size_t minor) {
  if (major == 2) return 0x9;
  if (major == 3) return 0x7;
  return Unimplemented("libamd_comgr.so has interface version " + std::to_string(major) + "." +
                       std::to_string(minor) + "; the ROCm plugin knows versions 2.x and 3.x");
}

std::string ComgrIsaName(const std::string& gfx_arch) { return "amdgcn-amd-amdhsa--" + gfx_arch; }

StatusOr<std::unique_ptr<Comgr>> Comgr::Load() {
  auto c = std::make_unique<Comgr>();
  ASSIGN_OR_RETURN(driver_util::OpenedLibrary opened,
                   driver_util::OpenFirstDriver(
                       {"libamd_comgr.so", "libamd_comgr.so.3", "libamd_comgr.so.2"},
                       "Loading kernels on ROCm devices",
                       "It links the compiled kernels into code objects; install ROCm 6's comgr "
                       "package and put its lib folder on LD_LIBRARY_PATH."));
  c->library = opened.handle;
  c->library_name = opened.name;
  const std::string& lib = c->library_name;
#define XLA_RESOLVE(field) \
  RETURN_IF_ERROR(driver_util::ResolveSymbol(c->library, lib, #field, &c->field))
  XLA_RESOLVE(amd_comgr_status_string);
  XLA_RESOLVE(amd_comgr_get_version);
  XLA_RESOLVE(amd_comgr_create_data);
  XLA_RESOLVE(amd_comgr_release_data);
  XLA_RESOLVE(amd_comgr_set_data);
  XLA_RESOLVE(amd_comgr_set_data_name);
  XLA_RESOLVE(amd_comgr_get_data);
  XLA_RESOLVE(amd_comgr_create_data_set);
  XLA_RESOLVE(amd_comgr_destroy_data_set);
  XLA_RESOLVE(amd_comgr_data_set_add);
  XLA_RESOLVE(amd_comgr_action_data_count);
  XLA_RESOLVE(amd_comgr_action_data_get_data);
  XLA_RESOLVE(amd_comgr_create_action_info);
  XLA_RESOLVE(amd_comgr_destroy_action_info);
  XLA_RESOLVE(amd_comgr_action_info_set_isa_name);
  XLA_RESOLVE(amd_comgr_action_info_set_logging);
  XLA_RESOLVE(amd_comgr_do_action);
#undef XLA_RESOLVE
  size_t major = 0, minor = 0;
  c->amd_comgr_get_version(&major, &minor);
  ASSIGN_OR_RETURN(c->link_action, ComgrLinkToExecutableAction(major, minor));
  return c;
}

StatusOr<std::string> Comgr::LinkExecutable(const std::string& relocatable,
                                            const std::string& isa_name) const {
  auto check = [&](int rc, const char* function) -> Status {
    if (rc == 0) return OkStatus();
    const char* text = nullptr;
    amd_comgr_status_string(rc, &text);
    return FailedPrecondition(library_name + ": " + function + " failed with status " +
                              std::to_string(rc) + " (" + (text ? text : "no description") + ")");
  };
  LinkObjects objects(*this);
  ComgrData input{0};
  RETURN_IF_ERROR(check(amd_comgr_create_data(kComgrDataKindRelocatable, &input), "amd_comgr_create_data"));
  objects.data.push_back(input);
  RETURN_IF_ERROR(check(amd_comgr_set_data(input, relocatable.size(), relocatable.data()), "amd_comgr_set_data"));
  RETURN_IF_ERROR(check(amd_comgr_set_data_name(input, "module.o"), "amd_comgr_set_data_name"));
  ComgrDataSet inputs{0}, results{0};
  RETURN_IF_ERROR(check(amd_comgr_create_data_set(&inputs), "amd_comgr_create_data_set"));
  objects.sets.push_back(inputs);
  RETURN_IF_ERROR(check(amd_comgr_data_set_add(inputs, input), "amd_comgr_data_set_add"));
  RETURN_IF_ERROR(check(amd_comgr_create_data_set(&results), "amd_comgr_create_data_set"));
  objects.sets.push_back(results);
  RETURN_IF_ERROR(check(amd_comgr_create_action_info(&objects.info), "amd_comgr_create_action_info"));
  objects.has_info = true;
  RETURN_IF_ERROR(check(amd_comgr_action_info_set_isa_name(objects.info, isa_name.c_str()),
                        "amd_comgr_action_info_set_isa_name"));
  RETURN_IF_ERROR(check(amd_comgr_action_info_set_logging(objects.info, true),
                        "amd_comgr_action_info_set_logging"));

  Status linked = check(amd_comgr_do_action(link_action, objects.info, inputs, results),
                        "linking the kernels (amd_comgr_do_action)");
  auto read = [&](int kind) -> StatusOr<std::string> {
    ComgrData out{0};
    RETURN_IF_ERROR(check(amd_comgr_action_data_get_data(results, kind, 0, &out),
                          "amd_comgr_action_data_get_data"));
    objects.data.push_back(out);
    size_t size = 0;
    RETURN_IF_ERROR(check(amd_comgr_get_data(out, &size, nullptr), "amd_comgr_get_data"));
    std::string bytes(size, '\0');
    RETURN_IF_ERROR(check(amd_comgr_get_data(out, &size, bytes.data()), "amd_comgr_get_data"));
    bytes.resize(size);
    return bytes;
  };
  if (!linked.ok()) {
    size_t logs = 0;
    if (amd_comgr_action_data_count(results, kComgrDataKindLog, &logs) == 0 && logs > 0) {
      auto log = read(kComgrDataKindLog);
      if (log.ok() && !log->empty()) return FailedPrecondition(linked.message() + "; its log: " + *log);
    }
    return linked;
  }
  size_t count = 0;
  RETURN_IF_ERROR(check(amd_comgr_action_data_count(results, kComgrDataKindExecutable, &count),
                        "amd_comgr_action_data_count"));
  if (count != 1) {
    return FailedPrecondition(library_name + ": linking gave " + std::to_string(count) +
                              " executables, expected 1");
  }
  return read(kComgrDataKindExecutable);
}

}  // namespace xla::gpu
