// AlgebraicSimplifier tests, written in HLO text.
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/testing/check.h"
#include "xla/passes/algebraic_simplifier.h"
#include "xla/passes/constant_folding.h"
#include "xla/passes/dce.h"

namespace xla {
namespace {

std::string Simplified(const std::string& text) {
  auto m = ParseHloModule(text);
  if (!m.ok()) return "parse error: " + m.status().ToString();
  AlgebraicSimplifier simplifier;
  auto changed = simplifier.Run(m->get());
  if (!changed.ok()) return "error: " + changed.status().ToString();
  // Folding shows the scalar products the simplifier builds as numbers.
  HloConstantFolding folding;
  if (!folding.Run(m->get()).ok()) return "folding error";
  HloDCE dce;
  if (!dce.Run(m->get()).ok()) return "dce error";
  std::string out = ToString(**m);
  if (!ParseHloModule(out).ok()) return "unparsable result:\n" + out;
  return out;
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// JAX's keepdims chain between a reduce and its broadcast collapses, so the
// broadcast reads the reduce directly.
TEST(ReshapePairsCollapse) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  k = f32[4,1]{1,0} reshape(x)
  i = f32[4,1]{1,0} broadcast(k), dimensions={0,1}
  f = f32[4]{0} reshape(i)
  b = f32[4,3]{1,0} broadcast(f), dimensions={0}
  y = f32[2,6]{1,0} parameter(1)
  r1 = f32[12]{0} reshape(y)
  r2 = f32[3,4]{1,0} reshape(r1)
  ROOT t = (f32[4,3]{1,0}, f32[3,4]{1,0}) tuple(b, r2)
}

)");
  EXPECT_TRUE(Contains(out, "broadcast(x), dimensions={0}"));
  EXPECT_TRUE(Contains(out, "f32[3,4]{1,0} reshape(y)"));
  EXPECT_TRUE(!Contains(out, "f32[4,1]"));
  EXPECT_TRUE(!Contains(out, "f32[12]"));
}

// Dividing by a broadcast row sum becomes one reciprocal per row and a
// multiply per element; integer division is left alone.
TEST(DivideByBroadcastBecomesMultiplyByReciprocal) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  x = f32[4,3]{1,0} parameter(0)
  s = f32[4]{0} parameter(1)
  b = f32[4,3]{1,0} broadcast(s), dimensions={0}
  d = f32[4,3]{1,0} divide(x, b)
  i = s32[4,3]{1,0} parameter(2)
  j = s32[4]{0} parameter(3)
  bj = s32[4,3]{1,0} broadcast(j), dimensions={0}
  q = s32[4,3]{1,0} divide(i, bj)
  ROOT t = (f32[4,3]{1,0}, s32[4,3]{1,0}) tuple(d, q)
}

)");
  EXPECT_TRUE(Contains(out, "f32[4]{0} divide("));
  EXPECT_TRUE(Contains(out, "f32[4,3]{1,0} multiply(x, "));
  EXPECT_TRUE(!Contains(out, "f32[4,3]{1,0} divide("));
  EXPECT_TRUE(Contains(out, "s32[4,3]{1,0} divide(i, bj)"));
}

// A product with a converted boolean selects, so False times an infinity is 0; a
// boolean broadcast before or after its conversion, a bf16 product and an integer
// operand are left alone (as on XLA:CPU).
TEST(MultiplyByConvertedPredicateBecomesSelect) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  p = pred[4]{0} parameter(1)
  c = f32[4]{0} convert(p)
  m1 = f32[4]{0} multiply(x, c)
  m2 = f32[4]{0} multiply(c, x)
  s = pred[] parameter(2)
  cs = f32[] convert(s)
  bs = f32[4]{0} broadcast(cs), dimensions={}
  m3 = f32[4]{0} multiply(x, bs)
  h = bf16[4]{0} parameter(3)
  ch = bf16[4]{0} convert(p)
  m4 = bf16[4]{0} multiply(h, ch)
  i = s8[4]{0} parameter(4)
  ci = f32[4]{0} convert(i)
  m5 = f32[4]{0} multiply(x, ci)
  ps = pred[4]{0} broadcast(s), dimensions={}
  cps = f32[4]{0} convert(ps)
  m6 = f32[4]{0} multiply(x, cps)
  ROOT t = (f32[4]{0}, f32[4]{0}, f32[4]{0}, bf16[4]{0}, f32[4]{0}, f32[4]{0}) tuple(m1, m2, m3, m4, m5, m6)
}

)");
  EXPECT_TRUE(Contains(out, "f32[4]{0} select(p, x, "));
  EXPECT_TRUE(!Contains(out, "multiply(x, c)") && !Contains(out, "multiply(c, x)"));
  EXPECT_TRUE(Contains(out, "multiply(x, bs)"));
  EXPECT_TRUE(Contains(out, "bf16[4]{0} multiply(h, ch)"));
  EXPECT_TRUE(Contains(out, "multiply(x, ci)"));
  EXPECT_TRUE(Contains(out, "multiply(x, cps)"));
}

