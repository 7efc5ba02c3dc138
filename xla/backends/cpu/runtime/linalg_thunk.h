// Cholesky and triangular-solve through Eigen, batched over leading dims.
//
// Cholesky reads only the triangle it is asked for and writes the factor
// there (the other triangle is left as the input had it, which HLO leaves
// unspecified); a matrix that is not positive definite gives NaNs, as in
// XLA. Triangular solve reads only the named triangle of `a`.
#ifndef XLA_BACKENDS_CPU_RUNTIME_LINALG_THUNK_H_
#define XLA_BACKENDS_CPU_RUNTIME_LINALG_THUNK_H_

#include "xla/backends/cpu/runtime/thunk.h"
#include "xla/hlo/ir/attributes.h"
#include "xla/hlo/ir/primitive_type.h"

namespace xla::cpu {

class CholeskyThunk final : public Thunk {
 public:
  struct Params {
    int input_slot = 0, output_slot = 0;
    PrimitiveType type = PrimitiveType::F32;  // F32 or F64
    int64_t batch = 1, n = 0;
    bool lower = true;
  };
  explicit CholeskyThunk(Params p) : p_(p) {}
  Status Run(const ThunkParams& params) const override;

 private:
  Params p_;
};

class TriangularSolveThunk final : public Thunk {
 public:
  struct Params {
    int a_slot = 0, b_slot = 0, output_slot = 0;
    PrimitiveType type = PrimitiveType::F32;  // F32 or F64
    int64_t batch = 1, m = 0, n = 0;  // b is [batch, m, n]
    TriangularSolveOptions options;
  };
  explicit TriangularSolveThunk(Params p) : p_(p) {}
  Status Run(const ThunkParams& params) const override;

 private:
  Params p_;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_LINALG_THUNK_H_
