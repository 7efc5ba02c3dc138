// Verifier and shape-inference tests: each invalid module is rejected with
// exactly this message; valid tricky ones (layouts, variadic reduce, gather)
// pass.
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/ir/shape_size.h"
#include "xla/hlo/testing/check.h"
#include "xla/hlo/verifier/verifier.h"

namespace xla {
namespace {

// Wraps an entry body in a module; `extra` holds computations defined first.
std::string Module(const std::string& body, const std::string& extra = "") {
  return "HloModule m\n\n" + extra + "ENTRY e {\n" + body + "}\n";
}

constexpr char kAdd[] = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n";

std::string VerifyError(const std::string& text) {
  auto m = ParseHloModuleUnverified(text);
  if (!m.ok()) return "PARSE ERROR: " + m.status().message();
  Status s = VerifyHloModule(**m);
  return s.ok() ? "OK" : s.message();
}

// Each case: the module body and the exact verifier message.
TEST(RejectsInvalidModules) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {Module("  x = f32[2]{0} parameter(0)\n  y = s32[2]{0} parameter(1)\n  ROOT a = f32[2]{0} add(x, y)\n"),
       "instruction 'a' in computation 'e': operands have different element types: f32[2] vs s32[2]"},
      {Module("  x = f32[2,3]{1,0} parameter(0)\n  ROOT b = f32[3,2]{1,0} broadcast(x), dimensions={0,1}\n"),
       "instruction 'b' in computation 'e': broadcast maps operand dimension 0 (size 2) to result "
       "dimension 0 (size 3)"},
      {Module("  x = f32[2,3]{1,0} parameter(0)\n  ROOT r = f32[5]{0} reshape(x)\n"),
       "instruction 'r' in computation 'e': reshape from f32[2,3] to f32[5] changes the element count"},
      {Module("  x = f32[4]{0} parameter(0)\n  ROOT s = f32[2]{0} slice(x), slice={[2:6]}\n"),
       "instruction 's' in computation 'e': slice range [2:6:1] is invalid for dimension 0 of size 4"},
      {Module("  x = f32[4]{0} parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add\n",
              "add {\n  a = f32[] parameter(0)\n  ROOT s = f32[] negate(a)\n}\n\n"),
       "instruction 'r' in computation 'e': reducer add must take 2 parameters, takes 1"},
      {Module("  x = f32[2,3]{1,0} parameter(0)\n  ROOT t = f32[2,3]{1,0} transpose(x), dimensions={1,0}\n"),
       "instruction 't' in computation 'e': shape f32[2,3] does not match the inferred shape f32[3,2]"},
      {Module("  x = f32[2,3]{1,0} parameter(0)\n  y = f32[2,3]{1,0} parameter(1)\n  ROOT d = f32[2,2]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n"),
       "OK"},
      {Module("  x = f32[2,3]{1,0} parameter(0)\n  y = f32[2,4]{1,0} parameter(1)\n  ROOT d = f32[2,2]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n"),
       "instruction 'd' in computation 'e': dot contracting dimension sizes differ: f32[2,3] vs f32[2,4]"},
      {Module("  x = (f32[], s32[]) parameter(0)\n  ROOT g = f32[] get-tuple-element(x), index=2\n"),
       "instruction 'g' in computation 'e': tuple index 2 out of range for (f32[], s32[])"},
      {Module("  x = f32[8]{0} parameter(0)\n  ROOT c = f32[8]{0} call(x), to_apply=add\n", kAdd),
       "instruction 'c' in computation 'e': called computation add takes 2 parameters, given 1"},
      {Module("  p = s32[] parameter(0)\n  x = f32[] parameter(1)\n  ROOT c = f32[] conditional(p, x), branch_computations={add}\n", kAdd),
       "instruction 'c' in computation 'e': branch computation add takes 2 parameters, given 1"},
      {Module("  x = f32[4]{0} parameter(0)\n  i = f32[] parameter(1)\n  ROOT d = f32[2]{0} dynamic-slice(x, i), dynamic_slice_sizes={2}\n"),
       "instruction 'd' in computation 'e': start index 0 must be an integer scalar"},
      {Module("  x = f32[4,4]{1,0} parameter(0)\n  z = f32[] constant(0)\n  ROOT w = f32[2,2]{1,0} reduce-window(x, z), window={size=2x2 stride=2x2}, to_apply=add\n", kAdd),
       "OK"},
      {Module("  x = f32[4,4]{1,0} parameter(0)\n  z = f32[] constant(0)\n  ROOT w = f32[3,3]{1,0} reduce-window(x, z), window={size=2x2 stride=2x2}, to_apply=add\n", kAdd),
       "instruction 'w' in computation 'e': shape f32[3,3] does not match the inferred shape f32[2,2]"},
      {"HloModule m, entry_computation_layout={(f32[3]{0})->f32[3]{0}}\n\nENTRY e {\n  ROOT x = f32[2]{0} parameter(0)\n}\n",
       "entry_computation_layout parameter 0 is f32[3], parameter is f32[2]"},
      {Module("  x = f32[2]{0} parameter(0)\n  ROOT y = f32[2]{0} parameter(2)\n"),
       "computation 'e' has no parameter 1 but has parameter 2"},
      {Module("  x = f32[5]{0} parameter(0)\n  ROOT t = (f32[5]{0}, s32[5]{0}) topk(x), k=6, largest=true\n"),
       "instruction 't' in computation 'e': topk k=6 is invalid for f32[5]"},
  };
  for (const Case& c : cases) EXPECT_EQ(VerifyError(c.text), c.message);
}