TEST(DivideByConstantBecomesMultiplyByReciprocal) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  x = f32[6]{0} parameter(0)
  c = f32[] constant(6)
  b = f32[6]{0} broadcast(c), dimensions={}
  ROOT d = f32[6]{0} divide(x, b)
}

)");
  EXPECT_TRUE(!Contains(out, "divide("));
  EXPECT_TRUE(Contains(out, "multiply(x, "));
  EXPECT_TRUE(Contains(out, "constant(0.16666667"));
}

TEST(ConstantFactorsFoldIntoOne) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  x = f32[6]{0} parameter(0)
  c = f32[] constant(6)
  b = f32[6]{0} broadcast(c), dimensions={}
  d = f32[6]{0} divide(x, b)
  n = f32[] constant(0.9)
  nb = f32[6]{0} broadcast(n), dimensions={}
  ROOT m = f32[6]{0} multiply(nb, d)
}

)");
  // 0.9f * (1/6)f rounded once in f32 is 0.15f.
  EXPECT_TRUE(Contains(out, "constant(0.15)"));
  EXPECT_TRUE(Contains(out, "multiply(x, "));
  EXPECT_TRUE(!Contains(out, "divide("));
}

TEST(ScalarFactorsMultiplyOnceAsScalars) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  x = f32[4]{0} parameter(0)
  s = f32[] parameter(1)
  c = f32[] constant(0.5)
  cb = f32[4]{0} broadcast(c), dimensions={}
  xc = f32[4]{0} multiply(x, cb)
  sb = f32[4]{0} broadcast(s), dimensions={}
  ROOT m = f32[4]{0} multiply(sb, xc)
}

)");
  EXPECT_TRUE(Contains(out, "f32[] multiply(s, c)"));
  EXPECT_TRUE(Contains(out, "f32[4]{0} multiply(x, "));
  EXPECT_TRUE(!Contains(out, "multiply(sb, xc)"));
}

// Rank-0 code: ((x - m) / 5)^2 is (x - m)^2 * (0.2 * 0.2), one constant, as
// XLA simplifies scalars; (x * 3) * y keeps its order.
TEST(Rank0ConstantFactorsFoldIntoOne) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  x = f32[] parameter(0)
  m = f32[] parameter(1)
  y = f32[] parameter(2)
  five = f32[] constant(5)
  three = f32[] constant(3)
  seven = f32[] constant(7)
  d = f32[] subtract(x, m)
  q = f32[] divide(d, five)
  sq = f32[] multiply(q, q)
  x3 = f32[] multiply(x, three)
  keep = f32[] multiply(x3, y)
  twice = f32[] multiply(seven, x3)
  ROOT t = (f32[], f32[], f32[]) tuple(sq, keep, twice)
}

)");
  // 0.2f * 0.2f rounded in f32 is 0.0400000028f; 7 * 3 = 21.
  EXPECT_TRUE(Contains(out, "multiply(d, d)"));
  EXPECT_TRUE(Contains(out, "constant(0.0400000028)"));
  EXPECT_TRUE(Contains(out, "constant(21)"));
  EXPECT_TRUE(Contains(out, "multiply(x3, y)"));
}

