// HloModuleProto -> HloModule. Everything the text parser's grammar
// guarantees is checked here before the shared verifier runs.
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "xla/hlo/proto/attribute_proto.h"
#include "xla/hlo/proto/hlo.pb.h"
#include "xla/hlo/proto/hlo_proto.h"
#include "xla/hlo/proto/literal_proto.h"
#include "xla/hlo/verifier/verifier.h"

namespace xla {
namespace {

// Parameter numbers index a vector: a huge one would exhaust memory.
constexpr int64_t kMaxParameterNumber = 1000000;

template <typename Repeated>
std::vector<int64_t> Ints(const Repeated& r) {
  return std::vector<int64_t>(r.begin(), r.end());
}

// Names must print as HLO text that parses back (the lexer's name characters).
Status CheckName(const std::string& name, const char* what) {
  if (name.empty()) return InvalidArgument(std::string(what) + " has no name");
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    if (!ok) return InvalidArgument(std::string(what) + " name '" + name + "' has a character HLO text cannot spell");
  }
  if (name[0] >= '0' && name[0] <= '9') {
    return InvalidArgument(std::string(what) + " name '" + name + "' starts with a digit");
  }
  return OkStatus();
}

// How many computations each opcode calls (-1: any number, -2: at least one).
int CalleeCount(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kCall: case HloOpcode::kMap: case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow: case HloOpcode::kSort: case HloOpcode::kScatter:
    case HloOpcode::kAllReduce: case HloOpcode::kReduceScatter: case HloOpcode::kFusion:
      return 1;
    case HloOpcode::kWhile: case HloOpcode::kSelectAndScatter:
      return 2;
    case HloOpcode::kConditional:
      return -2;
    case HloOpcode::kCustomCall:
      return -1;
    default:
      return 0;
  }
}

class ModuleReader {
 public:
  explicit ModuleReader(const wire::HloModuleProto& proto) : proto_(proto) {}

  StatusOr<std::unique_ptr<HloModule>> Read();

 private:
  Status ReadComputation(const wire::HloComputationProto& proto, bool is_entry);
  Status ReadInstruction(const wire::HloInstructionProto& proto, HloComputation* computation,
                         std::unordered_map<int64_t, HloInstruction*>* local);
  StatusOr<std::unique_ptr<HloInstruction>> CreateInstruction(
      const wire::HloInstructionProto& proto, HloOpcode opcode, const Shape& shape,
      const std::unordered_map<int64_t, HloInstruction*>& local, HloComputation* computation);
  Status SetCallees(const wire::HloInstructionProto& proto, HloInstruction* instr);
  Status ReadModuleExtras();

  const wire::HloModuleProto& proto_;
  std::unique_ptr<HloModule> module_;
  std::unordered_map<int64_t, HloComputation*> computations_;
  std::unordered_set<int64_t> instruction_ids_;
};

StatusOr<std::unique_ptr<HloInstruction>> ModuleReader::CreateInstruction(
    const wire::HloInstructionProto& proto, HloOpcode opcode, const Shape& shape,
    const std::unordered_map<int64_t, HloInstruction*>& local, HloComputation* computation) {
  if (opcode == HloOpcode::kParameter) {
    int64_t number = proto.parameter_number();
    if (number < 0 || number > kMaxParameterNumber) {
      return InvalidArgument("parameter_number " + std::to_string(number) + " is out of range");
    }
    if (number < computation->num_parameters() && computation->parameter_instruction(number) != nullptr) {
      return InvalidArgument("duplicate parameter number " + std::to_string(number));
    }
    return HloInstruction::CreateParameter(number, shape, proto.name());
  }
  if (opcode == HloOpcode::kConstant) {
    if (!proto.has_literal()) return InvalidArgument("constant has no literal");
    StatusOr<Literal> literal = LiteralFromProto(proto.literal());
    if (!literal.ok()) return literal.status().WithContext("literal");
    if (!literal->shape().Compatible(shape)) {
      return InvalidArgument("literal shape " + literal->shape().ToString() +
                             " does not match the instruction shape " + shape.ToString());
    }
    auto instr = HloInstruction::CreateConstant(std::move(*literal), proto.name());
    *instr->mutable_shape() = shape;  // the instruction's layout, as the text keeps it
    return instr;
  }
  std::vector<HloInstruction*> operands;
  for (int64_t id : proto.operand_ids()) {
    auto it = local.find(id);
    if (it == local.end()) {
      return InvalidArgument("operand id " + std::to_string(id) +
                             " is not an earlier instruction of computation '" + computation->name() + "'");
    }
    operands.push_back(it->second);
  }
  int arity = HloOpcodeArity(opcode);
  if (arity >= 0 && static_cast<int>(operands.size()) != arity) {
    return InvalidArgument(std::string(HloOpcodeString(opcode)) + " takes " + std::to_string(arity) +
                           " operands, got " + std::to_string(operands.size()));
  }
  return HloInstruction::Create(opcode, shape, std::move(operands), proto.name());
}

