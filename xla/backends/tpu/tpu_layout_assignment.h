// TpuLayoutAssignment: gives every array value of the module, and the entry
// computation layout, the TPU's tiled layout (tiled_shape.h). The dimension
// order (minor_to_major) is kept as written: a value written {0,1} is tiled
// over dimensions 0 and 1. It does not choose new dimension orders, insert
// copies between layouts, or pick layouts per generation.
#ifndef XLA_BACKENDS_TPU_TPU_LAYOUT_ASSIGNMENT_H_
#define XLA_BACKENDS_TPU_TPU_LAYOUT_ASSIGNMENT_H_

#include "xla/passes/hlo_pass.h"

namespace xla::tpu {

class TpuLayoutAssignment : public HloPassInterface {
 public:
  std::string_view name() const override { return "tpu-layout-assignment"; }
  StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla::tpu

#endif  // XLA_BACKENDS_TPU_TPU_LAYOUT_ASSIGNMENT_H_
