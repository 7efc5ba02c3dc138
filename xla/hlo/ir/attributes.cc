#include "xla/hlo/ir/attributes.h"

#include <string>

namespace xla {

bool WindowDimension::operator==(const WindowDimension& o) const {
  return size == o.size && stride == o.stride && padding_low == o.padding_low &&
         padding_high == o.padding_high && base_dilation == o.base_dilation &&
         window_dilation == o.window_dilation && window_reversal == o.window_reversal;
}

bool PaddingDimension::operator==(const PaddingDimension& o) const {
  return edge_padding_low == o.edge_padding_low && edge_padding_high == o.edge_padding_high &&
         interior_padding == o.interior_padding;
}

std::string JoinInts(const std::vector<int64_t>& v, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += sep;
    out += std::to_string(v[i]);
  }
  return out;
}

std::string Window::ToString() const {
  // Each field is printed only if some dimension differs from the default,
  // matching the text JAX emits ("size=3x3 pad=1_1x1_1").
  auto field = [&](const char* name, auto get, int64_t dflt) -> std::string {
    bool any = false;
    for (const WindowDimension& d : dimensions) any |= get(d) != dflt;
    if (!any) return "";
    std::string out = std::string(" ") + name + "=";
    for (size_t i = 0; i < dimensions.size(); ++i) {
      if (i > 0) out += "x";
      out += std::to_string(get(dimensions[i]));
    }
    return out;
  };
  if (dimensions.empty()) return "{}";
  std::string out = "{size=";
  for (size_t i = 0; i < dimensions.size(); ++i) {
    if (i > 0) out += "x";
    out += std::to_string(dimensions[i].size);
  }
  out += field("stride", [](const WindowDimension& d) { return d.stride; }, 1);
  bool any_pad = false;
  for (const WindowDimension& d : dimensions) any_pad |= d.padding_low != 0 || d.padding_high != 0;
  if (any_pad) {
    out += " pad=";
    for (size_t i = 0; i < dimensions.size(); ++i) {
      if (i > 0) out += "x";
      out += std::to_string(dimensions[i].padding_low) + "_" +
             std::to_string(dimensions[i].padding_high);
    }
  }
  out += field("lhs_dilate", [](const WindowDimension& d) { return d.base_dilation; }, 1);
  out += field("rhs_dilate", [](const WindowDimension& d) { return d.window_dilation; }, 1);
  out += field("rhs_reversal",
               [](const WindowDimension& d) { return static_cast<int64_t>(d.window_reversal); }, 0);
  return out + "}";
}

std::string PaddingConfig::ToString() const {
  bool interior = false;
  for (const PaddingDimension& d : dimensions) interior |= d.interior_padding != 0;
  std::string out;
  for (size_t i = 0; i < dimensions.size(); ++i) {
    if (i > 0) out += "x";
    out += std::to_string(dimensions[i].edge_padding_low) + "_" +
           std::to_string(dimensions[i].edge_padding_high);
    if (interior) out += "_" + std::to_string(dimensions[i].interior_padding);
  }
  return out;
}

bool DotDimensionNumbers::operator==(const DotDimensionNumbers& o) const {
  return lhs_batch_dimensions == o.lhs_batch_dimensions &&
         rhs_batch_dimensions == o.rhs_batch_dimensions &&
         lhs_contracting_dimensions == o.lhs_contracting_dimensions &&
         rhs_contracting_dimensions == o.rhs_contracting_dimensions;
}

std::string DotDimensionNumbers::ToString() const {
  std::string out;
  auto add = [&](const char* name, const std::vector<int64_t>& v) {
    if (v.empty()) return;
    if (!out.empty()) out += ", ";
    out += std::string(name) + "={" + JoinInts(v) + "}";
  };
  add("lhs_batch_dims", lhs_batch_dimensions);
  add("lhs_contracting_dims", lhs_contracting_dimensions);
  add("rhs_batch_dims", rhs_batch_dimensions);
  add("rhs_contracting_dims", rhs_contracting_dimensions);
  return out;
}

