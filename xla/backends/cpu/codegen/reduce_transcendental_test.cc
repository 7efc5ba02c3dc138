// Reductions (vectorised, split over the pool, column-wise) and vectorised
// transcendental functions, run end to end through the CPU client and
// compared with references computed on the host.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "xla/backends/cpu/cpu_client.h"
#include "xla/hlo/testing/check.h"

namespace xla::cpu {
namespace {

constexpr PrimitiveType F32 = PrimitiveType::F32;
constexpr PrimitiveType S32 = PrimitiveType::S32;

Client& TestClient() {
  static std::unique_ptr<Client> client = [] {
    auto c = CpuPluginInfo().create_client({});
    if (!c.ok()) {
      std::fprintf(stderr, "cannot create client: %s\n", c.status().ToString().c_str());
      std::abort();
    }
    return std::move(c).value();
  }();
  return *client;
}

// Runs a one-parameter, one-output module.
template <typename Out, typename In>
StatusOr<std::vector<Out>> Run(const std::string& hlo, PrimitiveType in_type,
                               const std::vector<int64_t>& dims, const std::vector<In>& input) {
  Client& client = TestClient();
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe, client.CompileText(hlo, {}, {}));
  ASSIGN_OR_RETURN(std::unique_ptr<Buffer> arg,
                   client.BufferFromHost(input.data(), in_type, dims, {}, client.devices()[0]));
  ASSIGN_OR_RETURN(auto outs, exe->Execute({{arg.get()}}, {}));
  std::vector<Out> result(outs[0][0]->size_in_bytes() / sizeof(Out));
  RETURN_IF_ERROR(outs[0][0]->ToHost(result.data()));
  return result;
}

std::string ReduceModule(const std::string& type, const std::string& op,
                         const std::string& in_shape, const std::string& out_shape,
                         const std::string& dims, const std::string& init) {
  return "HloModule m\ncombine {\n  a = " + type + "[] parameter(0)\n  b = " + type +
         "[] parameter(1)\n  ROOT r = " + type + "[] " + op + "(a, b)\n}\nENTRY main {\n  x = " +
         type + in_shape + " parameter(0)\n  z = " + type + "[] constant(" + init +
         ")\n  ROOT s = " + type + out_shape + " reduce(x, z), dimensions={" + dims +
         "}, to_apply=combine\n}\n";
}

std::vector<float> Ramp(int64_t n) {
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = 0.001f * static_cast<float>((i * 7919) % 2003) - 1.0f;
  return x;
}

bool Near(double got, double want, double rel) {
  return std::fabs(got - want) <= rel * (1 + std::fabs(want));
}

// Long enough to be split into partial sums over the thread pool; the init
// value is not the identity, so it must be added exactly once.
TEST(FullSumIsSplitAndAccurate) {
  const int64_t n = 1000003;
  std::vector<float> x = Ramp(n);
  double want = 5.0;
  for (float v : x) want += v;
  auto r = Run<float>(ReduceModule("f32", "add", "[1000003]{0}", "[]", "0", "5"), F32, {n}, x);
  CHECK_OK(r);
  EXPECT_TRUE(Near((*r)[0], want, 1e-4));
}

TEST(SplitSumOfFewRows) {
  const int64_t rows = 3, cols = 300001;
  std::vector<float> x = Ramp(rows * cols);
  auto r = Run<float>(ReduceModule("f32", "add", "[3,300001]{1,0}", "[3]{0}", "1", "0"), F32,
                      {rows, cols}, x);
  CHECK_OK(r);
  for (int64_t i = 0; i < rows; ++i) {
    double want = 0;
    for (int64_t j = 0; j < cols; ++j) want += x[i * cols + j];
    EXPECT_TRUE(Near((*r)[i], want, 1e-4));
  }
}

TEST(IntegerSumIsExact) {
  const int64_t n = 777777;
  std::vector<int32_t> x(n);
  int32_t want = 0;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<int32_t>((i * 2654435761u) % 100000) - 50000;
    want += x[i];
  }
  auto r = Run<int32_t>(ReduceModule("s32", "add", "[777777]{0}", "[]", "0", "0"), S32, {n}, x);
  CHECK_OK(r);
  EXPECT_EQ((*r)[0], want);
}

TEST(MaxAndMinPropagateNaN) {
  const int64_t n = 200000;
  std::vector<float> x = Ramp(n);
  x[123457] = 7.5f;
  auto mx = Run<float>(ReduceModule("f32", "maximum", "[200000]{0}", "[]", "0", "-inf"), F32,
                       {n}, x);
  CHECK_OK(mx);
  EXPECT_EQ((*mx)[0], 7.5f);
  x[99999] = std::numeric_limits<float>::quiet_NaN();
  mx = Run<float>(ReduceModule("f32", "maximum", "[200000]{0}", "[]", "0", "-inf"), F32, {n}, x);
  CHECK_OK(mx);
  EXPECT_TRUE(std::isnan((*mx)[0]));
  auto mn = Run<float>(ReduceModule("f32", "minimum", "[200000]{0}", "[]", "0", "inf"), F32,
                       {n}, x);
  CHECK_OK(mn);
  EXPECT_TRUE(std::isnan((*mn)[0]));
  // Row reductions (not split) too, with the NaN in row 1 only.
  auto rows = Run<float>(ReduceModule("f32", "maximum", "[4,50000]{1,0}", "[4]{0}", "1", "-inf"),
                         F32, {4, 50000}, x);
  CHECK_OK(rows);
  EXPECT_TRUE(!std::isnan((*rows)[0]) && std::isnan((*rows)[1]));
  EXPECT_EQ((*rows)[2], 7.5f);
}

