#include "xla/backends/cpu/runtime/conv_thunk.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "xla/backends/cpu/runtime/gemm.h"
#include "xla/backends/cpu/runtime/thread_pool.h"

namespace xla::cpu {
namespace {

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

// Bytes of one block of patches: small enough to stay in L2 while the GEMM
// streams through it, large enough that the GEMM amortises its packing.
constexpr int64_t kPatchBlockBytes = 256 * 1024;

// Copies n elements, src[i * src_stride] -> dst[i * dst_stride].
template <typename T>
void CopyStrided(const T* src, int64_t src_stride, int64_t n, T* dst, int64_t dst_stride = 1) {
  if (src_stride == 1 && dst_stride == 1) {
    std::memcpy(dst, src, n * sizeof(T));
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i * dst_stride] = src[i * src_stride];
  }
}

// Decomposes `flat` into coordinates of `sizes` (row-major, last fastest).
void Unflatten(int64_t flat, const std::vector<int64_t>& sizes, int64_t* coords) {
  for (int i = static_cast<int>(sizes.size()) - 1; i >= 0; --i) {
    coords[i] = sizes[i] ? flat % sizes[i] : 0;
    flat = sizes[i] ? flat / sizes[i] : 0;
  }
}

}  // namespace

bool ConvThunk::Supports(PrimitiveType lhs, PrimitiveType rhs, PrimitiveType out,
                         int64_t batch_group_count) {
  const bool real = out == PrimitiveType::F32 || out == PrimitiveType::F64;
  return real && lhs == out && rhs == out && batch_group_count <= 1;
}

ConvThunk::ConvThunk(Params p) : p_(std::move(p)) {
  const ConvolutionDimensionNumbers& dn = p_.dnums;
  p_.feature_group_count = std::max<int64_t>(1, p_.feature_group_count);
  batch_ = p_.lhs_dims[dn.input_batch_dimension];
  in_features_ = p_.lhs_dims[dn.input_feature_dimension];
  out_features_ = p_.out_dims[dn.output_feature_dimension];
  group_in_ = p_.rhs_dims[dn.kernel_input_feature_dimension];
  group_out_ = out_features_ / p_.feature_group_count;
  for (int64_t d : dn.output_spatial_dimensions) positions_ *= p_.out_dims[d];
  for (int64_t d : dn.kernel_spatial_dimensions) window_elems_ *= p_.rhs_dims[d];
  lhs_strides_ = RowMajorStrides(p_.lhs_dims);
  rhs_strides_ = RowMajorStrides(p_.rhs_dims);
  out_strides_ = RowMajorStrides(p_.out_dims);
  if (!p_.window.empty()) {
    const WindowDimension& last = p_.window.back();
    window_runs_contiguous_ =
        lhs_strides_[dn.input_feature_dimension] == 1 && last.window_dilation == 1 &&
        last.base_dilation == 1 &&
        lhs_strides_[dn.input_spatial_dimensions.back()] == group_in_;
  }
  int64_t expected_stride = out_features_;
  output_rows_contiguous_ = out_strides_[dn.output_feature_dimension] == 1;
  for (int i = static_cast<int>(dn.output_spatial_dimensions.size()) - 1; i >= 0; --i) {
    const int64_t d = dn.output_spatial_dimensions[i];
    if (p_.out_dims[d] > 1 && out_strides_[d] != expected_stride) output_rows_contiguous_ = false;
    expected_stride *= p_.out_dims[d];
  }
}

