#include "xla/backends/cpu/runtime/fft_thunk.h"

#include <cmath>
#include <complex>
#include <cstring>

#include "xla/backends/cpu/runtime/thread_pool.h"

namespace xla::cpu {
namespace {

using cd = std::complex<double>;

// Prime lengths above this use Bluestein instead of an O(n^2) DFT.
constexpr int64_t kMaxDirectPrime = 64;

int64_t SmallestFactor(int64_t n) {
  for (int64_t p = 2; p * p <= n; ++p) {
    if (n % p == 0) return p;
  }
  return n;
}

cd Twiddle(int64_t num, int64_t den, bool inverse) {
  const double angle = (inverse ? 2.0 : -2.0) * M_PI * static_cast<double>(num % den) / den;
  return {std::cos(angle), std::sin(angle)};
}

void Transform(const cd* in, int64_t stride, int64_t n, cd* out, bool inverse);

// Bluestein: a length-n DFT as a circular convolution of length m >= 2n-1.
void Bluestein(const cd* in, int64_t stride, int64_t n, cd* out, bool inverse) {
  int64_t m = 1;
  while (m < 2 * n - 1) m *= 2;
  std::vector<cd> chirp(n), a(m), b(m), fa(m), fb(m);
  for (int64_t k = 0; k < n; ++k) {
    // exp(-+ i pi k^2 / n), with k^2 taken mod 2n to keep the angle exact.
    chirp[k] = Twiddle((k * k) % (2 * n), 2 * n, inverse);
    a[k] = in[k * stride] * chirp[k];
  }
  b[0] = std::conj(chirp[0]);
  for (int64_t k = 1; k < n; ++k) b[k] = b[m - k] = std::conj(chirp[k]);
  Transform(a.data(), 1, m, fa.data(), false);
  Transform(b.data(), 1, m, fb.data(), false);
  for (int64_t k = 0; k < m; ++k) fa[k] *= fb[k];
  Transform(fa.data(), 1, m, a.data(), true);
  for (int64_t k = 0; k < n; ++k) out[k] = a[k] * chirp[k] / static_cast<double>(m);
}

// Unnormalised DFT of in[0], in[stride], ... (n elements) into out[0..n).
void Transform(const cd* in, int64_t stride, int64_t n, cd* out, bool inverse) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  const int64_t p = SmallestFactor(n);
  if (p == n) {
    if (n > kMaxDirectPrime) return Bluestein(in, stride, n, out, inverse);
    for (int64_t k = 0; k < n; ++k) {
      cd sum = 0;
      for (int64_t j = 0; j < n; ++j) sum += in[j * stride] * Twiddle(j * k, n, inverse);
      out[k] = sum;
    }
    return;
  }
  // Decimation in time: p interleaved sub-sequences of length m.
  const int64_t m = n / p;
  std::vector<cd> sub(n);
  for (int64_t r = 0; r < p; ++r) Transform(in + r * stride, stride * p, m, sub.data() + r * m, inverse);
  for (int64_t q = 0; q < p; ++q) {
    for (int64_t k = 0; k < m; ++k) {
      const int64_t f = k + m * q;
      cd sum = 0;
      for (int64_t r = 0; r < p; ++r) sum += sub[r * m + k] * Twiddle(r * f, n, inverse);
      out[f] = sum;
    }
  }
}

cd LoadComplex(PrimitiveType t, const void* base, int64_t i) {
  switch (t) {
    case PrimitiveType::C64: { const float* f = static_cast<const float*>(base) + 2 * i; return {f[0], f[1]}; }
    case PrimitiveType::C128: { const double* f = static_cast<const double*>(base) + 2 * i; return {f[0], f[1]}; }
    case PrimitiveType::F32: return {static_cast<const float*>(base)[i], 0.0};
    case PrimitiveType::F64: return {static_cast<const double*>(base)[i], 0.0};
    default: return {};
  }
}

void StoreComplex(PrimitiveType t, void* base, int64_t i, cd v) {
  switch (t) {
    case PrimitiveType::C64: { float* f = static_cast<float*>(base) + 2 * i; f[0] = static_cast<float>(v.real()); f[1] = static_cast<float>(v.imag()); break; }
    case PrimitiveType::C128: { double* f = static_cast<double*>(base) + 2 * i; f[0] = v.real(); f[1] = v.imag(); break; }
    case PrimitiveType::F32: static_cast<float*>(base)[i] = static_cast<float>(v.real()); break;
    case PrimitiveType::F64: static_cast<double*>(base)[i] = v.real(); break;
    default: break;
  }
}

// Transforms every lane of axis `axis` (of `dims`, row-major) of `data` in place.
void TransformAxis(std::vector<cd>& data, const std::vector<int64_t>& dims, size_t axis,
                   bool inverse, ThreadPool* pool) {
  const int64_t n = dims[axis];
  int64_t inner = 1, outer = 1;
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  for (size_t d = 0; d < axis; ++d) outer *= dims[d];
  const int64_t lanes = outer * inner;
  auto lane_fn = [&](int64_t lane) {
    cd* base = data.data() + (lane / inner) * n * inner + lane % inner;
    std::vector<cd> out(n);
    Transform(base, inner, n, out.data(), inverse);
    for (int64_t k = 0; k < n; ++k) base[k * inner] = out[k];
  };
  if (pool == nullptr || lanes < 4 || lanes * n < (1 << 12)) {
    for (int64_t l = 0; l < lanes; ++l) lane_fn(l);
    return;
  }
  const int64_t tasks = std::min<int64_t>(lanes, 4 * pool->num_threads());
  const int64_t per = (lanes + tasks - 1) / tasks;
  pool->ParallelFor(tasks, [&](int64_t t) {
    for (int64_t l = t * per; l < std::min(lanes, (t + 1) * per); ++l) lane_fn(l);
  });
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

}  // namespace

Status FftThunk::Run(const ThunkParams& params) const {
  const void* in = params.buffers[p_.input_slot];
  void* out = params.buffers[p_.output_slot];
  const size_t rank = p_.output_dims.size();
  const size_t nfft = p_.fft_length.size();
  // The work array has the full logical shape: batch dims + fft_length.
  std::vector<int64_t> dims(p_.output_dims.begin(), p_.output_dims.end() - nfft);
  dims.insert(dims.end(), p_.fft_length.begin(), p_.fft_length.end());
  const int64_t total = Product(dims);
  if (total == 0) return OkStatus();
  std::vector<cd> work(total);
  const bool inverse = p_.type == FftType::kIfft || p_.type == FftType::kIrfft;
  size_t first_axis = rank - nfft;
  if (p_.type == FftType::kIrfft) {
    // Inverse-transform the other axes of the half spectrum first: each
    // last-axis lane is then the spectrum of a real 1-D signal, which we
    // complete by Hermitian symmetry before its own inverse transform.
    std::vector<int64_t> half_dims = dims;
    const int64_t n = dims.back(), half = n / 2 + 1, n_in = p_.input_dims.back();
    half_dims.back() = half;
    std::vector<cd> spectrum(total / n * half);
    const int64_t rows = total / n;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < half; ++k) {
        spectrum[r * half + k] = k < n_in ? LoadComplex(p_.input_type, in, r * n_in + k) : cd(0);
      }
    }
    for (size_t a = first_axis; a + 1 < rank; ++a) TransformAxis(spectrum, half_dims, a, true, params.pool);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < n; ++k) {
        work[r * n + k] = k < half ? spectrum[r * half + k] : std::conj(spectrum[r * half + n - k]);
      }
    }
    first_axis = rank - 1;
  } else {
    const int64_t n_in = p_.input_dims.back(), n = dims.back();
    const int64_t rows = total / n;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < n; ++k) {
        work[r * n + k] = k < n_in ? LoadComplex(p_.input_type, in, r * n_in + k) : cd(0);
      }
    }
  }
  for (size_t a = first_axis; a < rank; ++a) TransformAxis(work, dims, a, inverse, params.pool);
  const double scale = inverse ? 1.0 / static_cast<double>(Product(p_.fft_length)) : 1.0;
  const int64_t n = dims.back(), n_out = p_.output_dims.back();
  const int64_t rows = total / n;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < n_out; ++k) {
      StoreComplex(p_.output_type, out, r * n_out + k, work[r * n + k] * scale);
    }
  }
  return OkStatus();
}

}  // namespace xla::cpu
