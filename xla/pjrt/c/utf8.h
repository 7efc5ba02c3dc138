// Text that crosses the C API must be valid UTF-8: Python decodes it strictly,
// and a message cut inside a multi-byte character (a parser quoting one byte
// of a name) would otherwise surface as a decoding error instead of the error
// it reports. Header-only, so jaxlib can use it without linking the compiler.
#ifndef XLA_PJRT_C_UTF8_H_
#define XLA_PJRT_C_UTF8_H_

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace xla {

// Length of the well-formed UTF-8 sequence starting at s[i], or 0 if there is none
// (bad lead byte, missing or bad continuation, overlong form, surrogate, > U+10FFFF).
inline size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

// `s` with every byte that is not part of a well-formed sequence written as
// "\xNN", so the reader still sees which byte it was.
inline std::string ToValidUtf8(std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = Utf8SequenceLength(s, i);
    if (n == 0) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

// Writes `message` into the caller's `out[out_size]` as NUL-terminated valid UTF-8, cut
// (if it must be) at a character boundary: how an error crosses a C callback.
inline void CopyErrorText(std::string_view message, char* out, size_t out_size) {
  if (out == nullptr || out_size == 0) return;
  const std::string text = ToValidUtf8(message);
  size_t n = std::min(text.size(), out_size - 1);
  // Back off over continuation bytes (10xxxxxx) so no character is split.
  while (n < text.size() && n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

}  // namespace xla

#endif  // XLA_PJRT_C_UTF8_H_
