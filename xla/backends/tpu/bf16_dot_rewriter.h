// Bf16DotRewriter: the TPU's default matmul precision. A dot or convolution
// of f32 operands with an f32 result whose operand_precision does not ask
// for HIGH or HIGHEST on either operand gets bf16 operands: each operand is
// converted to bf16 and the op still accumulates into f32 (the MXU does
// bf16 x bf16 products with f32 accumulation). An operand that is itself a
// convert from bf16 is used directly, so no precision is lost twice.
//
// It does not touch other element types, mixed-type ops, or ops asking for
// HIGH (bf16_3x on hardware) or HIGHEST (full f32): those stay as written.
#ifndef XLA_BACKENDS_TPU_BF16_DOT_REWRITER_H_
#define XLA_BACKENDS_TPU_BF16_DOT_REWRITER_H_

#include "xla/passes/hlo_pass.h"

namespace xla::tpu {

class Bf16DotRewriter : public HloPassInterface {
 public:
  std::string_view name() const override { return "tpu-bf16-dot"; }
  StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla::tpu

#endif  // XLA_BACKENDS_TPU_BF16_DOT_REWRITER_H_
