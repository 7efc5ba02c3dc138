// The pass contract: Run() transforms a module in place and says whether it
// changed anything. A pass that fails returns a Status and may leave the
// module partly transformed (callers treat the module as lost).
#ifndef XLA_PASSES_HLO_PASS_H_
#define XLA_PASSES_HLO_PASS_H_

#include <string_view>

#include "xla/hlo/ir/module.h"
#include "xla/status.h"

namespace xla {

class HloPassInterface {
 public:
  virtual ~HloPassInterface() = default;
  // Stable, short, kebab-case name used in errors and dumps ("dce", "cse").
  virtual std::string_view name() const = 0;
  virtual StatusOr<bool> Run(HloModule* module) = 0;
};

}  // namespace xla

#endif  // XLA_PASSES_HLO_PASS_H_
