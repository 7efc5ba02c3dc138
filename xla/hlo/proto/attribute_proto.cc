#include "xla/hlo/proto/attribute_proto.h"

#include <numeric>
#include <utility>

namespace xla {
namespace {

template <typename Repeated>
std::vector<int64_t> Ints(const Repeated& r) {
  return std::vector<int64_t>(r.begin(), r.end());
}

template <typename Repeated>
void SetInts(const std::vector<int64_t>& v, Repeated* r) {
  r->Clear();
  r->Reserve(static_cast<int>(v.size()));
  for (int64_t x : v) r->Add(x);
}

// True when `dims` lists 0..dims.size()-1 once each.
bool IsPermutation(const std::vector<int64_t>& dims) {
  std::vector<bool> seen(dims.size(), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= static_cast<int64_t>(dims.size()) || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

std::vector<int64_t> Group(int64_t a, int64_t b, const std::vector<int64_t>& spatial) {
  std::vector<int64_t> all = {a, b};
  all.insert(all.end(), spatial.begin(), spatial.end());
  return all;
}

constexpr const char* kPrecisionSpellings[] = {"default", "high", "highest"};

constexpr const char* kApiVersionSpellings[] = {
    "API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
    "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};

}  // namespace

void WindowToProto(const Window& window, wire::Window* proto) {
  for (const WindowDimension& d : window.dimensions) {
    wire::WindowDimension* p = proto->add_dimensions();
    p->set_size(d.size);
    p->set_stride(d.stride);
    p->set_padding_low(d.padding_low);
    p->set_padding_high(d.padding_high);
    p->set_window_dilation(d.window_dilation);
    p->set_base_dilation(d.base_dilation);
    p->set_window_reversal(d.window_reversal);
  }
}

Window WindowFromProto(const wire::Window& proto) {
  Window window;
  for (const wire::WindowDimension& p : proto.dimensions()) {
    WindowDimension d;
    d.size = p.size();
    d.stride = p.stride();
    d.padding_low = p.padding_low();
    d.padding_high = p.padding_high();
    d.window_dilation = p.window_dilation();
    d.base_dilation = p.base_dilation();
    d.window_reversal = p.window_reversal();
    window.dimensions.push_back(d);
  }
  return window;
}

void PaddingToProto(const PaddingConfig& padding, wire::PaddingConfig* proto) {
  for (const PaddingDimension& d : padding.dimensions) {
    wire::PaddingConfig::PaddingConfigDimension* p = proto->add_dimensions();
    p->set_edge_padding_low(d.edge_padding_low);
    p->set_edge_padding_high(d.edge_padding_high);
    p->set_interior_padding(d.interior_padding);
  }
}

PaddingConfig PaddingFromProto(const wire::PaddingConfig& proto) {
  PaddingConfig padding;
  for (const auto& p : proto.dimensions()) {
    padding.dimensions.push_back({p.edge_padding_low(), p.edge_padding_high(), p.interior_padding()});
  }
  return padding;
}

void DotDimsToProto(const DotDimensionNumbers& dims, wire::DotDimensionNumbers* proto) {
  SetInts(dims.lhs_contracting_dimensions, proto->mutable_lhs_contracting_dimensions());
  SetInts(dims.rhs_contracting_dimensions, proto->mutable_rhs_contracting_dimensions());
  SetInts(dims.lhs_batch_dimensions, proto->mutable_lhs_batch_dimensions());
  SetInts(dims.rhs_batch_dimensions, proto->mutable_rhs_batch_dimensions());
}

DotDimensionNumbers DotDimsFromProto(const wire::DotDimensionNumbers& proto) {
  DotDimensionNumbers dims;
  dims.lhs_contracting_dimensions = Ints(proto.lhs_contracting_dimensions());
  dims.rhs_contracting_dimensions = Ints(proto.rhs_contracting_dimensions());
  dims.lhs_batch_dimensions = Ints(proto.lhs_batch_dimensions());
  dims.rhs_batch_dimensions = Ints(proto.rhs_batch_dimensions());
  return dims;
}

void ConvDimsToProto(const ConvolutionDimensionNumbers& d, wire::ConvolutionDimensionNumbers* p) {
  p->set_input_batch_dimension(d.input_batch_dimension);
  p->set_input_feature_dimension(d.input_feature_dimension);
  SetInts(d.input_spatial_dimensions, p->mutable_input_spatial_dimensions());
  p->set_kernel_input_feature_dimension(d.kernel_input_feature_dimension);
  p->set_kernel_output_feature_dimension(d.kernel_output_feature_dimension);
  SetInts(d.kernel_spatial_dimensions, p->mutable_kernel_spatial_dimensions());
  p->set_output_batch_dimension(d.output_batch_dimension);
  p->set_output_feature_dimension(d.output_feature_dimension);
  SetInts(d.output_spatial_dimensions, p->mutable_output_spatial_dimensions());
}

StatusOr<ConvolutionDimensionNumbers> ConvDimsFromProto(const wire::ConvolutionDimensionNumbers& p) {
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = p.input_batch_dimension();
  d.input_feature_dimension = p.input_feature_dimension();
  d.input_spatial_dimensions = Ints(p.input_spatial_dimensions());
  d.kernel_input_feature_dimension = p.kernel_input_feature_dimension();
  d.kernel_output_feature_dimension = p.kernel_output_feature_dimension();
  d.kernel_spatial_dimensions = Ints(p.kernel_spatial_dimensions());
  d.output_batch_dimension = p.output_batch_dimension();
  d.output_feature_dimension = p.output_feature_dimension();
  d.output_spatial_dimensions = Ints(p.output_spatial_dimensions());
  size_t n = d.input_spatial_dimensions.size();
  if (d.kernel_spatial_dimensions.size() != n || d.output_spatial_dimensions.size() != n) {
    return InvalidArgument("convolution_dimension_numbers: input, kernel and output have different "
                           "numbers of spatial dimensions");
  }
  const std::pair<const char*, std::vector<int64_t>> groups[] = {
      {"input", Group(d.input_batch_dimension, d.input_feature_dimension, d.input_spatial_dimensions)},
      {"kernel", Group(d.kernel_input_feature_dimension, d.kernel_output_feature_dimension,
                       d.kernel_spatial_dimensions)},
      {"output", Group(d.output_batch_dimension, d.output_feature_dimension, d.output_spatial_dimensions)},
  };
  for (const auto& [role, dims] : groups) {
    if (!IsPermutation(dims)) {
      return InvalidArgument(std::string("convolution_dimension_numbers: the ") + role +
                             " dimensions {" + JoinInts(dims) + "} are not a permutation of 0.." +
                             std::to_string(dims.size() - 1));
    }
  }
  // What the text form cannot say, the printer cannot print back.
  std::string error;
  std::optional<ConvolutionDimensionNumbers> reparsed = ParseDimLabels(d.ToString(), &error);
  if (!reparsed || !(*reparsed == d)) {
    return InvalidArgument("convolution_dimension_numbers have no dim_labels form (" +
                           std::to_string(n) + " spatial dimensions)");
  }
  return d;
}

void GatherDimsToProto(const GatherDimensionNumbers& d, wire::GatherDimensionNumbers* p) {
  SetInts(d.offset_dims, p->mutable_offset_dims());
  SetInts(d.collapsed_slice_dims, p->mutable_collapsed_slice_dims());
  SetInts(d.start_index_map, p->mutable_start_index_map());
  p->set_index_vector_dim(d.index_vector_dim);
  SetInts(d.operand_batching_dims, p->mutable_operand_batching_dims());
  SetInts(d.start_indices_batching_dims, p->mutable_start_indices_batching_dims());
}

GatherDimensionNumbers GatherDimsFromProto(const wire::GatherDimensionNumbers& p) {
  GatherDimensionNumbers d;
  d.offset_dims = Ints(p.offset_dims());
  d.collapsed_slice_dims = Ints(p.collapsed_slice_dims());
  d.start_index_map = Ints(p.start_index_map());
  d.index_vector_dim = p.index_vector_dim();
  d.operand_batching_dims = Ints(p.operand_batching_dims());
  d.start_indices_batching_dims = Ints(p.start_indices_batching_dims());
  return d;
}

void ScatterDimsToProto(const ScatterDimensionNumbers& d, wire::ScatterDimensionNumbers* p) {
  SetInts(d.update_window_dims, p->mutable_update_window_dims());
  SetInts(d.inserted_window_dims, p->mutable_inserted_window_dims());
  SetInts(d.scatter_dims_to_operand_dims, p->mutable_scatter_dims_to_operand_dims());
  p->set_index_vector_dim(d.index_vector_dim);
  SetInts(d.input_batching_dims, p->mutable_input_batching_dims());
  SetInts(d.scatter_indices_batching_dims, p->mutable_scatter_indices_batching_dims());
}

ScatterDimensionNumbers ScatterDimsFromProto(const wire::ScatterDimensionNumbers& p) {
  ScatterDimensionNumbers d;
  d.update_window_dims = Ints(p.update_window_dims());
  d.inserted_window_dims = Ints(p.inserted_window_dims());
  d.scatter_dims_to_operand_dims = Ints(p.scatter_dims_to_operand_dims());
  d.index_vector_dim = p.index_vector_dim();
  d.input_batching_dims = Ints(p.input_batching_dims());
  d.scatter_indices_batching_dims = Ints(p.scatter_indices_batching_dims());
  return d;
}

Status PrecisionToProto(const std::vector<std::string>& precision, wire::PrecisionConfig* proto) {
  for (const std::string& spelling : precision) {
    int value = -1;
    for (int i = 0; i < 3; ++i) {
      if (spelling == kPrecisionSpellings[i]) value = i;
    }
    if (value < 0) {
      return InvalidArgument("operand_precision '" + spelling +
                             "' is not one of default, high, highest");
    }
    proto->add_operand_precision(static_cast<wire::PrecisionConfig::Precision>(value));
  }
  return OkStatus();
}

StatusOr<std::vector<std::string>> PrecisionFromProto(const wire::PrecisionConfig& proto) {
  if (proto.algorithm() != 0) {
    return InvalidArgument("precision_config.algorithm " + std::to_string(proto.algorithm()) +
                           " is not supported");
  }
  std::vector<std::string> out;
  bool all_default = true;
  for (int value : proto.operand_precision()) {
    if (value < 0 || value > 2) {
      return InvalidArgument("operand_precision value " + std::to_string(value) + " is not defined");
    }
    all_default = all_default && value == 0;
    out.emplace_back(kPrecisionSpellings[value]);
  }
  if (all_default) out.clear();
  return out;
}

StatusOr<wire::CustomCallApiVersion> ApiVersionToProto(const std::string& spelling) {
  if (spelling.empty()) return wire::API_VERSION_ORIGINAL;
  for (int i = 0; i < 5; ++i) {
    if (spelling == kApiVersionSpellings[i]) return static_cast<wire::CustomCallApiVersion>(i);
  }
  return InvalidArgument("custom-call api_version '" + spelling + "' is not defined");
}

StatusOr<std::string> ApiVersionFromProto(int value) {
  if (value < 0 || value > 4) {
    return InvalidArgument("custom_call_api_version " + std::to_string(value) + " is not defined");
  }
  // XLA's text leaves the original API out; the unspecified value means it too.
  if (value <= 1) return std::string();
  return std::string(kApiVersionSpellings[value]);
}

ComparisonType ImpliedComparisonType(PrimitiveType type) {
  if (IsFloatingPoint(type) || IsComplex(type)) return ComparisonType::kFloat;
  if (IsSignedInteger(type)) return ComparisonType::kSigned;
  return ComparisonType::kUnsigned;
}

StatusOr<wire::FftType> FftTypeToProto(FftType type) {
  switch (type) {
    case FftType::kFft: return wire::FFT;
    case FftType::kIfft: return wire::IFFT;
    case FftType::kRfft: return wire::RFFT;
    case FftType::kIrfft: return wire::IRFFT;
  }
  return InvalidArgument("fft_type out of range");
}

StatusOr<FftType> FftTypeFromProto(int value) {
  switch (value) {
    case wire::FFT: return FftType::kFft;
    case wire::IFFT: return FftType::kIfft;
    case wire::RFFT: return FftType::kRfft;
    case wire::IRFFT: return FftType::kIrfft;
    default: return InvalidArgument("fft_type " + std::to_string(value) + " is not defined");
  }
}

wire::RandomAlgorithm RngAlgorithmToProto(RngAlgorithm algorithm) {
  switch (algorithm) {
    case RngAlgorithm::kThreeFry: return wire::RNG_THREE_FRY;
    case RngAlgorithm::kPhilox: return wire::RNG_PHILOX;
    default: return wire::RNG_DEFAULT;
  }
}

StatusOr<RngAlgorithm> RngAlgorithmFromProto(int value) {
  switch (value) {
    case wire::RNG_DEFAULT: return RngAlgorithm::kDefault;
    case wire::RNG_THREE_FRY: return RngAlgorithm::kThreeFry;
    case wire::RNG_PHILOX: return RngAlgorithm::kPhilox;
    default: return InvalidArgument("rng_algorithm " + std::to_string(value) + " is not defined");
  }
}

wire::RandomDistribution RngDistributionToProto(RngDistribution distribution) {
  return distribution == RngDistribution::kNormal ? wire::RNG_NORMAL : wire::RNG_UNIFORM;
}

StatusOr<RngDistribution> RngDistributionFromProto(int value) {
  switch (value) {
    case wire::RNG_UNIFORM: return RngDistribution::kUniform;
    case wire::RNG_NORMAL: return RngDistribution::kNormal;
    default: return InvalidArgument("distribution " + std::to_string(value) + " is not defined");
  }
}

void TriangularSolveToProto(const TriangularSolveOptions& o, wire::TriangularSolveOptions* p) {
  p->set_left_side(o.left_side);
  p->set_lower(o.lower);
  p->set_unit_diagonal(o.unit_diagonal);
  switch (o.transpose_a) {
    case TriangularSolveTranspose::kNoTranspose: p->set_transpose_a(wire::TriangularSolveOptions::NO_TRANSPOSE); break;
    case TriangularSolveTranspose::kTranspose: p->set_transpose_a(wire::TriangularSolveOptions::TRANSPOSE); break;
    case TriangularSolveTranspose::kAdjoint: p->set_transpose_a(wire::TriangularSolveOptions::ADJOINT); break;
  }
}

StatusOr<TriangularSolveOptions> TriangularSolveFromProto(const wire::TriangularSolveOptions& p) {
  TriangularSolveOptions o;
  o.left_side = p.left_side();
  o.lower = p.lower();
  o.unit_diagonal = p.unit_diagonal();
  switch (p.transpose_a()) {
    case wire::TriangularSolveOptions::NO_TRANSPOSE: o.transpose_a = TriangularSolveTranspose::kNoTranspose; break;
    case wire::TriangularSolveOptions::TRANSPOSE: o.transpose_a = TriangularSolveTranspose::kTranspose; break;
    case wire::TriangularSolveOptions::ADJOINT: o.transpose_a = TriangularSolveTranspose::kAdjoint; break;
    default:
      return InvalidArgument("triangular_solve_options.transpose_a " +
                             std::to_string(p.transpose_a()) + " is not defined");
  }
  return o;
}

namespace {

// Device ids of an iota list: iota(product(reshape)) reshaped, transposed by
// `perm`, then read row-major into num_groups rows.
StatusOr<std::vector<std::vector<int64_t>>> ExpandIotaGroups(const wire::IotaReplicaGroupListProto& p) {
  std::vector<int64_t> reshape = Ints(p.iota_reshape_dims());
  std::vector<int64_t> perm(p.iota_transpose_perm().begin(), p.iota_transpose_perm().end());
  int64_t groups = p.num_replica_groups(), per_group = p.num_devices_per_group();
  constexpr int64_t kMaxDevices = int64_t{1} << 24;
  if (groups < 0 || per_group < 0 || (per_group != 0 && groups > kMaxDevices / per_group)) {
    return InvalidArgument("iota_replica_group_list has a bad size");
  }
  int64_t total = 1;
  for (int64_t d : reshape) {
    if (d <= 0 || total > kMaxDevices / d) return InvalidArgument("iota_replica_group_list has a bad reshape");
    total *= d;
  }
  if (perm.size() != reshape.size() || !IsPermutation(perm) || total != groups * per_group) {
    return InvalidArgument("iota_replica_group_list: reshape, transpose and group sizes disagree");
  }
  // Transposed dims and their strides in the untransposed iota.
  size_t rank = reshape.size();
  std::vector<int64_t> strides(rank, 1);
  for (size_t i = rank; i-- > 1;) strides[i - 1] = strides[i] * reshape[i];
  std::vector<int64_t> index(rank, 0);
  std::vector<std::vector<int64_t>> out(groups);
  for (int64_t linear = 0; linear < total; ++linear) {
    int64_t value = 0;
    for (size_t i = 0; i < rank; ++i) value += index[i] * strides[perm[i]];
    out[linear / per_group].push_back(value);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < reshape[perm[i]]) break;
      index[i] = 0;
    }
  }
  return out;
}

}  // namespace

StatusOr<std::vector<std::vector<int64_t>>> ReplicaGroupsFromProto(const wire::HloInstructionProto& proto) {
  if (proto.has_collective_device_list()) {
    const wire::CollectiveDeviceListProto& list = proto.collective_device_list();
    if (list.has_iota_replica_group_list()) return ExpandIotaGroups(list.iota_replica_group_list());
    std::vector<std::vector<int64_t>> groups;
    for (const wire::ReplicaGroup& g : list.replica_groups()) groups.push_back(Ints(g.replica_ids()));
    return groups;
  }
  std::vector<std::vector<int64_t>> groups;
  for (const wire::ReplicaGroup& g : proto.replica_groups()) groups.push_back(Ints(g.replica_ids()));
  return groups;
}

}  // namespace xla
