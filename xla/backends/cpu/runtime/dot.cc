// Dots as GEMMs (gemm.h), split over the thread pool by batch and by tiles of
// the output.
#include "xla/backends/cpu/runtime/dot.h"

#include <algorithm>

#include "xla/backends/cpu/runtime/gemm.h"

namespace xla::cpu {
namespace {

// Below this many multiply-adds a task's packing and wake-up cost more than
// the parallelism gains.
constexpr double kMinTaskFlops = 2.0e6;

// Two tiles per thread: a thread that is descheduled (the machine is shared)
// leaves its second tile to the others, and near-square tiles keep the extra
// packing this costs small.
constexpr int64_t kTasksPerThread = 2;

// How one batch element's [m, n] output is cut into tiles, one task each.
struct Tiling {
  int64_t row_tiles = 1, rows = 0;  // rows per tile
  int64_t col_tiles = 1, cols = 0;  // columns per tile
  int64_t tiles() const { return row_tiles * col_tiles; }
};

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Cuts the output into at least `parts` tiles (fewer only when the output is
// too small) of whole multiples of `align` rows and columns, so GEMM
// micro-kernels see full vector tiles. A tile packs its rows of lhs and its
// columns of rhs, so of the grids with enough tiles the one with r x c tiles
// minimising the packed elements c*m + r*n wins.
Tiling TileOutput(int64_t m, int64_t n, int64_t parts, int64_t align) {
  auto worse = [&](const Tiling& a, const Tiling& b) {
    const int64_t a_short = std::max<int64_t>(0, parts - a.tiles());
    const int64_t b_short = std::max<int64_t>(0, parts - b.tiles());
    if (a_short != b_short) return a_short > b_short;
    return a.col_tiles * m + a.row_tiles * n > b.col_tiles * m + b.row_tiles * n;
  };
  Tiling best;
  best.rows = m;
  best.cols = n;
  for (int64_t r = 1; r <= parts; ++r) {
    Tiling t;
    t.rows = std::min(m, CeilDiv(CeilDiv(m, r), align) * align);
    t.cols = std::min(n, CeilDiv(CeilDiv(n, CeilDiv(parts, r)), align) * align);
    t.row_tiles = CeilDiv(m, t.rows);
    t.col_tiles = CeilDiv(n, t.cols);
    if (worse(best, t)) best = t;
  }
  return best;
}

template <typename T>
void RunTile(const DotParams& p, const T* lhs, const T* rhs, T* out, int64_t b, int64_t r0,
             int64_t r1, int64_t c0, int64_t c1) {
  GemmArgs<T> g;
  g.m = r1 - r0;
  g.n = c1 - c0;
  g.k = p.k;
  const T* lb = lhs + b * p.m * p.k;
  const T* rb = rhs + b * p.k * p.n;
  g.a_transposed = p.lhs_transposed;
  g.a = p.lhs_transposed ? lb + r0 : lb + r0 * p.k;
  g.lda = p.lhs_transposed ? p.m : p.k;
  g.b_transposed = p.rhs_transposed;
  g.b = p.rhs_transposed ? rb + c0 * p.k : rb + c0;
  g.ldb = p.rhs_transposed ? p.k : p.n;
  g.c = out + b * p.m * p.n + r0 * p.n + c0;
  g.ldc = p.n;
  Gemm<T>(g);
}

template <typename T>
void RunDotTyped(const DotParams& p, void* const* buffers, ThreadPool& pool) {
  const T* lhs = static_cast<const T*>(buffers[p.lhs_slot]);
  const T* rhs = static_cast<const T*>(buffers[p.rhs_slot]);
  T* out = static_cast<T*>(buffers[p.out_slot]);
  if (p.m == 0 || p.n == 0 || p.batch == 0) return;
  if (p.k == 0) {
    std::fill(out, out + p.batch * p.m * p.n, T(0));
    return;
  }
  const double flops = static_cast<double>(p.batch) * p.m * p.n * p.k;
  int64_t tasks = std::max<int64_t>(1, static_cast<int64_t>(flops / kMinTaskFlops));
  tasks = std::min<int64_t>(tasks, kTasksPerThread * pool.num_threads());
  // Batches are independent GEMMs; only when there are fewer of them than
  // tasks is each output cut into tiles.
  const int64_t parts = p.batch >= tasks ? 1 : CeilDiv(tasks, p.batch);
  const Tiling t = TileOutput(p.m, p.n, parts, 64 / sizeof(T));
  const int64_t total = p.batch * t.tiles();
  if (total == 1) {
    RunTile<T>(p, lhs, rhs, out, 0, 0, p.m, 0, p.n);
    return;
  }
  pool.ParallelFor(total, [&](int64_t task) {
    const int64_t b = task / t.tiles(), tile = task % t.tiles();
    const int64_t r0 = (tile / t.col_tiles) * t.rows, c0 = (tile % t.col_tiles) * t.cols;
    RunTile<T>(p, lhs, rhs, out, b, r0, std::min(p.m, r0 + t.rows), c0,
               std::min(p.n, c0 + t.cols));
  });
}

}  // namespace

void RunDot(const DotParams& params, void* const* buffers, ThreadPool& pool) {
  if (params.type == PrimitiveType::F64) {
    RunDotTyped<double>(params, buffers, pool);
  } else {
    RunDotTyped<float>(params, buffers, pool);
  }
}

}  // namespace xla::cpu
