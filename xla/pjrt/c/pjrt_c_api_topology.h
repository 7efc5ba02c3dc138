/* PJRT C API, part of pjrt_c_api.h: topology descriptions and compiling for
 * them. Include pjrt_c_api.h, never this file. */
#ifndef XLA_PJRT_C_PJRT_C_API_TOPOLOGY_H_
#define XLA_PJRT_C_PJRT_C_API_TOPOLOGY_H_

#ifndef XLA_PJRT_C_PJRT_C_API_H_
#error "include xla/pjrt/c/pjrt_c_api.h"
#endif

/* ------------------------------- Topologies -------------------------------
 * A description of devices that need not be present, for compiling ahead of
 * time (PJRT_Compile) on a machine without them. */

typedef struct PJRT_TopologyDescription_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* topology_name; /* e.g. "v5e:2x2" */
  size_t topology_name_size;
  const PJRT_NamedValue* create_options;
  size_t num_options;
  PJRT_TopologyDescription* topology; /* out */
} PJRT_TopologyDescription_Create_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Create_Args, topology);
typedef PJRT_Error* PJRT_TopologyDescription_Create(PJRT_TopologyDescription_Create_Args* args);

typedef struct PJRT_TopologyDescription_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology;
} PJRT_TopologyDescription_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Destroy_Args, topology);
typedef PJRT_Error* PJRT_TopologyDescription_Destroy(PJRT_TopologyDescription_Destroy_Args* args);

typedef struct PJRT_TopologyDescription_PlatformName_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  const char* platform_name; /* out */
  size_t platform_name_size; /* out */
} PJRT_TopologyDescription_PlatformName_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_PlatformName_Args, platform_name_size);
typedef PJRT_Error* PJRT_TopologyDescription_PlatformName(
    PJRT_TopologyDescription_PlatformName_Args* args);

typedef struct PJRT_TopologyDescription_PlatformVersion_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology;
  const char* platform_version; /* out */
  size_t platform_version_size; /* out */
} PJRT_TopologyDescription_PlatformVersion_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_PlatformVersion_Args, platform_version_size);
typedef PJRT_Error* PJRT_TopologyDescription_PlatformVersion(
    PJRT_TopologyDescription_PlatformVersion_Args* args);

typedef struct PJRT_TopologyDescription_GetDeviceDescriptions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  PJRT_DeviceDescription* const* descriptions; /* out; owned by the topology */
  size_t num_descriptions;                     /* out */
} PJRT_TopologyDescription_GetDeviceDescriptions_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_GetDeviceDescriptions_Args, num_descriptions);
typedef PJRT_Error* PJRT_TopologyDescription_GetDeviceDescriptions(
    PJRT_TopologyDescription_GetDeviceDescriptions_Args* args);

typedef struct PJRT_TopologyDescription_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology;
  const char* serialized_bytes; /* out */
  size_t serialized_bytes_size; /* out */
  PJRT_SerializedTopology* serialized_topology; /* out */
  void (*serialized_topology_deleter)(PJRT_SerializedTopology* topology); /* out */
} PJRT_TopologyDescription_Serialize_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Serialize_Args, serialized_topology_deleter);
typedef PJRT_Error* PJRT_TopologyDescription_Serialize(
    PJRT_TopologyDescription_Serialize_Args* args);

typedef struct PJRT_TopologyDescription_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology;
  const PJRT_NamedValue* attributes; /* out */
  size_t num_attributes;             /* out */
} PJRT_TopologyDescription_Attributes_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Attributes_Args, num_attributes);
typedef PJRT_Error* PJRT_TopologyDescription_Attributes(
    PJRT_TopologyDescription_Attributes_Args* args);

/* Compiles for a topology; `client` may be NULL (compile only). */
typedef struct PJRT_Compile_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  const PJRT_Program* program;
  const char* compile_options; /* a serialized CompileOptionsProto */
  size_t compile_options_size;
  PJRT_Client* client;
  PJRT_Executable* executable; /* out */
} PJRT_Compile_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Compile_Args, executable);
typedef PJRT_Error* PJRT_Compile(PJRT_Compile_Args* args);

#endif /* XLA_PJRT_C_PJRT_C_API_TOPOLOGY_H_ */
