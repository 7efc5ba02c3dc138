// The serialized-executable container: round trip, and every malformed input
// refused with a message that says what is wrong.
#include "xla/backends/cpu/serialized_executable.h"

#include <string>

#include "xla/hlo/testing/check.h"

namespace xla::cpu {
namespace {

SerializedExecutable Sample() {
  SerializedExecutable e;
  e.plugin_version = "1.2.3";
  e.num_replicas = 2;
  e.hlo_text = "HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n";
  e.triple = "x86_64-unknown-linux-gnu";
  e.cpu_name = "skylake";
  e.cpu_features = "+avx2,+fma,-avx512f";
  e.kernel_symbols = {"m.fusion.0", "m.cmp.1"};
  e.objects = {std::string("\x7f" "ELF\0\1\2", 7), ""};
  return e;
}

bool Contains(const Status& s, const std::string& text) {
  return s.message().find(text) != std::string::npos;
}

TEST(RoundTrip) {
  std::string bytes = EncodeExecutable(Sample());
  auto decoded = DecodeExecutable(bytes);
  CHECK_OK(decoded);
  const SerializedExecutable& d = *decoded;
  EXPECT_EQ(d.plugin_version, std::string("1.2.3"));
  EXPECT_EQ(d.num_replicas, 2);
  EXPECT_EQ(d.hlo_text, Sample().hlo_text);
  EXPECT_EQ(d.cpu_features, Sample().cpu_features);
  EXPECT_TRUE(d.kernel_symbols == Sample().kernel_symbols);
  EXPECT_TRUE(d.objects == Sample().objects);
}

TEST(RefusesOtherBytes) {
  auto r = DecodeExecutable("HloModule m");
  EXPECT_TRUE(!r.ok() && Contains(r.status(), "not a serialized CPU executable"));
  EXPECT_TRUE(r.status().code() == StatusCode::kInvalidArgument);
}

TEST(RefusesEveryTruncation) {
  std::string bytes = EncodeExecutable(Sample());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = DecodeExecutable(std::string_view(bytes).substr(0, n));
    EXPECT_TRUE(!r.ok());
    EXPECT_TRUE(r.status().code() == StatusCode::kInvalidArgument);
  }
}

TEST(RefusesCorruption) {
  std::string bytes = EncodeExecutable(Sample());
  bytes[bytes.size() / 2] ^= 0x20;
  auto r = DecodeExecutable(bytes);
  EXPECT_TRUE(!r.ok() && Contains(r.status(), "corrupted"));
}

TEST(RefusesOtherFormatVersion) {
  std::string bytes = EncodeExecutable(Sample());
  bytes[std::string("XLA CPU executable\n").size()] = 9;
  auto r = DecodeExecutable(bytes);
  EXPECT_TRUE(!r.ok() && Contains(r.status(), "format version 9"));
}

TEST(LoadableChecks) {
  SerializedExecutable e = Sample();
  CHECK_OK(CheckLoadable(e, "1.2.3", e.triple, "+avx2,+fma,+sse4.2"));
  Status other_version = CheckLoadable(e, "1.2.4", e.triple, "+avx2,+fma");
  EXPECT_TRUE(Contains(other_version, "1.2.3") && Contains(other_version, "1.2.4"));
  EXPECT_TRUE(other_version.code() == StatusCode::kFailedPrecondition);
  Status missing = CheckLoadable(e, "1.2.3", e.triple, "+avx2,-fma");
  EXPECT_TRUE(Contains(missing, "lacks (fma)"));
  Status triple = CheckLoadable(e, "1.2.3", "aarch64-unknown-linux-gnu", "+avx2,+fma");
  EXPECT_TRUE(Contains(triple, "aarch64"));
  // Without machine code any host will do.
  e.objects.clear();
  CHECK_OK(CheckLoadable(e, "1.2.3", "aarch64-unknown-linux-gnu", ""));
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
