// Internal: the recursive-descent parser shared by parser.cc (module,
// computation, instruction, shape, literal) and parse_attributes.cc
// (the name=value attributes after an instruction's operands).
#ifndef XLA_HLO_PARSER_PARSER_IMPL_H_
#define XLA_HLO_PARSER_PARSER_IMPL_H_

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "xla/hlo/ir/module.h"
#include "xla/hlo/parser/lexer.h"
#include "xla/status.h"

namespace xla {

class HloParser {
 public:
  explicit HloParser(std::string_view text) : text_(text), lexer_(text) {}

  StatusOr<std::unique_ptr<HloModule>> ParseModule();
  StatusOr<Shape> ParseShapeOnly();

  // Deep enough for any real program (tuple nesting, literal rank); shallow
  // enough that hostile input cannot overflow the stack.
  static constexpr int kMaxDepth = 64;

 private:
  // ---- helpers (parser.cc) ----
  Status Error(size_t offset, const std::string& message) const;
  Status ErrorAt(const Token& tok, const std::string& message) const {
    return Error(tok.offset, message);
  }
  // Consumes a token of `kind`, else fails with "expected <what>".
  StatusOr<Token> Expect(TokenKind kind, const std::string& what = "");
  bool TryConsume(TokenKind kind);
  StatusOr<std::string> ExpectName(const std::string& what);
  StatusOr<int64_t> ParseInt64();
  StatusOr<bool> ParseBool();
  StatusOr<std::vector<int64_t>> ParseIntList();  // {1,2,3} or {}

  // ---- grammar (parser.cc) ----
  Status ParseModuleHeader(HloModule** module_out);
  Status ParseComputation();
  Status ParseInstruction(HloComputation* comp, std::unordered_map<std::string, HloInstruction*>* names,
                          HloInstruction** root);
  StatusOr<Shape> ParseShape(int depth = 0);
  // After "{1,0:" in a layout: tiles ("T(8,128)(2,1)") and a memory space
  // ("S(1)"), each optional, in that order; returns the tiles.
  StatusOr<std::vector<std::vector<int64_t>>> ParseLayoutDetails(int64_t* memory_space);
  // After "T": "(8,128)(2,1)".
  StatusOr<std::vector<std::vector<int64_t>>> ParseTiles();
  StatusOr<Literal> ParseLiteral(const Shape& shape, int depth = 0);
  Status ParseArrayLiteral(const Shape& shape, int dim, int depth, Literal* out, int64_t* next);
  Status ParseLiteralElement(Literal* out, int64_t index);
  Status ParseComputationLayout(ComputationLayout* out);
  Status ParseInputOutputAlias(std::vector<InputOutputAlias>* out);
  Status ParseBufferDonors(std::vector<BufferDonor>* out);
  // Skips one attribute value we accept but do not keep (metadata, sharding, ...).
  Status SkipValue();

  // ---- attributes (parse_attributes.cc) ----
  // Parses ", name=value" pairs up to the end of the instruction and applies
  // them to `instr`; checks that the attributes `instr`'s opcode needs are present.
  Status ParseAttributes(HloInstruction* instr, size_t instr_offset);
  Status ParseAttribute(HloInstruction* instr, const Token& name);
  StatusOr<HloComputation*> ParseComputationRef();
  StatusOr<Window> ParseWindow();
  StatusOr<PaddingConfig> ParsePadding();
  StatusOr<std::vector<SliceDimension>> ParseSliceRanges();
  StatusOr<std::vector<std::vector<int64_t>>> ParseIntListList();

  std::string_view text_;
  Lexer lexer_;
  std::unique_ptr<HloModule> module_;
  std::unordered_map<std::string, HloComputation*> computations_;
};

}  // namespace xla

#endif  // XLA_HLO_PARSER_PARSER_IMPL_H_
