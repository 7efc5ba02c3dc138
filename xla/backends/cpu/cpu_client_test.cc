// End-to-end tests of the CPU backend through its Client: each test compiles
// an HLO snippet, runs it and compares the numbers.
#include "xla/backends/cpu/cpu_client.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "xla/backends/cpu/serialized_executable.h"
#include "xla/hlo/testing/check.h"

namespace xla::cpu {
namespace {

struct HostArray {
  PrimitiveType type;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
  template <typename T>
  std::vector<T> As() const {
    std::vector<T> v(bytes.size() / sizeof(T));
    std::memcpy(v.data(), bytes.data(), bytes.size());
    return v;
  }
};

template <typename T>
HostArray Make(PrimitiveType type, std::vector<int64_t> dims, const std::vector<T>& values) {
  HostArray a{type, std::move(dims), std::vector<uint8_t>(values.size() * sizeof(T))};
  std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}

Client& TestClient() {
  static std::unique_ptr<Client> client = [] {
    Options options;
    options["num_devices"] = int64_t{2};
    auto c = CpuPluginInfo().create_client(options);
    if (!c.ok()) {
      std::fprintf(stderr, "cannot create client: %s\n", c.status().ToString().c_str());
      std::abort();
    }
    return std::move(c).value();
  }();
  return *client;
}

StatusOr<std::vector<HostArray>> RunExecutable(Executable& exe, const std::vector<HostArray>& inputs) {
  Client& client = TestClient();
  std::vector<std::unique_ptr<Buffer>> owned;
  std::vector<Buffer*> args;
  for (const HostArray& in : inputs) {
    ASSIGN_OR_RETURN(std::unique_ptr<Buffer> buf,
                     client.BufferFromHost(in.bytes.data(), in.type, in.dims, {},
                                           client.devices()[0]));
    args.push_back(buf.get());
    owned.push_back(std::move(buf));
  }
  ASSIGN_OR_RETURN(auto outs, exe.Execute({args}, {}));
  std::vector<HostArray> result;
  for (auto& out : outs[0]) {
    HostArray a{out->element_type(), out->dimensions(), std::vector<uint8_t>(out->size_in_bytes())};
    RETURN_IF_ERROR(out->ToHost(a.bytes.data()));
    result.push_back(std::move(a));
  }
  return result;
}

StatusOr<std::vector<HostArray>> Run(const std::string& hlo, const std::vector<HostArray>& inputs) {
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe, TestClient().CompileText(hlo, {}, {}));
  return RunExecutable(*exe, inputs);
}

bool Near(double got, double want, double tol = 1e-5) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol * (1 + std::fabs(want));
}

template <typename T>
void ExpectValues(const HostArray& a, const std::vector<T>& want, double tol = 1e-5) {
  std::vector<T> got = a.As<T>();
  EXPECT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    bool ok;
    if constexpr (std::is_floating_point_v<T>) {
      ok = Near(got[i], want[i], tol);
    } else {
      ok = got[i] == want[i];
    }
    if (!ok) {
      std::fprintf(stderr, "  element %zu: got %g want %g\n", i, static_cast<double>(got[i]),
                   static_cast<double>(want[i]));
      EXPECT_TRUE(ok);
      return;
    }
  }
}

const PrimitiveType F32 = PrimitiveType::F32, S32 = PrimitiveType::S32,
                    F64 = PrimitiveType::F64, PRED = PrimitiveType::PRED;

// The broadcasts of jnp's x + y for [3,1] + [1,4], as JAX prints them.
TEST(BroadcastAdd) {
  auto r = Run(R"(HloModule jit_add
ENTRY main.1 {
  a = f32[3,1]{1,0} parameter(0)
  a1 = f32[3,1]{1,0} broadcast(a), dimensions={0,1}
  a2 = f32[3]{0} reshape(a1)
  a3 = f32[3,4]{1,0} broadcast(a2), dimensions={0}
  b = f32[1,4]{1,0} parameter(1)
  b1 = f32[4]{0} reshape(b)
  b2 = f32[3,4]{1,0} broadcast(b1), dimensions={1}
  ROOT s = f32[3,4]{1,0} add(a3, b2)
})",
               {Make<float>(F32, {3, 1}, {1, 2, 3}), Make<float>(F32, {1, 4}, {10, 20, 30, 40})});
  CHECK_OK(r);
  ExpectValues<float>((*r)[0], {11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43});
}

