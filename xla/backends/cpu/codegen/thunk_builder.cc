#include "xla/backends/cpu/codegen/thunk_builder.h"

#include <map>

#include "xla/backends/cpu/runtime/collective_thunks.h"
#include "xla/backends/cpu/runtime/conv_thunk.h"
#include "xla/backends/cpu/runtime/custom_call_registry.h"
#include "xla/backends/cpu/runtime/host_callback_thunk.h"
#include "xla/backends/cpu/runtime/fft_thunk.h"
#include "xla/backends/cpu/runtime/linalg_thunk.h"
#include "xla/backends/cpu/runtime/native_custom_call_thunk.h"
#include "xla/backends/cpu/runtime/rng_thunk.h"
#include "xla/backends/cpu/runtime/sort_thunk.h"

namespace xla::cpu {
namespace {

using Slots = std::vector<std::vector<int>>;
using Builder = StatusOr<ThunkSpec> (*)(const GraphNode&, const Slots&);

Status Unsupported(const GraphNode& node, const std::string& why) {
  return Unimplemented("CPU backend: " + std::string(HloOpcodeString(node.opcode())) + " " + why +
                       " (instruction " + node.instr->name() + ")");
}

int In(const GraphNode& node, const Slots& slots, int i) { return slots[node.operand(i)->id].at(0); }

int64_t Product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

StatusOr<ThunkSpec> BuildSort(const GraphNode& node, const Slots& slots) {
  SortThunk::Params p;
  for (size_t k = 0; k < node.operands.size(); ++k) {
    const Shape& s = node.operand(k)->shape();
    p.input_slots.push_back(In(node, slots, k));
    p.types.push_back(s.element_type());
  }
  p.output_slots = slots[node.id];
  p.dims = node.operand(0)->shape().dimensions();
  if (node.instr->dimensions().size() != 1) return Unsupported(node, "without one sort dimension");
  p.dimension = node.instr->dimensions(0);
  if (p.dimension < 0 || p.dimension >= static_cast<int64_t>(p.dims.size())) {
    return Unsupported(node, "with an out-of-range dimension");
  }
  if (node.instr->to_apply() == nullptr) return Unsupported(node, "without a comparator");
  ThunkSpec spec;
  spec.comparator = node.instr->to_apply();
  spec.comparator_types = p.types;
  spec.thunk = std::make_shared<SortThunk>(std::move(p));
  return spec;
}

StatusOr<ThunkSpec> BuildTopK(const GraphNode& node, const Slots& slots) {
  const Shape& in = node.operand(0)->shape();
  if (in.rank() < 1) return Unsupported(node, "on a scalar");
  if (slots[node.id].size() != 2) return Unsupported(node, "without (values, indices) results");
  if (node.shape().tuple_shapes(1).element_type() != PrimitiveType::S32) {
    return Unsupported(node, "with non-s32 indices");
  }
  TopKThunk::Params p;
  p.input_slot = In(node, slots, 0);
  p.values_slot = slots[node.id][0];
  p.indices_slot = slots[node.id][1];
  p.type = in.element_type();
  p.n = in.dimensions().back();
  p.rows = Product(in.dimensions(), 0, in.rank() - 1);
  p.k = node.instr->k();
  p.largest = node.instr->largest();
  if (p.k > p.n) return Unsupported(node, "with k larger than the last dimension");
  ThunkSpec spec;
  spec.thunk = std::make_shared<TopKThunk>(p);
  return spec;
}

StatusOr<ThunkSpec> BuildFft(const GraphNode& node, const Slots& slots) {
  FftThunk::Params p;
  p.input_slot = In(node, slots, 0);
  p.output_slot = slots[node.id].at(0);
  p.type = node.instr->fft_type();
  p.input_type = node.operand(0)->shape().element_type();
  p.output_type = node.shape().element_type();
  p.input_dims = node.operand(0)->shape().dimensions();
  p.output_dims = node.shape().dimensions();
  p.fft_length = node.instr->fft_length();
  const size_t n = p.fft_length.size();
  if (n < 1 || n > 3 || n > p.output_dims.size()) return Unsupported(node, "over " + std::to_string(n) + " dimensions");
  auto ok_type = [](PrimitiveType t) {
    return t == PrimitiveType::C64 || t == PrimitiveType::C128 || t == PrimitiveType::F32 ||
           t == PrimitiveType::F64;
  };
  if (!ok_type(p.input_type) || !ok_type(p.output_type)) return Unsupported(node, "on these element types");
  ThunkSpec spec;
  spec.thunk = std::make_shared<FftThunk>(std::move(p));
  return spec;
}

bool IsEigenConvolution(const GraphNode& node) {
  return ConvThunk::Supports(node.operand(0)->shape().element_type(),
                             node.operand(1)->shape().element_type(), node.shape().element_type(),
                             node.instr->batch_group_count());
}

StatusOr<ThunkSpec> BuildConvolution(const GraphNode& node, const Slots& slots) {
  if (!IsEigenConvolution(node)) return Unsupported(node, "as a library routine on these types");
  ConvThunk::Params p;
  p.type = node.shape().element_type();
  p.lhs_slot = In(node, slots, 0);
  p.rhs_slot = In(node, slots, 1);
  p.out_slot = slots[node.id].at(0);
  p.lhs_dims = node.operand(0)->shape().dimensions();
  p.rhs_dims = node.operand(1)->shape().dimensions();
  p.out_dims = node.shape().dimensions();
  p.dnums = node.instr->convolution_dimension_numbers();
  p.window = node.instr->window().dimensions;
  p.feature_group_count = node.instr->feature_group_count();
  if (p.window.size() != p.dnums.input_spatial_dimensions.size()) {
    return Unsupported(node, "with a window that does not match the spatial dimensions");
  }
  ThunkSpec spec;
  spec.thunk = std::make_shared<ConvThunk>(std::move(p));
  return spec;
}

StatusOr<ThunkSpec> BuildRngBitGenerator(const GraphNode& node, const Slots& slots) {
  const Shape& state = node.operand(0)->shape();
  if (state.element_type() != PrimitiveType::U64 || state.rank() != 1 || state.dimensions(0) < 2) {
    return Unsupported(node, "with state " + state.ToString() + " (u64[2] or u64[3] is supported)");
  }
  const Shape& bits = node.shape().tuple_shapes(1);
  const int width = ByteWidth(bits.element_type());
  if (IsFloatingPoint(bits.element_type()) || (width != 4 && width != 8)) {
    return Unsupported(node, "producing " + bits.ToString());
  }
  RngBitGeneratorThunk::Params p;
  p.algorithm = node.instr->rng_algorithm();
  p.state_slot = In(node, slots, 0);
  p.new_state_slot = slots[node.id].at(0);
  p.output_slot = slots[node.id].at(1);
  p.state_words = state.dimensions(0);
  p.output_width = width;
  p.output_dims = bits.dimensions();
  ThunkSpec spec;
  spec.thunk = std::make_shared<RngBitGeneratorThunk>(std::move(p));
  return spec;
}

bool IsEigenLinalgType(PrimitiveType t) { return t == PrimitiveType::F32 || t == PrimitiveType::F64; }

StatusOr<ThunkSpec> BuildCholesky(const GraphNode& node, const Slots& slots) {
  const Shape& s = node.shape();
  if (!IsEigenLinalgType(s.element_type()) || s.rank() < 2) return Unsupported(node, "on " + s.ToString());
  CholeskyThunk::Params p;
  p.input_slot = In(node, slots, 0);
  p.output_slot = slots[node.id].at(0);
  p.type = s.element_type();
  p.n = s.dimensions().back();
  p.batch = Product(s.dimensions(), 0, s.rank() - 2);
  p.lower = node.instr->cholesky_lower();
  ThunkSpec spec;
  spec.thunk = std::make_shared<CholeskyThunk>(p);
  return spec;
}

StatusOr<ThunkSpec> BuildTriangularSolve(const GraphNode& node, const Slots& slots) {
  const Shape& b = node.operand(1)->shape();
  if (!IsEigenLinalgType(b.element_type()) || b.rank() < 2) return Unsupported(node, "on " + b.ToString());
  TriangularSolveThunk::Params p;
  p.a_slot = In(node, slots, 0);
  p.b_slot = In(node, slots, 1);
  p.output_slot = slots[node.id].at(0);
  p.type = b.element_type();
  p.m = b.dimensions()[b.rank() - 2];
  p.n = b.dimensions().back();
  p.batch = Product(b.dimensions(), 0, b.rank() - 2);
  p.options = node.instr->triangular_solve_options();
  ThunkSpec spec;
  spec.thunk = std::make_shared<TriangularSolveThunk>(p);
  return spec;
}

StatusOr<ThunkSpec> BuildCustomCall(const GraphNode& node, const Slots& slots) {
  const HloInstruction& instr = *node.instr;
  const std::string& target = instr.custom_call_target();
  const CustomCallFactory* factory = CustomCallRegistry::Builtin().Find(target);
  if (factory == nullptr && target == PJRT_HOST_CALLBACK_TARGET) factory = &HostCallbackFactory();
  CustomCallFactory native;
  if (factory == nullptr) {
    native = NativeCustomCallFactory(target, instr.api_version(), node.shape().IsTuple());
    if (native) factory = &native;
  }
  if (factory == nullptr) return Unsupported(node, "target \"" + target + "\" is not registered");
  CustomCallArgs args;
  args.target = target;
  args.instruction = instr.name();
  for (size_t k = 0; k < node.operands.size(); ++k) {
    const Shape& s = node.operand(k)->shape();
    if (!s.IsArray()) return Unsupported(node, "with a tuple operand");
    args.operands.push_back(s);
    args.operand_slots.push_back(In(node, slots, k));
  }
  args.results = FlattenShape(node.shape());
  args.result_slots = slots[node.id];
  // Typed-FFI calls carry their attributes as a dictionary; older API
  // versions pass an opaque string no built-in target reads.
  if (instr.api_version() == "API_VERSION_TYPED_FFI") {
    ASSIGN_OR_RETURN(args.attributes, ParseFfiAttributes(instr.backend_config()));
  }
  ThunkSpec spec;
  ASSIGN_OR_RETURN(spec.thunk, (*factory)(args));
  return spec;
}

StatusOr<ThunkSpec> BuildCollective(const GraphNode& node, const Slots& slots) {
  using Kind = CollectiveThunk::Kind;
  static const auto* kinds = new std::map<HloOpcode, Kind>{
      {HloOpcode::kAllReduce, Kind::kAllReduce},
      {HloOpcode::kAllGather, Kind::kAllGather},
      {HloOpcode::kReduceScatter, Kind::kReduceScatter},
      {HloOpcode::kAllToAll, Kind::kAllToAll},
      {HloOpcode::kCollectivePermute, Kind::kCollectivePermute},
      {HloOpcode::kReplicaId, Kind::kReplicaId},
      {HloOpcode::kPartitionId, Kind::kPartitionId},
  };
  const HloInstruction& instr = *node.instr;
  CollectiveThunk::Params p;
  p.kind = kinds->at(node.opcode());
  p.output_slots = slots[node.id];
  p.replica_groups = instr.replica_groups();
  p.source_target_pairs = instr.source_target_pairs();
  const std::vector<Shape> outs = FlattenShape(node.shape());
  if (p.kind != Kind::kReplicaId && p.kind != Kind::kPartitionId) {
    if (outs.size() != node.operands.size()) {
      return Unsupported(node, "with " + std::to_string(node.operands.size()) + " operands and " +
                                   std::to_string(outs.size()) + " results");
    }
    if (p.kind == Kind::kAllToAll && instr.dimensions().empty()) {
      return Unsupported(node, "in tuple form (no split dimension)");
    }
    for (size_t k = 0; k < node.operands.size(); ++k) {
      const Shape& in = node.operand(k)->shape();
      if (!in.IsArray()) return Unsupported(node, "on a tuple operand");
      p.input_slots.push_back(In(node, slots, k));
      p.types.push_back(in.element_type());
      p.input_dims.push_back(in.dimensions());
      p.output_dims.push_back(outs[k].dimensions());
      if (k > 0 && p.types[k] != p.types[0] &&
          (p.kind == Kind::kAllReduce || p.kind == Kind::kReduceScatter)) {
        return Unsupported(node, "reducing operands of different element types");
      }
    }
    if (!instr.dimensions().empty()) p.dimension = instr.dimensions(0);
  }
  ThunkSpec spec;
  if (p.kind == Kind::kAllReduce || p.kind == Kind::kReduceScatter) {
    if (instr.to_apply() == nullptr) return Unsupported(node, "without a reducer");
    spec.combiner = instr.to_apply();
    spec.combiner_type = p.types.at(0);
  }
  spec.thunk = std::make_shared<CollectiveThunk>(std::move(p));
  return spec;
}

const std::map<HloOpcode, Builder>& Builders() {
  static const auto* builders = new std::map<HloOpcode, Builder>{
      {HloOpcode::kSort, &BuildSort},
      {HloOpcode::kTopK, &BuildTopK},
      {HloOpcode::kFft, &BuildFft},
      {HloOpcode::kConvolution, &BuildConvolution},
      {HloOpcode::kRngBitGenerator, &BuildRngBitGenerator},
      {HloOpcode::kCholesky, &BuildCholesky},
      {HloOpcode::kTriangularSolve, &BuildTriangularSolve},
      {HloOpcode::kCustomCall, &BuildCustomCall},
      {HloOpcode::kAllReduce, &BuildCollective},
      {HloOpcode::kAllGather, &BuildCollective},
      {HloOpcode::kReduceScatter, &BuildCollective},
      {HloOpcode::kAllToAll, &BuildCollective},
      {HloOpcode::kCollectivePermute, &BuildCollective},
      {HloOpcode::kReplicaId, &BuildCollective},
      {HloOpcode::kPartitionId, &BuildCollective},
  };
  return *builders;
}

}  // namespace

bool IsThunkNode(const GraphNode& node) {
  // Convolutions of other element types are emitted as loop nests instead.
  if (node.opcode() == HloOpcode::kConvolution) return IsEigenConvolution(node);
  return Builders().count(node.opcode()) > 0;
}

StatusOr<ThunkSpec> BuildThunk(const GraphNode& node, const Slots& slots) {
  auto it = Builders().find(node.opcode());
  if (it == Builders().end()) return Unsupported(node, "is not a library op");
  for (const GraphNode* op : node.operands) {
    if (slots[op->id].empty()) return Internal("operand " + op->instr->name() + " has no buffer");
  }
  return it->second(node, slots);
}

}  // namespace xla::cpu