Status SetCollectiveAttributes(const wire::HloInstructionProto& p, HloInstruction* instr) {
  if (p.channel_id() > 0) instr->set_channel_id(p.channel_id());
  instr->set_use_global_device_ids(p.use_global_device_ids());
  ASSIGN_OR_RETURN(auto groups, ReplicaGroupsFromProto(p));
  instr->set_replica_groups(std::move(groups));
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (const wire::SourceTarget& st : p.source_target_pairs()) pairs.emplace_back(st.source(), st.target());
  instr->set_source_target_pairs(std::move(pairs));
  return OkStatus();
}

Status SetPrecision(const wire::HloInstructionProto& p, HloInstruction* instr) {
  ASSIGN_OR_RETURN(std::vector<std::string> precision, PrecisionFromProto(p.precision_config()));
  instr->set_operand_precision(std::move(precision));
  return OkStatus();
}

Status SetSlice(const wire::HloInstructionProto& p, HloInstruction* instr) {
  std::vector<SliceDimension> dims;
  for (const auto& d : p.slice_dimensions()) dims.push_back({d.start(), d.limit(), d.stride()});
  instr->set_slice(std::move(dims));
  return OkStatus();
}

Status SetConvolution(const wire::HloInstructionProto& p, HloInstruction* instr) {
  if (p.has_window()) instr->set_window(WindowFromProto(p.window()));
  ASSIGN_OR_RETURN(ConvolutionDimensionNumbers dims,
                   ConvDimsFromProto(p.convolution_dimension_numbers()));
  instr->set_convolution_dimension_numbers(std::move(dims));
  // Zero is the wire's "unset": one group.
  instr->set_feature_group_count(p.feature_group_count() == 0 ? 1 : p.feature_group_count());
  instr->set_batch_group_count(p.batch_group_count() == 0 ? 1 : p.batch_group_count());
  return SetPrecision(p, instr);
}

Status SetCustomCall(const wire::HloInstructionProto& p, HloInstruction* instr) {
  instr->set_custom_call_target(p.custom_call_target());
  instr->set_custom_call_has_side_effect(p.custom_call_has_side_effect());
  ASSIGN_OR_RETURN(std::string version, ApiVersionFromProto(p.custom_call_api_version()));
  instr->set_api_version(std::move(version));
  return OkStatus();
}

Status SetCompare(const wire::HloInstructionProto& p, HloInstruction* instr) {
  std::optional<ComparisonDirection> direction = ParseComparisonDirection(p.comparison_direction());
  if (!direction) return InvalidArgument("comparison_direction '" + p.comparison_direction() + "' is not defined");
  instr->set_comparison_direction(*direction);
  if (!p.comparison_type().empty()) {
    std::optional<ComparisonType> type = ParseComparisonType(p.comparison_type());
    if (!type || *type == ComparisonType::kDefault) {
      return InvalidArgument("comparison_type '" + p.comparison_type() + "' is not defined");
    }
    // XLA always writes the type; the implied one reads as no type, as its text prints it.
    PrimitiveType operand_type = instr->operand(0)->shape().element_type();
    if (*type != ImpliedComparisonType(operand_type)) instr->set_comparison_type(*type);
  }
  return OkStatus();
}

