#include "jaxlib/pjrt_topology.h"

#include <cstddef>

#include "jaxlib/status_casters.h"
#include "xla/pjrt/c/utf8.h"

namespace jax {

DeviceDescriptionInfo ReadDeviceDescription(const PJRT_Api* api,
                                            PJRT_DeviceDescription* description) {
  DeviceDescriptionInfo info;
  auto id = PjrtArgs<PJRT_DeviceDescription_Id_Args>();
  id.device_description = description;
  ThrowIfError(api, api->PJRT_DeviceDescription_Id(&id));
  info.id = id.id;
  auto process = PjrtArgs<PJRT_DeviceDescription_ProcessIndex_Args>();
  process.device_description = description;
  ThrowIfError(api, api->PJRT_DeviceDescription_ProcessIndex(&process));
  info.process_index = process.process_index;
  auto kind = PjrtArgs<PJRT_DeviceDescription_Kind_Args>();
  kind.device_description = description;
  ThrowIfError(api, api->PJRT_DeviceDescription_Kind(&kind));
  info.kind.assign(kind.device_kind, kind.device_kind_size);
  auto debug = PjrtArgs<PJRT_DeviceDescription_DebugString_Args>();
  debug.device_description = description;
  ThrowIfError(api, api->PJRT_DeviceDescription_DebugString(&debug));
  info.debug_string.assign(debug.debug_string, debug.debug_string_size);
  auto repr = PjrtArgs<PJRT_DeviceDescription_ToString_Args>();
  repr.device_description = description;
  ThrowIfError(api, api->PJRT_DeviceDescription_ToString(&repr));
  info.to_string.assign(repr.to_string, repr.to_string_size);
  if (PJRT_API_HAS(api, PJRT_DeviceDescription_Attributes)) {
    auto attrs = PjrtArgs<PJRT_DeviceDescription_Attributes_Args>();
    attrs.device_description = description;
    // Attributes are optional facts: a plugin that has none may say UNIMPLEMENTED.
    if (PJRT_Error* error = api->PJRT_DeviceDescription_Attributes(&attrs)) {
      ConsumeErrorCode(api, error);
    } else {
      info.attributes = AttributesOf(attrs.attributes, attrs.num_attributes);
    }
  }
  return info;
}

std::shared_ptr<PjrtTopology> PjrtTopology::Create(std::shared_ptr<Plugin> plugin,
                                                   const std::string& name,
                                                   const std::vector<PJRT_NamedValue>& options) {
  const PJRT_Api* api = plugin->api;
  RequireFunction(*plugin, offsetof(PJRT_Api, PJRT_TopologyDescription_Create),
                  "compile-only topologies (PJRT_TopologyDescription_Create)");
  RequireFunction(*plugin, offsetof(PJRT_Api, PJRT_TopologyDescription_GetDeviceDescriptions),
                  "compile-only topologies (PJRT_TopologyDescription_GetDeviceDescriptions)");
  auto args = PjrtArgs<PJRT_TopologyDescription_Create_Args>();
  args.topology_name = name.data();
  args.topology_name_size = name.size();
  args.create_options = options.data();
  args.num_options = options.size();
  ThrowIfError(api, api->PJRT_TopologyDescription_Create(&args));
  std::shared_ptr<PjrtTopology> t(new PjrtTopology());
  t->plugin_ = std::move(plugin);
  t->topology_ = args.topology;
  t->name_ = name;

  auto platform = PjrtArgs<PJRT_TopologyDescription_PlatformName_Args>();
  platform.topology = t->topology_;
  ThrowIfError(api, api->PJRT_TopologyDescription_PlatformName(&platform));
  t->platform_.assign(platform.platform_name, platform.platform_name_size);
  auto version = PjrtArgs<PJRT_TopologyDescription_PlatformVersion_Args>();
  version.topology = t->topology_;
  ThrowIfError(api, api->PJRT_TopologyDescription_PlatformVersion(&version));
  t->platform_version_.assign(version.platform_version, version.platform_version_size);
  auto devices = PjrtArgs<PJRT_TopologyDescription_GetDeviceDescriptions_Args>();
  devices.topology = t->topology_;
  ThrowIfError(api, api->PJRT_TopologyDescription_GetDeviceDescriptions(&devices));
  for (size_t i = 0; i < devices.num_descriptions; ++i) {
    t->descriptions_.push_back(devices.descriptions[i]);
    t->devices_.push_back(ReadDeviceDescription(api, devices.descriptions[i]));
  }
  return t;
}

PjrtTopology::~PjrtTopology() {
  if (topology_ == nullptr || !PJRT_API_HAS(api(), PJRT_TopologyDescription_Destroy)) return;
  auto args = PjrtArgs<PJRT_TopologyDescription_Destroy_Args>();
  args.topology = topology_;
  if (PJRT_Error* error = api()->PJRT_TopologyDescription_Destroy(&args)) {
    ConsumeErrorCode(api(), error);
  }
}

std::string PjrtTopology::Serialize() const {
  RequireFunction(*plugin_, offsetof(PJRT_Api, PJRT_TopologyDescription_Serialize),
                  "serializing a topology");
  auto args = PjrtArgs<PJRT_TopologyDescription_Serialize_Args>();
  args.topology = topology_;
  ThrowIfError(api(), api()->PJRT_TopologyDescription_Serialize(&args));
  std::string out(args.serialized_bytes, args.serialized_bytes_size);
  if (args.serialized_topology_deleter != nullptr) {
    args.serialized_topology_deleter(args.serialized_topology);
  }
  return out;
}

PJRT_Executable* PjrtTopology::Compile(const std::string& hlo_module_proto,
                                       const std::string& options) const {
  RequireFunction(*plugin_, offsetof(PJRT_Api, PJRT_Compile),
                  "compiling for a topology (PJRT_Compile)");
  static const char kFormat[] = "hlo";
  auto program = PjrtArgs<PJRT_Program>();
  program.code = const_cast<char*>(hlo_module_proto.data());  // read only
  program.code_size = hlo_module_proto.size();
  program.format = kFormat;
  program.format_size = sizeof(kFormat) - 1;
  auto args = PjrtArgs<PJRT_Compile_Args>();
  args.topology = topology_;
  args.program = &program;
  args.compile_options = options.data();
  args.compile_options_size = options.size();
  args.client = nullptr;  // compile only
  ThrowIfError(api(), api()->PJRT_Compile(&args));
  return args.executable;
}

}  // namespace jax
