// HloModule -> HloModuleProto.
#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "xla/hlo/proto/attribute_proto.h"
#include "xla/hlo/proto/hlo.pb.h"
#include "xla/hlo/proto/hlo_proto.h"
#include "xla/hlo/proto/literal_proto.h"

namespace xla {
namespace {

// Ids come from one counter for computations and instructions alike, so
// every id in the module is distinct (XLA keeps them unique per module).
class IdTable {
 public:
  int64_t Assign(const void* object) {
    int64_t id = next_++;
    ids_[object] = id;
    return id;
  }
  // 0 (never assigned) for an object outside the module, such as an operand
  // from another computation: readers then refuse the dangling reference.
  int64_t Get(const void* object) const {
    auto it = ids_.find(object);
    return it == ids_.end() ? 0 : it->second;
  }

 private:
  int64_t next_ = 1;
  std::unordered_map<const void*, int64_t> ids_;
};

// XLA requires instruction names unique across the module; ours need only be
// unique within a computation. A repeated name gets the first free ".N" suffix.
class NameTable {
 public:
  explicit NameTable(const HloModule& module) {
    for (const HloComputation* c : module.computations()) {
      for (const HloInstruction* instr : c->instructions()) taken_.insert(instr->name());
    }
  }
  const std::string& Unique(const HloInstruction* instr) {
    std::string name = instr->name();
    // Candidates that are some other instruction's own name are skipped too.
    for (int n = 1; given_.count(name); ++n) {
      do {
        name = instr->name() + "." + std::to_string(n++);
      } while (taken_.count(name));
      --n;
    }
    given_.insert(name);
    return written_[instr] = name;
  }
  // The name Unique() gave `instr`.
  std::string WrittenName(const HloInstruction* instr) const {
    auto it = written_.find(instr);
    return it == written_.end() ? instr->name() : it->second;
  }

