// AlgebraicSimplifier: local rewrites that make a module cheaper without
// changing its results beyond what XLA itself does.
//
//   x / c  ->  x * (1/c)   for f32/f64 when c is a constant scalar or a
//                          broadcast of one: a multiply is several times
//                          cheaper than a divide, and this is the rounding
//                          XLA's CPU and GPU compilers give (programs such as
//                          jnp.linspace depend on it to match real JAX).
//   x / broadcast(b) -> x * broadcast(1/b) for f32/f64 and any b (a row sum
//                          in softmax): one divide per element of b, and the
//                          rounding XLA's CPU compiler gives.
//   (x * broadcast(s1)) * broadcast(s2) -> x * broadcast(s2 * s1) for f32/f64
//                          scalars s1, s2, as XLA reassociates them (same reason).
//   x * 1  ->  x           exact in IEEE arithmetic, also for -0 and NaN.
//   transpose(dot(a, b)) -> dot(b, a) for rank-2 dots without batch
//                          dimensions whose only user is the transpose: the
//                          same sums, stored in the order the user wants.
//   op(reshape(a), reshape(b), broadcast(s)) -> reshape(op(a, b, broadcast(s)))
//                          for elementwise ops whose reshaped operands share one
//                          shape: the op meets a's and b's producers (XLA's
//                          reshape mover; reshape(exp(z))^2 -> exp(z + z)).
//   reshape(reshape(x)) -> x, or one reshape of x: both keep row-major
//                          order (JAX's keepdims reductions leave such pairs).
//   reshape, transpose, broadcast, convert, slice, reverse and copy that
//   leave their operand unchanged -> the operand.
#ifndef XLA_PASSES_ALGEBRAIC_SIMPLIFIER_H_
#define XLA_PASSES_ALGEBRAIC_SIMPLIFIER_H_

#include "xla/passes/hlo_pass.h"

namespace xla {

class AlgebraicSimplifier : public HloPassInterface {
 public:
  std::string_view name() const override { return "algebraic-simplifier"; }
  StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_PASSES_ALGEBRAIC_SIMPLIFIER_H_
