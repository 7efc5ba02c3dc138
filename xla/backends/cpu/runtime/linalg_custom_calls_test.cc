// The lapack_*_ffi custom-call factories check shapes and attributes and run
// a batch through a thunk; the registry parses real JAX's FFI attributes.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "xla/backends/cpu/runtime/custom_call_registry.h"
#include "xla/backends/cpu/runtime/flush_denormals.h"
#include "xla/hlo/testing/check.h"

namespace xla::cpu {
namespace {

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Symmetric positive definite (Eigen's Random is uniform in [-1, 1]).
Mat Spd(int64_t n) {
  Mat m = Mat::Random(n, n);
  return m * m.transpose() + Mat::Identity(n, n) * n;
}

TEST(ParsesFfiAttributes) {
  auto attrs = ParseFfiAttributes("{mode = 86 : ui8, uplo = 76 : ui8}");
  CHECK_OK(attrs);
  EXPECT_EQ(attrs->at("mode"), 86);
  EXPECT_EQ(attrs->at("uplo"), 76);
  CHECK_OK(ParseFfiAttributes("{}"));
  CHECK_OK(ParseFfiAttributes(""));
  EXPECT_TRUE(!ParseFfiAttributes("{mode = }").ok());
  EXPECT_TRUE(!ParseFfiAttributes("{mode = 1 : ui8").ok());
  EXPECT_TRUE(!ParseFfiAttributes("{a = 1, a = 2}").ok());
}

// A batched potrf through the registry and its thunk: every matrix factored,
// info per matrix.
TEST(BatchedPotrfThroughRegistry) {
  const CustomCallFactory* factory = CustomCallRegistry::Builtin().Find("lapack_dpotrf_ffi");
  CHECK_TRUE(factory != nullptr);
  CustomCallArgs args;
  args.target = "lapack_dpotrf_ffi";
  args.instruction = "chol";
  args.operands = {Shape(PrimitiveType::F64, {2, 3, 3})};
  args.operand_slots = {0};
  args.results = {Shape(PrimitiveType::F64, {2, 3, 3}), Shape(PrimitiveType::S32, {2})};
  args.result_slots = {1, 2};
  args.attributes = {{"uplo", 'L'}};
  auto thunk = (*factory)(args);
  CHECK_OK(thunk);
  Mat good = Spd(3), bad = -Spd(3);
  std::vector<double> in(18), out(18);
  std::copy(good.data(), good.data() + 9, in.begin());
  std::copy(bad.data(), bad.data() + 9, in.begin() + 9);
  int32_t info[2] = {-1, -1};
  void* buffers[] = {in.data(), out.data(), info};
  ThunkParams params;
  params.buffers = buffers;
  CHECK_OK((*thunk)->Run(params));
  EXPECT_EQ(info[0], 0);
  EXPECT_EQ(info[1], 1);
  Mat l = Eigen::Map<Mat>(out.data(), 3, 3).triangularView<Eigen::Lower>();
  EXPECT_TRUE((l * l.transpose() - good).norm() <= 1e-12 * good.norm());

  args.results[1] = Shape(PrimitiveType::S32, {3});
  auto wrong = (*factory)(args);
  CHECK_TRUE(!wrong.ok());
  EXPECT_TRUE(wrong.status().message().find("info") != std::string::npos);
  args.results[1] = Shape(PrimitiveType::S32, {2});
  args.attributes = {{"uplo", 'X'}};
  EXPECT_TRUE(!(*factory)(args).ok());
  EXPECT_TRUE(CustomCallRegistry::Builtin().Find("lapack_zheevd_ffi") != nullptr);
  EXPECT_TRUE(CustomCallRegistry::Builtin().Find("lapack_sheevd_ffi") == nullptr);
}

// Executables run with denormals flushed; the SVD must not see that mode. A
// constant (rank-1) matrix made Eigen's divide-and-conquer SVD index out of
// bounds at 128x128 and return wrong singular values at 256x256 under it.
TEST(SvdOfARankOneMatrixWhileFlushingDenormals) {
  const CustomCallFactory* factory = CustomCallRegistry::Builtin().Find("lapack_sgesdd_ffi");
  CHECK_TRUE(factory != nullptr);
  for (int64_t n : {128, 256}) {
    CustomCallArgs args;
    args.target = "lapack_sgesdd_ffi";
    args.instruction = "svd";
    args.operands = {Shape(PrimitiveType::F32, {n, n})};
    args.operand_slots = {0};
    args.results = {Shape(PrimitiveType::F32, {n, n}), Shape(PrimitiveType::F32, {n}),
                    Shape(PrimitiveType::F32, {n, n}), Shape(PrimitiveType::F32, {n, n}),
                    Shape(PrimitiveType::S32, {})};
    args.result_slots = {1, 2, 3, 4, 5};
    args.attributes = {{"mode", 'S'}};
    auto thunk = (*factory)(args);
    CHECK_OK(thunk);
    std::vector<float> a(n * n, 0.1f), a_out(n * n), s(n), u(n * n), vt(n * n);
    int32_t info = -1;
    void* buffers[] = {a.data(), a_out.data(), s.data(), u.data(), vt.data(), &info};
    ThunkParams params;
    params.buffers = buffers;
    {
      ScopedFlushDenormals flush;
      CHECK_OK((*thunk)->Run(params));
    }
    EXPECT_EQ(info, 0);
    // One singular value, 0.1 * n; the rest are zero.
    EXPECT_TRUE(std::abs(s[0] - 0.1f * n) <= 1e-4f * n);
    EXPECT_TRUE(std::all_of(s.begin() + 1, s.end(), [](float v) { return std::abs(v) < 1e-4f; }));
  }
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