// A chain of elementwise ops fuses into one loop and computes the right thing.
TEST(FusedElementwiseChain) {
  auto r = Run(R"(HloModule chain
ENTRY main {
  x = f32[5]{0} parameter(0)
  y = f32[5]{0} parameter(1)
  e = f32[5]{0} exponential(x)
  two = f32[] constant(2)
  tb = f32[5]{0} broadcast(two), dimensions={}
  m = f32[5]{0} multiply(e, tb)
  s = f32[5]{0} add(m, y)
  t = f32[5]{0} tanh(s)
  l = f32[5]{0} log(y)
  q = f32[5]{0} sqrt(y)
  rs = f32[5]{0} rsqrt(y)
  mx = f32[5]{0} maximum(t, l)
  mn = f32[5]{0} minimum(q, rs)
  ROOT out = (f32[5]{0}, f32[5]{0}, f32[5]{0}) tuple(s, mx, mn)
})",
               {Make<float>(F32, {5}, {0, 1, -1, 0.5f, 2}), Make<float>(F32, {5}, {1, 2, 3, 4, 0.25f})});
  CHECK_OK(r);
  std::vector<float> x = {0, 1, -1, 0.5f, 2}, y = {1, 2, 3, 4, 0.25f};
  std::vector<float> s, mx, mn;
  for (int i = 0; i < 5; ++i) {
    s.push_back(std::exp(x[i]) * 2 + y[i]);
    mx.push_back(std::max(std::tanh(s[i]), std::log(y[i])));
    mn.push_back(std::min(std::sqrt(y[i]), 1 / std::sqrt(y[i])));
  }
  CHECK_TRUE(r->size() == 3);
  ExpectValues<float>((*r)[0], s);
  ExpectValues<float>((*r)[1], mx);
  ExpectValues<float>((*r)[2], mn);
}

// NaN propagates through maximum/minimum/clamp; compare directions; select.
TEST(NanCompareSelectClamp) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto r = Run(R"(HloModule nan
ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  mx = f32[4]{0} maximum(x, y)
  lt = pred[4]{0} compare(x, y), direction=LT
  ne = pred[4]{0} compare(x, y), direction=NE
  sel = f32[4]{0} select(lt, x, y)
  lo = f32[] constant(-1)
  hi = f32[] constant(1)
  cl = f32[4]{0} clamp(lo, x, hi)
  ROOT t = (f32[4]{0}, pred[4]{0}, pred[4]{0}, f32[4]{0}, f32[4]{0}) tuple(mx, lt, ne, sel, cl)
})",
               {Make<float>(F32, {4}, {nan, 1, 5, -3}), Make<float>(F32, {4}, {0, nan, 2, 4})});
  CHECK_OK(r);
  ExpectValues<float>((*r)[0], {nan, nan, 5, 4});
  ExpectValues<uint8_t>((*r)[1], {0, 0, 0, 1});
  ExpectValues<uint8_t>((*r)[2], {1, 1, 1, 1});
  ExpectValues<float>((*r)[3], {0, nan, 2, -3});
  ExpectValues<float>((*r)[4], {nan, 1, 1, -1});
}

// Integer corner cases: division by zero, INT_MIN / -1, over-wide shifts, power.
TEST(IntegerSemantics) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  auto r = Run(R"(HloModule ints
ENTRY main {
  x = s32[4]{0} parameter(0)
  y = s32[4]{0} parameter(1)
  d = s32[4]{0} divide(x, y)
  m = s32[4]{0} remainder(x, y)
  sl = s32[4]{0} shift-left(x, y)
  sr = s32[4]{0} shift-right-arithmetic(x, y)
  sru = s32[4]{0} shift-right-logical(x, y)
  p = s32[4]{0} power(x, y)
  ROOT t = (s32[4]{0}, s32[4]{0}, s32[4]{0}, s32[4]{0}, s32[4]{0}, s32[4]{0}) tuple(d, m, sl, sr, sru, p)
})",
               {Make<int32_t>(S32, {4}, {7, kMin, -8, 3}), Make<int32_t>(S32, {4}, {0, -1, 33, 2})});
  CHECK_OK(r);
  ExpectValues<int32_t>((*r)[0], {-1, kMin, 0, 1});
  ExpectValues<int32_t>((*r)[1], {7, 0, -8, 1});
  // A negative count is a huge unsigned one: everything shifts out.
  ExpectValues<int32_t>((*r)[2], {7, 0, 0, 12});
  ExpectValues<int32_t>((*r)[3], {7, -1, -1, 0});
  ExpectValues<int32_t>((*r)[4], {7, 0, 0, 0});
  ExpectValues<int32_t>((*r)[5], {1, 0, 0, 9});
}