// Products and quotients of exps become one exp.
TEST(ExpsCombine) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  a = f32[3]{0} parameter(0)
  b = f32[3]{0} parameter(1)
  ea = f32[3]{0} exponential(a)
  eb = f32[3]{0} exponential(b)
  p = f32[3]{0} multiply(ea, eb)
  q = f32[3]{0} divide(ea, eb)
  r = f32[3]{0} divide(a, eb)
  ROOT t = (f32[3]{0}, f32[3]{0}, f32[3]{0}) tuple(p, q, r)
}

)");
  EXPECT_TRUE(Contains(out, "add(a, b)"));
  EXPECT_TRUE(Contains(out, "subtract(a, b)"));
  EXPECT_TRUE(Contains(out, "negate(b)"));
  EXPECT_TRUE(!Contains(out, "divide("));
  EXPECT_TRUE(!Contains(out, "multiply(ea, eb)"));
}

// Reshapes move below elementwise ops whose reshaped operands share a shape,
// so a scale reshaped to [1] and squared meets its exp: 1 / (e * e) for
// e = reshape(exp(z)) is exp(-(z + z)) once the rounds settle. Reshapes of
// different shapes stay.
TEST(ReshapesSinkBelowElementwiseOps) {
  auto m = ParseHloModule(R"(HloModule m

ENTRY e {
  z = f32[] parameter(0)
  e = f32[] exponential(z)
  r = f32[1]{0} reshape(e)
  sq = f32[1]{0} multiply(r, r)
  one = f32[] constant(1)
  ones = f32[1]{0} broadcast(one), dimensions={}
  inv = f32[1]{0} divide(ones, sq)
  x = f32[4,3]{1,0} parameter(1)
  y = f32[12]{0} reshape(x)
  w = f32[4,3]{1,0} parameter(2)
  v = f32[12]{0} reshape(w)
  mx = f32[12]{0} maximum(y, v)
  u = f32[3,4]{1,0} parameter(3)
  k = f32[12]{0} reshape(u)
  mixed = f32[12]{0} add(y, k)
  c = f32[] constant(2)
  bc = f32[12]{0} broadcast(c), dimensions={}
  q = f32[12]{0} parameter(4)
  sel = f32[12]{0} clamp(bc, y, q)
  bits = u32[8]{0} parameter(5)
  words = u32[4,2]{1,0} reshape(bits)
  wide = u64[4]{0} bitcast-convert(words)
  ROOT t = (f32[1]{0}, f32[12]{0}, f32[12]{0}, f32[12]{0}, u64[4]{0}) tuple(inv, mx, mixed, sel, wide)
}

)");
  EXPECT_TRUE(m.ok());
  // Rounds until nothing changes; an operand that cannot move (q, a full array)
  // leaves no instruction behind, so the rounds end.
  bool settled = false;
  for (int round = 0; round < 8 && !settled; ++round) {
    AlgebraicSimplifier simplifier;
    HloDCE dce;
    auto changed = simplifier.Run(m->get());
    auto removed = dce.Run(m->get());
    EXPECT_TRUE(changed.ok() && removed.ok());
    settled = !changed.ok() || !removed.ok() || (!*changed && !*removed);
  }
  EXPECT_TRUE(settled);
  std::string out = ToString(**m);
  EXPECT_TRUE(Contains(out, "add(z, z)"));
  EXPECT_TRUE(Contains(out, "negate("));
  EXPECT_TRUE(!Contains(out, "divide("));
  EXPECT_TRUE(Contains(out, "f32[4,3]{1,0} maximum(x, w)"));
  EXPECT_TRUE(Contains(out, "add(y, k)"));
  EXPECT_TRUE(Contains(out, "clamp(bc, y, q)"));
  EXPECT_TRUE(Contains(out, "bitcast-convert(words)"));
  EXPECT_TRUE(ParseHloModule(out).ok());
}

// Adding or subtracting zero goes away; subtracting from zero stays.
TEST(AddingZeroDisappears) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  x = f32[] parameter(0)
  z = f32[] constant(0)
  s = f32[] subtract(x, z)
  a = f32[] add(z, s)
  e = f32[] exponential(a)
  sq = f32[] multiply(e, e)
  n = f32[] subtract(z, x)
  ROOT t = (f32[], f32[]) tuple(sq, n)
}

)");
  EXPECT_TRUE(Contains(out, "add(x, x)"));
  EXPECT_TRUE(Contains(out, "subtract(z, x)"));
  EXPECT_TRUE(!Contains(out, "subtract(x, z)"));
}