template <typename T>
void ConvThunk::RunTyped(const ThunkParams& params) const {
  const T* rhs = static_cast<const T*>(params.buffers[p_.rhs_slot]);
  T* out = static_cast<T*>(params.buffers[p_.out_slot]);
  const ConvolutionDimensionNumbers& dn = p_.dnums;
  const size_t ns = p_.window.size();
  const int64_t groups = p_.feature_group_count;
  const int64_t depth = window_elems_ * group_in_;  // the GEMM's inner dimension
  int64_t out_elems = 1;
  for (int64_t d : p_.out_dims) out_elems *= d;
  if (out_elems == 0) return;
  if (depth == 0) {
    std::fill(out, out + out_elems, T(0));
    return;
  }
  std::vector<int64_t> window_sizes(ns), out_sizes(ns);
  for (size_t i = 0; i < ns; ++i) {
    window_sizes[i] = p_.rhs_dims[dn.kernel_spatial_dimensions[i]];
    out_sizes[i] = p_.out_dims[dn.output_spatial_dimensions[i]];
  }

  // The kernel as one [depth, group_out] matrix per group; window reversal
  // is applied here, so patches always walk the window forwards.
  std::vector<T> packed(groups * depth * group_out_);
  std::vector<int64_t> w(ns);
  for (int64_t wi = 0; wi < window_elems_; ++wi) {
    Unflatten(wi, window_sizes, w.data());
    int64_t base = 0;
    for (size_t i = 0; i < ns; ++i) {
      int64_t k = p_.window[i].window_reversal ? window_sizes[i] - 1 - w[i] : w[i];
      base += k * rhs_strides_[dn.kernel_spatial_dimensions[i]];
    }
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t ic = 0; ic < group_in_; ++ic) {
        const T* src = rhs + base + ic * rhs_strides_[dn.kernel_input_feature_dimension] +
                       g * group_out_ * rhs_strides_[dn.kernel_output_feature_dimension];
        T* dst = packed.data() + ((g * window_elems_ + wi) * group_in_ + ic) * group_out_;
        CopyStrided(src, rhs_strides_[dn.kernel_output_feature_dimension], group_out_, dst);
      }
    }
  }

  // Patches are gathered along whichever of the input's batch and feature
  // dimensions is contiguous: rows of output positions when features are
  // (NHWC-style inputs), columns of batch elements when the batch is (the
  // input of a kernel-gradient convolution, whose "batch" is a feature).
  if (lhs_strides_[dn.input_batch_dimension] == 1 &&
      lhs_strides_[dn.input_feature_dimension] != 1 && batch_ > 1) {
    RunBatchColumns<T>(params, packed.data(), window_sizes, out_sizes);
  } else {
    RunPositionRows<T>(params, packed.data(), window_sizes, out_sizes);
  }
}

// Input offset of output position `o` and window position `w` (coordinates in
// logical spatial order); false when it falls in padding or a dilation hole.
bool ConvThunk::InputOffset(const int64_t* o, const int64_t* w, int64_t* offset) const {
  const ConvolutionDimensionNumbers& dn = p_.dnums;
  *offset = 0;
  for (size_t i = 0; i < p_.window.size(); ++i) {
    const WindowDimension& wd = p_.window[i];
    int64_t pos = o[i] * wd.stride - wd.padding_low + w[i] * wd.window_dilation;
    if (pos < 0) return false;
    if (wd.base_dilation != 1) {
      if (pos % wd.base_dilation != 0) return false;
      pos /= wd.base_dilation;
    }
    const int64_t in_dim = dn.input_spatial_dimensions[i];
    if (pos >= p_.lhs_dims[in_dim]) return false;
    *offset += pos * lhs_strides_[in_dim];
  }
  return true;
}

int64_t ConvThunk::OutputOffset(int64_t b, int64_t first_feature, const int64_t* o) const {
  const ConvolutionDimensionNumbers& dn = p_.dnums;
  int64_t offset = b * out_strides_[dn.output_batch_dimension] +
                   first_feature * out_strides_[dn.output_feature_dimension];
  for (size_t i = 0; i < p_.window.size(); ++i) {
    offset += o[i] * out_strides_[dn.output_spatial_dimensions[i]];
  }
  return offset;
}

