// Instruction attribute structs (attributes.h) to and from their wire
// messages (internal to //xla/hlo/proto). Readers validate what the text
// parser's grammar guarantees, so the verifier sees the same invariants.
#ifndef XLA_HLO_PROTO_ATTRIBUTE_PROTO_H_
#define XLA_HLO_PROTO_ATTRIBUTE_PROTO_H_

#include <string>
#include <vector>

#include "xla/hlo/ir/attributes.h"
#include "xla/hlo/ir/primitive_type.h"
#include "xla/hlo/proto/hlo.pb.h"
#include "xla/hlo/proto/xla_data.pb.h"
#include "xla/status.h"

namespace xla {

void WindowToProto(const Window& window, wire::Window* proto);
Window WindowFromProto(const wire::Window& proto);

void PaddingToProto(const PaddingConfig& padding, wire::PaddingConfig* proto);
PaddingConfig PaddingFromProto(const wire::PaddingConfig& proto);

void DotDimsToProto(const DotDimensionNumbers& dims, wire::DotDimensionNumbers* proto);
DotDimensionNumbers DotDimsFromProto(const wire::DotDimensionNumbers& proto);

void ConvDimsToProto(const ConvolutionDimensionNumbers& dims,
                     wire::ConvolutionDimensionNumbers* proto);
// Each of input, kernel and output must number its dimensions 0..n-1 once,
// with the same count of spatial dimensions (what dim_labels text can say).
StatusOr<ConvolutionDimensionNumbers> ConvDimsFromProto(
    const wire::ConvolutionDimensionNumbers& proto);

void GatherDimsToProto(const GatherDimensionNumbers& dims, wire::GatherDimensionNumbers* proto);
GatherDimensionNumbers GatherDimsFromProto(const wire::GatherDimensionNumbers& proto);
void ScatterDimsToProto(const ScatterDimensionNumbers& dims, wire::ScatterDimensionNumbers* proto);
ScatterDimensionNumbers ScatterDimsFromProto(const wire::ScatterDimensionNumbers& proto);

// "default" / "high" / "highest", as HLO text spells operand precisions.
Status PrecisionToProto(const std::vector<std::string>& precision, wire::PrecisionConfig* proto);
// Empty when every operand is DEFAULT (XLA's text leaves that out).
StatusOr<std::vector<std::string>> PrecisionFromProto(const wire::PrecisionConfig& proto);

// Custom-call api_version as HLO text spells it ("" = the original API).
StatusOr<wire::CustomCallApiVersion> ApiVersionToProto(const std::string& spelling);
StatusOr<std::string> ApiVersionFromProto(int value);

// The comparison type XLA implies for an operand element type; XLA writes it
// always and its text leaves it out.
ComparisonType ImpliedComparisonType(PrimitiveType type);

StatusOr<wire::FftType> FftTypeToProto(FftType type);
StatusOr<FftType> FftTypeFromProto(int value);
wire::RandomAlgorithm RngAlgorithmToProto(RngAlgorithm algorithm);
StatusOr<RngAlgorithm> RngAlgorithmFromProto(int value);
wire::RandomDistribution RngDistributionToProto(RngDistribution distribution);
StatusOr<RngDistribution> RngDistributionFromProto(int value);
void TriangularSolveToProto(const TriangularSolveOptions& options,
                            wire::TriangularSolveOptions* proto);
StatusOr<TriangularSolveOptions> TriangularSolveFromProto(const wire::TriangularSolveOptions& proto);

// Replica groups from either the explicit list or the compact iota form.
StatusOr<std::vector<std::vector<int64_t>>> ReplicaGroupsFromProto(
    const wire::HloInstructionProto& proto);

}  // namespace xla

#endif  // XLA_HLO_PROTO_ATTRIBUTE_PROTO_H_
