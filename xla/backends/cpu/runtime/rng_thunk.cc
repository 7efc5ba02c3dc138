#include "xla/backends/cpu/runtime/rng_thunk.h"

#include <array>
#include <cstring>

namespace xla::cpu {
namespace {

using Pair = std::array<uint32_t, 2>;

uint32_t RotateLeft(uint32_t v, int r) { return (v << r) | (v >> (32 - r)); }
Pair Halves(uint64_t v) { return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)}; }
uint64_t Combine(uint32_t lo, uint32_t hi) { return uint64_t{lo} | (uint64_t{hi} << 32); }

Pair Threefry(Pair key, Pair x) {
  static constexpr int kRotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const uint32_t schedule[3] = {key[0], key[1], key[0] ^ key[1] ^ 0x1BD11BDAu};
  x[0] += schedule[0];
  x[1] += schedule[1];
  for (int group = 0; group < 5; ++group) {
    for (int r : kRotations[group % 2]) {
      x[0] += x[1];
      x[1] = RotateLeft(x[1], r) ^ x[0];
    }
    x[0] += schedule[(group + 1) % 3];
    x[1] += schedule[(group + 2) % 3] + static_cast<uint32_t>(group + 1);
  }
  return x;
}

std::array<uint32_t, 4> Philox(std::array<uint32_t, 4> c, Pair key) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t a = uint64_t{c[0]} * 0xD2511F53u;
    const uint64_t b = uint64_t{c[2]} * 0xCD9E8D57u;
    c = {static_cast<uint32_t>(b >> 32) ^ c[1] ^ key[0], static_cast<uint32_t>(b),
         static_cast<uint32_t>(a >> 32) ^ c[3] ^ key[1], static_cast<uint32_t>(a)};
    key[0] += 0x9E3779B9u;
    key[1] += 0xBB67AE85u;
  }
  return c;
}

}  // namespace

Status RngBitGeneratorThunk::Run(const ThunkParams& params) const {
  std::vector<uint64_t> state(p_.state_words);
  std::memcpy(state.data(), params.buffers[p_.state_slot], 8 * p_.state_words);
  const uint64_t key = state[0];
  const std::vector<int64_t>& dims = p_.output_dims;
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  void* out = params.buffers[p_.output_slot];
  auto* out32 = static_cast<uint32_t*>(out);
  auto* out64 = static_cast<uint64_t*>(out);

  if (p_.algorithm == RngAlgorithm::kThreeFry) {
    uint64_t counter = state[1];
    if (p_.output_width == 8) {
      for (int64_t i = 0; i < count; ++i) {
        Pair y = Threefry(Halves(key), Halves(counter + i));
        out64[i] = Combine(y[0], y[1]);
      }
      counter += count;
    } else if (dims.empty()) {
      out32[0] = Threefry(Halves(key), Halves(counter))[0];
      counter += 1;
    } else {
      // One call per pair along `split`: words 0 and 1 go to positions 2h, 2h+1.
      size_t split = dims.size();
      for (size_t i = 0; i < dims.size() && split == dims.size(); ++i) {
        if (dims[i] % 2 == 0) split = i;
      }
      if (split == dims.size()) {
        split = 0;
        for (size_t i = 1; i < dims.size(); ++i) if (dims[i] > dims[split]) split = i;
      }
      int64_t outer = 1, inner = 1;
      for (size_t i = 0; i < split; ++i) outer *= dims[i];
      for (size_t i = split + 1; i < dims.size(); ++i) inner *= dims[i];
      const int64_t n = dims[split], half = (n + 1) / 2;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t h = 0; h < half; ++h) {
          for (int64_t i = 0; i < inner; ++i) {
            const int64_t call = (o * half + h) * inner + i;  // index in the half shape
            Pair y = Threefry(Halves(key), Halves(counter + call));
            for (int w = 0; w < 2; ++w) {
              if (2 * h + w < n) out32[(o * n + 2 * h + w) * inner + i] = y[w];
            }
          }
        }
      }
      counter += outer * half * inner;
    }
    state[1] = counter;
  } else {
    // Philox: a two-word state uses (lo, hi) = (state[1], state[0]); a
    // three-word state (state[1], state[2]).
    const bool three = p_.state_words >= 3;
    uint64_t lo = state[1], hi = three ? state[2] : key;
    const int64_t words = count * (p_.output_width / 4);
    const int64_t blocks = (words + 3) / 4;
    std::vector<uint32_t> stream(blocks * 4);
    for (int64_t b = 0; b < blocks; ++b) {
      const uint64_t l = lo + static_cast<uint64_t>(b);
      const uint64_t h = hi + (l < lo ? 1 : 0);
      Pair a = Halves(l), c = Halves(h);
      std::array<uint32_t, 4> y = Philox({a[0], a[1], c[0], c[1]}, Halves(key));
      std::memcpy(&stream[b * 4], y.data(), 16);
    }
    if (p_.output_width == 8) {
      for (int64_t i = 0; i < count; ++i) out64[i] = Combine(stream[2 * i], stream[2 * i + 1]);
    } else {
      std::memcpy(out32, stream.data(), 4 * count);
    }
    const uint64_t old = lo;
    lo += static_cast<uint64_t>(blocks);
    if (lo < old) ++hi;
    state[1] = lo;
    if (three) state[2] = hi;
  }
  std::memcpy(params.buffers[p_.new_state_slot], state.data(), 8 * p_.state_words);
  return OkStatus();
}

}  // namespace xla::cpu