// Conversions saturate, NaN -> 0, and x != 0 for pred; bf16/f16 round to nearest even.
TEST(Convert) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto r = Run(R"(HloModule cvt
ENTRY main {
  x = f32[5]{0} parameter(0)
  i = s32[5]{0} convert(x)
  u = u8[5]{0} convert(x)
  p = pred[5]{0} convert(x)
  h = f16[5]{0} convert(x)
  b = bf16[5]{0} convert(x)
  hb = f32[5]{0} convert(h)
  bb = f32[5]{0} convert(b)
  ROOT t = (s32[5]{0}, u8[5]{0}, pred[5]{0}, f32[5]{0}, f32[5]{0}) tuple(i, u, p, hb, bb)
})",
               {Make<float>(F32, {5}, {1e10f, -3.7f, nan, 0, 1.00390625f})});
  CHECK_OK(r);
  ExpectValues<int32_t>((*r)[0], {2147483647, -3, 0, 0, 1});
  ExpectValues<uint8_t>((*r)[1], {255, 0, 0, 0, 1});
  ExpectValues<uint8_t>((*r)[2], {1, 1, 1, 0, 1});
  ExpectValues<float>((*r)[3], {INFINITY, -3.69921875f, nan, 0, 1.00390625f}, 0);
  ExpectValues<float>((*r)[4], {9.99922074e9f, -3.703125f, nan, 0, 1.0f}, 1e-6);
}

// Arithmetic in f16 is done in f32 and rounded per op.
TEST(HalfArithmetic) {
  auto r = Run(R"(HloModule half
ENTRY main {
  x = f32[3]{0} parameter(0)
  h = bf16[3]{0} convert(x)
  s = bf16[3]{0} add(h, h)
  m = bf16[3]{0} multiply(s, h)
  ROOT o = f32[3]{0} convert(m)
})",
               {Make<float>(F32, {3}, {1.5f, -2.0f, 3.0f})});
  CHECK_OK(r);
  ExpectValues<float>((*r)[0], {4.5f, 8.0f, 18.0f});
}

// Reductions over rows, columns and everything; an argmax with a variadic reduce.
TEST(Reduce) {
  auto r = Run(R"(HloModule red
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GE
  v = f32[] select(gt, av, bv)
  i = s32[] select(gt, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  rows = f32[2]{0} reduce(x, zero), dimensions={1}, to_apply=add
  cols = f32[3]{0} reduce(x, ninf), dimensions={0}, to_apply=max
  all = f32[] reduce(x, zero), dimensions={0,1}, to_apply=add
  e = f32[2,3]{1,0} exponential(x)
  sume = f32[2]{0} reduce(e, zero), dimensions={1}, to_apply=add
  idx = s32[2,3]{1,0} iota(), iota_dimension=1
  izero = s32[] constant(0)
  am = (f32[2]{0}, s32[2]{0}) reduce(x, idx, ninf, izero), dimensions={1}, to_apply=argmax
  amv = f32[2]{0} get-tuple-element(am), index=0
  ami = s32[2]{0} get-tuple-element(am), index=1
  ROOT t = (f32[2]{0}, f32[3]{0}, f32[], f32[2]{0}, f32[2]{0}, s32[2]{0}) tuple(rows, cols, all, sume, amv, ami)
})",
               {Make<float>(F32, {2, 3}, {1, 5, 3, 4, 2, 6})});
  CHECK_OK(r);
  ExpectValues<float>((*r)[0], {9, 12});
  ExpectValues<float>((*r)[1], {4, 5, 6});
  ExpectValues<float>((*r)[2], {21});
  ExpectValues<float>((*r)[3], {std::exp(1.f) + std::exp(5.f) + std::exp(3.f),
                                std::exp(4.f) + std::exp(2.f) + std::exp(6.f)});
  ExpectValues<float>((*r)[4], {5, 6});
  ExpectValues<int32_t>((*r)[5], {1, 2});
}

// Dots: plain, transposed operands, batched (Eigen), and s32 (loop).
TEST(Dot) {
  auto r = Run(R"(HloModule dot
ENTRY main {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[3,2]{1,0} parameter(1)
  mm = f32[2,2]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  tt = f32[3,3]{1,0} dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
  ai = s32[2,3]{1,0} convert(a)
  bi = s32[3,2]{1,0} convert(b)
  mi = s32[2,2]{1,0} dot(ai, bi), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ab = f32[1,2,3]{2,1,0} reshape(a)
  bb = f32[1,3,2]{2,1,0} reshape(b)
  bm = f32[1,2,2]{2,1,0} dot(ab, bb), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT t = (f32[2,2]{1,0}, f32[3,3]{1,0}, s32[2,2]{1,0}, f32[1,2,2]{2,1,0}) tuple(mm, tt, mi, bm)
})",
               {Make<float>(F32, {2, 3}, {1, 2, 3, 4, 5, 6}), Make<float>(F32, {3, 2}, {1, 2, 3, 4, 5, 6})});
  CHECK_OK(r);
  ExpectValues<float>((*r)[0], {22, 28, 49, 64});
  // tt[i][j] = sum_k a[k][i] * b[j][k]
  ExpectValues<float>((*r)[1], {9, 19, 29, 12, 26, 40, 15, 33, 51});
  ExpectValues<int32_t>((*r)[2], {22, 28, 49, 64});
  ExpectValues<float>((*r)[3], {22, 28, 49, 64});
}