template <typename T>
void ConvThunk::GatherPatchRow(const T* lhs_b, const int64_t* o, const int64_t* window_coords,
                               T* row) const {
  const size_t ns = p_.window.size();
  const int64_t lhs_feature_stride = lhs_strides_[p_.dnums.input_feature_dimension];
  if (!window_runs_contiguous_) {
    for (int64_t wi = 0; wi < window_elems_; ++wi) {
      int64_t offset;
      T* dst = row + wi * group_in_;
      if (InputOffset(o, window_coords + wi * ns, &offset)) {
        CopyStrided(lhs_b + offset, lhs_feature_stride, group_in_, dst);
      } else {
        std::fill(dst, dst + group_in_, T(0));
      }
    }
    return;
  }
  // One run per position of the other window dimensions: the elements whose
  // last coordinate lands inside the input are one contiguous block.
  const WindowDimension& last = p_.window.back();
  const int64_t run = p_.rhs_dims[p_.dnums.kernel_spatial_dimensions.back()];
  const int64_t first = o[ns - 1] * last.stride - last.padding_low;
  const int64_t size = p_.lhs_dims[p_.dnums.input_spatial_dimensions.back()];
  const int64_t lo = std::clamp<int64_t>(-first, 0, run);
  const int64_t hi = std::clamp<int64_t>(size - first, lo, run);
  for (int64_t wi = 0; wi < window_elems_; wi += run) {
    T* dst = row + wi * group_in_;
    int64_t offset;
    if (lo < hi && InputOffset(o, window_coords + (wi + lo) * ns, &offset)) {
      std::fill(dst, dst + lo * group_in_, T(0));
      std::memcpy(dst + lo * group_in_, lhs_b + offset, (hi - lo) * group_in_ * sizeof(T));
      std::fill(dst + hi * group_in_, dst + run * group_in_, T(0));
    } else {
      std::fill(dst, dst + run * group_in_, T(0));
    }
  }
}

template <typename T>
void ConvThunk::RunPositionRows(const ThunkParams& params, const T* packed,
                                const std::vector<int64_t>& window_sizes,
                                const std::vector<int64_t>& out_sizes) const {
  const T* lhs = static_cast<const T*>(params.buffers[p_.lhs_slot]);
  T* out = static_cast<T*>(params.buffers[p_.out_slot]);
  const ConvolutionDimensionNumbers& dn = p_.dnums;
  const size_t ns = p_.window.size();
  const int64_t groups = p_.feature_group_count;
  const int64_t depth = window_elems_ * group_in_;
  const int64_t rows_per_block = std::clamp<int64_t>(
      kPatchBlockBytes / static_cast<int64_t>(depth * sizeof(T)), 8, positions_);
  const int64_t blocks = (positions_ + rows_per_block - 1) / rows_per_block;
  const int64_t lhs_feature_stride = lhs_strides_[dn.input_feature_dimension];
  const int64_t out_feature_stride = out_strides_[dn.output_feature_dimension];
  std::vector<int64_t> window_coords(window_elems_ * ns);
  for (int64_t wi = 0; wi < window_elems_; ++wi) {
    Unflatten(wi, window_sizes, window_coords.data() + wi * ns);
  }

  params.pool->ParallelFor(batch_ * groups * blocks, [&](int64_t task) {
    const int64_t b = task / (groups * blocks);
    const int64_t g = (task / blocks) % groups;
    const int64_t r0 = (task % blocks) * rows_per_block;
    const int64_t rows = std::min(positions_, r0 + rows_per_block) - r0;
    // Scratch that is written in full before it is read: left uninitialised.
    std::unique_ptr<T[]> patches(new T[rows * depth]);
    std::unique_ptr<T[]> result(output_rows_contiguous_ ? nullptr : new T[rows * group_out_]);
    std::vector<int64_t> o(ns);
    const T* lhs_b = lhs + b * lhs_strides_[dn.input_batch_dimension] +
                     g * group_in_ * lhs_feature_stride;
    for (int64_t r = 0; r < rows; ++r) {
      Unflatten(r0 + r, out_sizes, o.data());
      GatherPatchRow(lhs_b, o.data(), window_coords.data(), patches.get() + r * depth);
    }
    GemmArgs<T> gemm;
    gemm.m = rows;
    gemm.n = group_out_;
    gemm.k = depth;
    gemm.a = patches.get();
    gemm.lda = depth;
    gemm.b = packed + g * depth * group_out_;
    gemm.ldb = group_out_;
    if (output_rows_contiguous_) {
      Unflatten(r0, out_sizes, o.data());
      gemm.c = out + OutputOffset(b, g * group_out_, o.data());
      gemm.ldc = out_features_;
      Gemm<T>(gemm);
      return;
    }
    gemm.c = result.get();
    gemm.ldc = group_out_;
    Gemm<T>(gemm);
    for (int64_t r = 0; r < rows; ++r) {
      Unflatten(r0 + r, out_sizes, o.data());
      CopyStrided(result.get() + r * group_out_, 1, group_out_,
                  out + OutputOffset(b, g * group_out_, o.data()), out_feature_stride);
    }
  });
}

