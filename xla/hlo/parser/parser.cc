// Module, computation, instruction, shape and literal grammar. Attribute
// values are in parse_attributes.cc.
#include "xla/hlo/parser/parser.h"
#include "xla/hlo/ir/shape_size.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "xla/hlo/parser/parser_impl.h"
#include "xla/hlo/verifier/verifier.h"

namespace xla {

namespace {
std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }
std::string Describe(const Token& tok) {
  if (tok.kind == TokenKind::kEof) return "end of input";
  return Quote(tok.text);
}
std::string StripPercent(std::string_view s) {
  return std::string(!s.empty() && s[0] == '%' ? s.substr(1) : s);
}
}  // namespace

Status HloParser::Error(size_t offset, const std::string& message) const {
  return InvalidArgument(lexer_.FormatError(offset, message));
}

StatusOr<Token> HloParser::Expect(TokenKind kind, const std::string& what) {
  Token tok = lexer_.Next();
  if (tok.kind != kind) {
    return ErrorAt(tok, "expected " + (what.empty() ? TokenKindName(kind) : what) + ", got " +
                            Describe(tok));
  }
  return tok;
}

bool HloParser::TryConsume(TokenKind kind) {
  if (lexer_.Peek().kind != kind) return false;
  lexer_.Next();
  return true;
}

StatusOr<std::string> HloParser::ExpectName(const std::string& what) {
  ASSIGN_OR_RETURN(Token tok, Expect(TokenKind::kName, what));
  return StripPercent(tok.text);
}

StatusOr<int64_t> HloParser::ParseInt64() {
  Token tok = lexer_.Next();
  if (tok.kind != TokenKind::kNumber ||
      tok.text.find_first_of(".eE") != std::string_view::npos) {
    return ErrorAt(tok, "expected an integer, got " + Describe(tok));
  }
  std::string s(tok.text);
  errno = 0;
  long long v = std::strtoll(s.c_str(), nullptr, 10);
  if (errno == ERANGE) return ErrorAt(tok, "integer " + s + " is out of range");
  return static_cast<int64_t>(v);
}

StatusOr<bool> HloParser::ParseBool() {
  Token tok = lexer_.Next();
  if (tok.kind == TokenKind::kName && tok.text == "true") return true;
  if (tok.kind == TokenKind::kName && tok.text == "false") return false;
  return ErrorAt(tok, "expected 'true' or 'false', got " + Describe(tok));
}

StatusOr<std::vector<int64_t>> HloParser::ParseIntList() {
  RETURN_IF_ERROR(Expect(TokenKind::kLBrace).status());
  std::vector<int64_t> out;
  if (TryConsume(TokenKind::kRBrace)) return out;
  do {
    ASSIGN_OR_RETURN(int64_t v, ParseInt64());
    out.push_back(v);
  } while (TryConsume(TokenKind::kComma));
  RETURN_IF_ERROR(Expect(TokenKind::kRBrace, "',' or '}'").status());
  return out;
}

// ---------------------------------------------------------------- module

StatusOr<std::unique_ptr<HloModule>> HloParser::ParseModule() {
  Token tok = lexer_.Next();
  if (tok.kind != TokenKind::kName || tok.text != "HloModule") {
    return ErrorAt(tok, "expected 'HloModule', got " + Describe(tok));
  }
  ASSIGN_OR_RETURN(std::string name, ExpectName("module name"));
  module_ = std::make_unique<HloModule>(name);
  while (TryConsume(TokenKind::kComma)) {
    ASSIGN_OR_RETURN(Token attr, Expect(TokenKind::kName, "module attribute name"));
    RETURN_IF_ERROR(Expect(TokenKind::kEqual, "'=' after " + Quote(attr.text)).status());
    if (attr.text == "entry_computation_layout") {
      ComputationLayout layout;
      RETURN_IF_ERROR(ParseComputationLayout(&layout));
      module_->set_entry_computation_layout(std::move(layout));
    } else if (attr.text == "input_output_alias") {
      std::vector<InputOutputAlias> aliases;
      RETURN_IF_ERROR(ParseInputOutputAlias(&aliases));
      module_->set_input_output_alias(std::move(aliases));
    } else if (attr.text == "buffer_donor") {
      std::vector<BufferDonor> donors;
      RETURN_IF_ERROR(ParseBufferDonors(&donors));
      module_->set_buffer_donors(std::move(donors));
    } else if (attr.text == "replica_count") {
      ASSIGN_OR_RETURN(module_->mutable_config()->replica_count, ParseInt64());
    } else if (attr.text == "num_partitions") {
      ASSIGN_OR_RETURN(module_->mutable_config()->num_partitions, ParseInt64());
    } else {
      // is_scheduled, frontend_attributes, allow_spmd_..., etc.: accepted, dropped.
      RETURN_IF_ERROR(SkipValue());
    }
  }
  while (lexer_.Peek().kind != TokenKind::kEof) RETURN_IF_ERROR(ParseComputation());
  if (module_->computations().empty()) {
    return ErrorAt(lexer_.Next(), "expected a computation, got end of input");
  }
  if (module_->entry_computation() == nullptr) {
    return ErrorAt(tok, "module " + Quote(name) + " has no ENTRY computation");
  }
  return std::move(module_);
}

