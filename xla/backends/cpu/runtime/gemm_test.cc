// Every GEMM variant this CPU can run (AVX2 always, AVX-512 where present)
// agrees with a naive double-precision loop: all operand orientations,
// padded leading dimensions, accumulation, shapes that are not multiples of
// the vector width, f32 and f64. The host's choice is the widest variant.
#include "xla/backends/cpu/runtime/gemm.h"

#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "xla/hlo/testing/check.h"

namespace xla::cpu {
namespace {

struct Case {
  int64_t m, n, k;
};

// Leading dimensions are padded by 3 so strides differ from the sizes.
constexpr int64_t kPad = 3;

template <typename T>
struct Operands {
  std::vector<T> a, b, c;
  GemmArgs<T> args;
};

template <typename T>
Operands<T> MakeOperands(const Case& s, bool at, bool bt, bool accumulate, std::mt19937& rng) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Operands<T> o;
  GemmArgs<T>& g = o.args;
  g.m = s.m;
  g.n = s.n;
  g.k = s.k;
  g.a_transposed = at;
  g.b_transposed = bt;
  g.accumulate = accumulate;
  g.lda = (at ? s.m : s.k) + kPad;
  g.ldb = (bt ? s.k : s.n) + kPad;
  g.ldc = s.n + kPad;
  o.a.resize((at ? s.k : s.m) * g.lda);
  o.b.resize((bt ? s.n : s.k) * g.ldb);
  o.c.resize(s.m * g.ldc);
  for (T& x : o.a) x = static_cast<T>(dist(rng));
  for (T& x : o.b) x = static_cast<T>(dist(rng));
  for (T& x : o.c) x = static_cast<T>(dist(rng));
  return o;
}

// c (+)= op(a) op(b) in double; the padding columns of c stay untouched.
template <typename T>
std::vector<double> Reference(const Operands<T>& o) {
  const GemmArgs<T>& g = o.args;
  std::vector<double> want(o.c.begin(), o.c.end());
  for (int64_t i = 0; i < g.m; ++i) {
    for (int64_t j = 0; j < g.n; ++j) {
      double sum = g.accumulate ? want[i * g.ldc + j] : 0.0;
      for (int64_t p = 0; p < g.k; ++p) {
        double a = g.a_transposed ? o.a[p * g.lda + i] : o.a[i * g.lda + p];
        double b = g.b_transposed ? o.b[j * g.ldb + p] : o.b[p * g.ldb + j];
        sum += a * b;
      }
      want[i * g.ldc + j] = sum;
    }
  }
  return want;
}

template <typename T>
void CheckVariant(const GemmKernels& kernels, void (*gemm)(const GemmArgs<T>&), double tol) {
  std::mt19937 rng(42);
  const Case cases[] = {{1, 1, 1},   {7, 5, 3},     {16, 16, 16},  {33, 29, 17},
                        {48, 4, 1},  {100, 1, 257}, {1, 100, 64},  {65, 130, 300},
                        {200, 97, 129}, {300, 300, 300}};
  for (const Case& s : cases) {
    for (int at = 0; at < 2; ++at) {
      for (int bt = 0; bt < 2; ++bt) {
        for (int acc = 0; acc < 2; ++acc) {
          Operands<T> o = MakeOperands<T>(s, at, bt, acc, rng);
          const std::vector<double> want = Reference(o);
          o.args.a = o.a.data();
          o.args.b = o.b.data();
          o.args.c = o.c.data();
          gemm(o.args);
          double worst = 0;
          for (size_t i = 0; i < want.size(); ++i) {
            worst = std::max(worst, std::abs(want[i] - o.c[i]));
          }
          // Each output sums k products of numbers in [-1, 1].
          const double bound = tol * std::sqrt(static_cast<double>(s.k) + 1) * 4;
          if (!(worst <= bound)) {
            std::ostringstream what;
            what << kernels.name << " " << s.m << "x" << s.n << "x" << s.k << " at=" << at
                 << " bt=" << bt << " acc=" << acc << ": error " << worst << " > " << bound;
            ::xla::testing::ReportFailure(__FILE__, __LINE__, what.str());
          }
        }
      }
    }
  }
}

void CheckKernels(const GemmKernels& kernels) {
  CheckVariant<float>(kernels, kernels.f32, 1e-6);
  CheckVariant<double>(kernels, kernels.f64, 1e-14);
}

TEST(Avx2MatchesReference) {
  const GemmKernels* kernels = GemmKernelsFor(GemmIsa::kAvx2);
  CHECK_TRUE(kernels != nullptr);  // the CPU client requires AVX2 and FMA
  EXPECT_EQ(std::string(kernels->name), "avx2");
  CheckKernels(*kernels);
}

TEST(Avx512MatchesReference) {
  const GemmKernels* kernels = GemmKernelsFor(GemmIsa::kAvx512);
  if (kernels == nullptr) {
    std::fprintf(stderr, "this CPU has no AVX-512: only the AVX2 kernels are checked\n");
    return;
  }
  EXPECT_EQ(std::string(kernels->name), "avx512");
  CheckKernels(*kernels);
}

TEST(HostPicksTheWidestVariant) {
  const GemmIsa want =
      GemmKernelsFor(GemmIsa::kAvx512) != nullptr ? GemmIsa::kAvx512 : GemmIsa::kAvx2;
  EXPECT_TRUE(HostGemm().isa == want);
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