bool ConvolutionDimensionNumbers::operator==(const ConvolutionDimensionNumbers& o) const {
  return input_batch_dimension == o.input_batch_dimension &&
         input_feature_dimension == o.input_feature_dimension &&
         input_spatial_dimensions == o.input_spatial_dimensions &&
         kernel_input_feature_dimension == o.kernel_input_feature_dimension &&
         kernel_output_feature_dimension == o.kernel_output_feature_dimension &&
         kernel_spatial_dimensions == o.kernel_spatial_dimensions &&
         output_batch_dimension == o.output_batch_dimension &&
         output_feature_dimension == o.output_feature_dimension &&
         output_spatial_dimensions == o.output_spatial_dimensions;
}

namespace {

// Writes one dim_labels group: position p holds the label of dimension p.
// Spatial dimensions are labelled by their index in the spatial list (0-9).
std::string Labels(size_t rank, const std::vector<std::pair<int64_t, char>>& named,
                   const std::vector<int64_t>& spatial) {
  std::string s(rank, '?');
  for (auto [dim, c] : named) {
    if (dim >= 0 && static_cast<size_t>(dim) < rank) s[dim] = c;
  }
  for (size_t i = 0; i < spatial.size(); ++i) {
    if (spatial[i] >= 0 && static_cast<size_t>(spatial[i]) < rank) s[spatial[i]] = '0' + i;
  }
  return s;
}

// Parses one group; `a`/`b` are the two named labels of this group.
bool ParseGroup(std::string_view g, char a, char b, int64_t* da, int64_t* db,
                std::vector<int64_t>* spatial, std::string* error) {
  int64_t fa = -1, fb = -1;
  std::vector<int64_t> sp(g.size(), -1);
  size_t num_spatial = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    char c = g[i];
    if (c == a && fa < 0) {
      fa = i;
    } else if (c == b && fb < 0) {
      fb = i;
    } else if (c >= '0' && c <= '9' && static_cast<size_t>(c - '0') < g.size() && sp[c - '0'] < 0) {
      sp[c - '0'] = i;
      ++num_spatial;
    } else {
      *error = "unexpected or repeated label '" + std::string(1, c) + "' in dim_labels group '" +
               std::string(g) + "'";
      return false;
    }
  }
  if (fa < 0 || fb < 0) {
    *error = "dim_labels group '" + std::string(g) + "' needs labels '" + std::string(1, a) +
             "' and '" + std::string(1, b) + "'";
    return false;
  }
  spatial->clear();
  for (size_t i = 0; i < num_spatial; ++i) {
    if (sp[i] < 0) {
      *error = "dim_labels group '" + std::string(g) + "' skips spatial dimension " + std::to_string(i);
      return false;
    }
    spatial->push_back(sp[i]);
  }
  *da = fa;
  *db = fb;
  return true;
}

}  // namespace

std::string ConvolutionDimensionNumbers::ToString() const {
  size_t n = input_spatial_dimensions.size() + 2;
  return Labels(n, {{input_batch_dimension, 'b'}, {input_feature_dimension, 'f'}},
                input_spatial_dimensions) +
         "_" +
         Labels(n, {{kernel_input_feature_dimension, 'i'}, {kernel_output_feature_dimension, 'o'}},
                kernel_spatial_dimensions) +
         "->" +
         Labels(n, {{output_batch_dimension, 'b'}, {output_feature_dimension, 'f'}},
                output_spatial_dimensions);
}

