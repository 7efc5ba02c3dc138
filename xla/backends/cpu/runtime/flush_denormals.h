// While an executable runs, float results below the normal range become zero
// and such inputs read as zero (x86's MXCSR flush-to-zero and
// denormals-are-zero bits), as XLA:CPU runs its programs, so results match
// JAX's to the bit where denormals appear (x * x for x = 1e-20 is 0). The
// caller's own mode is restored afterwards: the thread belongs to the user.
#ifndef XLA_BACKENDS_CPU_RUNTIME_FLUSH_DENORMALS_H_
#define XLA_BACKENDS_CPU_RUNTIME_FLUSH_DENORMALS_H_

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace xla::cpu {

class ScopedFlushDenormals {
 public:
#if defined(__x86_64__)
  static constexpr unsigned kFlushBits = 0x8040;  // FTZ (bit 15) | DAZ (bit 6)
  ScopedFlushDenormals() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | kFlushBits); }
  ~ScopedFlushDenormals() { _mm_setcsr(saved_); }
#else
  ScopedFlushDenormals() = default;
#endif
  ScopedFlushDenormals(const ScopedFlushDenormals&) = delete;
  ScopedFlushDenormals& operator=(const ScopedFlushDenormals&) = delete;

 private:
#if defined(__x86_64__)
  unsigned saved_;
#endif
};

// The opposite, inside a flushing scope: gradual underflow for code that
// relies on it. Eigen's divide-and-conquer SVD is such code: its deflation
// tests compare against values near the underflow threshold, and with
// flushing on, a rank-1 matrix sends it out of bounds (a crash at 128x128,
// wrong singular values at 256x256). The decompositions run in this scope.
class ScopedKeepDenormals {
 public:
#if defined(__x86_64__)
  ScopedKeepDenormals() : saved_(_mm_getcsr()) {
    _mm_setcsr(saved_ & ~ScopedFlushDenormals::kFlushBits);
  }
  ~ScopedKeepDenormals() { _mm_setcsr(saved_); }
#else
  ScopedKeepDenormals() = default;
#endif
  ScopedKeepDenormals(const ScopedKeepDenormals&) = delete;
  ScopedKeepDenormals& operator=(const ScopedKeepDenormals&) = delete;

 private:
#if defined(__x86_64__)
  unsigned saved_;
#endif
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_FLUSH_DENORMALS_H_