Status HloParser::ParseComputationLayout(ComputationLayout* out) {
  RETURN_IF_ERROR(Expect(TokenKind::kLBrace).status());
  RETURN_IF_ERROR(Expect(TokenKind::kLParen).status());
  if (!TryConsume(TokenKind::kRParen)) {
    do {
      ASSIGN_OR_RETURN(Shape s, ParseShape());
      out->parameter_shapes.push_back(std::move(s));
    } while (TryConsume(TokenKind::kComma));
    RETURN_IF_ERROR(Expect(TokenKind::kRParen, "',' or ')'").status());
  }
  RETURN_IF_ERROR(Expect(TokenKind::kArrow).status());
  ASSIGN_OR_RETURN(out->result_shape, ParseShape());
  return Expect(TokenKind::kRBrace).status();
}

// input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}) }
Status HloParser::ParseInputOutputAlias(std::vector<InputOutputAlias>* out) {
  RETURN_IF_ERROR(Expect(TokenKind::kLBrace).status());
  if (TryConsume(TokenKind::kRBrace)) return OkStatus();
  do {
    InputOutputAlias a;
    ASSIGN_OR_RETURN(a.output_index, ParseIntList());
    RETURN_IF_ERROR(Expect(TokenKind::kColon).status());
    RETURN_IF_ERROR(Expect(TokenKind::kLParen).status());
    ASSIGN_OR_RETURN(a.parameter_number, ParseInt64());
    RETURN_IF_ERROR(Expect(TokenKind::kComma).status());
    ASSIGN_OR_RETURN(a.parameter_index, ParseIntList());
    if (TryConsume(TokenKind::kComma)) {
      ASSIGN_OR_RETURN(Token kind, Expect(TokenKind::kName, "'may-alias' or 'must-alias'"));
      if (kind.text != "may-alias" && kind.text != "must-alias") {
        return ErrorAt(kind, "expected 'may-alias' or 'must-alias', got " + Describe(kind));
      }
      a.must_alias = kind.text == "must-alias";
    }
    RETURN_IF_ERROR(Expect(TokenKind::kRParen).status());
    out->push_back(std::move(a));
  } while (TryConsume(TokenKind::kComma));
  return Expect(TokenKind::kRBrace, "',' or '}'").status();
}

// buffer_donor={ (0, {}), (2, {}) }
Status HloParser::ParseBufferDonors(std::vector<BufferDonor>* out) {
  RETURN_IF_ERROR(Expect(TokenKind::kLBrace).status());
  if (TryConsume(TokenKind::kRBrace)) return OkStatus();
  do {
    BufferDonor d;
    RETURN_IF_ERROR(Expect(TokenKind::kLParen, "'(' starting a buffer donor").status());
    ASSIGN_OR_RETURN(d.parameter_number, ParseInt64());
    RETURN_IF_ERROR(Expect(TokenKind::kComma).status());
    ASSIGN_OR_RETURN(d.parameter_index, ParseIntList());
    RETURN_IF_ERROR(Expect(TokenKind::kRParen).status());
    out->push_back(std::move(d));
  } while (TryConsume(TokenKind::kComma));
  return Expect(TokenKind::kRBrace, "',' or '}'").status();
}