// A larger matmul split over the thread pool agrees with a naive loop.
TEST(LargeDot) {
  const int m = 130, k = 70, n = 90;
  std::vector<double> a(m * k), b(k * n), want(m * n, 0);
  for (int i = 0; i < m * k; ++i) a[i] = std::sin(i);
  for (int i = 0; i < k * n; ++i) b[i] = std::cos(i);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p) want[i * n + j] += a[i * k + p] * b[p * n + j];
  auto r = Run(R"(HloModule big
ENTRY main {
  a = f64[130,70]{1,0} parameter(0)
  b = f64[70,90]{1,0} parameter(1)
  ROOT d = f64[130,90]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
               {Make<double>(F64, {m, k}, a), Make<double>(F64, {k, n}, b)});
  CHECK_OK(r);
  ExpectValues<double>((*r)[0], want, 1e-10);
}

// Shape ops: transpose, slice, concatenate, reverse, pad, iota, dynamic-slice.
TEST(ShapeOps) {
  auto r = Run(R"(HloModule shapes
ENTRY main {
  x = s32[2,3]{1,0} parameter(0)
  t = s32[3,2]{0,1} transpose(x), dimensions={1,0}
  s = s32[2,2]{1,0} slice(x), slice={[0:2], [1:3]}
  c = s32[2,5]{1,0} concatenate(x, s), dimensions={1}
  r = s32[2,3]{1,0} reverse(x), dimensions={1}
  zero = s32[] constant(0)
  p = s32[3,6]{1,0} pad(x, zero), padding=0_1x1_0_1
  i = s32[2,3]{1,0} iota(), iota_dimension=0
  one = s32[] constant(1)
  ds = s32[2,2]{1,0} dynamic-slice(x, zero, one), dynamic_slice_sizes={2,2}
  ROOT tu = (s32[3,2]{0,1}, s32[2,5]{1,0}, s32[2,3]{1,0}, s32[3,6]{1,0}, s32[2,3]{1,0}, s32[2,2]{1,0}) tuple(t, c, r, p, i, ds)
})",
               {Make<int32_t>(S32, {2, 3}, {1, 2, 3, 4, 5, 6})});
  CHECK_OK(r);
  ExpectValues<int32_t>((*r)[0], {1, 4, 2, 5, 3, 6});
  ExpectValues<int32_t>((*r)[1], {1, 2, 3, 2, 3, 4, 5, 6, 5, 6});
  ExpectValues<int32_t>((*r)[2], {3, 2, 1, 6, 5, 4});
  ExpectValues<int32_t>((*r)[3], {0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 0, 0, 0, 0, 0});
  ExpectValues<int32_t>((*r)[4], {0, 0, 0, 1, 1, 1});
  ExpectValues<int32_t>((*r)[5], {2, 3, 5, 6});
}

// Calls are inlined; parameters and constants can be outputs; a value can be
// returned twice.
TEST(CallsAndPassThrough) {
  auto r = Run(R"(HloModule calls
double {
  p = f32[2]{0} parameter(0)
  ROOT d = f32[2]{0} add(p, p)
}
ENTRY main {
  x = f32[2]{0} parameter(0)
  c = f32[2]{0} constant({7, 8})
  d = f32[2]{0} call(x), to_apply=double
  ROOT t = (f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}) tuple(x, c, d, d)
})",
               {Make<float>(F32, {2}, {1, 2})});
  CHECK_OK(r);
  CHECK_TRUE(r->size() == 4);
  ExpectValues<float>((*r)[0], {1, 2});
  ExpectValues<float>((*r)[1], {7, 8});
  ExpectValues<float>((*r)[2], {2, 4});
  ExpectValues<float>((*r)[3], {2, 4});
}