 private:
  std::unordered_set<std::string> taken_;  // every name in the module
  std::unordered_set<std::string> given_;  // names already written
  std::unordered_map<const HloInstruction*, std::string> written_;
};

// XLA's while keeps its body first and its condition second; our IR keeps
// them in the text's order, condition first.
std::vector<const HloComputation*> CalleesInWireOrder(const HloInstruction& instr) {
  std::vector<const HloComputation*> callees(instr.called_computations().begin(),
                                             instr.called_computations().end());
  if (instr.opcode() == HloOpcode::kWhile && callees.size() == 2) std::swap(callees[0], callees[1]);
  return callees;
}

void SetCollectiveFields(const HloInstruction& instr, wire::HloInstructionProto* p) {
  if (instr.channel_id() && *instr.channel_id() > 0) p->set_channel_id(*instr.channel_id());
  p->set_use_global_device_ids(instr.use_global_device_ids());
  for (const std::vector<int64_t>& group : instr.replica_groups()) {
    wire::ReplicaGroup* g = p->add_replica_groups();
    for (int64_t id : group) g->add_replica_ids(id);
  }
  for (const auto& [source, target] : instr.source_target_pairs()) {
    wire::SourceTarget* pair = p->add_source_target_pairs();
    pair->set_source(source);
    pair->set_target(target);
  }
}

void SetDimensions(const std::vector<int64_t>& dims, wire::HloInstructionProto* p) {
  for (int64_t d : dims) p->add_dimensions(d);
}

Status CheckInt32(int64_t value, const char* field) {
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    return InvalidArgument(std::string(field) + " " + std::to_string(value) +
                           " does not fit the wire format's 32 bits");
  }
  return OkStatus();
}

// The attributes `instr`'s opcode uses, in the fields XLA reads for it.
Status SetOpcodeAttributes(const HloInstruction& instr, wire::HloInstructionProto* p) {
  switch (instr.opcode()) {
    case HloOpcode::kParameter:
      p->set_parameter_number(instr.parameter_number());
      break;
    case HloOpcode::kConstant:
      LiteralToProto(instr.literal(), p->mutable_literal());
      break;
    case HloOpcode::kGetTupleElement:
      p->set_tuple_index(instr.tuple_index());
      break;
    case HloOpcode::kBroadcast: case HloOpcode::kTranspose: case HloOpcode::kReverse:
    case HloOpcode::kConcatenate: case HloOpcode::kReduce: case HloOpcode::kMap:
      SetDimensions(instr.dimensions(), p);
      break;
    case HloOpcode::kSort:
      SetDimensions(instr.dimensions(), p);
      p->set_is_stable(instr.is_stable());
      break;
    case HloOpcode::kCompare:
      p->set_comparison_direction(std::string(ToString(instr.comparison_direction())));
      // Written always, as XLA does: readers need not know the implied type.
      p->set_comparison_type(std::string(ToString(
          instr.comparison_type() != ComparisonType::kDefault || instr.operand_count() == 0
              ? instr.comparison_type()
              : ImpliedComparisonType(instr.operand(0)->shape().element_type()))));
      break;
    case HloOpcode::kSlice:
      for (size_t i = 0; i < instr.slice_starts().size(); ++i) {
        auto* d = p->add_slice_dimensions();
        d->set_start(instr.slice_starts()[i]);
        d->set_limit(instr.slice_limits()[i]);
        d->set_stride(instr.slice_strides()[i]);
      }
      break;
    case HloOpcode::kIota:
      p->add_dimensions(instr.iota_dimension());
      break;
    case HloOpcode::kDynamicSlice:
      for (int64_t s : instr.dynamic_slice_sizes()) p->add_dynamic_slice_sizes(s);
      break;
    case HloOpcode::kPad:
      PaddingToProto(instr.padding_config(), p->mutable_padding_config());
      break;
    case HloOpcode::kReduceWindow: case HloOpcode::kSelectAndScatter:
      WindowToProto(instr.window(), p->mutable_window());
      break;
    case HloOpcode::kConvolution:
      if (instr.has_window()) WindowToProto(instr.window(), p->mutable_window());
      ConvDimsToProto(instr.convolution_dimension_numbers(), p->mutable_convolution_dimension_numbers());
      p->set_feature_group_count(instr.feature_group_count());
      p->set_batch_group_count(instr.batch_group_count());
      RETURN_IF_ERROR(PrecisionToProto(instr.operand_precision(), p->mutable_precision_config()));
      break;
    case HloOpcode::kDot:
      DotDimsToProto(instr.dot_dimension_numbers(), p->mutable_dot_dimension_numbers());
      RETURN_IF_ERROR(PrecisionToProto(instr.operand_precision(), p->mutable_precision_config()));
      break;
    case HloOpcode::kGather:
      GatherDimsToProto(instr.gather_dimension_numbers(), p->mutable_gather_dimension_numbers());
      for (int64_t s : instr.gather_slice_sizes()) p->add_gather_slice_sizes(s);
      p->set_indices_are_sorted(instr.indices_are_sorted());
      break;
    case HloOpcode::kScatter:
      ScatterDimsToProto(instr.scatter_dimension_numbers(), p->mutable_scatter_dimension_numbers());
      p->set_indices_are_sorted(instr.indices_are_sorted());
      p->set_unique_indices(instr.unique_indices());
      break;
    case HloOpcode::kFft: {
      ASSIGN_OR_RETURN(wire::FftType type, FftTypeToProto(instr.fft_type()));
      p->set_fft_type(type);
      for (int64_t l : instr.fft_length()) p->add_fft_length(l);
      break;
    }
    case HloOpcode::kRngBitGenerator:
      p->set_rng_algorithm(RngAlgorithmToProto(instr.rng_algorithm()));
      break;
    case HloOpcode::kRng:
      p->set_distribution(RngDistributionToProto(instr.rng_distribution()));
      break;
    case HloOpcode::kTriangularSolve:
      TriangularSolveToProto(instr.triangular_solve_options(), p->mutable_triangular_solve_options());
      break;
    case HloOpcode::kCholesky:
      p->mutable_cholesky_options()->set_lower(instr.cholesky_lower());
      break;
    case HloOpcode::kReducePrecision:
      RETURN_IF_ERROR(CheckInt32(instr.exponent_bits(), "exponent_bits"));
      RETURN_IF_ERROR(CheckInt32(instr.mantissa_bits(), "mantissa_bits"));
      p->set_exponent_bits(static_cast<int32_t>(instr.exponent_bits()));
      p->set_mantissa_bits(static_cast<int32_t>(instr.mantissa_bits()));
      break;
    case HloOpcode::kTopK:
      p->set_k(instr.k());
      p->set_largest(instr.largest());
      break;
    case HloOpcode::kCustomCall: {
      p->set_custom_call_target(instr.custom_call_target());
      p->set_custom_call_has_side_effect(instr.custom_call_has_side_effect());
      ASSIGN_OR_RETURN(wire::CustomCallApiVersion version, ApiVersionToProto(instr.api_version()));
      p->set_custom_call_api_version(version);
      break;
    }
    case HloOpcode::kFusion:
      p->set_fusion_kind(instr.fusion_kind());
      break;
    case HloOpcode::kAllGather: case HloOpcode::kAllToAll: case HloOpcode::kReduceScatter:
      SetDimensions(instr.dimensions(), p);
      SetCollectiveFields(instr, p);
      break;
    case HloOpcode::kAllReduce: case HloOpcode::kCollectivePermute:
      SetCollectiveFields(instr, p);
      break;
    default:
      break;
  }
  return OkStatus();
}

Status InstructionToProto(const HloInstruction& instr, const IdTable& ids, NameTable* names,
                          wire::HloInstructionProto* p) {
  p->set_id(ids.Get(&instr));
  p->set_name(names->Unique(&instr));
  p->set_opcode(std::string(HloOpcodeString(instr.opcode())));
  Shape shape = instr.shape();
  // A constant's shape must match its literal's, which XLA wants laid out.
  if (instr.opcode() == HloOpcode::kConstant && shape.IsArray() && !shape.has_layout()) {
    shape.SetDefaultLayout();
  }
  ShapeToProto(shape, p->mutable_shape());
  for (const HloInstruction* operand : instr.operands()) p->add_operand_ids(ids.Get(operand));
  for (const HloComputation* callee : CalleesInWireOrder(instr)) {
    p->add_called_computation_ids(ids.Get(callee));
  }
  if (!instr.backend_config().empty()) p->set_backend_config(instr.backend_config());
  Status status = SetOpcodeAttributes(instr, p);
  return status.WithContext("instruction '" + instr.name() + "'");
}

void ProgramShapeToProto(const std::vector<Shape>& parameters, const Shape& result,
                         const HloComputation& computation, const NameTable& names,
                         wire::ProgramShapeProto* p) {
  for (size_t i = 0; i < parameters.size(); ++i) {
    ShapeToProto(parameters[i], p->add_parameters());
    const HloInstruction* param = computation.parameter_instruction(static_cast<int64_t>(i));
    p->add_parameter_names(param != nullptr ? names.WrittenName(param) : "");
  }
  ShapeToProto(result, p->mutable_result());
}

void ComputationShapeToProto(const HloComputation& computation, const NameTable& names,
                             wire::ProgramShapeProto* p) {
  std::vector<Shape> parameters;
  for (const HloInstruction* param : computation.parameter_instructions()) {
    parameters.push_back(param != nullptr ? param->shape() : Shape());
  }
  ProgramShapeToProto(parameters, computation.root_instruction()->shape(), computation, names, p);
}

Status ComputationToProto(const HloComputation& computation, bool is_fusion, IdTable* ids,
                          NameTable* names, wire::HloComputationProto* p) {
  p->set_id(ids->Get(&computation));
  p->set_name(computation.name());
  // XLA schedules work by thread name; everything of ours runs on the main one.
  p->set_execution_thread("main");
  p->set_is_fusion_computation(is_fusion);
  if (computation.root_instruction() == nullptr) {
    return InvalidArgument("computation '" + computation.name() + "' has no root");
  }
  std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  for (const HloInstruction* instr : order) ids->Assign(instr);
  for (const HloInstruction* instr : order) {
    RETURN_IF_ERROR(InstructionToProto(*instr, *ids, names, p->add_instructions())
                        .WithContext("computation '" + computation.name() + "'"));
  }
  p->set_root_id(ids->Get(computation.root_instruction()));
  ComputationShapeToProto(computation, *names, p->mutable_program_shape());
  return OkStatus();
}

void ModuleExtrasToProto(const HloModule& module, wire::HloModuleProto* p) {
  for (const InputOutputAlias& alias : module.input_output_alias()) {
    auto* entry = p->mutable_input_output_alias()->add_entries();
    for (int64_t i : alias.output_index) entry->add_output_shape_index(i);
    entry->set_parameter_number(alias.parameter_number);
    for (int64_t i : alias.parameter_index) entry->add_parameter_shape_index(i);
    entry->set_kind(alias.must_alias ? wire::MUST_ALIAS : wire::MAY_ALIAS);
  }
  for (const BufferDonor& donor : module.buffer_donors()) {
    auto* entry = p->mutable_buffer_donor()->add_entries();
    entry->set_parameter_number(donor.parameter_number);
    for (int64_t i : donor.parameter_index) entry->add_parameter_shape_index(i);
  }
  const HloModuleConfig& config = module.config();
  if (config.replica_count != 1 || config.num_partitions != 1) {
    // XLA's default placement: replica r of partition c runs on device
    // r * num_partitions + c.
    wire::DeviceAssignmentProto* da = p->mutable_device_assignment();
    da->set_replica_count(static_cast<int32_t>(config.replica_count));
    da->set_computation_count(static_cast<int32_t>(config.num_partitions));
    for (int64_t c = 0; c < config.num_partitions; ++c) {
      auto* devices = da->add_computation_devices();
      for (int64_t r = 0; r < config.replica_count; ++r) {
        devices->add_replica_device_ids(r * config.num_partitions + c);
      }
    }
  }
}

// Computations reached from a fusion instruction are fusion bodies.
std::vector<const HloComputation*> FusionBodies(const HloModule& module) {
  std::vector<const HloComputation*> bodies;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* instr : c->instructions()) {
      if (instr->opcode() == HloOpcode::kFusion) {
        bodies.insert(bodies.end(), instr->called_computations().begin(),
                      instr->called_computations().end());
      }
    }
  }
  return bodies;
}