// The attributes of `instr`'s opcode, from the fields XLA writes them to.
Status SetOpcodeAttributes(const wire::HloInstructionProto& p, HloInstruction* instr) {
  switch (instr->opcode()) {
    case HloOpcode::kGetTupleElement:
      instr->set_tuple_index(p.tuple_index());
      return OkStatus();
    case HloOpcode::kBroadcast: case HloOpcode::kTranspose: case HloOpcode::kReverse:
    case HloOpcode::kConcatenate: case HloOpcode::kReduce: case HloOpcode::kMap:
      instr->set_dimensions(Ints(p.dimensions()));
      return OkStatus();
    case HloOpcode::kSort:
      instr->set_dimensions(Ints(p.dimensions()));
      instr->set_is_stable(p.is_stable());
      return OkStatus();
    case HloOpcode::kCompare:
      return SetCompare(p, instr);
    case HloOpcode::kSlice:
      return SetSlice(p, instr);
    case HloOpcode::kIota:
      if (p.dimensions_size() != 1) return InvalidArgument("iota needs exactly one entry in dimensions");
      instr->set_iota_dimension(p.dimensions(0));
      return OkStatus();
    case HloOpcode::kDynamicSlice:
      instr->set_dynamic_slice_sizes(Ints(p.dynamic_slice_sizes()));
      return OkStatus();
    case HloOpcode::kPad:
      instr->set_padding_config(PaddingFromProto(p.padding_config()));
      return OkStatus();
    case HloOpcode::kReduceWindow: case HloOpcode::kSelectAndScatter:
      instr->set_window(WindowFromProto(p.window()));
      return OkStatus();
    case HloOpcode::kConvolution:
      return SetConvolution(p, instr);
    case HloOpcode::kDot:
      instr->set_dot_dimension_numbers(DotDimsFromProto(p.dot_dimension_numbers()));
      return SetPrecision(p, instr);
    case HloOpcode::kGather:
      instr->set_gather_dimension_numbers(GatherDimsFromProto(p.gather_dimension_numbers()));
      instr->set_gather_slice_sizes(Ints(p.gather_slice_sizes()));
      instr->set_indices_are_sorted(p.indices_are_sorted());
      return OkStatus();
    case HloOpcode::kScatter:
      instr->set_scatter_dimension_numbers(ScatterDimsFromProto(p.scatter_dimension_numbers()));
      instr->set_indices_are_sorted(p.indices_are_sorted());
      instr->set_unique_indices(p.unique_indices());
      return OkStatus();
    case HloOpcode::kFft: {
      ASSIGN_OR_RETURN(FftType type, FftTypeFromProto(p.fft_type()));
      instr->set_fft_type(type);
      instr->set_fft_length(Ints(p.fft_length()));
      return OkStatus();
    }
    case HloOpcode::kRngBitGenerator: {
      ASSIGN_OR_RETURN(RngAlgorithm algorithm, RngAlgorithmFromProto(p.rng_algorithm()));
      instr->set_rng_algorithm(algorithm);
      return OkStatus();
    }
    case HloOpcode::kRng: {
      ASSIGN_OR_RETURN(RngDistribution distribution, RngDistributionFromProto(p.distribution()));
      instr->set_rng_distribution(distribution);
      return OkStatus();
    }
    case HloOpcode::kTriangularSolve: {
      ASSIGN_OR_RETURN(TriangularSolveOptions options, TriangularSolveFromProto(p.triangular_solve_options()));
      instr->set_triangular_solve_options(options);
      return OkStatus();
    }
    case HloOpcode::kCholesky:
      instr->set_cholesky_lower(p.cholesky_options().lower());
      return OkStatus();
    case HloOpcode::kReducePrecision:
      instr->set_reduce_precision_bits(p.exponent_bits(), p.mantissa_bits());
      return OkStatus();
    case HloOpcode::kTopK:
      instr->set_k(p.k());
      instr->set_largest(p.largest());
      return OkStatus();
    case HloOpcode::kCustomCall:
      return SetCustomCall(p, instr);
    case HloOpcode::kFusion:
      if (p.fusion_kind().empty()) return InvalidArgument("fusion has no fusion_kind");
      RETURN_IF_ERROR(CheckName(p.fusion_kind(), "fusion_kind"));
      instr->set_fusion_kind(p.fusion_kind());
      return OkStatus();
    case HloOpcode::kAllGather: case HloOpcode::kAllToAll: case HloOpcode::kReduceScatter:
      instr->set_dimensions(Ints(p.dimensions()));
      return SetCollectiveAttributes(p, instr);
    case HloOpcode::kAllReduce: case HloOpcode::kCollectivePermute:
      return SetCollectiveAttributes(p, instr);
    default:
      return OkStatus();
  }
}

