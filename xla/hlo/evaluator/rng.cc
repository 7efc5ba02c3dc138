// rng-bit-generator with the bit streams XLA produces for a u64[2] state:
// element 0 is the key, element 1 the counter. Threefry2x32 (20 rounds) and
// Philox4x32 (10 rounds) are the Random123 generators; how counters are laid
// out over the output shape follows XLA's expansion of the op.
#include <array>

#include "xla/hlo/evaluator/evaluator_internal.h"
#include "xla/hlo/ir/instruction.h"

namespace xla::eval {
namespace {

uint32_t Rotl(uint32_t v, int r) { return (v << r) | (v >> (32 - r)); }

std::array<uint32_t, 2> Threefry2x32(std::array<uint32_t, 2> key, std::array<uint32_t, 2> x) {
  static constexpr int kRot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDA ^ key[0] ^ key[1]};
  x[0] += ks[0];
  x[1] += ks[1];
  for (int block = 0; block < 5; ++block) {
    for (int r = 0; r < 4; ++r) {
      x[0] += x[1];
      x[1] = Rotl(x[1], kRot[(block % 2) * 4 + r]);
      x[1] ^= x[0];
    }
    // Key injection after every four rounds.
    x[0] += ks[(block + 1) % 3];
    x[1] += ks[(block + 2) % 3] + static_cast<uint32_t>(block + 1);
  }
  return x;
}

std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> x, std::array<uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t{x[0]} * 0xD2511F53u;
    uint64_t p1 = uint64_t{x[2]} * 0xCD9E8D57u;
    x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ key[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ key[1], static_cast<uint32_t>(p0)};
    key[0] += 0x9E3779B9u;
    key[1] += 0xBB67AE85u;
  }
  return x;
}

std::array<uint32_t, 2> Split(uint64_t v) { return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)}; }
uint64_t Join(uint32_t lo, uint32_t hi) { return uint64_t{lo} | (uint64_t{hi} << 32); }

// Threefry, 32-bit outputs: one threefry call yields two words, so the
// output is generated over a "half" shape (one dimension halved, the first
// even one, else the largest) and the two words interleave along it.
void ThreefryBits32(uint64_t key, uint64_t* counter, Literal* out) {
  const std::vector<int64_t>& dims = out->shape().dimensions();
  int split = -1;
  for (size_t i = 0; i < dims.size() && split < 0; ++i) if (dims[i] % 2 == 0) split = i;
  if (split < 0) {
    for (size_t i = 0; i < dims.size(); ++i) if (split < 0 || dims[i] > dims[split]) split = i;
  }
  std::vector<int64_t> half = dims;
  if (!half.empty()) half[split] = (dims[split] + 1) / 2;
  int64_t half_count = 1;
  for (int64_t d : half) half_count *= d;
  ForEachIndex(half, [&](const std::vector<int64_t>& h) {
    std::array<uint32_t, 2> y = Threefry2x32(Split(key), Split(*counter + LinearIndex(half, h)));
    if (dims.empty()) {
      out->Set<uint32_t>(0, y[0]);
      return;
    }
    std::vector<int64_t> o = h;
    for (int w = 0; w < 2; ++w) {
      o[split] = 2 * h[split] + w;
      if (o[split] < dims[split]) out->Set<uint32_t>(LinearIndex(dims, o), y[w]);
    }
  });
  *counter += dims.empty() ? 1 : half_count;
}

void ThreefryBits64(uint64_t key, uint64_t* counter, Literal* out) {
  const int64_t n = out->element_count();
  for (int64_t i = 0; i < n; ++i) {
    std::array<uint32_t, 2> y = Threefry2x32(Split(key), Split(*counter + i));
    out->Set<uint64_t>(i, Join(y[0], y[1]));
  }
  *counter += n;
}

// Philox: a 128-bit counter (lo, hi) per block of four 32-bit words.
void PhiloxBits(uint64_t key, uint64_t* lo, uint64_t* hi, Literal* out) {
  const int width = ByteWidth(out->shape().element_type());
  const int64_t n = out->element_count();
  const int64_t words = n * (width / 4);
  const int64_t blocks = (words + 3) / 4;
  std::vector<uint32_t> stream(blocks * 4);
  for (int64_t b = 0; b < blocks; ++b) {
    uint64_t l = *lo + static_cast<uint64_t>(b);
    uint64_t h = *hi + (l < *lo ? 1 : 0);
    std::array<uint32_t, 2> a = Split(l), c = Split(h);
    std::array<uint32_t, 4> y = Philox4x32({a[0], a[1], c[0], c[1]}, Split(key));
    for (int k = 0; k < 4; ++k) stream[b * 4 + k] = y[k];
  }
  // 32-bit outputs take the words in order; 64-bit outputs join word pairs
  // (0,1) and (2,3) of each block, low word first.
  for (int64_t i = 0; i < n; ++i) {
    if (width == 8) out->Set<uint64_t>(i, Join(stream[2 * i], stream[2 * i + 1]));
    else out->Set<uint32_t>(i, stream[i]);
  }
  uint64_t old = *lo;
  *lo += static_cast<uint64_t>(blocks);
  if (*lo < old) ++*hi;
}

}  // namespace

StatusOr<Literal> EvalRng(const HloInstruction& instr, const std::vector<const Literal*>& ops) {
  const Literal& state = *ops[0];
  if (state.shape().element_type() != PrimitiveType::U64 || state.element_count() < 2) {
    return Unimplemented("evaluator: rng-bit-generator needs a u64[>=2] state");
  }
  Literal new_state = state;
  Literal bits(instr.shape().tuple_shapes(1));
  const int width = ByteWidth(bits.shape().element_type());
  if (width != 4 && width != 8) {
    return Unimplemented("evaluator: rng-bit-generator for " + bits.shape().ToString());
  }
  const uint64_t key = state.Get<uint64_t>(0);
  switch (instr.rng_algorithm()) {
    case RngAlgorithm::kThreeFry: {
      uint64_t counter = state.Get<uint64_t>(1);
      if (width == 4) ThreefryBits32(key, &counter, &bits);
      else ThreefryBits64(key, &counter, &bits);
      new_state.Set<uint64_t>(1, counter);
      break;
    }
    case RngAlgorithm::kDefault: case RngAlgorithm::kPhilox: {
      // With a two-word state the counter is (lo = state[1], hi = state[0]);
      // with three words it is (state[1], state[2]).
      const bool three = state.element_count() >= 3;
      uint64_t lo = state.Get<uint64_t>(1);
      uint64_t hi = three ? state.Get<uint64_t>(2) : key;
      PhiloxBits(key, &lo, &hi, &bits);
      new_state.Set<uint64_t>(1, lo);
      if (three) new_state.Set<uint64_t>(2, hi);
      break;
    }
  }
  std::vector<Literal> outs;
  outs.push_back(std::move(new_state));
  outs.push_back(std::move(bits));
  return Literal::MakeTuple(std::move(outs));
}

}  // namespace xla::eval
