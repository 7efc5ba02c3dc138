// Compile-only topologies: a plugin's description of devices that need not be
// present (PJRT_TopologyDescription), and programs compiled for it with
// PJRT_Compile, without a client. Everything goes through the plugin's C API
// table; jaxlib compiles nothing itself.
#ifndef JAXLIB_PJRT_TOPOLOGY_H_
#define JAXLIB_PJRT_TOPOLOGY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "jaxlib/c_api_loader.h"
#include "xla/pjrt/c/pjrt_c_api.h"

namespace jax {

// Argument sizes of the structs used here (see PjrtStructSize in c_api_loader.h).
#define JAXLIB_PJRT_TOPOLOGY_ARGS(T) \
  template <>                        \
  struct PjrtStructSize<T> { static constexpr size_t value = T##_STRUCT_SIZE; };
JAXLIB_PJRT_TOPOLOGY_ARGS(PJRT_TopologyDescription_Create_Args)
JAXLIB_PJRT_TOPOLOGY_ARGS(PJRT_TopologyDescription_Destroy_Args)
JAXLIB_PJRT_TOPOLOGY_ARGS(PJRT_TopologyDescription_PlatformName_Args)
JAXLIB_PJRT_TOPOLOGY_ARGS(PJRT_TopologyDescription_PlatformVersion_Args)
JAXLIB_PJRT_TOPOLOGY_ARGS(PJRT_TopologyDescription_GetDeviceDescriptions_Args)
JAXLIB_PJRT_TOPOLOGY_ARGS(PJRT_TopologyDescription_Serialize_Args)
JAXLIB_PJRT_TOPOLOGY_ARGS(PJRT_DeviceDescription_Attributes_Args)
JAXLIB_PJRT_TOPOLOGY_ARGS(PJRT_Compile_Args)
#undef JAXLIB_PJRT_TOPOLOGY_ARGS

// What a PJRT_DeviceDescription says about one device, read once.
struct DeviceDescriptionInfo {
  int id = 0;
  int process_index = 0;
  std::string kind;
  std::string debug_string;  // str(device)
  std::string to_string;     // repr(device)
  // Plugin-defined facts, e.g. TPU "coords" and "core_on_chip".
  std::map<std::string, AttributeValue> attributes;
};

// Reads `description` through the plugin's table (attributes only when the
// plugin has PJRT_DeviceDescription_Attributes).
DeviceDescriptionInfo ReadDeviceDescription(const PJRT_Api* api,
                                            PJRT_DeviceDescription* description);

class PjrtTopology {
 public:
  // PJRT_TopologyDescription_Create on the plugin's table. Throws
  // XlaRuntimeError with the plugin's reason, or UNIMPLEMENTED when the
  // plugin cannot describe topologies.
  static std::shared_ptr<PjrtTopology> Create(std::shared_ptr<Plugin> plugin,
                                              const std::string& name,
                                              const std::vector<PJRT_NamedValue>& options);
  ~PjrtTopology();
  PjrtTopology(const PjrtTopology&) = delete;
  PjrtTopology& operator=(const PjrtTopology&) = delete;

  const std::shared_ptr<Plugin>& plugin() const { return plugin_; }
  const PJRT_Api* api() const { return plugin_->api; }
  const std::string& name() const { return name_; }
  const std::string& platform() const { return platform_; }
  const std::string& platform_version() const { return platform_version_; }
  // One per device, in the plugin's order; the C descriptions live as long as
  // this topology.
  const std::vector<PJRT_DeviceDescription*>& descriptions() const { return descriptions_; }
  const std::vector<DeviceDescriptionInfo>& devices() const { return devices_; }
  // PJRT_TopologyDescription_Serialize (UNIMPLEMENTED if the plugin cannot).
  std::string Serialize() const;
  // PJRT_Compile with no client: a serialized HloModuleProto and a serialized
  // CompileOptionsProto in, an executable (owned by the caller, destroyed with
  // PJRT_Executable_Destroy) out.
  PJRT_Executable* Compile(const std::string& hlo_module_proto, const std::string& options) const;

 private:
  PjrtTopology() = default;
  std::shared_ptr<Plugin> plugin_;
  PJRT_TopologyDescription* topology_ = nullptr;
  std::string name_;
  std::string platform_;
  std::string platform_version_;
  std::vector<PJRT_DeviceDescription*> descriptions_;
  std::vector<DeviceDescriptionInfo> devices_;
};

}  // namespace jax

#endif  // JAXLIB_PJRT_TOPOLOGY_H_