// A while loop (sum of 0..9 with a counter) and a conditional on a pred.
TEST(WhileAndConditional) {
  auto r = Run(R"(HloModule loop
cond {
  s = (s32[], f32[2]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(i, ten), direction=LT
}
body {
  s = (s32[], f32[2]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[2]{0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  n = s32[] add(i, one)
  fi = f32[] convert(i)
  b = f32[2]{0} broadcast(fi), dimensions={}
  a = f32[2]{0} add(acc, b)
  ROOT t = (s32[], f32[2]{0}) tuple(n, a)
}
yes {
  p = f32[2]{0} parameter(0)
  ROOT n = f32[2]{0} negate(p)
}
no {
  p = f32[2]{0} parameter(0)
  ROOT c = f32[2]{0} copy(p)
}
ENTRY main {
  x = f32[2]{0} parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[2]{0}) tuple(zero, x)
  w = (s32[], f32[2]{0}) while(init), condition=cond, body=body
  sum = f32[2]{0} get-tuple-element(w), index=1
  cnt = s32[] get-tuple-element(w), index=0
  p = pred[] constant(true)
  c = f32[2]{0} conditional(p, sum, sum), true_computation=yes, false_computation=no
  ROOT t = (s32[], f32[2]{0}) tuple(cnt, c)
})",
               {Make<float>(F32, {2}, {1, 2})});
  CHECK_OK(r);
  ExpectValues<int32_t>((*r)[0], {10});
  ExpectValues<float>((*r)[1], {-46, -47});
}

// Unsupported ops fail with UNIMPLEMENTED naming the opcode and instruction.
TEST(UnsupportedIsAStatus) {
  auto r = Run(R"(HloModule unsupported
ENTRY main {
  x = f32[4]{0} parameter(0)
  ROOT s = f32[4]{0} custom-call(x), custom_call_target="no_such_target"
})",
               {Make<float>(F32, {4}, {3, 1, 2, 0})});
  CHECK_TRUE(!r.ok());
  std::fprintf(stderr, "  (expected) %s\n", r.status().ToString().c_str());
  EXPECT_TRUE(r.status().code() == StatusCode::kUnimplemented);
  EXPECT_TRUE(r.status().message().find("custom-call") != std::string::npos);
  EXPECT_TRUE(r.status().message().find("instruction s") != std::string::npos);
}

// A big elementwise kernel runs split over threads and matches.
TEST(LargeParallelElementwise) {
  const int64_t n = 1 << 20;
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 1000) * 0.001f;
  auto r = Run(R"(HloModule big
ENTRY main {
  x = f32[1024,1024]{1,0} parameter(0)
  t = f32[1024,1024]{0,1} transpose(x), dimensions={1,0}
  a = f32[1024,1024]{1,0} add(x, t)
  ROOT m = f32[1024,1024]{1,0} multiply(a, a)
})",
               {Make<float>(F32, {1024, 1024}, x)});
  CHECK_OK(r);
  std::vector<float> want(n);
  for (int64_t i = 0; i < 1024; ++i)
    for (int64_t j = 0; j < 1024; ++j) {
      float a = x[i * 1024 + j] + x[j * 1024 + i];
      want[i * 1024 + j] = a * a;
    }
  ExpectValues<float>((*r)[0], want);
}