Status CheckConfigFits(const HloModuleConfig& config) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (config.replica_count < 1 || config.num_partitions < 1 || config.replica_count > kMax ||
      config.num_partitions > kMax || config.replica_count > (int64_t{1} << 24) / config.num_partitions) {
    return InvalidArgument("replica_count " + std::to_string(config.replica_count) +
                           " x num_partitions " + std::to_string(config.num_partitions) +
                           " cannot be written as a device assignment");
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::string> SerializeHloModuleProto(const HloModule& module) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return InvalidArgument("module '" + module.name() + "' has no entry computation");
  RETURN_IF_ERROR(CheckConfigFits(module.config()));
  wire::HloModuleProto proto;
  proto.set_name(module.name());
  // Callees first, as in the IR, with the entry moved last.
  std::vector<const HloComputation*> order;
  for (const HloComputation* c : module.computations()) {
    if (c != entry) order.push_back(c);
  }
  order.push_back(entry);
  IdTable ids;
  for (const HloComputation* c : order) ids.Assign(c);
  std::vector<const HloComputation*> fusion_bodies = FusionBodies(module);
  NameTable names(module);
  for (const HloComputation* c : order) {
    bool is_fusion = std::find(fusion_bodies.begin(), fusion_bodies.end(), c) != fusion_bodies.end();
    RETURN_IF_ERROR(ComputationToProto(*c, is_fusion, &ids, &names, proto.add_computations()));
  }
  proto.set_entry_computation_name(entry->name());
  proto.set_entry_computation_id(ids.Get(entry));
  if (const auto& layout = module.entry_computation_layout()) {
    ProgramShapeToProto(layout->parameter_shapes, layout->result_shape, *entry, names,
                        proto.mutable_host_program_shape());
  } else {
    ComputationShapeToProto(*entry, names, proto.mutable_host_program_shape());
  }
  ModuleExtrasToProto(module, &proto);
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) {
    return Internal("module '" + module.name() + "' is too large to serialize");
  }
  return bytes;
}

}  // namespace xla
