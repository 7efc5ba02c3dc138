#include "xla/hlo/proto/compile_options.h"

#include <limits>
#include <utility>

#include "xla/hlo/proto/compile_options.pb.h"
#include "xla/hlo/proto/literal_proto.h"

namespace xla {
namespace {

// Generous for any real system, small enough that a hostile count cannot
// make the reader allocate much.
constexpr int64_t kMaxDevices = int64_t{1} << 20;

void OverrideToProto(const CompileOptions::OptionValue& value, wire::OptionOverrideProto* p) {
  if (const auto* s = std::get_if<std::string>(&value)) p->set_string_field(*s);
  else if (const auto* i = std::get_if<int64_t>(&value)) p->set_int_field(*i);
  else if (const auto* b = std::get_if<bool>(&value)) p->set_bool_field(*b);
  else p->set_double_field(std::get<double>(value));
}

StatusOr<CompileOptions::OptionValue> OverrideFromProto(const wire::OptionOverrideProto& p) {
  switch (p.value_case()) {
    case wire::OptionOverrideProto::kStringField: return CompileOptions::OptionValue(p.string_field());
    case wire::OptionOverrideProto::kIntField: return CompileOptions::OptionValue(p.int_field());
    case wire::OptionOverrideProto::kBoolField: return CompileOptions::OptionValue(p.bool_field());
    case wire::OptionOverrideProto::kDoubleField: return CompileOptions::OptionValue(p.double_field());
    default: return InvalidArgument("has no value");
  }
}

// XLA stores the assignment per computation (partition): devices[c][r].
void DeviceAssignmentToProto(const std::vector<std::vector<int64_t>>& assignment,
                             int64_t replicas, int64_t partitions, wire::DeviceAssignmentProto* p) {
  p->set_replica_count(static_cast<int32_t>(replicas));
  p->set_computation_count(static_cast<int32_t>(partitions));
  for (int64_t c = 0; c < partitions; ++c) {
    auto* devices = p->add_computation_devices();
    for (int64_t r = 0; r < replicas; ++r) devices->add_replica_device_ids(assignment[r][c]);
  }
}

StatusOr<std::vector<std::vector<int64_t>>> DeviceAssignmentFromProto(const wire::DeviceAssignmentProto& p) {
  int64_t replicas = p.replica_count(), partitions = p.computation_count();
  if (replicas < 1 || partitions < 1 || replicas > kMaxDevices / partitions) {
    return InvalidArgument("device_assignment of " + std::to_string(replicas) + " replicas x " +
                           std::to_string(partitions) + " computations is out of range");
  }
  if (p.computation_devices_size() != partitions) {
    return InvalidArgument("device_assignment lists " + std::to_string(p.computation_devices_size()) +
                           " computations, expected " + std::to_string(partitions));
  }
  std::vector<std::vector<int64_t>> assignment(replicas, std::vector<int64_t>(partitions));
  for (int64_t c = 0; c < partitions; ++c) {
    const auto& ids = p.computation_devices(static_cast<int>(c)).replica_device_ids();
    if (ids.size() != replicas) {
      return InvalidArgument("device_assignment computation " + std::to_string(c) + " lists " +
                             std::to_string(ids.size()) + " replicas, expected " + std::to_string(replicas));
    }
    for (int64_t r = 0; r < replicas; ++r) assignment[r][c] = ids[static_cast<int>(r)];
  }
  return assignment;
}

bool AssignmentFits(const CompileOptions& o) {
  if (static_cast<int64_t>(o.device_assignment.size()) != o.num_replicas) return false;
  for (const auto& row : o.device_assignment) {
    if (static_cast<int64_t>(row.size()) != o.num_partitions) return false;
  }
  return true;
}

Status ReadBuildOptions(const wire::ExecutableBuildOptionsProto& p, CompileOptions* o) {
  // Zero is the wire's "unset", which XLA takes as one.
  o->num_replicas = p.num_replicas() == 0 ? 1 : p.num_replicas();
  o->num_partitions = p.num_partitions() == 0 ? 1 : p.num_partitions();
  if (o->num_replicas < 1 || o->num_partitions < 1 || o->num_replicas > kMaxDevices / o->num_partitions) {
    return InvalidArgument("num_replicas " + std::to_string(o->num_replicas) + " x num_partitions " +
                           std::to_string(o->num_partitions) + " is out of range");
  }
  o->use_spmd_partitioning = p.use_spmd_partitioning();
  o->use_auto_spmd_partitioning = p.use_auto_spmd_partitioning();
  if (p.has_device_assignment()) {
    ASSIGN_OR_RETURN(o->device_assignment, DeviceAssignmentFromProto(p.device_assignment()));
    if (!AssignmentFits(*o)) {
      return InvalidArgument("device_assignment is " + std::to_string(p.device_assignment().replica_count()) +
                             " x " + std::to_string(p.device_assignment().computation_count()) +
                             ", but the options ask for " + std::to_string(o->num_replicas) + " replicas x " +
                             std::to_string(o->num_partitions) + " partitions");
    }
  }
  return OkStatus();
}

}  // namespace

bool CompileOptions::operator==(const CompileOptions& o) const {
  return num_replicas == o.num_replicas && num_partitions == o.num_partitions &&
         use_spmd_partitioning == o.use_spmd_partitioning &&
         use_auto_spmd_partitioning == o.use_auto_spmd_partitioning &&
         device_assignment == o.device_assignment && argument_layouts == o.argument_layouts &&
         parameter_is_tupled_arguments == o.parameter_is_tupled_arguments &&
         compile_portable_executable == o.compile_portable_executable &&
         env_option_overrides == o.env_option_overrides;
}

std::string SerializeCompileOptions(const CompileOptions& options) {
  wire::CompileOptionsProto proto;
  if (options.argument_layouts) {
    for (const Shape& shape : *options.argument_layouts) ShapeToProto(shape, proto.add_argument_layouts());
  }
  proto.set_parameter_is_tupled_arguments(options.parameter_is_tupled_arguments);
  proto.set_compile_portable_executable(options.compile_portable_executable);
  wire::ExecutableBuildOptionsProto* build = proto.mutable_executable_build_options();
  build->set_device_ordinal(-1);  // XLA's "no particular device"
  build->set_num_replicas(options.num_replicas);
  build->set_num_partitions(options.num_partitions);
  build->set_use_spmd_partitioning(options.use_spmd_partitioning);
  build->set_use_auto_spmd_partitioning(options.use_auto_spmd_partitioning);
  // An assignment of the wrong size would be refused by every reader; leave it out.
  if (!options.device_assignment.empty() && AssignmentFits(options) &&
      options.num_replicas <= std::numeric_limits<int32_t>::max() &&
      options.num_partitions <= std::numeric_limits<int32_t>::max()) {
    DeviceAssignmentToProto(options.device_assignment, options.num_replicas, options.num_partitions,
                            build->mutable_device_assignment());
  }
  for (const auto& [name, value] : options.env_option_overrides) {
    OverrideToProto(value, &(*proto.mutable_env_option_overrides())[name]);
  }
  return proto.SerializeAsString();
}

StatusOr<CompileOptions> ParseCompileOptions(std::string_view bytes) {
  wire::CompileOptionsProto proto;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return InvalidArgument("malformed CompileOptionsProto (" + std::to_string(bytes.size()) + " bytes)");
  }
  CompileOptions options;
  if (proto.argument_layouts_size() > 0) {
    std::vector<Shape> layouts;
    for (int i = 0; i < proto.argument_layouts_size(); ++i) {
      StatusOr<Shape> shape = ShapeFromProto(proto.argument_layouts(i));
      if (!shape.ok()) return shape.status().WithContext("argument_layouts[" + std::to_string(i) + "]");
      layouts.push_back(std::move(*shape));
    }
    options.argument_layouts = std::move(layouts);
  }
  options.parameter_is_tupled_arguments = proto.parameter_is_tupled_arguments();
  options.compile_portable_executable = proto.compile_portable_executable();
  Status build = ReadBuildOptions(proto.executable_build_options(), &options);
  if (!build.ok()) return build.WithContext("executable_build_options");
  for (const auto& [name, value] : proto.env_option_overrides()) {
    StatusOr<CompileOptions::OptionValue> v = OverrideFromProto(value);
    if (!v.ok()) return v.status().WithContext("env_option_overrides['" + name + "']");
    options.env_option_overrides.emplace(name, std::move(*v));
  }
  return options;
}

}  // namespace xla