// BufferFromHost honours byte strides (a transposed host array).
TEST(StridedBufferFromHost) {
  Client& client = TestClient();
  std::vector<int32_t> host = {1, 2, 3, 4, 5, 6};  // [2,3] row-major
  // View it as its [3,2] transpose: strides (4, 12) bytes.
  auto buf = client.BufferFromHost(host.data(), S32, {3, 2}, {4, 12}, client.devices()[1]);
  CHECK_OK(buf);
  std::vector<int32_t> out(6);
  CHECK_OK((*buf)->ToHost(out.data()));
  EXPECT_TRUE((out == std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ((*buf)->device()->debug_string(), std::string("cpu:1"));
  EXPECT_EQ(client.devices().size(), size_t{2});
  (*buf)->Delete();
  EXPECT_TRUE((*buf)->is_deleted());
  EXPECT_TRUE(!(*buf)->ToHost(out.data()).ok());
}

// Wrong argument shapes are reported, not crashed on.
TEST(ArgumentMismatch) {
  auto r = Run(R"(HloModule m
ENTRY main {
  x = f32[2]{0} parameter(0)
  ROOT n = f32[2]{0} negate(x)
})",
               {Make<int32_t>(S32, {2}, {1, 2})});
  CHECK_TRUE(!r.ok());
  EXPECT_TRUE(r.status().code() == StatusCode::kInvalidArgument);
}

// What a run of `hlo` on f32[2,2] {1,2,3,4} donating argument 0 did: the
// values of output `which`, whether that output took over the argument's
// memory, and whether the argument buffer was consumed.
struct DonatedRun {
  std::vector<float> values;
  bool aliased = false;
  bool consumed = false;
};

DonatedRun RunDonated(const std::string& hlo, size_t which = 0) {
  Client& client = TestClient();
  auto exe = client.CompileText(hlo, {}, {});
  CHECK_OK(exe);
  std::vector<float> x = {1, 2, 3, 4};
  auto buf = client.BufferFromHost(x.data(), F32, {2, 2}, {}, client.devices()[0]);
  CHECK_OK(buf);
  const uintptr_t before = (*buf)->UnsafePointer();
  auto outs = (*exe)->Execute({{buf->get()}}, {0});
  CHECK_OK(outs);
  Buffer& out = *(*outs)[0][which];
  DonatedRun run;
  run.values.resize(4);
  CHECK_OK(out.ToHost(run.values.data()));
  run.aliased = out.UnsafePointer() == before;
  run.consumed = (*buf)->is_deleted();
  return run;
}

// A donated argument of an elementwise op becomes the output's memory.
TEST(DonationReusesArgument) {
  DonatedRun r = RunDonated(R"(HloModule m
ENTRY main {
  x = f32[2,2]{1,0} parameter(0)
  ROOT y = f32[2,2]{1,0} add(x, x)
})");
  EXPECT_TRUE(r.aliased && r.consumed);
  EXPECT_TRUE((r.values == std::vector<float>{2, 4, 6, 8}));
}

// A transpose reads other elements than it writes: donation must not alias,
// and without a declared alias the argument stays usable.
TEST(DonationSkipsUnsafeAlias) {
  DonatedRun r = RunDonated(R"(HloModule m
ENTRY main {
  x = f32[2,2]{1,0} parameter(0)
  ROOT y = f32[2,2]{1,0} transpose(x), dimensions={1,0}
})");
  EXPECT_TRUE(!r.aliased && !r.consumed);
  EXPECT_TRUE((r.values == std::vector<float>{1, 3, 2, 4}));
}

// A declared donor is consumed even when its output cannot safely share memory.
TEST(DeclaredDonorIsConsumed) {
  DonatedRun r = RunDonated(R"(HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY main {
  x = f32[2,2]{1,0} parameter(0)
  ROOT y = f32[2,2]{1,0} transpose(x), dimensions={1,0}
})");
  EXPECT_TRUE(!r.aliased && r.consumed);
  EXPECT_TRUE((r.values == std::vector<float>{1, 3, 2, 4}));
}

// The declared output, not the first one that fits, takes the donated memory.
TEST(DeclaredAliasChoosesTheOutput) {
  const char* hlo = R"(HloModule m, input_output_alias={ {1}: (0, {}, may-alias) }
ENTRY main {
  x = f32[2,2]{1,0} parameter(0)
  a = f32[2,2]{1,0} add(x, x)
  m = f32[2,2]{1,0} multiply(x, x)
  ROOT t = (f32[2,2]{1,0}, f32[2,2]{1,0}) tuple(a, m)
})";
  DonatedRun first = RunDonated(hlo, 0);
  EXPECT_TRUE(!first.aliased && first.consumed);
  EXPECT_TRUE((first.values == std::vector<float>{2, 4, 6, 8}));
  DonatedRun second = RunDonated(hlo, 1);
  EXPECT_TRUE(second.aliased && second.consumed);
  EXPECT_TRUE((second.values == std::vector<float>{1, 4, 9, 16}));
}

// Broadcast operands do not stop an elementwise kernel from writing over its
// donated input: only the parameter's own reads matter.
TEST(DonationWithBroadcastOperand) {
  DonatedRun r = RunDonated(R"(HloModule m
ENTRY main {
  x = f32[2,2]{1,0} parameter(0)
  c = f32[] constant(2)
  b = f32[2,2]{1,0} broadcast(c), dimensions={}
  m = f32[2,2]{1,0} multiply(x, b)
  one = f32[2]{0} constant({1, 10})
  o = f32[2,2]{1,0} broadcast(one), dimensions={1}
  ROOT y = f32[2,2]{1,0} add(m, o)
})");
  EXPECT_TRUE(r.aliased && r.consumed);
  EXPECT_TRUE((r.values == std::vector<float>{3, 14, 7, 18}));
}