constexpr char kScatterHead[] = "  op = f32[3,4]{1,0} parameter(0)\n  idx = s32[2,1]{1,0} parameter(1)\n";

std::string Scatter(const std::string& updates, const std::string& dims) {
  return Module(std::string(kScatterHead) + "  up = " + updates + " parameter(2)\n" +
                    "  ROOT s = f32[3,4]{1,0} scatter(op, idx, up), " + dims + ", to_apply=add\n",
                kAdd);
}

// Scatter's dimension numbers are checked as XLA defines them: each of these
// used to reach the emitter and crash (double free, out-of-bounds reads).
TEST(RejectsInvalidScatter) {
  const std::string ok_dims =
      "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
      "index_vector_dim=1";
  EXPECT_EQ(VerifyError(Scatter("f32[2,4]{1,0}", ok_dims)), "OK");
  EXPECT_EQ(VerifyError(Scatter("f32[2,4]{1,0}",
                                "update_window_dims={1}, inserted_window_dims={0}, "
                                "scatter_dims_to_operand_dims={3}, index_vector_dim=1")),
            "instruction 's' in computation 'e': scatter_dims_to_operand_dims entry 3 is out of "
            "range for rank 2");
  EXPECT_EQ(VerifyError(Scatter("f32[2,4]{1,0}",
                                "update_window_dims={5}, inserted_window_dims={0}, "
                                "scatter_dims_to_operand_dims={0}, index_vector_dim=1")),
            "instruction 's' in computation 'e': update_window_dims entry 5 is out of range for "
            "rank 2");
  EXPECT_EQ(VerifyError(Scatter("s32[2,4]{1,0}", ok_dims)),
            "instruction 's' in computation 'e': scatter update s32[2,4] does not have the type "
            "of its operand f32[3,4]");
  EXPECT_EQ(VerifyError(Scatter("f32[300,4]{1,0}", ok_dims)),
            "instruction 's' in computation 'e': scatter update dimension 0 has size 300, but the "
            "indices s32[2,1] give 2 index vectors there");
  EXPECT_EQ(VerifyError(Scatter("f32[2,5]{1,0}", ok_dims)),
            "instruction 's' in computation 'e': scatter update window dimension 1 (size 5) is "
            "larger than operand dimension 1 (size 4)");
  EXPECT_EQ(VerifyError(Scatter("f32[2,4]{1,0}",
                                "update_window_dims={1}, inserted_window_dims={}, "
                                "scatter_dims_to_operand_dims={0}, index_vector_dim=1")),
            "instruction 's' in computation 'e': scatter operand f32[3,4] has rank 2, but "
            "update_window_dims, inserted_window_dims and input_batching_dims have 1 + 0 + 0 "
            "entries");
  EXPECT_EQ(VerifyError(Scatter("f32[2,4]{1,0}",
                                "update_window_dims={1}, inserted_window_dims={0}, "
                                "scatter_dims_to_operand_dims={0,1}, index_vector_dim=1")),
            "instruction 's' in computation 'e': scatter_dims_to_operand_dims has 2 entries, "
            "index vectors have 1");
  EXPECT_EQ(VerifyError(Scatter("f32[2,4]{1,0}",
                                "update_window_dims={1}, inserted_window_dims={0}, "
                                "scatter_dims_to_operand_dims={0}, index_vector_dim=3")),
            "instruction 's' in computation 'e': scatter index_vector_dim 3 is out of range for "
            "indices s32[2,1]");
}

