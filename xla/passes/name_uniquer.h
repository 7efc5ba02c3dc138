// NameUniquer: hands out names not yet used in one computation (or among a
// module's computations), for passes that add copies of instructions.
#ifndef XLA_PASSES_NAME_UNIQUER_H_
#define XLA_PASSES_NAME_UNIQUER_H_

#include <string>
#include <unordered_set>

#include "xla/hlo/ir/module.h"

namespace xla {

class NameUniquer {
 public:
  NameUniquer() = default;
  explicit NameUniquer(const HloComputation& computation) {
    for (const HloInstruction* instr : computation.instructions()) used_.insert(instr->name());
  }
  explicit NameUniquer(const HloModule& module) {
    for (const HloComputation* c : module.computations()) used_.insert(c->name());
  }
  // `base`, or `base.N` for the first N that is still free.
  std::string Unique(const std::string& base) {
    std::string name = base;
    for (int n = 1; used_.count(name) > 0; ++n) name = base + "." + std::to_string(n);
    used_.insert(name);
    return name;
  }

 private:
  std::unordered_set<std::string> used_;
};

}  // namespace xla

#endif  // XLA_PASSES_NAME_UNIQUER_H_
