// rng-bit-generator: bit-exact with XLA for a u64[2] (or u64[3] Philox)
// state, where state[0] is the key and state[1] the counter.
//
// Threefry2x32 (20 rounds) and Philox4x32 (10 rounds) are the Random123
// generators. How counters map onto output elements follows XLA's
// expansion of the op: Threefry with 32-bit outputs computes one call per
// pair of elements along a "split" dimension (the first even one, else the
// largest), 64-bit outputs one call per element; Philox produces a stream of
// 4-word blocks from a 128-bit counter. The new state has the counter
// advanced by the number of generator calls.
#ifndef XLA_BACKENDS_CPU_RUNTIME_RNG_THUNK_H_
#define XLA_BACKENDS_CPU_RUNTIME_RNG_THUNK_H_

#include <vector>

#include "xla/backends/cpu/runtime/thunk.h"
#include "xla/hlo/ir/attributes.h"

namespace xla::cpu {

class RngBitGeneratorThunk final : public Thunk {
 public:
  struct Params {
    RngAlgorithm algorithm = RngAlgorithm::kDefault;
    int state_slot = 0, new_state_slot = 0, output_slot = 0;
    int64_t state_words = 2;       // u64 elements of the state
    int output_width = 4;          // bytes per output element: 4 or 8
    std::vector<int64_t> output_dims;
  };
  explicit RngBitGeneratorThunk(Params p) : p_(std::move(p)) {}
  Status Run(const ThunkParams& params) const override;

 private:
  Params p_;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_RNG_THUNK_H_
