#include "xla/backends/cpu/runtime/sort_thunk.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>

#include "xla/backends/cpu/runtime/thread_pool.h"
#include "xla/hlo/ir/native_type.h"

namespace xla::cpu {
namespace {

// Lanes of fewer element-compares than this all run on the calling thread.
constexpr int64_t kMinParallelWork = 1 << 14;

void ForEachLane(ThreadPool* pool, int64_t lanes, int64_t work_per_lane,
                 const std::function<void(int64_t)>& fn) {
  if (pool == nullptr || lanes <= 1 || lanes * work_per_lane < kMinParallelWork) {
    for (int64_t l = 0; l < lanes; ++l) fn(l);
    return;
  }
  const int64_t tasks = std::min<int64_t>(lanes, 4 * pool->num_threads());
  const int64_t per = (lanes + tasks - 1) / tasks;
  pool->ParallelFor(tasks, [&](int64_t t) {
    for (int64_t l = t * per; l < std::min(lanes, (t + 1) * per); ++l) fn(l);
  });
}

// Maps an element to a uint64 whose unsigned order is the element's total
// order (floats: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN).
uint64_t OrderKey(PrimitiveType type, const uint8_t* p) {
  auto float_key = [](uint64_t bits, int width) {
    const uint64_t sign = uint64_t{1} << (width - 1);
    return (bits & sign) ? (~bits & ((sign << 1) - 1)) : (bits | sign);
  };
  switch (type) {
    case PrimitiveType::F16: { uint16_t b; std::memcpy(&b, p, 2); return float_key(b, 16); }
    case PrimitiveType::BF16: { uint16_t b; std::memcpy(&b, p, 2); return float_key(b, 16); }
    case PrimitiveType::F8E4M3FN:
    case PrimitiveType::F8E5M2:
    case PrimitiveType::F8E4M3:
    case PrimitiveType::F8E3M4: return float_key(*p, 8);
    case PrimitiveType::F8E4M3FNUZ:
    case PrimitiveType::F8E5M2FNUZ:
    case PrimitiveType::F8E4M3B11FNUZ:
      // 0x80 is these formats' NaN, not -0: it orders above everything, as +NaN does.
      return *p == 0x80 ? 0x100 : float_key(*p, 8);
    case PrimitiveType::F32: { uint32_t b; std::memcpy(&b, p, 4); return float_key(b, 32); }
    case PrimitiveType::F64: { uint64_t b; std::memcpy(&b, p, 8); return float_key(b, 64); }
    case PrimitiveType::S8: return static_cast<uint64_t>(int64_t{*reinterpret_cast<const int8_t*>(p)}) ^ (uint64_t{1} << 63);
    case PrimitiveType::S16: { int16_t v; std::memcpy(&v, p, 2); return static_cast<uint64_t>(int64_t{v}) ^ (uint64_t{1} << 63); }
    case PrimitiveType::S32: { int32_t v; std::memcpy(&v, p, 4); return static_cast<uint64_t>(int64_t{v}) ^ (uint64_t{1} << 63); }
    case PrimitiveType::S64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63); }
    case PrimitiveType::S4: return static_cast<uint64_t>(int64_t{int4{*p}.value()}) ^ (uint64_t{1} << 63);
    case PrimitiveType::U4: return *p & 0xf;
    case PrimitiveType::PRED:
    case PrimitiveType::U8: return *p;
    case PrimitiveType::U16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case PrimitiveType::U32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case PrimitiveType::U64: { uint64_t v; std::memcpy(&v, p, 8); return v; }
    default: return 0;
  }
}

}  // namespace

Status SortThunk::Run(const ThunkParams& params) const {
  auto cmp = reinterpret_cast<SortComparator>(params.function);
  if (cmp == nullptr) return Internal("sort comparator was not compiled");
  const int64_t d = p_.dimension;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= p_.dims[i];
  for (size_t i = d + 1; i < p_.dims.size(); ++i) inner *= p_.dims[i];
  const int64_t n = p_.dims[d];
  const size_t num = p_.input_slots.size();
  std::vector<const uint8_t*> in(num);
  std::vector<uint8_t*> out(num);
  std::vector<int64_t> width(num);
  for (size_t k = 0; k < num; ++k) {
    in[k] = static_cast<const uint8_t*>(params.buffers[p_.input_slots[k]]);
    out[k] = static_cast<uint8_t*>(params.buffers[p_.output_slots[k]]);
    width[k] = ByteWidth(p_.types[k]);
  }
  const int64_t log_n = n > 1 ? 64 - __builtin_clzll(static_cast<uint64_t>(n)) : 1;
  ForEachLane(params.pool, outer * inner, n * log_n, [&](int64_t lane) {
    const int64_t base = (lane / inner) * n * inner + lane % inner;
    std::vector<int64_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::vector<const void*> elems(2 * num);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      for (size_t k = 0; k < num; ++k) {
        elems[2 * k] = in[k] + (base + a * inner) * width[k];
        elems[2 * k + 1] = in[k] + (base + b * inner) * width[k];
      }
      return cmp(elems.data()) != 0;
    });
    for (size_t k = 0; k < num; ++k) {
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(out[k] + (base + i * inner) * width[k],
                    in[k] + (base + perm[i] * inner) * width[k], width[k]);
      }
    }
  });
  return OkStatus();
}

Status TopKThunk::Run(const ThunkParams& params) const {
  const auto* in = static_cast<const uint8_t*>(params.buffers[p_.input_slot]);
  auto* values = static_cast<uint8_t*>(params.buffers[p_.values_slot]);
  auto* indices = static_cast<int32_t*>(params.buffers[p_.indices_slot]);
  const int64_t w = ByteWidth(p_.type);
  const int64_t k = std::min(p_.k, p_.n);
  ForEachLane(params.pool, p_.rows, p_.n, [&](int64_t r) {
    const uint8_t* row = in + r * p_.n * w;
    std::vector<uint64_t> key(p_.n);
    for (int64_t i = 0; i < p_.n; ++i) key[i] = OrderKey(p_.type, row + i * w);
    std::vector<int64_t> perm(p_.n);
    std::iota(perm.begin(), perm.end(), 0);
    std::partial_sort(perm.begin(), perm.begin() + k, perm.end(), [&](int64_t a, int64_t b) {
      if (key[a] != key[b]) return p_.largest ? key[a] > key[b] : key[a] < key[b];
      return a < b;
    });
    for (int64_t i = 0; i < k; ++i) {
      std::memcpy(values + (r * p_.k + i) * w, row + perm[i] * w, w);
      indices[r * p_.k + i] = static_cast<int32_t>(perm[i]);
    }
  });
  return OkStatus();
}

}  // namespace xla::cpu
