// HloInstruction: one operation in an HloComputation.
//
// An instruction has an opcode, a result shape, a name, operands (raw
// pointers to instructions of the same computation, which owns them all),
// users (kept in sync by the operand mutators below), called computations
// (owned by the module) and the typed attributes its opcode uses. Attributes
// an opcode does not use keep their defaults; the verifier checks that the
// ones it uses are consistent with the shapes.
#ifndef XLA_HLO_IR_INSTRUCTION_H_
#define XLA_HLO_IR_INSTRUCTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "xla/hlo/ir/attributes.h"
#include "xla/hlo/ir/literal.h"
#include "xla/hlo/ir/opcode.h"
#include "xla/hlo/ir/shape.h"
#include "xla/status.h"

namespace xla {

class HloComputation;

class HloInstruction {
 public:
  // Generic factory; attributes are set afterwards with the setters.
  static std::unique_ptr<HloInstruction> Create(HloOpcode opcode, const Shape& shape,
                                                std::vector<HloInstruction*> operands,
                                                std::string name = "");
  static std::unique_ptr<HloInstruction> CreateParameter(int64_t number, const Shape& shape,
                                                         std::string name = "");
  static std::unique_ptr<HloInstruction> CreateConstant(Literal literal, std::string name = "");
  // The shape is taken from the tuple operand (which must have that element).
  static std::unique_ptr<HloInstruction> CreateGetTupleElement(HloInstruction* tuple,
                                                               int64_t index,
                                                               std::string name = "");
  ~HloInstruction();
  HloInstruction(const HloInstruction&) = delete;
  // A copy with every attribute and called computation of this one, but the
  // given shape, operands and name (passes that move or duplicate code).
  std::unique_ptr<HloInstruction> CloneWithNewOperands(const Shape& shape,
                                                       std::vector<HloInstruction*> operands,
                                                       std::string name) const;
  HloInstruction& operator=(const HloInstruction&) = delete;

  HloOpcode opcode() const { return opcode_; }
  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  HloComputation* parent() const { return parent_; }

  // ---- operands and users ----
  const std::vector<HloInstruction*>& operands() const { return operands_; }
  HloInstruction* operand(int64_t i) const { return operands_[i]; }
  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  void AppendOperand(HloInstruction* operand);
  // Replaces operand i, updating both users lists.
  void ReplaceOperandWith(int64_t i, HloInstruction* new_operand);
  // Makes every user of this instruction (and the root slot of its computation,
  // if this is the root) use `replacement` instead. Shapes must be compatible.
  Status ReplaceAllUsesWith(HloInstruction* replacement);
  // Drops all operands (removing this from their users lists); used before deletion.
  void DetachFromOperands();
  // Users in first-use order, without duplicates.
  const std::vector<HloInstruction*>& users() const { return users_; }
  int64_t user_count() const { return static_cast<int64_t>(users_.size()); }

  // ---- called computations ----
  // In the order the opcode defines: to_apply for call/map/reduce/reduce-window/
  // sort/scatter/all-reduce; {condition, body} for while; {select, scatter} for
  // select-and-scatter; the branches for conditional (pred form: {true, false});
  // the fused computation for fusion.
  const std::vector<HloComputation*>& called_computations() const { return called_computations_; }
  void AppendCalledComputation(HloComputation* c) { called_computations_.push_back(c); }
  void set_called_computations(std::vector<HloComputation*> c) { called_computations_ = std::move(c); }
  HloComputation* to_apply() const { return CalledOrNull(0); }
  HloComputation* while_condition() const { return CalledOrNull(0); }
  HloComputation* while_body() const { return CalledOrNull(1); }
  HloComputation* select() const { return CalledOrNull(0); }
  HloComputation* scatter() const { return CalledOrNull(1); }
  const std::vector<HloComputation*>& branch_computations() const { return called_computations_; }

  // ---- opcode-specific attributes ----
  int64_t parameter_number() const { return parameter_number_; }
  int64_t tuple_index() const { return tuple_index_; }
  void set_tuple_index(int64_t i) { tuple_index_ = i; }
  // kConstant only (a default Literal otherwise).
  const Literal& literal() const;
  void set_literal(Literal literal);

  // broadcast, transpose, reduce, reverse, sort, concatenate (one entry),
  // all-gather / all-to-all (one entry), map.
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  int64_t dimensions(int64_t i) const { return dimensions_[i]; }
  void set_dimensions(std::vector<int64_t> d) { dimensions_ = std::move(d); }
  // concatenate: dimensions()[0].
  int64_t concatenate_dimension() const { return dimensions_.empty() ? 0 : dimensions_[0]; }