Status HloParser::SkipValue() {
  Token first = lexer_.Next();
  if (first.kind != TokenKind::kLBrace && first.kind != TokenKind::kLParen) {
    if (first.kind == TokenKind::kEof) return ErrorAt(first, "expected a value, got end of input");
    return OkStatus();
  }
  // Iterative, so deeply nested junk cannot overflow the stack.
  int depth = 1;
  while (depth > 0) {
    Token tok = lexer_.Next();
    switch (tok.kind) {
      case TokenKind::kLBrace: case TokenKind::kLParen: ++depth; break;
      case TokenKind::kRBrace: case TokenKind::kRParen: --depth; break;
      case TokenKind::kEof:
        return ErrorAt(first, "unterminated " + Quote(first.text));
      default: break;
    }
  }
  return OkStatus();
}

// ----------------------------------------------------------- computation

Status HloParser::ParseComputation() {
  Token tok = lexer_.Next();
  bool is_entry = false;
  if (tok.kind == TokenKind::kName && tok.text == "ENTRY") {
    is_entry = true;
    tok = lexer_.Next();
  }
  if (tok.kind != TokenKind::kName) {
    return ErrorAt(tok, "expected a computation name, got " + Describe(tok));
  }
  std::string name = StripPercent(tok.text);
  if (computations_.count(name)) return ErrorAt(tok, "duplicate computation name " + Quote(name));
  if (is_entry && module_->entry_computation() != nullptr) {
    return ErrorAt(tok, "second ENTRY computation " + Quote(name));
  }
  // Optional signature "(p: f32[]) -> f32[]" of older printers: checked by
  // the verifier through the parameters themselves, so only parsed here.
  if (TryConsume(TokenKind::kLParen)) {
    if (!TryConsume(TokenKind::kRParen)) {
      do {
        RETURN_IF_ERROR(ExpectName("parameter name").status());
        RETURN_IF_ERROR(Expect(TokenKind::kColon).status());
        RETURN_IF_ERROR(ParseShape().status());
      } while (TryConsume(TokenKind::kComma));
      RETURN_IF_ERROR(Expect(TokenKind::kRParen, "',' or ')'").status());
    }
    RETURN_IF_ERROR(Expect(TokenKind::kArrow).status());
    RETURN_IF_ERROR(ParseShape().status());
  }
  RETURN_IF_ERROR(Expect(TokenKind::kLBrace, "'{' to open computation " + Quote(name)).status());
  auto comp = std::make_unique<HloComputation>(name);
  std::unordered_map<std::string, HloInstruction*> names;
  HloInstruction* root = nullptr;
  while (true) {
    Token next = lexer_.Peek();
    if (next.kind == TokenKind::kRBrace) break;
    if (next.kind == TokenKind::kEof) {
      return ErrorAt(next, "expected '}' to close computation " + Quote(name));
    }
    RETURN_IF_ERROR(ParseInstruction(comp.get(), &names, &root));
  }
  Token close = lexer_.Next();
  if (comp->instructions().empty()) {
    return ErrorAt(close, "computation " + Quote(name) + " has no instructions");
  }
  comp->set_root_instruction(root != nullptr ? root : comp->instructions().back());
  computations_[name] = module_->AddComputation(std::move(comp), is_entry);
  return OkStatus();
}

