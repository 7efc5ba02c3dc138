// FFT over the last 1-3 dimensions, as HLO defines it: FFT and IFFT are
// complex -> complex (IFFT scaled by 1/N), RFFT real -> complex keeping
// N/2+1 outputs on the last axis, IRFFT the inverse of RFFT (Hermitian
// input, real output, scaled by 1/N).
//
// Our own transform: recursive mixed-radix Cooley-Tukey on the smallest
// prime factor, and Bluestein's chirp-z (over a power-of-two FFT) for large
// prime lengths so any length is O(n log n). Computed in double and rounded
// to the output type once; lanes of each axis run in parallel on the pool.
#ifndef XLA_BACKENDS_CPU_RUNTIME_FFT_THUNK_H_
#define XLA_BACKENDS_CPU_RUNTIME_FFT_THUNK_H_

#include <vector>

#include "xla/backends/cpu/runtime/thunk.h"
#include "xla/hlo/ir/attributes.h"
#include "xla/hlo/ir/primitive_type.h"

namespace xla::cpu {

class FftThunk final : public Thunk {
 public:
  struct Params {
    int input_slot = 0, output_slot = 0;
    FftType type = FftType::kFft;
    PrimitiveType input_type = PrimitiveType::C64, output_type = PrimitiveType::C64;
    std::vector<int64_t> input_dims, output_dims;
    std::vector<int64_t> fft_length;  // the transformed (trailing) lengths
  };
  explicit FftThunk(Params p) : p_(std::move(p)) {}
  Status Run(const ThunkParams& params) const override;

 private:
  Params p_;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_FFT_THUNK_H_
