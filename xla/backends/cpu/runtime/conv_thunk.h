// Convolution through the GEMM kernels (gemm.h) by im2col: for each batch element and
// feature group, blocks of output positions gather their input windows into a
// patch matrix [positions, window * in_features] that multiplies the kernel
// packed as [window * in_features, out_features]. Any dimension layout, any
// number of spatial dimensions, strides, padding, lhs (base) and rhs (window)
// dilation, window reversal and feature groups; f32 and f64. Blocks run in
// parallel on the pool. batch_group_count > 1 and other element types are
// left to the elemental emitter (see ConvThunk::Supports).
#ifndef XLA_BACKENDS_CPU_RUNTIME_CONV_THUNK_H_
#define XLA_BACKENDS_CPU_RUNTIME_CONV_THUNK_H_

#include <vector>

#include "xla/backends/cpu/runtime/thunk.h"
#include "xla/hlo/ir/attributes.h"
#include "xla/hlo/ir/primitive_type.h"

namespace xla::cpu {

class ConvThunk final : public Thunk {
 public:
  struct Params {
    PrimitiveType type = PrimitiveType::F32;
    int lhs_slot = 0, rhs_slot = 0, out_slot = 0;
    std::vector<int64_t> lhs_dims, rhs_dims, out_dims;  // row-major
    ConvolutionDimensionNumbers dnums;
    std::vector<WindowDimension> window;  // one per spatial dimension
    int64_t feature_group_count = 1;
  };

  // Whether this routine computes the convolution (else: the elemental loop).
  static bool Supports(PrimitiveType lhs, PrimitiveType rhs, PrimitiveType out,
                       int64_t batch_group_count);

  explicit ConvThunk(Params p);
  Status Run(const ThunkParams& params) const override;

 private:
  template <typename T>
  void RunTyped(const ThunkParams& params) const;
  template <typename T>
  void RunPositionRows(const ThunkParams& params, const T* packed,
                       const std::vector<int64_t>& window_sizes,
                       const std::vector<int64_t>& out_sizes) const;
  template <typename T>
  void RunBatchColumns(const ThunkParams& params, const T* packed,
                       const std::vector<int64_t>& window_sizes,
                       const std::vector<int64_t>& out_sizes) const;
  // Writes the patch of output position `o` (window_elems_ * group_in_
  // values) to `row`; window_coords holds each window element's coordinates.
  template <typename T>
  void GatherPatchRow(const T* lhs_b, const int64_t* o, const int64_t* window_coords,
                      T* row) const;
  bool InputOffset(const int64_t* o, const int64_t* w, int64_t* offset) const;
  int64_t OutputOffset(int64_t b, int64_t first_feature, const int64_t* o) const;

  Params p_;
  // Derived once: logical sizes and the row-major strides of each operand.
  int64_t batch_ = 0, in_features_ = 0, out_features_ = 0;
  int64_t group_in_ = 0, group_out_ = 0;  // features per group
  int64_t positions_ = 1, window_elems_ = 1;
  std::vector<int64_t> lhs_strides_, rhs_strides_, out_strides_;
  // Whether consecutive output positions of one batch element and group are
  // out_features_ apart with contiguous features (NHWC-style outputs): the
  // GEMM then writes its rows straight into the output.
  bool output_rows_contiguous_ = false;
  // Whether the window elements along the last spatial dimension read
  // adjacent input positions whose features are contiguous and exactly fill
  // a patch row (NHWC-style inputs, no dilation, one feature group): such a
  // run is copied as one block.
  bool window_runs_contiguous_ = false;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_CONV_THUNK_H_
