// AMD's Code Object Manager (libamd_comgr.so), opened with dlopen: it links
// the relocatable AMDGPU objects our compiler writes into the executable
// code objects (shared ELF objects) that the HIP runtime loads. This stands
// in for lld, which is not available as a library here.
//
// The action numbers changed between interface versions (comgr 3 dropped
// two actions), so the link action is chosen from amd_comgr_get_version.
#ifndef XLA_BACKENDS_GPU_COMGR_H_
#define XLA_BACKENDS_GPU_COMGR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "xla/status.h"

namespace xla::gpu {

// Handles are structs of one 64-bit integer, passed by value.
struct ComgrData { uint64_t handle; };
struct ComgrDataSet { uint64_t handle; };
struct ComgrActionInfo { uint64_t handle; };

// amd_comgr_data_kind_t.
constexpr int kComgrDataKindLog = 0x5;
constexpr int kComgrDataKindRelocatable = 0x7;
constexpr int kComgrDataKindExecutable = 0x8;

// AMD_COMGR_ACTION_LINK_RELOCATABLE_TO_EXECUTABLE for interface version
// `major` (0x9 in 2.x, 0x7 in 3.x); UNIMPLEMENTED for others.
StatusOr<int> ComgrLinkToExecutableAction(size_t major, size_t minor);

// The comgr isa name of an AMDGPU processor: "gfx90a" -> "amdgcn-amd-amdhsa--gfx90a".
std::string ComgrIsaName(const std::string& gfx_arch);

struct Comgr {
  // Opens libamd_comgr.so (or .so.3, .so.2), resolves the entry points and
  // checks the interface version; the error names what is missing.
  static StatusOr<std::unique_ptr<Comgr>> Load();
  // The executable code object of one relocatable object for `isa_name`; a
  // failed link reports comgr's log.
  StatusOr<std::string> LinkExecutable(const std::string& relocatable,
                                       const std::string& isa_name) const;

  std::string library_name;
  void* library = nullptr;
  int link_action = 0;
  int (*amd_comgr_status_string)(int, const char**) = nullptr;
  void (*amd_comgr_get_version)(size_t*, size_t*) = nullptr;
  int (*amd_comgr_create_data)(int, ComgrData*) = nullptr;
  int (*amd_comgr_release_data)(ComgrData) = nullptr;
  int (*amd_comgr_set_data)(ComgrData, size_t, const char*) = nullptr;
  int (*amd_comgr_set_data_name)(ComgrData, const char*) = nullptr;
  int (*amd_comgr_get_data)(ComgrData, size_t*, char*) = nullptr;
  int (*amd_comgr_create_data_set)(ComgrDataSet*) = nullptr;
  int (*amd_comgr_destroy_data_set)(ComgrDataSet) = nullptr;
  int (*amd_comgr_data_set_add)(ComgrDataSet, ComgrData) = nullptr;
  int (*amd_comgr_action_data_count)(ComgrDataSet, int, size_t*) = nullptr;
  int (*amd_comgr_action_data_get_data)(ComgrDataSet, int, size_t, ComgrData*) = nullptr;
  int (*amd_comgr_create_action_info)(ComgrActionInfo*) = nullptr;
  int (*amd_comgr_destroy_action_info)(ComgrActionInfo) = nullptr;
  int (*amd_comgr_action_info_set_isa_name)(ComgrActionInfo, const char*) = nullptr;
  int (*amd_comgr_action_info_set_logging)(ComgrActionInfo, bool) = nullptr;
  int (*amd_comgr_do_action)(int, ComgrActionInfo, ComgrDataSet, ComgrDataSet) = nullptr;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMGR_H_
