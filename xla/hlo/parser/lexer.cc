#include "xla/hlo/parser/lexer.h"

namespace xla {
namespace {

bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '%' || c == '$';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameChar(char c) { return IsNameStart(c) || IsDigit(c) || c == '.' || c == '-'; }
bool IsWordChar(char c) { return IsNameChar(c) || c == '>' || c == '+'; }

}  // namespace

std::string TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEof: return "end of input";
    case TokenKind::kError: return "an invalid character";
    case TokenKind::kName: return "a name";
    case TokenKind::kNumber: return "a number";
    case TokenKind::kString: return "a string";
    case TokenKind::kEqual: return "'='";
    case TokenKind::kComma: return "','";
    case TokenKind::kColon: return "':'";
    case TokenKind::kLParen: return "'('";
    case TokenKind::kRParen: return "')'";
    case TokenKind::kLBrace: return "'{'";
    case TokenKind::kRBrace: return "'}'";
    case TokenKind::kLBracket: return "'['";
    case TokenKind::kRBracket: return "']'";
    case TokenKind::kArrow: return "'->'";
  }
  return "a token";
}

void Lexer::SkipWhitespaceAndComments() {
  while (pos_ < source_.size()) {
    char c = source_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (source_.compare(pos_, 2, "/*") == 0) {
      size_t end = source_.find("*/", pos_ + 2);
      pos_ = end == std::string_view::npos ? source_.size() : end + 2;
    } else if (source_.compare(pos_, 2, "//") == 0) {
      size_t end = source_.find('\n', pos_);
      pos_ = end == std::string_view::npos ? source_.size() : end + 1;
    } else {
      return;
    }
  }
}

Token Lexer::Next() {
  SkipWhitespaceAndComments();
  Token tok;
  tok.offset = pos_;
  if (pos_ >= source_.size()) {
    tok.kind = TokenKind::kEof;
    return tok;
  }
  const size_t start = pos_;
  const char c = source_[pos_];
  auto single = [&](TokenKind kind) {
    ++pos_;
    tok.kind = kind;
    tok.text = source_.substr(start, 1);
    return tok;
  };
  switch (c) {
    case '=': return single(TokenKind::kEqual);
    case ',': return single(TokenKind::kComma);
    case ':': return single(TokenKind::kColon);
    case '(': return single(TokenKind::kLParen);
    case ')': return single(TokenKind::kRParen);
    case '{': return single(TokenKind::kLBrace);
    case '}': return single(TokenKind::kRBrace);
    case '[': return single(TokenKind::kLBracket);
    case ']': return single(TokenKind::kRBracket);
    default: break;
  }
  if (c == '-' && pos_ + 1 < source_.size() && source_[pos_ + 1] == '>') {
    pos_ += 2;
    tok.kind = TokenKind::kArrow;
    tok.text = source_.substr(start, 2);
    return tok;
  }
  if (c == '"') {
    ++pos_;
    while (pos_ < source_.size() && source_[pos_] != '"') {
      char ch = source_[pos_++];
      if (ch == '\\' && pos_ < source_.size()) {
        char e = source_[pos_++];
        tok.value += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        tok.value += ch;
      }
    }
    if (pos_ >= source_.size()) {  // unterminated: report at the opening quote
      tok.kind = TokenKind::kError;
      tok.text = source_.substr(start, 1);
      return tok;
    }
    ++pos_;
    tok.kind = TokenKind::kString;
    tok.text = source_.substr(start, pos_ - start);
    return tok;
  }
  bool negative = c == '-' && pos_ + 1 < source_.size();
  if (IsDigit(c) || (negative && (IsDigit(source_[pos_ + 1]) || source_[pos_ + 1] == '.'))) {
    pos_ += negative ? 1 : 0;
    while (pos_ < source_.size() && IsDigit(source_[pos_])) ++pos_;
    if (pos_ < source_.size() && source_[pos_] == '.') {
      ++pos_;
      while (pos_ < source_.size() && IsDigit(source_[pos_])) ++pos_;
    }
    if (pos_ < source_.size() && (source_[pos_] == 'e' || source_[pos_] == 'E')) {
      size_t save = pos_++;
      if (pos_ < source_.size() && (source_[pos_] == '+' || source_[pos_] == '-')) ++pos_;
      if (pos_ < source_.size() && IsDigit(source_[pos_])) {
        while (pos_ < source_.size() && IsDigit(source_[pos_])) ++pos_;
      } else {
        pos_ = save;
      }
    }
    tok.kind = TokenKind::kNumber;
    tok.text = source_.substr(start, pos_ - start);
    return tok;
  }
  // The printer writes names without their '%', so what follows a '%' must
  // itself start a name; "%1x", "%.x" or "%%x" would print as something else.
  if (c == '%' && (pos_ + 1 >= source_.size() || source_[pos_ + 1] == '%' ||
                   !IsNameStart(source_[pos_ + 1]))) {
    ++pos_;
    tok.kind = TokenKind::kError;
    tok.text = source_.substr(start, 1);
    return tok;
  }
  if (IsNameStart(c) || (negative && IsNameStart(source_[pos_ + 1]))) {
    ++pos_;
    while (pos_ < source_.size() && IsNameChar(source_[pos_])) {
      // Stop before "->" so "a->b" never swallows the arrow.
      if (source_[pos_] == '-' && pos_ + 1 < source_.size() && source_[pos_ + 1] == '>') break;
      ++pos_;
    }
    tok.kind = TokenKind::kName;
    tok.text = source_.substr(start, pos_ - start);
    return tok;
  }
  ++pos_;
  tok.kind = TokenKind::kError;
  tok.text = source_.substr(start, 1);
  return tok;
}

Token Lexer::Peek() {
  size_t save = pos_;
  Token tok = Next();
  pos_ = save;
  return tok;
}

Token Lexer::PeekSecond() {
  size_t save = pos_;
  Next();
  Token tok = Next();
  pos_ = save;
  return tok;
}

Token Lexer::NextWord() {
  SkipWhitespaceAndComments();
  Token tok;
  tok.offset = pos_;
  size_t start = pos_;
  while (pos_ < source_.size() && IsWordChar(source_[pos_])) ++pos_;
  tok.kind = pos_ > start ? TokenKind::kName : TokenKind::kError;
  tok.text = source_.substr(start, pos_ - start);
  return tok;
}

std::string Lexer::FormatError(size_t offset, const std::string& message) const {
  if (offset > source_.size()) offset = source_.size();
  size_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (source_[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  size_t line_end = source_.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = source_.size();
  size_t col = offset - line_start + 1;
  std::string out = std::to_string(line) + ":" + std::to_string(col) + ": " + message + "\n";
  out += std::string(source_.substr(line_start, line_end - line_start)) + "\n";
  // Tabs in the line are kept under the caret so it lines up in a terminal.
  for (size_t i = line_start; i < offset; ++i) out += source_[i] == '\t' ? '\t' : ' ';
  return out + "^";
}

}  // namespace xla
