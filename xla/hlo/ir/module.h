// HloModule: the unit of compilation. Owns its computations; one of them is
// the entry. computations() is in definition order (callees before callers,
// as the text format requires).
#ifndef XLA_HLO_IR_MODULE_H_
#define XLA_HLO_IR_MODULE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xla/hlo/ir/computation.h"
#include "xla/hlo/ir/shape.h"
#include "xla/status.h"

namespace xla {

struct HloModuleConfig {
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
};

// entry_computation_layout={(f32[3]{0}, s32[])->f32[3]{0}}
struct ComputationLayout {
  std::vector<Shape> parameter_shapes;
  Shape result_shape;
  std::string ToString() const;  // "(f32[3]{0}, s32[])->f32[3]{0}"
};

// One input_output_alias entry: output {0} may alias parameter 1 at {}.
struct InputOutputAlias {
  std::vector<int64_t> output_index;
  int64_t parameter_number = 0;
  std::vector<int64_t> parameter_index;
  bool must_alias = false;  // "must-alias" vs "may-alias"
};

// One buffer_donor entry: parameter 0 at {} may give its memory to any output
// of the same size (the compiler chooses which).
struct BufferDonor {
  int64_t parameter_number = 0;
  std::vector<int64_t> parameter_index;
};

class HloModule {
 public:
  explicit HloModule(std::string name, HloModuleConfig config = {});
  ~HloModule();
  HloModule(const HloModule&) = delete;
  HloModule& operator=(const HloModule&) = delete;

  const std::string& name() const { return name_; }
  const HloModuleConfig& config() const { return config_; }
  HloModuleConfig* mutable_config() { return &config_; }

  // Takes ownership; the last computation added with is_entry becomes the entry.
  HloComputation* AddComputation(std::unique_ptr<HloComputation> computation,
                                 bool is_entry = false);
  // Takes ownership and places it just before `caller` in computations(), so
  // the printed module still defines callees before their callers.
  HloComputation* AddComputationBefore(std::unique_ptr<HloComputation> computation,
                                       const HloComputation* caller);
  // Deletes computations not reachable from the entry through called
  // computations. Returns whether any was removed.
  bool RemoveUnreachableComputations();

  HloComputation* entry_computation() const { return entry_; }
  const std::vector<HloComputation*>& computations() const { return computations_; }
  HloComputation* GetComputationWithName(std::string_view name) const;

  // Absent in text -> nullopt; the printer then derives nothing and omits it.
  const std::optional<ComputationLayout>& entry_computation_layout() const { return layout_; }
  void set_entry_computation_layout(std::optional<ComputationLayout> l) { layout_ = std::move(l); }
  const std::vector<InputOutputAlias>& input_output_alias() const { return aliases_; }
  void set_input_output_alias(std::vector<InputOutputAlias> a) { aliases_ = std::move(a); }
  const std::vector<BufferDonor>& buffer_donors() const { return donors_; }
  void set_buffer_donors(std::vector<BufferDonor> d) { donors_ = std::move(d); }

  // HLO text (defined in printer.cc); parses back to an identical module.
  std::string ToString() const;

 private:
  std::string name_;
  HloModuleConfig config_;
  std::vector<std::unique_ptr<HloComputation>> owned_;
  std::vector<HloComputation*> computations_;
  HloComputation* entry_ = nullptr;
  std::optional<ComputationLayout> layout_;
  std::vector<InputOutputAlias> aliases_;
  std::vector<BufferDonor> donors_;
};

}  // namespace xla

#endif  // XLA_HLO_IR_MODULE_H_
