// Parser for XLA HLO text, in the form JAX prints
// (jax.jit(f).lower(...).as_text(dialect="hlo")).
//
// Errors are InvalidArgument with "line:col: message", the offending source
// line and a caret. The parser never crashes on malformed input and caps
// nesting depth. Printing is in //xla/hlo/ir (module.ToString(), or
// xla::ToString(module) from printer.h, included here for convenience).
#ifndef XLA_HLO_PARSER_PARSER_H_
#define XLA_HLO_PARSER_PARSER_H_

#include <memory>
#include <string_view>

#include "xla/hlo/ir/module.h"
#include "xla/hlo/ir/printer.h"
#include "xla/status.h"

namespace xla {

// Parses and then runs the verifier (shape inference for every instruction).
StatusOr<std::unique_ptr<HloModule>> ParseHloModule(std::string_view text);

// Parses only: the result is structurally sound (names resolve, attribute
// values are well-formed) but shapes are not checked. For tests of the
// verifier itself.
StatusOr<std::unique_ptr<HloModule>> ParseHloModuleUnverified(std::string_view text);

// Parses a single shape such as "f32[3,4]{1,0}" or "(s32[], f32[2]{0})".
StatusOr<Shape> ParseShape(std::string_view text);

}  // namespace xla

#endif  // XLA_HLO_PARSER_PARSER_H_