TEST(DivideByAVariableOrAnIntegerStays) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  x = f32[2]{0} parameter(0)
  y = f32[2]{0} parameter(1)
  i = s32[2]{0} parameter(2)
  c = s32[] constant(3)
  b = s32[2]{0} broadcast(c), dimensions={}
  d = f32[2]{0} divide(x, y)
  q = s32[2]{0} divide(i, b)
  ROOT t = (f32[2]{0}, s32[2]{0}) tuple(d, q)
}

)");
  EXPECT_TRUE(Contains(out, "divide(x, y)"));
  EXPECT_TRUE(Contains(out, "divide(i, b)"));
}

TEST(NoOpsAndMultiplyByOneDisappear) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  r = f32[2,3]{1,0} reshape(x)
  t = f32[2,3]{1,0} transpose(r), dimensions={0,1}
  v = f32[2,3]{1,0} convert(t)
  s = f32[2,3]{1,0} slice(v), slice={[0:2], [0:3]}
  one = f32[] constant(1)
  ob = f32[2,3]{1,0} broadcast(one), dimensions={}
  ROOT m = f32[2,3]{1,0} multiply(s, ob)
}

)");
  EXPECT_EQ(out, std::string(R"(HloModule m

ENTRY e {
  ROOT x = f32[2,3]{1,0} parameter(0)
}

)"));
}

TEST(RealTransposeAndMultiplyByTwoStay) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  x = f32[2,2]{1,0} parameter(0)
  t = f32[2,2]{1,0} transpose(x), dimensions={1,0}
  two = f32[] constant(2)
  b = f32[2,2]{1,0} broadcast(two), dimensions={}
  ROOT m = f32[2,2]{1,0} multiply(t, b)
}

)");
  EXPECT_TRUE(Contains(out, "transpose(x)"));
  EXPECT_TRUE(Contains(out, "multiply(t, b)"));
}

TEST(TransposeOfDotBecomesSwappedDot) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  g = f32[128,512]{1,0} parameter(0)
  x = f32[128,784]{1,0} parameter(1)
  d = f32[512,784]{1,0} dot(g, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  ROOT t = f32[784,512]{1,0} transpose(d), dimensions={1,0}
}

)");
  EXPECT_TRUE(!Contains(out, "transpose("));
  EXPECT_TRUE(Contains(out, "f32[784,512]{1,0} dot(x, g), lhs_contracting_dims={0}, "
                            "rhs_contracting_dims={0}"));
}

TEST(TransposeOfDotSwapsContractingDims) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  a = f32[3,4]{1,0} parameter(0)
  b = f32[5,4]{1,0} parameter(1)
  d = f32[3,5]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  ROOT t = f32[5,3]{1,0} transpose(d), dimensions={1,0}
}

)");
  EXPECT_TRUE(Contains(out, "f32[5,3]{1,0} dot(b, a), lhs_contracting_dims={1}, "
                            "rhs_contracting_dims={1}"));
}

// A dot with other users, or with batch dimensions, keeps its transpose:
// folding would compute the product twice or is not a plain swap.
TEST(TransposeOfSharedOrBatchedDotStays) {
  std::string out = Simplified(R"(HloModule m

ENTRY e {
  a = f32[3,4]{1,0} parameter(0)
  b = f32[4,5]{1,0} parameter(1)
  d = f32[3,5]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[5,3]{1,0} transpose(d), dimensions={1,0}
  p = f32[2,3,4]{2,1,0} parameter(2)
  q = f32[2,4,5]{2,1,0} parameter(3)
  bd = f32[2,3,5]{2,1,0} dot(p, q), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  bt = f32[2,5,3]{2,1,0} transpose(bd), dimensions={0,2,1}
  ROOT r = (f32[3,5]{1,0}, f32[5,3]{1,0}, f32[2,5,3]{2,1,0}) tuple(d, t, bt)
}

)");
  EXPECT_TRUE(Contains(out, "transpose(d)"));
  EXPECT_TRUE(Contains(out, "transpose(bd)"));
}

}  // namespace
}  // namespace xla

TEST_MAIN()
