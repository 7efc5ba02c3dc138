// See hlo_mutator.h.
#include "xla/backends/cpu/fuzz/hlo_mutator.h"

#include <cctype>
#include <string_view>
#include <vector>

namespace xla::cpu::fuzz {
namespace {

// Token families whose members are interchangeable in the grammar.
const std::vector<std::vector<std::string_view>>& Families() {
  static const auto* families = new std::vector<std::vector<std::string_view>>{
      {"pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64",
       "c64", "c128"},
      {"add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "remainder",
       "atan2", "and", "or", "xor", "shift-left", "shift-right-logical",
       "shift-right-arithmetic"},
      {"negate", "abs", "exponential", "log", "sqrt", "rsqrt", "sine", "cosine", "tanh",
       "floor", "ceil", "sign", "not", "is-finite", "exponential-minus-one", "log-plus-one",
       "round-nearest-even", "popcnt", "count-leading-zeros", "real", "imag", "logistic", "cbrt"},
      {"EQ", "NE", "LT", "LE", "GT", "GE"},
      {"TOTALORDER", "FLOAT", "SIGNED", "UNSIGNED"},
      {"reduce", "reduce-window"},
      {"dynamic-slice", "slice"},
  };
  return *families;
}

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

// Start offsets of whole-word occurrences of `word` in `text`.
std::vector<size_t> Occurrences(const std::string& text, std::string_view word) {
  std::vector<size_t> found;
  for (size_t pos = text.find(word); pos != std::string::npos; pos = text.find(word, pos + 1)) {
    bool starts = pos == 0 || !IsWordChar(text[pos - 1]);
    size_t end = pos + word.size();
    bool ends = end == text.size() || !IsWordChar(text[end]);
    if (starts && ends) found.push_back(pos);
  }
  return found;
}

bool SwapToken(std::string& text, std::mt19937_64& rng) {
  const auto& families = Families();
  const auto& family = families[rng() % families.size()];
  std::vector<std::pair<size_t, std::string_view>> sites;
  for (std::string_view word : family) {
    for (size_t pos : Occurrences(text, word)) sites.emplace_back(pos, word);
  }
  if (sites.empty()) return false;
  auto [pos, word] = sites[rng() % sites.size()];
  std::string_view other = family[rng() % family.size()];
  text.replace(pos, word.size(), other);
  return true;
}

std::string NewNumber(int64_t old, std::mt19937_64& rng) {
  static const int64_t kSpecial[] = {0, 1, -1, 2, 3, 7, 8, 16, 63, 64, 255, 256, 65535,
                                     int64_t{1} << 31, int64_t{1} << 32, int64_t{1} << 62,
                                     INT64_MAX};
  switch (rng() % 4) {
    case 0: return std::to_string(old + 1);
    case 1: return std::to_string(old - 1);
    case 2: return std::to_string(kSpecial[rng() % (sizeof(kSpecial) / sizeof(kSpecial[0]))]);
    default: return std::to_string(static_cast<int64_t>(rng() % 10));
  }
}

bool ChangeNumber(std::string& text, std::mt19937_64& rng) {
  std::vector<std::pair<size_t, size_t>> numbers;  // (start, length)
  for (size_t i = 0; i < text.size();) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) && (i == 0 || !IsWordChar(text[i - 1]) ||
                                                              text[i - 1] == '-')) {
      size_t j = i;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      if (j - i <= 18) numbers.emplace_back(i, j - i);
      i = j;
    } else {
      ++i;
    }
  }
  if (numbers.empty()) return false;
  auto [start, length] = numbers[rng() % numbers.size()];
  int64_t old = std::stoll(text.substr(start, length));
  text.replace(start, length, NewNumber(old, rng));
  return true;
}

// Duplicates or drops one instruction line (never the first line).
bool EditLine(std::string& text, std::mt19937_64& rng) {
  std::vector<size_t> starts;
  for (size_t i = 1; i < text.size(); ++i) {
    if (text[i - 1] == '\n' && text[i] == ' ') starts.push_back(i);
  }
  if (starts.empty()) return false;
  size_t start = starts[rng() % starts.size()];
  size_t end = text.find('\n', start);
  end = end == std::string::npos ? text.size() : end + 1;
  if (rng() % 2 == 0) {
    text.erase(start, end - start);
  } else {
    text.insert(end, text.substr(start, end - start));
  }
  return true;
}

}  // namespace

bool MutateHloText(std::string& text, std::mt19937_64& rng) {
  switch (rng() % 5) {
    case 0: case 1: return ChangeNumber(text, rng);
    case 2: case 3: return SwapToken(text, rng);
    default: return EditLine(text, rng);
  }
}

}  // namespace xla::cpu::fuzz