Status ModuleReader::SetCallees(const wire::HloInstructionProto& proto, HloInstruction* instr) {
  std::vector<HloComputation*> callees;
  for (int64_t id : proto.called_computation_ids()) {
    auto it = computations_.find(id);
    if (it == computations_.end()) {
      return InvalidArgument("called computation id " + std::to_string(id) +
                             " is not a computation listed before this one");
    }
    callees.push_back(it->second);
  }
  int expected = CalleeCount(instr->opcode());
  int got = static_cast<int>(callees.size());
  if ((expected >= 0 && got != expected) || (expected == -2 && got == 0)) {
    return InvalidArgument(std::string(HloOpcodeString(instr->opcode())) + " calls " +
                           (expected == -2 ? std::string("at least one computation")
                                           : std::to_string(expected) + " computation(s)") +
                           ", got " + std::to_string(got));
  }
  // Our IR keeps a while's condition first (XLA: body first).
  if (instr->opcode() == HloOpcode::kWhile) std::swap(callees[0], callees[1]);
  instr->set_called_computations(std::move(callees));
  return OkStatus();
}

Status ModuleReader::ReadInstruction(const wire::HloInstructionProto& proto, HloComputation* computation,
                                     std::unordered_map<int64_t, HloInstruction*>* local) {
  RETURN_IF_ERROR(CheckName(proto.name(), "instruction"));
  if (!instruction_ids_.insert(proto.id()).second) {
    return InvalidArgument("id " + std::to_string(proto.id()) + " is used by another instruction");
  }
  std::optional<HloOpcode> opcode = StringToHloOpcode(proto.opcode());
  if (!opcode) return InvalidArgument("unknown opcode '" + proto.opcode() + "'");
  if (!proto.has_shape()) return InvalidArgument("no shape");
  StatusOr<Shape> shape = ShapeFromProto(proto.shape());
  if (!shape.ok()) return shape.status().WithContext("shape");
  ASSIGN_OR_RETURN(std::unique_ptr<HloInstruction> instr,
                   CreateInstruction(proto, *opcode, *shape, *local, computation));
  RETURN_IF_ERROR(SetCallees(proto, instr.get()));
  RETURN_IF_ERROR(SetOpcodeAttributes(proto, instr.get()));
  if (!proto.backend_config().empty()) instr->set_backend_config(proto.backend_config());
  (*local)[proto.id()] = computation->AddInstruction(std::move(instr));
  return OkStatus();
}

Status ModuleReader::ReadComputation(const wire::HloComputationProto& proto, bool is_entry) {
  RETURN_IF_ERROR(CheckName(proto.name(), "computation"));
  if (computations_.count(proto.id())) {
    return InvalidArgument("computation id " + std::to_string(proto.id()) + " is used twice");
  }
  if (proto.instructions_size() == 0) return InvalidArgument("computation has no instructions");
  auto computation = std::make_unique<HloComputation>(proto.name());
  std::unordered_map<int64_t, HloInstruction*> local;
  for (const wire::HloInstructionProto& instr : proto.instructions()) {
    Status status = ReadInstruction(instr, computation.get(), &local);
    if (!status.ok()) {
      return status.WithContext("instruction '" + instr.name() + "' (id " + std::to_string(instr.id()) + ")");
    }
  }
  auto root = local.find(proto.root_id());
  if (root == local.end()) {
    return InvalidArgument("root_id " + std::to_string(proto.root_id()) + " is not an instruction of it");
  }
  computation->set_root_instruction(root->second);
  computations_[proto.id()] = module_->AddComputation(std::move(computation), is_entry);
  return OkStatus();
}