  const std::vector<int64_t>& slice_starts() const { return slice_starts_; }
  const std::vector<int64_t>& slice_limits() const { return slice_limits_; }
  const std::vector<int64_t>& slice_strides() const { return slice_strides_; }
  void set_slice(std::vector<SliceDimension> dims);
  const std::vector<int64_t>& dynamic_slice_sizes() const { return dynamic_slice_sizes_; }
  void set_dynamic_slice_sizes(std::vector<int64_t> s) { dynamic_slice_sizes_ = std::move(s); }

  const PaddingConfig& padding_config() const { return padding_config_; }
  void set_padding_config(PaddingConfig p) { padding_config_ = std::move(p); }
  // reduce-window, select-and-scatter, convolution. has_window() tells
  // "window={}" absent from present-and-empty.
  const Window& window() const { return window_; }
  bool has_window() const { return has_window_; }
  void set_window(Window w) { window_ = std::move(w); has_window_ = true; }

  const DotDimensionNumbers& dot_dimension_numbers() const { return dot_dims_; }
  void set_dot_dimension_numbers(DotDimensionNumbers d) { dot_dims_ = std::move(d); }
  const ConvolutionDimensionNumbers& convolution_dimension_numbers() const { return conv_dims_; }
  void set_convolution_dimension_numbers(ConvolutionDimensionNumbers d) { conv_dims_ = std::move(d); }
  int64_t feature_group_count() const { return feature_group_count_; }
  void set_feature_group_count(int64_t v) { feature_group_count_ = v; }
  int64_t batch_group_count() const { return batch_group_count_; }
  void set_batch_group_count(int64_t v) { batch_group_count_ = v; }
  // dot / convolution "operand_precision={...}" entries, kept verbatim.
  const std::vector<std::string>& operand_precision() const { return operand_precision_; }
  void set_operand_precision(std::vector<std::string> p) { operand_precision_ = std::move(p); }

  const GatherDimensionNumbers& gather_dimension_numbers() const { return gather_dims_; }
  void set_gather_dimension_numbers(GatherDimensionNumbers d) { gather_dims_ = std::move(d); }
  const std::vector<int64_t>& gather_slice_sizes() const { return gather_slice_sizes_; }
  void set_gather_slice_sizes(std::vector<int64_t> s) { gather_slice_sizes_ = std::move(s); }
  const ScatterDimensionNumbers& scatter_dimension_numbers() const { return scatter_dims_; }
  void set_scatter_dimension_numbers(ScatterDimensionNumbers d) { scatter_dims_ = std::move(d); }
  bool indices_are_sorted() const { return indices_are_sorted_; }
  void set_indices_are_sorted(bool v) { indices_are_sorted_ = v; }
  bool unique_indices() const { return unique_indices_; }
  void set_unique_indices(bool v) { unique_indices_ = v; }

  ComparisonDirection comparison_direction() const { return comparison_direction_; }
  void set_comparison_direction(ComparisonDirection d) { comparison_direction_ = d; }
  // kDefault when the text has no type=; see verifier for the implied type.
  ComparisonType comparison_type() const { return comparison_type_; }
  void set_comparison_type(ComparisonType t) { comparison_type_ = t; }

  int64_t iota_dimension() const { return iota_dimension_; }
  void set_iota_dimension(int64_t d) { iota_dimension_ = d; }
  FftType fft_type() const { return fft_type_; }
  void set_fft_type(FftType t) { fft_type_ = t; }
  const std::vector<int64_t>& fft_length() const { return fft_length_; }
  void set_fft_length(std::vector<int64_t> l) { fft_length_ = std::move(l); }
  RngAlgorithm rng_algorithm() const { return rng_algorithm_; }
  void set_rng_algorithm(RngAlgorithm a) { rng_algorithm_ = a; }
  RngDistribution rng_distribution() const { return rng_distribution_; }
  void set_rng_distribution(RngDistribution d) { rng_distribution_ = d; }

  const std::string& custom_call_target() const { return custom_call_target_; }
  void set_custom_call_target(std::string t) { custom_call_target_ = std::move(t); }
  // The backend_config text as written (a quoted string's contents, or a {...} block).
  const std::string& backend_config() const { return backend_config_; }
  void set_backend_config(std::string c) { backend_config_ = std::move(c); }
  bool custom_call_has_side_effect() const { return custom_call_has_side_effect_; }
  void set_custom_call_has_side_effect(bool v) { custom_call_has_side_effect_ = v; }
  // custom-call api_version=... and fusion kind=..., kept verbatim ("" = absent).
  const std::string& api_version() const { return api_version_; }
  void set_api_version(std::string v) { api_version_ = std::move(v); }
  const std::string& fusion_kind() const { return fusion_kind_; }
  void set_fusion_kind(std::string k) { fusion_kind_ = std::move(k); }