Status HloParser::ParseInstruction(HloComputation* comp,
                                   std::unordered_map<std::string, HloInstruction*>* names,
                                   HloInstruction** root) {
  Token tok = lexer_.Next();
  bool is_root = false;
  if (tok.kind == TokenKind::kName && tok.text == "ROOT") {
    is_root = true;
    tok = lexer_.Next();
  }
  if (tok.kind != TokenKind::kName) {
    return ErrorAt(tok, "expected an instruction name, got " + Describe(tok));
  }
  std::string name = StripPercent(tok.text);
  if (names->count(name)) return ErrorAt(tok, "duplicate instruction name " + Quote(name));
  if (is_root && *root != nullptr) {
    return ErrorAt(tok, "second ROOT instruction " + Quote(name) + " in computation " +
                            Quote(comp->name()));
  }
  RETURN_IF_ERROR(Expect(TokenKind::kEqual, "'=' after instruction name").status());
  ASSIGN_OR_RETURN(Shape shape, ParseShape());
  Token op_tok = lexer_.Next();
  if (op_tok.kind != TokenKind::kName) {
    return ErrorAt(op_tok, "expected an opcode, got " + Describe(op_tok));
  }
  std::optional<HloOpcode> opcode = StringToHloOpcode(op_tok.text);
  if (!opcode) return ErrorAt(op_tok, "unknown opcode " + Quote(op_tok.text));
  RETURN_IF_ERROR(Expect(TokenKind::kLParen, "'(' after opcode").status());

  std::unique_ptr<HloInstruction> instr;
  if (*opcode == HloOpcode::kParameter) {
    Token num_tok = lexer_.Peek();
    ASSIGN_OR_RETURN(int64_t number, ParseInt64());
    if (number < 0) return ErrorAt(num_tok, "negative parameter number");
    if (number < comp->num_parameters() && comp->parameter_instruction(number) != nullptr) {
      return ErrorAt(num_tok, "duplicate parameter number " + std::to_string(number));
    }
    // Parameter numbers index a vector; a huge one would exhaust memory.
    if (number > 1000000) return ErrorAt(num_tok, "parameter number too large");
    instr = HloInstruction::CreateParameter(number, shape, name);
  } else if (*opcode == HloOpcode::kConstant) {
    if (shape.IsToken()) return ErrorAt(op_tok, "a constant cannot have a token shape");
    ASSIGN_OR_RETURN(Literal literal, ParseLiteral(shape));
    instr = HloInstruction::CreateConstant(std::move(literal), name);
    *instr->mutable_shape() = shape;  // keep the written layout
  } else {
    std::vector<HloInstruction*> operands;
    if (lexer_.Peek().kind != TokenKind::kRParen) {
      do {
        // Older printers write typed operands: "f32[2]{0} %x".
        Token next = lexer_.Peek();
        if (next.kind == TokenKind::kLParen ||
            (next.kind == TokenKind::kName &&
             (PrimitiveTypeFromName(next.text) || next.text == "token"))) {
          RETURN_IF_ERROR(ParseShape().status());
        }
        ASSIGN_OR_RETURN(Token op, Expect(TokenKind::kName, "an operand name"));
        auto it = names->find(StripPercent(op.text));
        if (it == names->end()) return ErrorAt(op, "unknown operand " + Quote(op.text));
        operands.push_back(it->second);
      } while (TryConsume(TokenKind::kComma));
    }
    int arity = HloOpcodeArity(*opcode);
    if (arity >= 0 && static_cast<int>(operands.size()) != arity) {
      return ErrorAt(op_tok, std::string(HloOpcodeString(*opcode)) + " takes " +
                                 std::to_string(arity) + " operand" + (arity == 1 ? "" : "s") +
                                 ", got " + std::to_string(operands.size()));
    }
    instr = HloInstruction::Create(*opcode, shape, std::move(operands), name);
  }
  RETURN_IF_ERROR(Expect(TokenKind::kRParen, "',' or ')'").status());
  HloInstruction* raw = comp->AddInstruction(std::move(instr));
  (*names)[name] = raw;
  if (is_root) *root = raw;
  return ParseAttributes(raw, op_tok.offset);
}

// ----------------------------------------------------------------- shape