// The init value of reduce-window (and select-and-scatter) must be a scalar of
// the input's type: a u8 init for an f32 input used to crash LLVM.
TEST(RejectsMistypedWindowInits) {
  EXPECT_EQ(VerifyError(Module("  x = f32[4,4]{1,0} parameter(0)\n  z = u8[] constant(0)\n  ROOT w = f32[2,2]{1,0} reduce-window(x, z), window={size=2x2 stride=2x2}, to_apply=add\n", kAdd)),
            "instruction 'w' in computation 'e': reduce-window init value 0 must be a scalar of "
            "type f32, got u8[]");
  const char* kGe = "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\n\n";
  const std::string sas_extra = std::string(kAdd) + kGe;
  EXPECT_EQ(VerifyError(Module("  x = f32[4]{0} parameter(0)\n  s = f32[2]{0} parameter(1)\n  z = f32[] constant(0)\n  ROOT r = f32[4]{0} select-and-scatter(x, s, z), window={size=2 stride=2}, select=ge, scatter=add\n", sas_extra)),
            "OK");
  EXPECT_EQ(VerifyError(Module("  x = f32[4]{0} parameter(0)\n  s = f32[3]{0} parameter(1)\n  z = f32[] constant(0)\n  ROOT r = f32[4]{0} select-and-scatter(x, s, z), window={size=2 stride=2}, select=ge, scatter=add\n", sas_extra)),
            "instruction 'r' in computation 'e': select-and-scatter source f32[3] must be f32[2], "
            "one element per window of f32[4]");
  // A select computation that returns its operand instead of pred[] (found by the
  // compile-and-run fuzzer: a dropped ROOT line made the parameter the root).
  const char* kFirst = "first {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n}\n\n";
  EXPECT_EQ(VerifyError(Module("  x = f32[4]{0} parameter(0)\n  s = f32[2]{0} parameter(1)\n  z = f32[] constant(0)\n  ROOT r = f32[4]{0} select-and-scatter(x, s, z), window={size=2 stride=2}, select=first, scatter=add\n", std::string(kAdd) + kFirst)),
            "instruction 'r' in computation 'e': select-and-scatter select computation must "
            "return pred[]");
}