// A buffer donor gives its memory to an output of the same size, whatever its shape.
TEST(BufferDonorReusesSameSizeOutput) {
  DonatedRun r = RunDonated(R"(HloModule m, buffer_donor={ (0, {}) }
ENTRY main {
  x = f32[2,2]{1,0} parameter(0)
  f = f32[4]{0} reshape(x)
  ROOT y = s32[4]{0} convert(f)
})");
  EXPECT_TRUE(r.aliased && r.consumed);
  const int32_t* ints = reinterpret_cast<const int32_t*>(r.values.data());
  EXPECT_TRUE(ints[0] == 1 && ints[1] == 2 && ints[2] == 3 && ints[3] == 4);
}

// Temporaries whose lives do not overlap share arena memory: in a chain of
// four dots the first and third intermediate can use the same bytes.
TEST(DeadTemporariesAreReused) {
  Client& client = TestClient();
  auto exe = client.CompileText(R"(HloModule m
ENTRY main {
  x = f32[64,64]{1,0} parameter(0)
  a = f32[64,64]{1,0} dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[64,64]{1,0} dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[64,64]{1,0} dot(b, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT d = f32[64,64]{1,0} dot(c, c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})", {}, {});
  CHECK_OK(exe);
  const int64_t one = 64 * 64 * 4;
  EXPECT_EQ((*exe)->memory_stats().temp_size, 2 * one);
  std::vector<float> x(64 * 64, 0.0f);
  for (int i = 0; i < 64; ++i) x[i * 64 + i] = 2.0f;  // 2I: d = 2^16 I
  auto r = Run(R"(HloModule m
ENTRY main {
  x = f32[64,64]{1,0} parameter(0)
  a = f32[64,64]{1,0} dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[64,64]{1,0} dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[64,64]{1,0} dot(b, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT d = f32[64,64]{1,0} dot(c, c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
               {Make<float>(F32, {64, 64}, x)});
  CHECK_OK(r);
  std::vector<float> got = (*r)[0].As<float>();
  EXPECT_TRUE(got[0] == 65536.0f && got[1] == 0.0f && got[65] == 65536.0f);
}

// RFFT then IRFFT gives the input back: a prime length above the direct-DFT
// limit (Bluestein) in 1-D, and a 2-D transform (Hermitian completion after
// the other axes).
TEST(FftRoundTrips) {
  std::vector<float> x(2 * 67);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * i) + 0.01f * i;
  auto r = Run(R"(HloModule m
ENTRY main {
  x = f32[2,67]{1,0} parameter(0)
  f = c64[2,34]{1,0} fft(x), fft_type=RFFT, fft_length={67}
  ROOT y = f32[2,67]{1,0} fft(f), fft_type=IRFFT, fft_length={67}
})",
               {Make<float>(F32, {2, 67}, x)});
  CHECK_OK(r);
  ExpectValues<float>((*r)[0], x, 1e-4);
  std::vector<float> z(4 * 6);
  for (size_t i = 0; i < z.size(); ++i) z[i] = std::cos(1.3f * i) * (i % 5);
  auto r2 = Run(R"(HloModule m
ENTRY main {
  x = f32[4,6]{1,0} parameter(0)
  f = c64[4,4]{1,0} fft(x), fft_type=RFFT, fft_length={4,6}
  ROOT y = f32[4,6]{1,0} fft(f), fft_type=IRFFT, fft_length={4,6}
})",
               {Make<float>(F32, {4, 6}, z)});
  CHECK_OK(r2);
  ExpectValues<float>((*r2)[0], z, 1e-4);
}


// A module with a fused kernel, a sort comparator and a loop body: serialized,
// loaded back (no code generation) and run, it gives the original's numbers.
constexpr char kSerializableModule[] = R"(HloModule serial
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
cond {
  s = (s32[], f32[8]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[8]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[8]{0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  e = f32[8]{0} exponential(v)
  h = f32[] constant(0.5)
  hb = f32[8]{0} broadcast(h), dimensions={}
  v1 = f32[8]{0} multiply(e, hb)
  ROOT t = (s32[], f32[8]{0}) tuple(i1, v1)
}
ENTRY main {
  x = f32[8]{0} parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[8]{0}) tuple(zero, x)
  w = (s32[], f32[8]{0}) while(init), condition=cond, body=body
  v = f32[8]{0} get-tuple-element(w), index=1
  ROOT s = f32[8]{0} sort(v), dimensions={0}, to_apply=cmp
})";

HostArray SerializableInput() {
  return Make<float>(F32, {8}, {0.5f, -1, 2, 0, 1.5f, -0.25f, 3, 1});
}

TEST(SerializedExecutableRunsLikeTheOriginal) {
  Client& client = TestClient();
  auto exe = client.CompileText(kSerializableModule, {}, {});
  CHECK_OK(exe);
  auto bytes = (*exe)->Serialize();
  CHECK_OK(bytes);
  auto loaded = client.DeserializeAndLoad(*bytes, {});
  CHECK_OK(loaded);
  auto want = RunExecutable(**exe, {SerializableInput()});
  auto got = RunExecutable(**loaded, {SerializableInput()});
  CHECK_OK(want);
  CHECK_OK(got);
  ExpectValues<float>((*got)[0], (*want)[0].As<float>(), 0);
  EXPECT_EQ((*loaded)->optimized_hlo(), (*exe)->optimized_hlo());
  // A loaded executable serializes again to the same bytes.
  auto again = (*loaded)->Serialize();
  CHECK_OK(again);
  EXPECT_TRUE(*again == *bytes);
}

TEST(SerializedExecutableOnOtherDevice) {
  Client& client = TestClient();
  auto exe = client.CompileText("HloModule c\nENTRY e {\n  x = f32[2]{0} parameter(0)\n"
                                   "  ROOT y = f32[2]{0} add(x, x)\n}\n", {}, {});
  CHECK_OK(exe);
  auto bytes = (*exe)->Serialize();
  CHECK_OK(bytes);
  auto loaded = client.DeserializeAndLoad(*bytes, {client.devices()[1]});
  CHECK_OK(loaded);
  EXPECT_TRUE((*loaded)->devices()[0] == client.devices()[1]);
}

TEST(DeserializeRefusesBadBytes) {
  Client& client = TestClient();
  auto r = client.DeserializeAndLoad("definitely not an executable", {});
  EXPECT_TRUE(!r.ok() && r.status().code() == StatusCode::kInvalidArgument);
  auto exe = client.CompileText(kSerializableModule, {}, {});
  CHECK_OK(exe);
  auto bytes = (*exe)->Serialize();
  CHECK_OK(bytes);
  auto e = DecodeExecutable(*bytes);
  CHECK_OK(e);
  // Machine code that does not belong to the module's plan is refused, not run.
  e->hlo_text = "HloModule other\nENTRY e {\n  x = f32[2]{0} parameter(0)\n"
                "  ROOT y = f32[2]{0} exponential(x)\n}\n";
  auto mismatched = client.DeserializeAndLoad(EncodeExecutable(*e), {});
  EXPECT_TRUE(!mismatched.ok() &&
              mismatched.status().message().find("does not match") != std::string::npos);
  e = DecodeExecutable(*bytes);
  e->plugin_version = "0.0.0-other";
  auto other = client.DeserializeAndLoad(EncodeExecutable(*e), {});
  EXPECT_TRUE(!other.ok() && other.status().message().find("0.0.0-other") != std::string::npos);
}

// Freed output memory is kept by the client and taken by the next output of
// the same size, so repeated calls write to warm pages.
TEST(OutputsReuseFreedBuffers) {
  Client& client = TestClient();
  auto exe = client.CompileText(R"(HloModule m
ENTRY main {
  x = f32[512,512]{1,0} parameter(0)
  ROOT y = f32[512,512]{1,0} negate(x)
})", {}, {});
  CHECK_OK(exe);
  std::vector<float> x(512 * 512, 1.0f);
  auto arg = client.BufferFromHost(x.data(), F32, {512, 512}, {}, client.devices()[0]);
  CHECK_OK(arg);
  uintptr_t first = 0;
  for (int call = 0; call < 3; ++call) {
    auto outs = (*exe)->Execute({{arg->get()}}, {});
    CHECK_OK(outs);
    Buffer& out = *(*outs)[0][0];
    if (call == 0) first = out.UnsafePointer();
    EXPECT_TRUE(out.UnsafePointer() == first);
    std::vector<float> got(512 * 512);
    CHECK_OK(out.ToHost(got.data()));
    EXPECT_TRUE(got.front() == -1.0f && got.back() == -1.0f);
  }
}

TEST(BufferCacheOptionIsChecked) {
  Options options;
  options["host_buffer_cache_bytes"] = int64_t{-1};
  auto c = CpuPluginInfo().create_client(options);
  CHECK_TRUE(!c.ok());
  EXPECT_TRUE(c.status().code() == StatusCode::kInvalidArgument);
  EXPECT_TRUE(c.status().message().find("host_buffer_cache_bytes") != std::string::npos);
  options["host_buffer_cache_bytes"] = std::string("lots");
  EXPECT_TRUE(!CpuPluginInfo().create_client(options).ok());
  options["host_buffer_cache_bytes"] = int64_t{0};
  CHECK_OK(CpuPluginInfo().create_client(options));
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