template <typename T>
void ConvThunk::RunBatchColumns(const ThunkParams& params, const T* packed,
                                const std::vector<int64_t>& window_sizes,
                                const std::vector<int64_t>& out_sizes) const {
  const T* lhs = static_cast<const T*>(params.buffers[p_.lhs_slot]);
  T* out = static_cast<T*>(params.buffers[p_.out_slot]);
  const ConvolutionDimensionNumbers& dn = p_.dnums;
  const size_t ns = p_.window.size();
  const int64_t groups = p_.feature_group_count;
  const int64_t depth = window_elems_ * group_in_;
  const int64_t lhs_feature_stride = lhs_strides_[dn.input_feature_dimension];
  const int64_t out_feature_stride = out_strides_[dn.output_feature_dimension];
  const int64_t chunk = std::clamp<int64_t>(
      kPatchBlockBytes / static_cast<int64_t>(batch_ * sizeof(T)), 8, depth);
  // One task per output position and group: result[batch, group_out] is the
  // sum over depth chunks of patches[chunk, batch]^T * kernel[chunk, group_out].
  params.pool->ParallelFor(positions_ * groups, [&](int64_t task) {
    const int64_t position = task / groups, g = task % groups;
    std::vector<int64_t> o(ns), wc(ns);
    Unflatten(position, out_sizes, o.data());
    std::unique_ptr<T[]> patches(new T[chunk * batch_]);
    std::unique_ptr<T[]> result(new T[batch_ * group_out_]);  // the first chunk's GEMM sets it
    const T* lhs_g = lhs + g * group_in_ * lhs_feature_stride;
    for (int64_t d0 = 0; d0 < depth; d0 += chunk) {
      const int64_t n = std::min(depth, d0 + chunk) - d0;
      for (int64_t d = 0; d < n; ++d) {
        const int64_t wi = (d0 + d) / group_in_, ic = (d0 + d) % group_in_;
        Unflatten(wi, window_sizes, wc.data());
        int64_t offset;
        T* dst = patches.get() + d * batch_;
        if (InputOffset(o.data(), wc.data(), &offset)) {
          std::memcpy(dst, lhs_g + offset + ic * lhs_feature_stride, batch_ * sizeof(T));
        } else {
          std::fill(dst, dst + batch_, T(0));
        }
      }
      GemmArgs<T> gemm;  // result (+)= patches^T * kernel rows [d0, d0 + n)
      gemm.m = batch_;
      gemm.n = group_out_;
      gemm.k = n;
      gemm.a = patches.get();
      gemm.lda = batch_;
      gemm.a_transposed = true;
      gemm.b = packed + (g * depth + d0) * group_out_;
      gemm.ldb = group_out_;
      gemm.c = result.get();
      gemm.ldc = group_out_;
      gemm.accumulate = d0 > 0;
      Gemm<T>(gemm);
    }
    for (int64_t b = 0; b < batch_; ++b) {
      CopyStrided(result.get() + b * group_out_, 1, group_out_,
                  out + OutputOffset(b, g * group_out_, o.data()), out_feature_stride);
    }
  });
}

Status ConvThunk::Run(const ThunkParams& params) const {
  if (p_.type == PrimitiveType::F64) {
    RunTyped<double>(params);
  } else {
    RunTyped<float>(params);
  }
  return OkStatus();
}

}  // namespace xla::cpu