StatusOr<Shape> HloParser::ParseShape(int depth) {
  Token tok = lexer_.Next();
  if (depth > kMaxDepth) return ErrorAt(tok, "shape nested too deeply");
  if (tok.kind == TokenKind::kLParen) {
    std::vector<Shape> elements;
    if (!TryConsume(TokenKind::kRParen)) {
      do {
        ASSIGN_OR_RETURN(Shape s, ParseShape(depth + 1));
        elements.push_back(std::move(s));
      } while (TryConsume(TokenKind::kComma));
      RETURN_IF_ERROR(Expect(TokenKind::kRParen, "',' or ')' in tuple shape").status());
    }
    return Shape::MakeTuple(std::move(elements));
  }
  if (tok.kind != TokenKind::kName) return ErrorAt(tok, "expected a shape, got " + Describe(tok));
  if (tok.text == "token") {
    RETURN_IF_ERROR(Expect(TokenKind::kLBracket).status());
    RETURN_IF_ERROR(Expect(TokenKind::kRBracket).status());
    return Shape::MakeToken();
  }
  std::optional<PrimitiveType> type = PrimitiveTypeFromName(tok.text);
  if (!type || !IsArrayType(*type)) return ErrorAt(tok, "unknown element type " + Quote(tok.text));
  RETURN_IF_ERROR(Expect(TokenKind::kLBracket, "'[' after element type").status());
  std::vector<int64_t> dims;
  if (!TryConsume(TokenKind::kRBracket)) {
    do {
      Token dim_tok = lexer_.Peek();
      ASSIGN_OR_RETURN(int64_t d, ParseInt64());
      if (d < 0) return ErrorAt(dim_tok, "negative dimension size " + std::to_string(d));
      dims.push_back(d);
    } while (TryConsume(TokenKind::kComma));
    RETURN_IF_ERROR(Expect(TokenKind::kRBracket, "',' or ']'").status());
  }
  // Everything after the parser counts elements and bytes in int64.
  if (Status size = CheckArraySize(*type, dims); !size.ok()) return ErrorAt(tok, size.message());
  Shape shape(*type, dims);
  // A layout is "{" followed by a number, ":" (a scalar's tiles or memory
  // space) or "}"; anything else after "{" is a computation body following a
  // signature's result shape.
  TokenKind after = lexer_.PeekSecond().kind;
  if (lexer_.Peek().kind != TokenKind::kLBrace ||
      (after != TokenKind::kNumber && after != TokenKind::kRBrace &&
       after != TokenKind::kColon)) {
    shape.clear_layout();
    return shape;
  }
  Token brace = lexer_.Next();
  std::vector<int64_t> m2m;
  std::vector<std::vector<int64_t>> tiles;
  int64_t memory_space = 0;
  if (!TryConsume(TokenKind::kRBrace)) {
    if (lexer_.Peek().kind != TokenKind::kColon) {
      do {
        ASSIGN_OR_RETURN(int64_t d, ParseInt64());
        m2m.push_back(d);
      } while (TryConsume(TokenKind::kComma));
    }
    if (TryConsume(TokenKind::kColon)) {
      ASSIGN_OR_RETURN(tiles, ParseLayoutDetails(&memory_space));
    }
    Token close = lexer_.Next();
    if (close.kind != TokenKind::kRBrace) {
      return ErrorAt(close, "expected ',' or '}' in layout, got " + Describe(close));
    }
  }
  std::vector<bool> used(dims.size(), false);
  bool ok = m2m.size() == dims.size();
  for (int64_t d : m2m) {
    if (!ok || d < 0 || d >= static_cast<int64_t>(dims.size()) || used[d]) {
      ok = false;
      break;
    }
    used[d] = true;
  }
  if (!ok) {
    return ErrorAt(brace, "layout {" + JoinInts(m2m) + "} is not a permutation of the " +
                              std::to_string(dims.size()) + " dimensions");
  }
  shape.set_minor_to_major(std::move(m2m));
  shape.set_tiles(std::move(tiles));
  shape.set_memory_space(memory_space);
  return shape;
}

StatusOr<std::vector<std::vector<int64_t>>> HloParser::ParseLayoutDetails(int64_t* memory_space) {
  std::vector<std::vector<int64_t>> tiles;
  bool any = false;
  while (lexer_.Peek().kind == TokenKind::kName) {
    Token t = lexer_.Peek();
    if (t.text == "T" && tiles.empty()) {
      lexer_.Next();
      ASSIGN_OR_RETURN(tiles, ParseTiles());
    } else if (t.text == "S" && *memory_space == 0) {
      lexer_.Next();
      RETURN_IF_ERROR(Expect(TokenKind::kLParen, "'(' after S").status());
      Token space_tok = lexer_.Peek();
      ASSIGN_OR_RETURN(*memory_space, ParseInt64());
      if (*memory_space < 0) {
        return ErrorAt(space_tok, "memory space " + std::to_string(*memory_space) +
                                      " must not be negative");
      }
      RETURN_IF_ERROR(Expect(TokenKind::kRParen, "')' after the memory space").status());
    } else {
      break;
    }
    any = true;
  }
  if (!any) {
    // XLA also writes element sizes (E(4)) and others here.
    Token t = lexer_.Peek();
    return ErrorAt(t, "only tiles (\"T(8,128)\") and memory spaces (\"S(1)\") are supported "
                      "after ':' in a layout, got " + Describe(t));
  }
  return tiles;
}

