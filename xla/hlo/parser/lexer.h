// Lexer for HLO text. Tokens carry their byte offset into the source so every
// parser error can point at a line and column.
//
// HLO has a few attribute values that are not token sequences in any sensible
// grammar ("3x3", "1_2x0_-1", "bf01_oi01->bf01"); the parser reads those with
// NextWord(), which returns the raw run of word characters at the cursor.
#ifndef XLA_HLO_PARSER_LEXER_H_
#define XLA_HLO_PARSER_LEXER_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace xla {

enum class TokenKind {
  kEof,
  kError,   // text holds the offending character(s)
  kName,    // identifiers, opcodes, keywords, "inf", "-inf", "may-alias"
  kNumber,  // -12, 3.5e+38 (text is the literal spelling)
  kString,  // "..." (value holds the unescaped contents)
  kEqual, kComma, kColon, kLParen, kRParen, kLBrace, kRBrace, kLBracket, kRBracket,
  kArrow,   // ->
};

// Human-readable token kind for messages: "'('", "a name", "end of input".
std::string TokenKindName(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::string_view text;  // points into the source
  size_t offset = 0;      // byte offset of the first character
  std::string value;      // unescaped string contents (kString only)
};

class Lexer {
 public:
  explicit Lexer(std::string_view source) : source_(source) {}

  // Consumes and returns the next token.
  Token Next();
  // Returns the next token without consuming it.
  Token Peek();
  // Returns the token after the next one, without consuming anything.
  Token PeekSecond();
  // Skips whitespace/comments, then consumes the longest run of characters in
  // [A-Za-z0-9_.>+-] (may be empty; the token is then kError).
  Token NextWord();
  // Byte offset just past the last consumed token.
  size_t offset() const { return pos_; }

  // "line:col: message\n<source line>\n<caret>", lines and columns from 1.
  std::string FormatError(size_t offset, const std::string& message) const;

 private:
  void SkipWhitespaceAndComments();
  std::string_view source_;
  size_t pos_ = 0;
};

}  // namespace xla

#endif  // XLA_HLO_PARSER_LEXER_H_