  bool is_stable() const { return is_stable_; }
  void set_is_stable(bool v) { is_stable_ = v; }
  int64_t k() const { return k_; }  // topk
  void set_k(int64_t k) { k_ = k; }
  bool largest() const { return largest_; }  // topk
  void set_largest(bool v) { largest_ = v; }
  const TriangularSolveOptions& triangular_solve_options() const { return tri_options_; }
  void set_triangular_solve_options(TriangularSolveOptions o) { tri_options_ = o; }
  bool cholesky_lower() const { return cholesky_lower_; }
  void set_cholesky_lower(bool v) { cholesky_lower_ = v; }
  int64_t exponent_bits() const { return exponent_bits_; }
  int64_t mantissa_bits() const { return mantissa_bits_; }
  void set_reduce_precision_bits(int64_t e, int64_t m) { exponent_bits_ = e; mantissa_bits_ = m; }

  // Collectives.
  const std::vector<std::vector<int64_t>>& replica_groups() const { return replica_groups_; }
  void set_replica_groups(std::vector<std::vector<int64_t>> g) { replica_groups_ = std::move(g); }
  const std::optional<int64_t>& channel_id() const { return channel_id_; }
  void set_channel_id(std::optional<int64_t> id) { channel_id_ = id; }
  bool use_global_device_ids() const { return use_global_device_ids_; }
  void set_use_global_device_ids(bool v) { use_global_device_ids_ = v; }
  const std::vector<std::pair<int64_t, int64_t>>& source_target_pairs() const { return source_target_pairs_; }
  void set_source_target_pairs(std::vector<std::pair<int64_t, int64_t>> p) { source_target_pairs_ = std::move(p); }

  // ---- printing and comparison ----
  // "name = f32[3]{0} add(a, b), attr=..." (defined in printer.cc).
  std::string ToString() const;
  // "attr=..., attr=..." with a leading ", " per attribute, as printed after the operands.
  std::string AttributesToString() const;
  // Same opcode, shape, operands (by identity), called computations and
  // attributes; names are ignored. Used by CSE.
  bool IdenticalIgnoringName(const HloInstruction& other) const;

 private:
  friend class HloComputation;
  HloInstruction(HloOpcode opcode, const Shape& shape) : opcode_(opcode), shape_(shape) {}
  HloComputation* CalledOrNull(size_t i) const {
    return i < called_computations_.size() ? called_computations_[i] : nullptr;
  }
  void AddUser(HloInstruction* user);
  void RemoveUser(HloInstruction* user);

  HloOpcode opcode_;
  Shape shape_;
  std::string name_;
  HloComputation* parent_ = nullptr;
  std::vector<HloInstruction*> operands_;
  std::vector<HloInstruction*> users_;
  std::vector<HloComputation*> called_computations_;

  int64_t parameter_number_ = -1;
  int64_t tuple_index_ = -1;
  std::unique_ptr<Literal> literal_;
  std::vector<int64_t> dimensions_;
  std::vector<int64_t> slice_starts_, slice_limits_, slice_strides_;
  std::vector<int64_t> dynamic_slice_sizes_;
  PaddingConfig padding_config_;
  Window window_;
  bool has_window_ = false;
  DotDimensionNumbers dot_dims_;
  ConvolutionDimensionNumbers conv_dims_;
  int64_t feature_group_count_ = 1;
  int64_t batch_group_count_ = 1;
  std::vector<std::string> operand_precision_;
  GatherDimensionNumbers gather_dims_;
  std::vector<int64_t> gather_slice_sizes_;
  ScatterDimensionNumbers scatter_dims_;
  bool indices_are_sorted_ = false;
  bool unique_indices_ = false;
  ComparisonDirection comparison_direction_ = ComparisonDirection::kEq;
  ComparisonType comparison_type_ = ComparisonType::kDefault;
  int64_t iota_dimension_ = 0;
  FftType fft_type_ = FftType::kFft;
  std::vector<int64_t> fft_length_;
  RngAlgorithm rng_algorithm_ = RngAlgorithm::kDefault;
  RngDistribution rng_distribution_ = RngDistribution::kUniform;
  std::string custom_call_target_;
  std::string backend_config_;
  bool custom_call_has_side_effect_ = false;
  std::string api_version_;
  std::string fusion_kind_;
  bool is_stable_ = false;
  int64_t k_ = 0;
  bool largest_ = true;
  TriangularSolveOptions tri_options_;
  bool cholesky_lower_ = false;
  int64_t exponent_bits_ = 0;
  int64_t mantissa_bits_ = 0;
  std::vector<std::vector<int64_t>> replica_groups_;
  std::optional<int64_t> channel_id_;
  bool use_global_device_ids_ = false;
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs_;
};

}  // namespace xla

#endif  // XLA_HLO_IR_INSTRUCTION_H_