TEST(RowSumsMatch) {
  const int64_t rows = 37, cols = 1001;
  std::vector<float> x = Ramp(rows * cols);
  auto r = Run<float>(ReduceModule("f32", "add", "[37,1001]{1,0}", "[37]{0}", "1", "0"), F32,
                      {rows, cols}, x);
  CHECK_OK(r);
  for (int64_t i = 0; i < rows; ++i) {
    double want = 0;
    for (int64_t j = 0; j < cols; ++j) want += x[i * cols + j];
    EXPECT_TRUE(Near((*r)[i], want, 1e-5));
  }
}

// Column reductions keep the sequential order, so they match a float loop
// bit for bit, for any reducer (here one that is not associative).
TEST(ColumnReductionsKeepOrder) {
  const int64_t rows = 129, cols = 77;
  std::vector<float> x = Ramp(rows * cols);
  auto sums = Run<float>(ReduceModule("f32", "add", "[129,77]{1,0}", "[77]{0}", "0", "1"), F32,
                         {rows, cols}, x);
  auto diffs = Run<float>(ReduceModule("f32", "subtract", "[129,77]{1,0}", "[77]{0}", "0", "1"),
                          F32, {rows, cols}, x);
  CHECK_OK(sums);
  CHECK_OK(diffs);
  for (int64_t j = 0; j < cols; ++j) {
    float s = 1, d = 1;
    for (int64_t i = 0; i < rows; ++i) {
      s += x[i * cols + j];
      d -= x[i * cols + j];
    }
    EXPECT_EQ((*sums)[j], s);
    EXPECT_EQ((*diffs)[j], d);
  }
  // Leading two of three dimensions reduced.
  auto r3 = Run<float>(ReduceModule("f32", "add", "[3,43,77]{2,1,0}", "[77]{0}", "0,1", "0"),
                       F32, {3, 43, 77}, x);
  CHECK_OK(r3);
  for (int64_t j = 0; j < cols; ++j) {
    float s = 0;
    for (int64_t i = 0; i < rows; ++i) s += x[i * cols + j];
    EXPECT_EQ((*r3)[j], s);
  }
}

// Units in the last place between two floats of the same sign.
int64_t UlpDistance(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  return std::llabs(static_cast<int64_t>(ia) - ib);
}

// Values across the domain plus the edges: zeros, denormals, overflow and
// underflow, infinities and NaN.
std::vector<float> TranscendentalInputs() {
  std::vector<float> x;
  for (int i = -4000; i <= 4000; ++i) x.push_back(0.0271f * static_cast<float>(i));
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.0f, -0.0f, 1e-40f, -1e-40f, 1e-30f, 88.7f, 89.0f, -87.0f, -103.0f, -110.0f,
                  1e5f, -1e5f, inf, -inf, std::numeric_limits<float>::quiet_NaN()}) {
    x.push_back(v);
  }
  return x;
}

void CheckUnary(const char* hlo_op, double (*reference)(double), int64_t max_ulps,
                float min_x = -std::numeric_limits<float>::infinity()) {
  std::vector<float> x;
  for (float v : TranscendentalInputs()) {
    if (!(v < min_x)) x.push_back(v);
  }
  const std::string n = std::to_string(x.size());
  auto r = Run<float>("HloModule m\nENTRY main {\n  x = f32[" + n + "]{0} parameter(0)\n  ROOT y = f32[" +
                          n + "]{0} " + hlo_op + "(x)\n}\n",
                      F32, {static_cast<int64_t>(x.size())}, x);
  CHECK_OK(r);
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = static_cast<float>(reference(x[i]));
    const float got = (*r)[i];
    bool ok;
    if (std::isnan(want)) {
      ok = std::isnan(got);
    } else if (std::isinf(want) || want == 0) {
      ok = got == want;
    } else if (std::fabs(want) < std::numeric_limits<float>::min()) {
      // Denormal results have fewer significant bits: bound the absolute error.
      // exp (and logistic through it) flushes results below the normal range
      // to zero, as XLA:CPU's does.
      ok = std::fabs(got - want) <= max_ulps * std::numeric_limits<float>::denorm_min() ||
           got == 0;
    } else {
      ok = UlpDistance(got, want) <= max_ulps;
    }
    if (!ok) std::fprintf(stderr, "%s(%a) = %a, want %a\n", hlo_op, x[i], got, want);
    EXPECT_TRUE(ok);
  }
}

double Logistic(double x) { return 1 / (1 + std::exp(-x)); }

TEST(TranscendentalsAreAccurate) {
  CheckUnary("exponential", static_cast<double (*)(double)>(std::exp), 4);
  CheckUnary("exponential-minus-one", static_cast<double (*)(double)>(std::expm1), 4);
  CheckUnary("tanh", static_cast<double (*)(double)>(std::tanh), 4);
  CheckUnary("logistic", Logistic, 8);
  // log reads a denormal input as the smallest normal float (as XLA:CPU's
  // does): check it from there on.
  CheckUnary("log", static_cast<double (*)(double)>(std::log), 4,
             std::numeric_limits<float>::min());
  CheckUnary("log-plus-one", static_cast<double (*)(double)>(std::log1p), 4, -1.0f);
  CheckUnary("sine", static_cast<double (*)(double)>(std::sin), 4);
  CheckUnary("cosine", static_cast<double (*)(double)>(std::cos), 4);
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
