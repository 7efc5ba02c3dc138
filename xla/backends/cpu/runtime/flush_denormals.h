// While an executable runs, float results below the normal range become zero
// and such inputs read as zero (x86's MXCSR flush-to-zero and
// denormals-are-zero bits), as XLA:CPU runs its programs, so results match
// JAX's to the bit where denormals appear (x * x for x = 1e-20 is 0).
#ifndef XLA_BACKENDS_CPU_RUNTIME_FLUSH_DENORMALS_H_
#define XLA_BACKENDS_CPU_RUNTIME_FLUSH_DENORMALS_H_

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace xla::cpu {

// Sets the flush bits (or clears them) for its lifetime and restores the
// caller's mode afterwards: the thread belongs to the user.
class ScopedDenormalMode {
 public:
#if defined(__x86_64__)
  static constexpr unsigned kFlushBits = 0x8040;  // FTZ (bit 15) | DAZ (bit 6)
  explicit ScopedDenormalMode(bool flush) : saved_(_mm_getcsr()) {
    _mm_setcsr(flush ? saved_ | kFlushBits : saved_ & ~kFlushBits);
  }
  ~ScopedDenormalMode() { _mm_setcsr(saved_); }
#else
  explicit ScopedDenormalMode(bool) {}
#endif
  ScopedDenormalMode(const ScopedDenormalMode&) = delete;
  ScopedDenormalMode& operator=(const ScopedDenormalMode&) = delete;

 private:
#if defined(__x86_64__)
  unsigned saved_;
#endif
};

// What executables run in (see above).
class ScopedFlushDenormals : public ScopedDenormalMode {
 public:
  ScopedFlushDenormals() : ScopedDenormalMode(true) {}
};

// The opposite, inside a flushing scope: gradual underflow for code that
// relies on it. Eigen's divide-and-conquer SVD is such code: its deflation
// tests compare against values near the underflow threshold, and with
// flushing on, a rank-1 matrix sends it out of bounds (a crash at 128x128,
// wrong singular values at 256x256). The decompositions run in this scope.
class ScopedKeepDenormals : public ScopedDenormalMode {
 public:
  ScopedKeepDenormals() : ScopedDenormalMode(false) {}
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_FLUSH_DENORMALS_H_