StatusOr<std::vector<std::vector<int64_t>>> HloParser::ParseTiles() {
  std::vector<std::vector<int64_t>> tiles;
  // A tile may have more dimensions than the array (a scalar's T(128)), and a
  // later tile more than the one before (T(256)(8,128)): each tiles the shape
  // the tiles before it made.
  while (lexer_.Peek().kind == TokenKind::kLParen) {
    lexer_.Next();
    std::vector<int64_t> tile;
    do {
      Token size_tok = lexer_.Peek();
      ASSIGN_OR_RETURN(int64_t size, ParseInt64());
      if (size < 1) return ErrorAt(size_tok, "tile size " + std::to_string(size) + " must be positive");
      tile.push_back(size);
    } while (TryConsume(TokenKind::kComma));
    RETURN_IF_ERROR(Expect(TokenKind::kRParen, "',' or ')' in a tile").status());
    tiles.push_back(std::move(tile));
  }
  if (tiles.empty()) return ErrorAt(lexer_.Peek(), "expected '(' to open a tile after T");
  return tiles;
}

// --------------------------------------------------------------- literal

StatusOr<Literal> HloParser::ParseLiteral(const Shape& shape, int depth) {
  if (depth > kMaxDepth) return ErrorAt(lexer_.Peek(), "literal nested too deeply");
  if (shape.IsTuple()) {
    RETURN_IF_ERROR(Expect(TokenKind::kLParen, "'(' to open a tuple literal").status());
    std::vector<Literal> elements;
    for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i > 0) RETURN_IF_ERROR(Expect(TokenKind::kComma).status());
      ASSIGN_OR_RETURN(Literal e, ParseLiteral(shape.tuple_shapes(i), depth + 1));
      elements.push_back(std::move(e));
    }
    RETURN_IF_ERROR(Expect(TokenKind::kRParen).status());
    return Literal::MakeTuple(std::move(elements));
  }
  // A constant this large cannot be real text; refuse before allocating.
  if (shape.byte_size() > (int64_t{1} << 32)) {
    return ErrorAt(lexer_.Peek(), "constant of shape " + shape.ToString() + " is too large");
  }
  Literal literal(shape);
  if (shape.rank() == 0) {
    RETURN_IF_ERROR(ParseLiteralElement(&literal, 0));
    return literal;
  }
  if (shape.rank() > kMaxDepth) return ErrorAt(lexer_.Peek(), "literal nested too deeply");
  int64_t next = 0;
  RETURN_IF_ERROR(ParseArrayLiteral(shape, 0, depth, &literal, &next));
  return literal;
}

Status HloParser::ParseArrayLiteral(const Shape& shape, int dim, int depth, Literal* out,
                                    int64_t* next) {
  ASSIGN_OR_RETURN(Token open, Expect(TokenKind::kLBrace, "'{' to open dimension " +
                                                               std::to_string(dim) + " of a literal"));
  const int64_t want = shape.dimensions(dim);
  int64_t count = 0;
  if (lexer_.Peek().kind != TokenKind::kRBrace) {
    do {
      if (count == want) {
        return ErrorAt(lexer_.Peek(), "too many elements in dimension " + std::to_string(dim) +
                                          " of literal (shape " + shape.ToString() + ")");
      }
      if (dim + 1 < shape.rank()) {
        RETURN_IF_ERROR(ParseArrayLiteral(shape, dim + 1, depth + 1, out, next));
      } else {
        RETURN_IF_ERROR(ParseLiteralElement(out, (*next)++));
      }
      ++count;
    } while (TryConsume(TokenKind::kComma));
  }
  Token close = lexer_.Next();
  if (close.kind != TokenKind::kRBrace) {
    return ErrorAt(close, "expected ',' or '}' in literal, got " + Describe(close));
  }
  if (count != want) {
    return ErrorAt(open, "dimension " + std::to_string(dim) + " of literal has " +
                             std::to_string(count) + " elements, shape " + shape.ToString() +
                             " needs " + std::to_string(want));
  }
  return OkStatus();
}