// rng, map, bitcast and fusion are inferred, not taken from their declaration.
TEST(RejectsMistypedRngMapBitcastFusion) {
  EXPECT_EQ(VerifyError(Module("  a = f32[] constant(0)\n  b = f32[] constant(1)\n  ROOT r = f32[3]{0} rng(a, b), distribution=rng_uniform\n")),
            "OK");
  EXPECT_EQ(VerifyError(Module("  a = s32[] constant(0)\n  b = f32[] constant(1)\n  ROOT r = f32[3]{0} rng(a, b), distribution=rng_uniform\n")),
            "instruction 'r' in computation 'e': rng parameter 0 must be a f32 scalar, got s32[]");
  EXPECT_EQ(VerifyError(Module("  a = s32[] constant(0)\n  b = s32[] constant(1)\n  ROOT r = s32[3]{0} rng(a, b), distribution=rng_normal\n")),
            "instruction 'r' in computation 'e': rng normal cannot produce s32[3]");
  EXPECT_EQ(VerifyError(Module("  x = f32[4]{0} parameter(0)\n  y = f32[4]{0} parameter(1)\n  ROOT m = f32[4]{0} map(x, y), dimensions={0}, to_apply=add\n", kAdd)),
            "OK");
  EXPECT_EQ(VerifyError(Module("  x = f32[4]{0} parameter(0)\n  y = f32[5]{0} parameter(1)\n  ROOT m = f32[4]{0} map(x, y), dimensions={0}, to_apply=add\n", kAdd)),
            "instruction 'm' in computation 'e': map operands differ in dimensions: f32[4] vs f32[5]");
  EXPECT_EQ(VerifyError(Module("  x = f32[4]{0} parameter(0)\n  ROOT m = f32[4]{0} map(x), dimensions={0}, to_apply=add\n", kAdd)),
            "instruction 'm' in computation 'e': mapped computation add takes 2 parameters, given 1");
  EXPECT_EQ(VerifyError(Module("  x = f32[4]{0} parameter(0)\n  ROOT b = s32[4]{0} bitcast(x)\n")), "OK");
  EXPECT_EQ(VerifyError(Module("  x = f32[4]{0} parameter(0)\n  ROOT b = f64[4]{0} bitcast(x)\n")),
            "instruction 'b' in computation 'e': bitcast from f32[4] to f64[4] changes the byte size");
  EXPECT_EQ(VerifyError(Module("  x = f32[] parameter(0)\n  ROOT f = f32[] fusion(x, x), kind=kLoop, calls=add\n", kAdd)),
            "OK");
  EXPECT_EQ(VerifyError(Module("  x = f32[] parameter(0)\n  ROOT f = f32[] fusion(x), kind=kLoop, calls=add\n", kAdd)),
            "instruction 'f' in computation 'e': fused computation add takes 2 parameters, given 1");
}

// fft_length must match the transformed dimensions (found by the compile-and-run
// fuzzer: fft_length={15} on c64[16] read past the end of the input).
TEST(RejectsFftLengthMismatch) {
  EXPECT_EQ(VerifyError(Module("  x = c64[16]{0} parameter(0)\n  ROOT f = c64[16]{0} fft(x), fft_type=FFT, fft_length={16}\n")), "OK");
  EXPECT_EQ(VerifyError(Module("  x = c64[16]{0} parameter(0)\n  ROOT f = c64[16]{0} fft(x), fft_type=FFT, fft_length={15}\n")),
            "instruction 'f' in computation 'e': fft operand c64[16] does not match fft_length: "
            "dimension 0 must be 15");
  EXPECT_EQ(VerifyError(Module("  x = c64[3,5]{1,0} parameter(0)\n  ROOT f = f32[3,8]{1,0} fft(x), fft_type=IRFFT, fft_length={8}\n")), "OK");
  EXPECT_EQ(VerifyError(Module("  x = c64[3,6]{1,0} parameter(0)\n  ROOT f = f32[3,8]{1,0} fft(x), fft_type=IRFFT, fft_length={8}\n")),
            "instruction 'f' in computation 'e': fft operand c64[3,6] does not match fft_length: "
            "dimension 1 must be 5");
  EXPECT_EQ(VerifyError(Module("  x = f32[3,8]{1,0} parameter(0)\n  ROOT f = c64[3,5]{1,0} fft(x), fft_type=RFFT, fft_length={8}\n")), "OK");
}

// Window arithmetic is checked for overflow (found by the compile-and-run fuzzer under
// UBSan: lhs_dilate=9223372036854775807 overflowed int64 in shape inference).
TEST(HugeSliceStrides) {
  // The fuzzer's fourth finding (UBSan): a stride of 2^63-1 overflowed the size formula.
  EXPECT_EQ(VerifyError(Module("  x = f32[9,7]{1,0} parameter(0)\n  ROOT s = f32[1,3]{1,0} slice(x), slice={[1:8:9223372036854775807], [0:7:3]}\n")), "OK");
  EXPECT_EQ(VerifyError(Module("  x = f32[9,7]{1,0} parameter(0)\n  ROOT s = f32[4,3]{1,0} slice(x), slice={[1:8:9223372036854775807], [0:7:3]}\n")),
            "instruction 's' in computation 'e': shape f32[4,3] does not match the inferred shape f32[1,3]");
}

