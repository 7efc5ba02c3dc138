// TreeReductionRewriter: a reduce over a dimension longer than `window` becomes
// a reduce-window followed by a reduce of its (shorter) result, repeated until
// no reduced dimension is longer than `window`:
//
//   reduce(f32[50] x, 0), dims={0}
//     -> reduce(reduce-window(x, 0, size=32 stride=32 pad=7_7), 0), dims={0}
//
// Along a reduced dimension longer than `window` the windows hold `window`
// elements, padded evenly at both ends with the init value ("same" padding);
// along the other reduced dimensions one window covers the whole extent. Each
// partial result then combines at most `window` values in order, which bounds
// the rounding error of long float sums. XLA:CPU rewrites the reductions of
// operands smaller than 4096 elements this way (window 32); a backend that
// does the same gives the same floating-point results as it.
#ifndef XLA_PASSES_TREE_REDUCTION_REWRITER_H_
#define XLA_PASSES_TREE_REDUCTION_REWRITER_H_

#include <cstdint>

#include "xla/passes/hlo_pass.h"

namespace xla {

class TreeReductionRewriter : public HloPassInterface {
 public:
  // Reductions whose operand has `max_elements` elements or more are left as
  // they are.
  TreeReductionRewriter(int64_t window, int64_t max_elements)
      : window_(window), max_elements_(max_elements) {}
  std::string_view name() const override { return "tree-reduction-rewriter"; }
  StatusOr<bool> Run(HloModule* module) override;

 private:
  int64_t window_;
  int64_t max_elements_;
};

}  // namespace xla

#endif  // XLA_PASSES_TREE_REDUCTION_REWRITER_H_