namespace {
// Parses a float spelling (number or inf/-inf/nan/-nan); false if neither.
bool ParseFloatText(const Token& tok, double* out) {
  if (tok.kind == TokenKind::kName) {
    std::string_view t = tok.text;
    bool neg = !t.empty() && t[0] == '-';
    if (neg) t.remove_prefix(1);
    if (t == "inf") *out = neg ? -INFINITY : INFINITY;
    else if (t == "nan") *out = neg ? -std::nan("") : std::nan("");
    else return false;
    return true;
  }
  if (tok.kind != TokenKind::kNumber) return false;
  *out = std::strtod(std::string(tok.text).c_str(), nullptr);
  return true;
}
}  // namespace

Status HloParser::ParseLiteralElement(Literal* out, int64_t index) {
  const PrimitiveType type = out->shape().element_type();
  if (IsComplex(type)) {
    RETURN_IF_ERROR(Expect(TokenKind::kLParen, "'(' to open a complex value").status());
    double re, im;
    Token t1 = lexer_.Next();
    if (!ParseFloatText(t1, &re)) return ErrorAt(t1, "expected a number, got " + Describe(t1));
    RETURN_IF_ERROR(Expect(TokenKind::kComma).status());
    Token t2 = lexer_.Next();
    if (!ParseFloatText(t2, &im)) return ErrorAt(t2, "expected a number, got " + Describe(t2));
    RETURN_IF_ERROR(Expect(TokenKind::kRParen).status());
    out->SetFromComplex(index, {re, im});
    return OkStatus();
  }
  Token tok = lexer_.Next();
  if (type == PrimitiveType::PRED) {
    if (tok.kind == TokenKind::kName && (tok.text == "true" || tok.text == "false")) {
      out->Set<bool>(index, tok.text == "true");
      return OkStatus();
    }
    if (tok.kind == TokenKind::kNumber && (tok.text == "0" || tok.text == "1")) {
      out->Set<bool>(index, tok.text == "1");
      return OkStatus();
    }
    return ErrorAt(tok, "expected 'true' or 'false', got " + Describe(tok));
  }
  if (IsFloatingPoint(type)) {
    double v;
    if (!ParseFloatText(tok, &v)) return ErrorAt(tok, "expected a number, got " + Describe(tok));
    out->SetFromDouble(index, v);
    return OkStatus();
  }
  // Integers: parse in 64 bits, then check the element type's range.
  if (tok.kind != TokenKind::kNumber || tok.text.find_first_of(".eE") != std::string_view::npos) {
    return ErrorAt(tok, "expected an integer, got " + Describe(tok));
  }
  std::string s(tok.text);
  int bits = ByteWidth(type) * 8;
  errno = 0;
  if (IsUnsignedInteger(type)) {
    if (s[0] == '-') return ErrorAt(tok, "negative value " + s + " for unsigned type");
    unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
    if (errno == ERANGE || (bits < 64 && v >> bits) != 0) {
      return ErrorAt(tok, "value " + s + " is out of range for " +
                              std::string(PrimitiveTypeName(type)));
    }
    out->SetFromInt64(index, static_cast<int64_t>(v));
    return OkStatus();
  }
  long long v = std::strtoll(s.c_str(), nullptr, 10);
  long long lo = bits == 64 ? std::numeric_limits<long long>::min() : -(1LL << (bits - 1));
  long long hi = bits == 64 ? std::numeric_limits<long long>::max() : (1LL << (bits - 1)) - 1;
  if (errno == ERANGE || v < lo || v > hi) {
    return ErrorAt(tok, "value " + s + " is out of range for " + std::string(PrimitiveTypeName(type)));
  }
  out->SetFromInt64(index, v);
  return OkStatus();
}

StatusOr<Shape> HloParser::ParseShapeOnly() {
  ASSIGN_OR_RETURN(Shape s, ParseShape());
  Token tok = lexer_.Next();
  if (tok.kind != TokenKind::kEof) return ErrorAt(tok, "unexpected " + Describe(tok) + " after shape");
  return s;
}

// ------------------------------------------------------------ entry points

StatusOr<std::unique_ptr<HloModule>> ParseHloModuleUnverified(std::string_view text) {
  HloParser parser(text);
  return parser.ParseModule();
}

StatusOr<std::unique_ptr<HloModule>> ParseHloModule(std::string_view text) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModuleUnverified(text));
  RETURN_IF_ERROR(VerifyHloModule(*module));
  return module;
}

StatusOr<Shape> ParseShape(std::string_view text) {
  HloParser parser(text);
  return parser.ParseShapeOnly();
}

}  // namespace xla
