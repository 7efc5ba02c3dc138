// 8-bit floats and 4-bit integers through the CPU backend: the kernels'
// conversions (select-only IR, vectorised) agree bit for bit with the scalar
// conversions of native_type.cc on every f8 bit pattern and a dense sweep of
// f32 and f64 values, and s4/u4 keep ml_dtypes' byte layout.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "xla/backends/cpu/cpu_client.h"
#include "xla/hlo/ir/native_type.h"
#include "xla/hlo/testing/check.h"

namespace xla::cpu {
namespace {

constexpr PrimitiveType kF8Types[] = {
    PrimitiveType::F8E4M3FN, PrimitiveType::F8E5M2, PrimitiveType::F8E4M3FNUZ,
    PrimitiveType::F8E5M2FNUZ, PrimitiveType::F8E4M3B11FNUZ, PrimitiveType::F8E4M3,
    PrimitiveType::F8E3M4};

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

// Runs `ROOT y = <out>[n] <op>(x)` on x of type `in`; returns the output bytes.
StatusOr<std::vector<uint8_t>> RunUnary(const std::string& op, PrimitiveType in,
                                        PrimitiveType out, const void* data, int64_t n) {
  const std::string dims = "[" + std::to_string(n) + "]{0}";
  const std::string hlo = "HloModule m\nENTRY e {\n  x = " + std::string(PrimitiveTypeName(in)) +
                          dims + " parameter(0)\n  ROOT y = " +
                          std::string(PrimitiveTypeName(out)) + dims + " " + op + "(x)\n}\n";
  Client& client = TestClient();
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe, client.CompileText(hlo, {}, {}));
  ASSIGN_OR_RETURN(std::unique_ptr<Buffer> arg,
                   client.BufferFromHost(data, in, {n}, {}, client.devices()[0]));
  ASSIGN_OR_RETURN(auto outs, exe->Execute({{arg.get()}}, {}));
  std::vector<uint8_t> result(outs[0][0]->size_in_bytes());
  RETURN_IF_ERROR(outs[0][0]->ToHost(result.data()));
  return result;
}

// Floats around every f8 value of every format: the values, their midpoints,
// neighbours one f32 ulp away, far beyond the ranges, f32 subnormals, specials.
std::vector<float> FloatSweep() {
  std::vector<float> v = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1e-45f, 3e38f, -3e38f};
  for (PrimitiveType t : kF8Types) {
    for (int bits = 0; bits < 255; ++bits) {
      const float a = Float8ToFloat(t, static_cast<uint8_t>(bits));
      const float b = Float8ToFloat(t, static_cast<uint8_t>(bits + 1));
      if (!std::isfinite(a)) continue;
      v.push_back(a);
      if (std::isfinite(b)) {
        const float mid = static_cast<float>((static_cast<double>(a) + b) / 2);
        v.insert(v.end(), {mid, std::nextafter(mid, INFINITY), std::nextafter(mid, -INFINITY),
                           1.0001f * a, a * 1.5f});
      }
    }
  }
  return v;
}

TEST(F8BitPatternsToF32) {
  std::vector<uint8_t> bits(256);
  for (int i = 0; i < 256; ++i) bits[i] = static_cast<uint8_t>(i);
  for (PrimitiveType t : kF8Types) {
    auto out = RunUnary("convert", t, PrimitiveType::F32, bits.data(), 256);
    CHECK_OK(out);
    for (int i = 0; i < 256; ++i) {
      float got;
      std::memcpy(&got, out->data() + 4 * i, 4);
      const float want = Float8ToFloat(t, static_cast<uint8_t>(i));
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got) && std::signbit(got) == std::signbit(want));
      } else {
        EXPECT_TRUE(std::memcmp(&got, &want, 4) == 0);  // -0 included
      }
    }
  }
}

TEST(F32AndF64ToF8RoundLikeTheScalarConversion) {
  const std::vector<float> xs = FloatSweep();
  std::vector<double> ds(xs.begin(), xs.end());
  // Doubles just off the f8 ties, where rounding through float would round twice.
  for (float x : xs) ds.push_back(static_cast<double>(x) * (1 + std::ldexp(1.0, -40)));
  const int64_t n = static_cast<int64_t>(xs.size()), nd = static_cast<int64_t>(ds.size());
  for (PrimitiveType t : kF8Types) {
    auto from_f32 = RunUnary("convert", PrimitiveType::F32, t, xs.data(), n);
    CHECK_OK(from_f32);
    int bad = 0;
    for (int64_t i = 0; i < n; ++i) bad += (*from_f32)[i] != DoubleToFloat8(t, xs[i]);
    EXPECT_EQ(bad, 0);
    auto from_f64 = RunUnary("convert", PrimitiveType::F64, t, ds.data(), nd);
    CHECK_OK(from_f64);
    bad = 0;
    for (int64_t i = 0; i < nd; ++i) bad += (*from_f64)[i] != DoubleToFloat8(t, ds[i]);
    EXPECT_EQ(bad, 0);
  }
}

TEST(F8BitcastsToU8) {
  std::vector<uint8_t> bits;
  for (int i = 0; i < 256; ++i) {
    if (!std::isnan(Float8ToFloat(PrimitiveType::F8E4M3FN, static_cast<uint8_t>(i)))) {
      bits.push_back(static_cast<uint8_t>(i));
    }
  }
  auto out = RunUnary("bitcast-convert", PrimitiveType::F8E4M3FN, PrimitiveType::U8, bits.data(),
                      static_cast<int64_t>(bits.size()));
  CHECK_OK(out);
  EXPECT_TRUE(*out == bits);
}

TEST(Int4KeepsTheLowNibble) {
  std::vector<uint8_t> nibbles(16);
  for (int i = 0; i < 16; ++i) nibbles[i] = static_cast<uint8_t>(i);
  auto negated = RunUnary("negate", PrimitiveType::S4, PrimitiveType::S4, nibbles.data(), 16);
  CHECK_OK(negated);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ((*negated)[i], static_cast<uint8_t>(int4::Wrap(-int4{nibbles[i]}.value()).bits));
  }
  auto widened = RunUnary("convert", PrimitiveType::S4, PrimitiveType::S8, nibbles.data(), 16);
  CHECK_OK(widened);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(static_cast<int8_t>((*widened)[i]), int4{nibbles[i]}.value());
  }
  auto unsigned_wide = RunUnary("convert", PrimitiveType::U4, PrimitiveType::S8, nibbles.data(), 16);
  CHECK_OK(unsigned_wide);
  for (int i = 0; i < 16; ++i) EXPECT_EQ((*unsigned_wide)[i], i);
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