TEST(RejectsOverflowingWindows) {
  EXPECT_EQ(VerifyError(Module("  x = f32[1,4,4,3]{3,2,1,0} parameter(0)\n  w = f32[3,3,3,2]{3,2,1,0} parameter(1)\n  ROOT c = f32[1,8,8,2]{3,2,1,0} convolution(x, w), window={size=3x3 pad=2_1x2_1 lhs_dilate=9223372036854775807x2}, dim_labels=b01f_01io->b01f\n")),
            "instruction 'c' in computation 'e': window size, padding or dilation overflows int64");
}

// A collective's declared result must be its operand as the collective
// transforms it: the runtime copies between buffers of those sizes.
TEST(RejectsCollectiveResultShapes) {
  EXPECT_EQ(VerifyError(Module("  x = f32[4]{0} parameter(0)\n  ROOT r = f32[4]{0} all-reduce(x), replica_groups={{0,1}}, to_apply=add\n", kAdd)),
            "OK");
  EXPECT_EQ(VerifyError(Module("  x = f32[4]{0} parameter(0)\n  ROOT r = f32[8]{0} all-reduce(x), replica_groups={{0,1}}, to_apply=add\n", kAdd)),
            "instruction 'r' in computation 'e': all-reduce result f32[8] does not match operand f32[4]");
  EXPECT_EQ(VerifyError(Module("  x = f32[4]{0} parameter(0)\n  ROOT g = f32[8]{0} all-gather(x), replica_groups={{0,1}}, dimensions={0}\n")),
            "OK");
  EXPECT_EQ(VerifyError(Module("  x = f32[4]{0} parameter(0)\n  ROOT g = f32[6]{0} all-gather(x), replica_groups={{0,1}}, dimensions={0}\n")),
            "instruction 'g' in computation 'e': all-gather result f32[6] does not match operand "
            "f32[4] along dimension 0 for groups of 2");
  EXPECT_EQ(VerifyError(Module("  x = f32[4]{0} parameter(0)\n  ROOT g = f32[8]{0} all-gather(x), replica_groups={{0,1}}, dimensions={1}\n")),
            "instruction 'g' in computation 'e': all-gather dimension 1 is out of range for rank 1");
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// Element counts and byte sizes must fit in int64: the parser refuses larger
// shapes with their position, before anything multiplies them.
TEST(RejectsShapesTooLargeForInt64) {
  EXPECT_EQ(FirstLine(VerifyError(Module("  c = f32[] constant(0)\n  ROOT b = f32[4611686018427387904]{0} broadcast(c), dimensions={}\n"))),
            "PARSE ERROR: 5:12: shape f32[4611686018427387904] is too large: its size in bytes "
            "overflows int64");
  EXPECT_EQ(FirstLine(VerifyError(Module("  c = f32[] constant(0)\n  ROOT b = f32[4294967296,4294967296]{1,0} broadcast(c), dimensions={}\n"))),
            "PARSE ERROR: 5:12: shape f32[4294967296,4294967296] is too large: its element count "
            "overflows int64");
  EXPECT_TRUE(CheckArraySize(PrimitiveType::F32, {int64_t{1} << 60}).ok());
  EXPECT_TRUE(!CheckArraySize(PrimitiveType::F32, {int64_t{1} << 61}).ok());  // 2**63 bytes
  EXPECT_TRUE(!CheckArraySize(PrimitiveType::F64, {int64_t{1} << 61}).ok());
  EXPECT_TRUE(!CheckShapeSize(Shape::MakeTuple({Shape(PrimitiveType::S8, {int64_t{1} << 62}),
                                                Shape(PrimitiveType::S8, {int64_t{1} << 62})}))
                   .ok());
}

// The verifier ignores layouts: {0,1} on a transpose result is fine.
TEST(LayoutsAreIgnored) {
  EXPECT_EQ(VerifyError(Module("  x = f32[2,3]{1,0} parameter(0)\n  ROOT t = f32[3,2]{0,1} transpose(x), dimensions={1,0}\n")),
            "OK");
}

}  // namespace
}  // namespace xla

TEST_MAIN()
