// ConvThunk agrees with a direct evaluation of HLO convolution semantics
// over layouts that take both patch orientations, padding, strides, both
// dilations, window reversal and feature groups.
#include "xla/backends/cpu/runtime/conv_thunk.h"

#include <cmath>
#include <random>
#include <vector>

#include "xla/backends/cpu/runtime/thread_pool.h"
#include "xla/hlo/testing/check.h"

namespace xla::cpu {
namespace {

struct Case {
  // Logical sizes.
  int64_t batch, in_features, out_features, groups;
  std::vector<int64_t> in_spatial, window;
  std::vector<WindowDimension> dims;  // size filled from `window`
  // Physical order of (batch, feature, spatial...) for lhs and out, and of
  // (in_feature, out_feature, spatial...) for rhs, as row-major positions.
  std::vector<int64_t> lhs_order, rhs_order, out_order;
};

int64_t OutSize(int64_t in, const WindowDimension& wd) {
  const int64_t dilated_in = in == 0 ? 0 : (in - 1) * wd.base_dilation + 1;
  const int64_t padded = dilated_in + wd.padding_low + wd.padding_high;
  const int64_t dilated_window = (wd.size - 1) * wd.window_dilation + 1;
  return padded < dilated_window ? 0 : (padded - dilated_window) / wd.stride + 1;
}

// Row-major dims and the dimension numbers for logical sizes in `order`.
std::vector<int64_t> Physical(const std::vector<int64_t>& logical,
                              const std::vector<int64_t>& order) {
  std::vector<int64_t> dims(logical.size());
  for (size_t i = 0; i < logical.size(); ++i) dims[order[i]] = logical[i];
  return dims;
}

int64_t Offset(const std::vector<int64_t>& dims, const std::vector<int64_t>& order,
               const std::vector<int64_t>& logical_index) {
  std::vector<int64_t> index(dims.size());
  for (size_t i = 0; i < order.size(); ++i) index[order[i]] = logical_index[i];
  int64_t offset = 0;
  for (size_t i = 0; i < dims.size(); ++i) offset = offset * dims[i] + index[i];
  return offset;
}

void CheckCase(const Case& c) {
  const size_t ns = c.in_spatial.size();
  std::vector<WindowDimension> window = c.dims;
  std::vector<int64_t> out_spatial(ns);
  for (size_t i = 0; i < ns; ++i) {
    window[i].size = c.window[i];
    out_spatial[i] = OutSize(c.in_spatial[i], window[i]);
  }
  const int64_t gi = c.in_features / c.groups, go = c.out_features / c.groups;
  std::vector<int64_t> lhs_logical = {c.batch, c.in_features}, rhs_logical = {gi, c.out_features},
                       out_logical = {c.batch, c.out_features};
  for (size_t i = 0; i < ns; ++i) {
    lhs_logical.push_back(c.in_spatial[i]);
    rhs_logical.push_back(c.window[i]);
    out_logical.push_back(out_spatial[i]);
  }
  ConvThunk::Params p;
  p.type = PrimitiveType::F32;
  p.lhs_slot = 0, p.rhs_slot = 1, p.out_slot = 2;
  p.lhs_dims = Physical(lhs_logical, c.lhs_order);
  p.rhs_dims = Physical(rhs_logical, c.rhs_order);
  p.out_dims = Physical(out_logical, c.out_order);
  p.dnums.input_batch_dimension = c.lhs_order[0];
  p.dnums.input_feature_dimension = c.lhs_order[1];
  p.dnums.kernel_input_feature_dimension = c.rhs_order[0];
  p.dnums.kernel_output_feature_dimension = c.rhs_order[1];
  p.dnums.output_batch_dimension = c.out_order[0];
  p.dnums.output_feature_dimension = c.out_order[1];
  for (size_t i = 0; i < ns; ++i) {
    p.dnums.input_spatial_dimensions.push_back(c.lhs_order[2 + i]);
    p.dnums.kernel_spatial_dimensions.push_back(c.rhs_order[2 + i]);
    p.dnums.output_spatial_dimensions.push_back(c.out_order[2 + i]);
  }
  p.window = window;
  p.feature_group_count = c.groups;

  auto count = [](const std::vector<int64_t>& d) {
    int64_t n = 1;
    for (int64_t x : d) n *= x;
    return n;
  };
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> lhs(count(p.lhs_dims)), rhs(count(p.rhs_dims)), out(count(p.out_dims), NAN);
  for (float& x : lhs) x = dist(rng);
  for (float& x : rhs) x = dist(rng);

  ThreadPool pool(2);
  void* buffers[] = {lhs.data(), rhs.data(), out.data()};
  ThunkParams params;
  params.buffers = buffers;
  params.pool = &pool;
  const std::vector<int64_t> saved_out_dims = p.out_dims;
  CHECK_OK(ConvThunk(p).Run(params));

  // Direct evaluation, one output element at a time.
  int64_t mismatches = 0;
  std::vector<int64_t> o(ns), w(ns);
  for (int64_t flat = 0; flat < count(out_logical); ++flat) {
    std::vector<int64_t> oi(out_logical.size());
    int64_t rest = flat;
    for (int i = static_cast<int>(out_logical.size()) - 1; i >= 0; --i) {
      oi[i] = rest % out_logical[i];
      rest /= out_logical[i];
    }
    const int64_t b = oi[0], oc = oi[1], g = oc / go;
    double expected = 0;
    for (int64_t wflat = 0; wflat < count(c.window); ++wflat) {
      int64_t wr = wflat;
      for (int i = static_cast<int>(ns) - 1; i >= 0; --i) {
        w[i] = wr % c.window[i];
        wr /= c.window[i];
      }
      std::vector<int64_t> in_index = {b, 0}, k_index = {0, oc};
      bool valid = true;
      for (size_t i = 0; i < ns; ++i) {
        const WindowDimension& wd = window[i];
        int64_t pos = oi[2 + i] * wd.stride - wd.padding_low + w[i] * wd.window_dilation;
        if (pos < 0 || pos % wd.base_dilation != 0) valid = false;
        pos /= wd.base_dilation;
        if (pos >= c.in_spatial[i]) valid = false;
        in_index.push_back(pos);
        k_index.push_back(wd.window_reversal ? c.window[i] - 1 - w[i] : w[i]);
      }
      if (!valid) continue;
      for (int64_t ic = 0; ic < gi; ++ic) {
        in_index[1] = g * gi + ic;
        k_index[0] = ic;
        expected += double(lhs[Offset(p.lhs_dims, c.lhs_order, in_index)]) *
                    rhs[Offset(p.rhs_dims, c.rhs_order, k_index)];
      }
    }
    const float got = out[Offset(saved_out_dims, c.out_order, oi)];
    if (!(std::fabs(got - expected) <= 1e-4 * (1 + std::fabs(expected)))) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0);
}

WindowDimension Dim(int64_t stride, int64_t lo, int64_t hi, int64_t base = 1, int64_t win = 1,
                    bool reversal = false) {
  WindowDimension d;
  d.stride = stride, d.padding_low = lo, d.padding_high = hi;
  d.base_dilation = base, d.window_dilation = win, d.window_reversal = reversal;
  return d;
}

TEST(ChannelsLastSamePadding) {  // b01f_01io->b01f
  CheckCase({2, 5, 6, 1, {7, 6}, {3, 3}, {Dim(1, 1, 1), Dim(1, 1, 1)},
             {0, 3, 1, 2}, {2, 3, 0, 1}, {0, 3, 1, 2}});
}

TEST(ChannelsFirstStridedDilated) {  // bf01_oi01->bf01
  CheckCase({3, 4, 5, 1, {9, 8}, {3, 2}, {Dim(2, 1, 2, 1, 2), Dim(3, 0, 1, 1, 1)},
             {0, 1, 2, 3}, {1, 0, 2, 3}, {0, 1, 2, 3}});
}

TEST(BaseDilationAndReversal) {  // the shape of an input-gradient convolution
  CheckCase({2, 3, 4, 1, {5, 4}, {3, 3}, {Dim(1, 2, 2, 2, 1, true), Dim(1, 1, 2, 2, 1, true)},
             {0, 3, 1, 2}, {2, 3, 1, 0}, {0, 3, 1, 2}});
}

TEST(FeatureGroups) {
  CheckCase({2, 6, 9, 3, {6, 5}, {2, 3}, {Dim(1, 0, 1), Dim(2, 1, 1)},
             {0, 3, 1, 2}, {2, 3, 0, 1}, {0, 3, 1, 2}});
}

TEST(BatchContiguousKernelGradientLayout) {  // f01b_i01o->01bf: batch columns
  CheckCase({6, 4, 5, 1, {8, 7}, {8, 7}, {Dim(1, 1, 1), Dim(1, 1, 1)},
             {3, 0, 1, 2}, {0, 3, 1, 2}, {2, 3, 0, 1}});
}

TEST(BatchContiguousWithGroupsAndStride) {
  CheckCase({4, 6, 6, 2, {9, 7}, {3, 2}, {Dim(2, 0, 1), Dim(1, 1, 0, 1, 2)},
             {3, 0, 1, 2}, {0, 3, 1, 2}, {2, 3, 0, 1}});
}

TEST(OneSpatialDimensionAndNone) {
  CheckCase({3, 4, 2, 1, {10}, {4}, {Dim(3, 2, 1)}, {0, 2, 1}, {1, 2, 0}, {0, 2, 1}});
  CheckCase({5, 7, 3, 1, {}, {}, {}, {0, 1}, {0, 1}, {0, 1}});
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
