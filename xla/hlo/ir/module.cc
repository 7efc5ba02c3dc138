#include "xla/hlo/ir/module.h"

#include <algorithm>
#include <unordered_set>

namespace xla {

std::string ComputationLayout::ToString() const {
  std::string out = "(";
  for (size_t i = 0; i < parameter_shapes.size(); ++i) {
    if (i > 0) out += ", ";
    if (i > 0 && i % 5 == 0) out += "/*index=" + std::to_string(i) + "*/";
    out += parameter_shapes[i].ToString();
  }
  return out + ")->" + result_shape.ToString();
}

HloModule::HloModule(std::string name, HloModuleConfig config)
    : name_(std::move(name)), config_(config) {}

HloModule::~HloModule() = default;

HloComputation* HloModule::AddComputation(std::unique_ptr<HloComputation> computation,
                                          bool is_entry) {
  HloComputation* raw = computation.get();
  raw->parent_ = this;
  owned_.push_back(std::move(computation));
  computations_.push_back(raw);
  if (is_entry) entry_ = raw;
  return raw;
}

HloComputation* HloModule::AddComputationBefore(std::unique_ptr<HloComputation> computation,
                                                const HloComputation* caller) {
  HloComputation* raw = computation.get();
  raw->parent_ = this;
  auto it = std::find(computations_.begin(), computations_.end(), caller);
  const size_t at = static_cast<size_t>(it - computations_.begin());
  computations_.insert(it, raw);
  owned_.insert(owned_.begin() + static_cast<std::ptrdiff_t>(std::min(at, owned_.size())),
                std::move(computation));
  return raw;
}

bool HloModule::RemoveUnreachableComputations() {
  if (entry_ == nullptr) return false;
  std::unordered_set<const HloComputation*> live = {entry_};
  std::vector<const HloComputation*> work = {entry_};
  while (!work.empty()) {
    const HloComputation* c = work.back();
    work.pop_back();
    for (const HloInstruction* instr : c->instructions()) {
      for (const HloComputation* callee : instr->called_computations()) {
        if (live.insert(callee).second) work.push_back(callee);
      }
    }
  }
  bool changed = false;
  for (size_t i = 0; i < computations_.size();) {
    if (live.count(computations_[i]) == 0) {
      computations_.erase(computations_.begin() + i);
      owned_.erase(owned_.begin() + i);
      changed = true;
    } else {
      ++i;
    }
  }
  return changed;
}

HloComputation* HloModule::GetComputationWithName(std::string_view name) const {
  for (HloComputation* c : computations_) {
    if (c->name() == name) return c;
  }
  return nullptr;
}

}  // namespace xla