std::optional<ConvolutionDimensionNumbers> ParseDimLabels(std::string_view text,
                                                          std::string* error) {
  size_t us = text.find('_');
  size_t arrow = text.find("->");
  if (us == std::string_view::npos || arrow == std::string_view::npos || arrow < us) {
    *error = "dim_labels must look like 'bf01_oi01->bf01', got '" + std::string(text) + "'";
    return std::nullopt;
  }
  ConvolutionDimensionNumbers d;
  if (!ParseGroup(text.substr(0, us), 'b', 'f', &d.input_batch_dimension,
                  &d.input_feature_dimension, &d.input_spatial_dimensions, error) ||
      !ParseGroup(text.substr(us + 1, arrow - us - 1), 'i', 'o', &d.kernel_input_feature_dimension,
                  &d.kernel_output_feature_dimension, &d.kernel_spatial_dimensions, error) ||
      !ParseGroup(text.substr(arrow + 2), 'b', 'f', &d.output_batch_dimension,
                  &d.output_feature_dimension, &d.output_spatial_dimensions, error)) {
    return std::nullopt;
  }
  if (d.input_spatial_dimensions.size() != d.kernel_spatial_dimensions.size() ||
      d.input_spatial_dimensions.size() != d.output_spatial_dimensions.size()) {
    *error = "dim_labels groups have different ranks in '" + std::string(text) + "'";
    return std::nullopt;
  }
  return d;
}

bool GatherDimensionNumbers::operator==(const GatherDimensionNumbers& o) const {
  return offset_dims == o.offset_dims && collapsed_slice_dims == o.collapsed_slice_dims &&
         start_index_map == o.start_index_map && operand_batching_dims == o.operand_batching_dims &&
         start_indices_batching_dims == o.start_indices_batching_dims &&
         index_vector_dim == o.index_vector_dim;
}

bool ScatterDimensionNumbers::operator==(const ScatterDimensionNumbers& o) const {
  return update_window_dims == o.update_window_dims &&
         inserted_window_dims == o.inserted_window_dims &&
         scatter_dims_to_operand_dims == o.scatter_dims_to_operand_dims &&
         input_batching_dims == o.input_batching_dims &&
         scatter_indices_batching_dims == o.scatter_indices_batching_dims &&
         index_vector_dim == o.index_vector_dim;
}

// Spelling tables: one array per enum, indexed by the enum value.
namespace {
constexpr std::string_view kDirections[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
constexpr std::string_view kCompareTypes[] = {"", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
constexpr std::string_view kFftTypes[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
constexpr std::string_view kRngAlgorithms[] = {"rng_default", "rng_three_fry", "rng_philox"};
constexpr std::string_view kRngDistributions[] = {"rng_uniform", "rng_normal"};
constexpr std::string_view kTransposes[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};

template <typename E, size_t N>
std::optional<E> Lookup(const std::string_view (&table)[N], std::string_view s) {
  for (size_t i = 0; i < N; ++i) {
    if (!table[i].empty() && table[i] == s) return static_cast<E>(i);
  }
  return std::nullopt;
}
}  // namespace

std::string_view ToString(ComparisonDirection v) { return kDirections[static_cast<int>(v)]; }
std::string_view ToString(ComparisonType v) { return kCompareTypes[static_cast<int>(v)]; }
std::string_view ToString(FftType v) { return kFftTypes[static_cast<int>(v)]; }
std::string_view ToString(RngAlgorithm v) { return kRngAlgorithms[static_cast<int>(v)]; }
std::string_view ToString(RngDistribution v) { return kRngDistributions[static_cast<int>(v)]; }
std::string_view ToString(TriangularSolveTranspose v) { return kTransposes[static_cast<int>(v)]; }

std::optional<ComparisonDirection> ParseComparisonDirection(std::string_view s) {
  return Lookup<ComparisonDirection>(kDirections, s);
}
std::optional<ComparisonType> ParseComparisonType(std::string_view s) {
  return Lookup<ComparisonType>(kCompareTypes, s);
}
std::optional<FftType> ParseFftType(std::string_view s) { return Lookup<FftType>(kFftTypes, s); }
std::optional<RngAlgorithm> ParseRngAlgorithm(std::string_view s) {
  return Lookup<RngAlgorithm>(kRngAlgorithms, s);
}
std::optional<RngDistribution> ParseRngDistribution(std::string_view s) {
  return Lookup<RngDistribution>(kRngDistributions, s);
}
std::optional<TriangularSolveTranspose> ParseTriangularSolveTranspose(std::string_view s) {
  return Lookup<TriangularSolveTranspose>(kTransposes, s);
}

}  // namespace xla
