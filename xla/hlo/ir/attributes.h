// Typed attribute values carried by HLO instructions (window, padding, dot /
// convolution / gather / scatter dimension numbers, enum-like options).
//
// Plain structs with public fields: they are data, validated by the verifier,
// not by constructors. Each has ToString() in the exact HLO text form so the
// printer and the parser agree in one place.
#ifndef XLA_HLO_IR_ATTRIBUTES_H_
#define XLA_HLO_IR_ATTRIBUTES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xla {

// One dimension of a windowed op (reduce-window, select-and-scatter, convolution).
struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t base_dilation = 1;    // "lhs_dilate"
  int64_t window_dilation = 1;  // "rhs_dilate"
  bool window_reversal = false; // "rhs_reversal"
  bool operator==(const WindowDimension& o) const;
};

struct Window {
  std::vector<WindowDimension> dimensions;
  // "{size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=... rhs_dilate=... rhs_reversal=...}";
  // fields equal to their defaults in every dimension are omitted.
  std::string ToString() const;
  bool operator==(const Window& o) const { return dimensions == o.dimensions; }
};

struct PaddingDimension {
  int64_t edge_padding_low = 0;  // may be negative
  int64_t edge_padding_high = 0;
  int64_t interior_padding = 0;
  bool operator==(const PaddingDimension& o) const;
};

struct PaddingConfig {
  std::vector<PaddingDimension> dimensions;
  // "1_2x0_3" or, when any interior padding is set, "1_1_2x0_0_1".
  std::string ToString() const;
  bool operator==(const PaddingConfig& o) const { return dimensions == o.dimensions; }
};

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batch_dimensions;
  std::vector<int64_t> rhs_batch_dimensions;
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
  // "lhs_batch_dims={0}, lhs_contracting_dims={2}, ..." (empty lists omitted).
  std::string ToString() const;
  bool operator==(const DotDimensionNumbers& o) const;
};

// Convolution dimension numbers, written in HLO text as dim_labels such as
// "b01f_01io->b01f" (b=batch, f=feature, i/o=kernel in/out feature, digits =
// spatial dimensions in order).
struct ConvolutionDimensionNumbers {
  int64_t input_batch_dimension = 0;
  int64_t input_feature_dimension = 1;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0;
  int64_t kernel_output_feature_dimension = 1;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0;
  int64_t output_feature_dimension = 1;
  std::vector<int64_t> output_spatial_dimensions;
  std::string ToString() const;  // dim_labels form
  bool operator==(const ConvolutionDimensionNumbers& o) const;
};
// Parses a dim_labels string; nullopt (with a reason in *error) when malformed.
std::optional<ConvolutionDimensionNumbers> ParseDimLabels(std::string_view text,
                                                          std::string* error);

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  int64_t index_vector_dim = 0;
  bool operator==(const GatherDimensionNumbers& o) const;
};

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  int64_t index_vector_dim = 0;
  bool operator==(const ScatterDimensionNumbers& o) const;
};

// One slice dimension: [start:limit:stride].
struct SliceDimension {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
  bool operator==(const SliceDimension& o) const {
    return start == o.start && limit == o.limit && stride == o.stride;
  }
};

// Enum-like attributes: each has a text spelling table in attributes.cc, and
// a Parse function returning nullopt for an unknown spelling.
enum class ComparisonDirection : uint8_t { kEq, kNe, kGe, kGt, kLe, kLt };
enum class ComparisonType : uint8_t { kDefault, kFloat, kTotalOrder, kSigned, kUnsigned };
enum class FftType : uint8_t { kFft, kIfft, kRfft, kIrfft };
enum class RngAlgorithm : uint8_t { kDefault, kThreeFry, kPhilox };
enum class RngDistribution : uint8_t { kUniform, kNormal };
enum class TriangularSolveTranspose : uint8_t { kNoTranspose, kTranspose, kAdjoint };

std::string_view ToString(ComparisonDirection v);      // "EQ"
std::string_view ToString(ComparisonType v);           // "TOTALORDER"; "" for kDefault
std::string_view ToString(FftType v);                  // "RFFT"
std::string_view ToString(RngAlgorithm v);             // "rng_philox"
std::string_view ToString(RngDistribution v);          // "rng_uniform"
std::string_view ToString(TriangularSolveTranspose v); // "NO_TRANSPOSE"
std::optional<ComparisonDirection> ParseComparisonDirection(std::string_view s);
std::optional<ComparisonType> ParseComparisonType(std::string_view s);
std::optional<FftType> ParseFftType(std::string_view s);
std::optional<RngAlgorithm> ParseRngAlgorithm(std::string_view s);
std::optional<RngDistribution> ParseRngDistribution(std::string_view s);
std::optional<TriangularSolveTranspose> ParseTriangularSolveTranspose(std::string_view s);

struct TriangularSolveOptions {
  bool left_side = false;
  bool lower = false;
  bool unit_diagonal = false;
  TriangularSolveTranspose transpose_a = TriangularSolveTranspose::kNoTranspose;
};

// "{0,1}"-style helpers shared by printer and attribute ToString.
std::string JoinInts(const std::vector<int64_t>& v, std::string_view sep = ",");

}  // namespace xla

#endif  // XLA_HLO_IR_ATTRIBUTES_H_