Status CheckShapeIndex(const std::vector<int64_t>& index, const char* what) {
  for (int64_t i : index) {
    if (i < 0) return InvalidArgument(std::string(what) + " has a negative index");
  }
  return OkStatus();
}

Status ModuleReader::ReadModuleExtras() {
  std::vector<InputOutputAlias> aliases;
  for (const auto& e : proto_.input_output_alias().entries()) {
    InputOutputAlias a;
    a.output_index = Ints(e.output_shape_index());
    a.parameter_number = e.parameter_number();
    a.parameter_index = Ints(e.parameter_shape_index());
    if (e.kind() != wire::MAY_ALIAS && e.kind() != wire::MUST_ALIAS) {
      return InvalidArgument("input_output_alias entry has kind " + std::to_string(e.kind()));
    }
    a.must_alias = e.kind() == wire::MUST_ALIAS;
    RETURN_IF_ERROR(CheckShapeIndex(a.output_index, "input_output_alias output_shape_index"));
    RETURN_IF_ERROR(CheckShapeIndex(a.parameter_index, "input_output_alias parameter_shape_index"));
    aliases.push_back(std::move(a));
  }
  module_->set_input_output_alias(std::move(aliases));
  std::vector<BufferDonor> donors;
  for (const auto& e : proto_.buffer_donor().entries()) {
    BufferDonor d{e.parameter_number(), Ints(e.parameter_shape_index())};
    RETURN_IF_ERROR(CheckShapeIndex(d.parameter_index, "buffer_donor parameter_shape_index"));
    donors.push_back(std::move(d));
  }
  module_->set_buffer_donors(std::move(donors));
  if (proto_.has_device_assignment()) {
    const wire::DeviceAssignmentProto& da = proto_.device_assignment();
    if (da.replica_count() < 1 || da.computation_count() < 1) {
      return InvalidArgument("device_assignment needs positive replica and computation counts");
    }
    module_->mutable_config()->replica_count = da.replica_count();
    module_->mutable_config()->num_partitions = da.computation_count();
  }
  if (proto_.has_host_program_shape()) {
    const wire::ProgramShapeProto& shape = proto_.host_program_shape();
    ComputationLayout layout;
    for (int i = 0; i < shape.parameters_size(); ++i) {
      StatusOr<Shape> p = ShapeFromProto(shape.parameters(i));
      if (!p.ok()) return p.status().WithContext("host_program_shape parameter " + std::to_string(i));
      layout.parameter_shapes.push_back(std::move(*p));
    }
    StatusOr<Shape> result = ShapeFromProto(shape.result());
    if (!result.ok()) return result.status().WithContext("host_program_shape result");
    layout.result_shape = std::move(*result);
    module_->set_entry_computation_layout(std::move(layout));
  }
  return OkStatus();
}

StatusOr<std::unique_ptr<HloModule>> ModuleReader::Read() {
  RETURN_IF_ERROR(CheckName(proto_.name(), "module"));
  module_ = std::make_unique<HloModule>(proto_.name());
  bool entry_found = false;
  for (const wire::HloComputationProto& c : proto_.computations()) {
    bool is_entry = c.id() == proto_.entry_computation_id();
    entry_found = entry_found || is_entry;
    Status status = ReadComputation(c, is_entry);
    if (!status.ok()) {
      return status.WithContext("computation '" + c.name() + "' (id " + std::to_string(c.id()) + ")");
    }
  }
  if (!entry_found) {
    return InvalidArgument("entry_computation_id " + std::to_string(proto_.entry_computation_id()) +
                           " names no computation");
  }
  RETURN_IF_ERROR(ReadModuleExtras());
  RETURN_IF_ERROR(VerifyHloModule(*module_));
  return std::move(module_);
}

}  // namespace

StatusOr<std::unique_ptr<HloModule>> ParseHloModuleProto(std::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return InvalidArgument("HloModuleProto of " + std::to_string(bytes.size()) + " bytes is too large");
  }
  wire::HloModuleProto proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return InvalidArgument("malformed HloModuleProto (" + std::to_string(bytes.size()) + " bytes)");
  }
  return ModuleReader(proto).Read();
}

}  // namespace xla
