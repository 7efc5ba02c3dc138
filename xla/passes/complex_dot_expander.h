// ComplexDotExpander: a dot of complex operands becomes four real dots,
//
//   dot(a, b) = complex(dot(re a, re b) - dot(im a, im b),
//                       dot(re a, im b) + dot(im a, re b))
//
// with the same dimension numbers and precision, so backends need only real
// matrix kernels (Eigen, the GEMM kernels, cuBLAS) for complex matmuls. The
// sums are the ones a complex GEMM computes, grouped by real and imaginary
// parts, so results agree with numpy to within the real type's rounding.
#ifndef XLA_PASSES_COMPLEX_DOT_EXPANDER_H_
#define XLA_PASSES_COMPLEX_DOT_EXPANDER_H_

#include "xla/passes/hlo_pass.h"

namespace xla {

class ComplexDotExpander : public HloPassInterface {
 public:
  std::string_view name() const override { return "complex-dot-expander"; }
  StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_PASSES_COMPLEX_DOT_EXPANDER_H_
