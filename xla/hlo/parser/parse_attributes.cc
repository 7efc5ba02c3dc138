// The ", name=value" attributes after an instruction's operands. Each
// attribute name has one value grammar; which opcodes need which attribute is
// the RequiredAttributes table below. Attributes that carry no semantics for
// us (metadata, sharding, frontend_attributes, ...) are parsed and dropped.
#include <cerrno>
#include <cstdlib>

#include "xla/hlo/parser/parser_impl.h"

namespace xla {
namespace {

std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }

// Attributes an opcode cannot do without (the verifier checks their values).
std::vector<const char*> RequiredAttributes(HloOpcode op) {
  switch (op) {
    case HloOpcode::kGetTupleElement: return {"index"};
    case HloOpcode::kCompare: return {"direction"};
    case HloOpcode::kBroadcast: case HloOpcode::kTranspose: case HloOpcode::kReverse:
    case HloOpcode::kConcatenate:
      return {"dimensions"};
    case HloOpcode::kReduce: case HloOpcode::kSort: return {"dimensions", "to_apply"};
    case HloOpcode::kSlice: return {"slice"};
    case HloOpcode::kIota: return {"iota_dimension"};
    case HloOpcode::kDynamicSlice: return {"dynamic_slice_sizes"};
    case HloOpcode::kPad: return {"padding"};
    case HloOpcode::kReduceWindow: return {"window", "to_apply"};
    case HloOpcode::kSelectAndScatter: return {"window", "select", "scatter"};
    case HloOpcode::kConvolution: return {"dim_labels"};
    case HloOpcode::kGather:
      return {"offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim",
              "slice_sizes"};
    case HloOpcode::kScatter:
      return {"update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
              "index_vector_dim", "to_apply"};
    case HloOpcode::kCall: case HloOpcode::kMap: case HloOpcode::kAllReduce:
    case HloOpcode::kReduceScatter:
      return {"to_apply"};
    case HloOpcode::kWhile: return {"condition", "body"};
    case HloOpcode::kFft: return {"fft_type", "fft_length"};
    case HloOpcode::kReducePrecision: return {"exponent_bits", "mantissa_bits"};
    case HloOpcode::kTopK: return {"k"};
    case HloOpcode::kCustomCall: return {"custom_call_target"};
    case HloOpcode::kRngBitGenerator: return {"algorithm"};
    case HloOpcode::kRng: return {"distribution"};
    case HloOpcode::kFusion: return {"kind", "calls"};
    default: return {};
  }
}

// Accepted and dropped: they do not change what a program computes.
bool IsIgnoredAttribute(std::string_view name) {
  return name == "metadata" || name == "sharding" || name == "frontend_attributes" ||
         name == "statistics" || name == "control-predecessors" || name == "origin" ||
         name == "operand_layout_constraints" || name == "output_to_operand_aliasing" ||
         name == "schedule" || name == "constrain_layout" || name == "result_accuracy" ||
         name == "raw_backend_config_string" || name == "custom_call_schedule" ||
         name == "known_trip_count" || name == "known_init_step" || name == "dynamic_slice_sizes_hint";
}

// Splits "a<sep>b<sep>c" into parts.
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) return out;
    start = p + 1;
  }
}

bool ParseIntText(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  std::string str(s);
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(str.c_str(), &end, 10);
  if (errno == ERANGE || end != str.c_str() + str.size()) return false;
  *out = v;
  return true;
}

}  // namespace

StatusOr<HloComputation*> HloParser::ParseComputationRef() {
  ASSIGN_OR_RETURN(Token tok, Expect(TokenKind::kName, "a computation name"));
  std::string name(tok.text[0] == '%' ? tok.text.substr(1) : tok.text);
  auto it = computations_.find(name);
  if (it == computations_.end()) {
    return ErrorAt(tok, "unknown computation " + Quote(name) +
                            " (computations must be defined before use)");
  }
  return it->second;
}

StatusOr<Window> HloParser::ParseWindow() {
  RETURN_IF_ERROR(Expect(TokenKind::kLBrace, "'{' to open a window").status());
  Window window;
  std::set<std::string> seen;
  // Fields are collected first: "size" fixes the rank, and may come in any position.
  std::vector<std::pair<Token, Token>> fields;
  while (!TryConsume(TokenKind::kRBrace)) {
    ASSIGN_OR_RETURN(Token key, Expect(TokenKind::kName, "a window field or '}'"));
    RETURN_IF_ERROR(Expect(TokenKind::kEqual).status());
    Token value = lexer_.NextWord();
    if (value.kind != TokenKind::kName) return ErrorAt(value, "expected a window field value");
    if (!seen.insert(std::string(key.text)).second) {
      return ErrorAt(key, "duplicate window field " + Quote(key.text));
    }
    fields.push_back({key, value});
  }
  if (fields.empty()) return window;
  const Token* size = nullptr;
  for (auto& [k, v] : fields) {
    if (k.text == "size") size = &v;
  }
  if (size == nullptr) return ErrorAt(fields[0].first, "window has no 'size' field");
  size_t rank = Split(size->text, 'x').size();
  window.dimensions.resize(rank);
  for (auto& [key, value] : fields) {
    std::vector<std::string_view> parts = Split(value.text, 'x');
    if (parts.size() != rank) {
      return ErrorAt(value, "window field " + Quote(key.text) + " has " +
                                std::to_string(parts.size()) + " dimensions, size has " +
                                std::to_string(rank));
    }
    for (size_t i = 0; i < rank; ++i) {
      WindowDimension& d = window.dimensions[i];
      int64_t v = 0, v2 = 0;
      if (key.text == "pad") {
        std::vector<std::string_view> lh = Split(parts[i], '_');
        if (lh.size() != 2 || !ParseIntText(lh[0], &v) || !ParseIntText(lh[1], &v2)) {
          return ErrorAt(value, "window pad must look like 'low_high' per dimension, got " +
                                    Quote(value.text));
        }
        d.padding_low = v;
        d.padding_high = v2;
        continue;
      }
      if (!ParseIntText(parts[i], &v)) {
        return ErrorAt(value, "expected integers separated by 'x' in window field " +
                                  Quote(key.text) + ", got " + Quote(value.text));
      }
      if (key.text == "size") d.size = v;
      else if (key.text == "stride") d.stride = v;
      else if (key.text == "lhs_dilate") d.base_dilation = v;
      else if (key.text == "rhs_dilate") d.window_dilation = v;
      else if (key.text == "rhs_reversal") d.window_reversal = v != 0;
      else return ErrorAt(key, "unknown window field " + Quote(key.text));
    }
  }
  return window;
}

StatusOr<PaddingConfig> HloParser::ParsePadding() {
  Token value = lexer_.NextWord();
  PaddingConfig config;
  if (value.kind != TokenKind::kName) return ErrorAt(value, "expected a padding like '1_2x0_0'");
  for (std::string_view dim : Split(value.text, 'x')) {
    std::vector<std::string_view> parts = Split(dim, '_');
    PaddingDimension d;
    if ((parts.size() != 2 && parts.size() != 3) || !ParseIntText(parts[0], &d.edge_padding_low) ||
        !ParseIntText(parts[1], &d.edge_padding_high) ||
        (parts.size() == 3 && !ParseIntText(parts[2], &d.interior_padding))) {
      return ErrorAt(value, "padding must look like 'low_high[_interior]' per dimension, got " +
                                Quote(value.text));
    }
    config.dimensions.push_back(d);
  }
  return config;
}

// slice={[0:3], [1:8:2]}
StatusOr<std::vector<SliceDimension>> HloParser::ParseSliceRanges() {
  RETURN_IF_ERROR(Expect(TokenKind::kLBrace).status());
  std::vector<SliceDimension> out;
  if (TryConsume(TokenKind::kRBrace)) return out;
  do {
    RETURN_IF_ERROR(Expect(TokenKind::kLBracket, "'[' to open a slice range").status());
    SliceDimension d;
    ASSIGN_OR_RETURN(d.start, ParseInt64());
    RETURN_IF_ERROR(Expect(TokenKind::kColon).status());
    ASSIGN_OR_RETURN(d.limit, ParseInt64());
    if (TryConsume(TokenKind::kColon)) {
      ASSIGN_OR_RETURN(d.stride, ParseInt64());
    }
    RETURN_IF_ERROR(Expect(TokenKind::kRBracket, "':' or ']'").status());
    out.push_back(d);
  } while (TryConsume(TokenKind::kComma));
  RETURN_IF_ERROR(Expect(TokenKind::kRBrace, "',' or '}'").status());
  return out;
}

// {{0,1},{2,3}} (also {} and {{}}), or the compact iota form newer XLA
// prints for replica groups: [groups,size]<=[reshape dims] with an optional
// T(permutation), meaning iota(N) reshaped, transposed, then regrouped.
StatusOr<std::vector<std::vector<int64_t>>> HloParser::ParseIntListList() {
  if (lexer_.Peek().kind == TokenKind::kLBracket) {
    auto bracketed = [&]() -> StatusOr<std::vector<int64_t>> {
      RETURN_IF_ERROR(Expect(TokenKind::kLBracket).status());
      std::vector<int64_t> v;
      do {
        ASSIGN_OR_RETURN(int64_t x, ParseInt64());
        v.push_back(x);
      } while (TryConsume(TokenKind::kComma));
      RETURN_IF_ERROR(Expect(TokenKind::kRBracket, "',' or ']'").status());
      return v;
    };
    Token start = lexer_.Peek();
    ASSIGN_OR_RETURN(std::vector<int64_t> group_dims, bracketed());
    Token lt = lexer_.Next();
    if (lt.kind != TokenKind::kError || lt.text != "<" || !TryConsume(TokenKind::kEqual)) {
      return ErrorAt(lt, "expected '<=' in iota replica groups");
    }
    ASSIGN_OR_RETURN(std::vector<int64_t> reshape, bracketed());
    std::vector<int64_t> perm(reshape.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
    if (lexer_.Peek().kind == TokenKind::kName && lexer_.Peek().text == "T") {
      lexer_.Next();
      RETURN_IF_ERROR(Expect(TokenKind::kLParen).status());
      perm.clear();
      do {
        ASSIGN_OR_RETURN(int64_t x, ParseInt64());
        perm.push_back(x);
      } while (TryConsume(TokenKind::kComma));
      RETURN_IF_ERROR(Expect(TokenKind::kRParen).status());
    }
    int64_t total = 1;
    for (int64_t d : reshape) {
      if (d <= 0 || d > (int64_t{1} << 20)) return ErrorAt(start, "invalid iota replica groups");
      total *= d;
      if (total > (int64_t{1} << 20)) return ErrorAt(start, "iota replica groups too large");
    }
    std::vector<bool> used(perm.size(), false);
    for (int64_t p : perm) {
      if (p < 0 || p >= static_cast<int64_t>(perm.size()) || used[p]) {
        return ErrorAt(start, "invalid transpose in iota replica groups");
      }
      used[p] = true;
    }
    if (group_dims.size() != 2 || group_dims[0] * group_dims[1] != total || perm.size() != reshape.size()) {
      return ErrorAt(start, "iota replica groups: [groups,size] must cover the reshape dims");
    }
    // Element k of the transposed array, in row-major order, is device id(k).
    std::vector<int64_t> tdims(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) tdims[i] = reshape[perm[i]];
    std::vector<int64_t> flat;
    std::vector<int64_t> idx(tdims.size(), 0), src(tdims.size());
    for (int64_t k = 0; k < total; ++k) {
      for (size_t i = 0; i < perm.size(); ++i) src[perm[i]] = idx[i];
      int64_t id = 0;
      for (size_t i = 0; i < reshape.size(); ++i) id = id * reshape[i] + src[i];
      flat.push_back(id);
      for (int i = static_cast<int>(idx.size()) - 1; i >= 0 && ++idx[i] == tdims[i]; --i) idx[i] = 0;
    }
    std::vector<std::vector<int64_t>> groups(group_dims[0]);
    for (int64_t g = 0; g < group_dims[0]; ++g) {
      groups[g].assign(flat.begin() + g * group_dims[1], flat.begin() + (g + 1) * group_dims[1]);
    }
    return groups;
  }
  RETURN_IF_ERROR(Expect(TokenKind::kLBrace).status());
  std::vector<std::vector<int64_t>> out;
  if (TryConsume(TokenKind::kRBrace)) return out;
  do {
    ASSIGN_OR_RETURN(std::vector<int64_t> group, ParseIntList());
    out.push_back(std::move(group));
  } while (TryConsume(TokenKind::kComma));
  RETURN_IF_ERROR(Expect(TokenKind::kRBrace, "',' or '}'").status());
  return out;
}

Status HloParser::ParseAttributes(HloInstruction* instr, size_t instr_offset) {
  std::set<std::string> seen;
  while (TryConsume(TokenKind::kComma)) {
    ASSIGN_OR_RETURN(Token name, Expect(TokenKind::kName, "an attribute name"));
    if (!seen.insert(std::string(name.text)).second) {
      return ErrorAt(name, "duplicate attribute " + Quote(name.text));
    }
    RETURN_IF_ERROR(Expect(TokenKind::kEqual, "'=' after attribute name").status());
    RETURN_IF_ERROR(ParseAttribute(instr, name));
  }
  HloOpcode op = instr->opcode();
  for (const char* required : RequiredAttributes(op)) {
    if (!seen.count(required)) {
      return Error(instr_offset, std::string(HloOpcodeString(op)) + " needs attribute " +
                                     Quote(required));
    }
  }
  if (op == HloOpcode::kConditional && !seen.count("branch_computations") &&
      !(seen.count("true_computation") && seen.count("false_computation"))) {
    return Error(instr_offset,
                 "conditional needs 'branch_computations' or 'true_computation' and "
                 "'false_computation'");
  }
  return OkStatus();
}

Status HloParser::ParseAttribute(HloInstruction* instr, const Token& name_tok) {
  const std::string_view name = name_tok.text;
  const HloOpcode op = instr->opcode();
  // Helpers for the common value shapes.
  auto ints = [&]() { return ParseIntList(); };
  auto word = [&]() -> StatusOr<Token> {
    Token t = lexer_.NextWord();
    if (t.kind != TokenKind::kName) return ErrorAt(t, "expected a value for " + Quote(name));
    return t;
  };
  // Fixed slots of the called_computations vector (see instruction.h).
  auto set_slot = [&](size_t slot, HloComputation* c) {
    std::vector<HloComputation*> called = instr->called_computations();
    if (called.size() <= slot) called.resize(slot + 1, nullptr);
    called[slot] = c;
    instr->set_called_computations(std::move(called));
  };

  if (name == "index") {
    ASSIGN_OR_RETURN(int64_t v, ParseInt64());
    instr->set_tuple_index(v);
  } else if (name == "dimensions") {
    ASSIGN_OR_RETURN(std::vector<int64_t> v, ints());
    instr->set_dimensions(std::move(v));
  } else if (name == "to_apply" || name == "calls" || name == "condition" || name == "select" ||
             name == "true_computation") {
    ASSIGN_OR_RETURN(HloComputation * c, ParseComputationRef());
    set_slot(0, c);
  } else if (name == "body" || name == "scatter" || name == "false_computation") {
    ASSIGN_OR_RETURN(HloComputation * c, ParseComputationRef());
    set_slot(1, c);
  } else if (name == "branch_computations" || name == "called_computations") {
    RETURN_IF_ERROR(Expect(TokenKind::kLBrace).status());
    std::vector<HloComputation*> called;
    if (!TryConsume(TokenKind::kRBrace)) {
      do {
        ASSIGN_OR_RETURN(HloComputation * c, ParseComputationRef());
        called.push_back(c);
      } while (TryConsume(TokenKind::kComma));
      RETURN_IF_ERROR(Expect(TokenKind::kRBrace, "',' or '}'").status());
    }
    instr->set_called_computations(std::move(called));
  } else if (name == "direction") {
    ASSIGN_OR_RETURN(Token t, word());
    auto d = ParseComparisonDirection(t.text);
    if (!d) return ErrorAt(t, "unknown comparison direction " + Quote(t.text));
    instr->set_comparison_direction(*d);
  } else if (name == "type") {
    ASSIGN_OR_RETURN(Token t, word());
    auto ct = ParseComparisonType(t.text);
    if (!ct) return ErrorAt(t, "unknown comparison type " + Quote(t.text));
    instr->set_comparison_type(*ct);
  } else if (name == "slice") {
    ASSIGN_OR_RETURN(std::vector<SliceDimension> s, ParseSliceRanges());
    instr->set_slice(std::move(s));
  } else if (name == "iota_dimension") {
    ASSIGN_OR_RETURN(int64_t v, ParseInt64());
    instr->set_iota_dimension(v);
  } else if (name == "dynamic_slice_sizes") {
    ASSIGN_OR_RETURN(std::vector<int64_t> v, ints());
    instr->set_dynamic_slice_sizes(std::move(v));
  } else if (name == "padding") {
    ASSIGN_OR_RETURN(PaddingConfig p, ParsePadding());
    instr->set_padding_config(std::move(p));
  } else if (name == "window") {
    ASSIGN_OR_RETURN(Window w, ParseWindow());
    instr->set_window(std::move(w));
  } else if (name == "dim_labels") {
    ASSIGN_OR_RETURN(Token t, word());
    std::string error;
    auto dnums = ParseDimLabels(t.text, &error);
    if (!dnums) return ErrorAt(t, error);
    instr->set_convolution_dimension_numbers(std::move(*dnums));
  } else if (name == "feature_group_count" || name == "batch_group_count") {
    ASSIGN_OR_RETURN(int64_t v, ParseInt64());
    if (name == "feature_group_count") instr->set_feature_group_count(v);
    else instr->set_batch_group_count(v);
  } else if (name == "lhs_batch_dims" || name == "rhs_batch_dims" ||
             name == "lhs_contracting_dims" || name == "rhs_contracting_dims") {
    ASSIGN_OR_RETURN(std::vector<int64_t> v, ints());
    DotDimensionNumbers d = instr->dot_dimension_numbers();
    if (name == "lhs_batch_dims") d.lhs_batch_dimensions = std::move(v);
    else if (name == "rhs_batch_dims") d.rhs_batch_dimensions = std::move(v);
    else if (name == "lhs_contracting_dims") d.lhs_contracting_dimensions = std::move(v);
    else d.rhs_contracting_dimensions = std::move(v);
    instr->set_dot_dimension_numbers(std::move(d));
  } else if (name == "offset_dims" || name == "collapsed_slice_dims" || name == "start_index_map" ||
             name == "operand_batching_dims" || name == "start_indices_batching_dims") {
    ASSIGN_OR_RETURN(std::vector<int64_t> v, ints());
    GatherDimensionNumbers g = instr->gather_dimension_numbers();
    if (name == "offset_dims") g.offset_dims = std::move(v);
    else if (name == "collapsed_slice_dims") g.collapsed_slice_dims = std::move(v);
    else if (name == "start_index_map") g.start_index_map = std::move(v);
    else if (name == "operand_batching_dims") g.operand_batching_dims = std::move(v);
    else g.start_indices_batching_dims = std::move(v);
    instr->set_gather_dimension_numbers(std::move(g));
  } else if (name == "update_window_dims" || name == "inserted_window_dims" ||
             name == "scatter_dims_to_operand_dims" || name == "input_batching_dims" ||
             name == "scatter_indices_batching_dims") {
    ASSIGN_OR_RETURN(std::vector<int64_t> v, ints());
    ScatterDimensionNumbers s = instr->scatter_dimension_numbers();
    if (name == "update_window_dims") s.update_window_dims = std::move(v);
    else if (name == "inserted_window_dims") s.inserted_window_dims = std::move(v);
    else if (name == "scatter_dims_to_operand_dims") s.scatter_dims_to_operand_dims = std::move(v);
    else if (name == "input_batching_dims") s.input_batching_dims = std::move(v);
    else s.scatter_indices_batching_dims = std::move(v);
    instr->set_scatter_dimension_numbers(std::move(s));
  } else if (name == "index_vector_dim") {
    // Shared by gather and scatter; stored in both so either accessor works.
    ASSIGN_OR_RETURN(int64_t v, ParseInt64());
    GatherDimensionNumbers g = instr->gather_dimension_numbers();
    g.index_vector_dim = v;
    instr->set_gather_dimension_numbers(std::move(g));
    ScatterDimensionNumbers s = instr->scatter_dimension_numbers();
    s.index_vector_dim = v;
    instr->set_scatter_dimension_numbers(std::move(s));
  } else if (name == "slice_sizes") {
    ASSIGN_OR_RETURN(std::vector<int64_t> v, ints());
    instr->set_gather_slice_sizes(std::move(v));
  } else if (name == "indices_are_sorted") {
    ASSIGN_OR_RETURN(bool v, ParseBool());
    instr->set_indices_are_sorted(v);
  } else if (name == "unique_indices") {
    ASSIGN_OR_RETURN(bool v, ParseBool());
    instr->set_unique_indices(v);
  } else if (name == "fft_type") {
    ASSIGN_OR_RETURN(Token t, word());
    auto f = ParseFftType(t.text);
    if (!f) return ErrorAt(t, "unknown fft_type " + Quote(t.text));
    instr->set_fft_type(*f);
  } else if (name == "fft_length") {
    ASSIGN_OR_RETURN(std::vector<int64_t> v, ints());
    instr->set_fft_length(std::move(v));
  } else if (name == "algorithm") {
    ASSIGN_OR_RETURN(Token t, word());
    if (op == HloOpcode::kRngBitGenerator) {
      auto a = ParseRngAlgorithm(t.text);
      if (!a) return ErrorAt(t, "unknown rng algorithm " + Quote(t.text));
      instr->set_rng_algorithm(*a);
    }  // dot algorithm=...: a precision hint, dropped.
  } else if (name == "distribution") {
    ASSIGN_OR_RETURN(Token t, word());
    auto d = ParseRngDistribution(t.text);
    if (!d) return ErrorAt(t, "unknown rng distribution " + Quote(t.text));
    instr->set_rng_distribution(*d);
  } else if (name == "left_side" || name == "lower" || name == "unit_diagonal") {
    ASSIGN_OR_RETURN(bool v, ParseBool());
    TriangularSolveOptions o = instr->triangular_solve_options();
    if (name == "left_side") o.left_side = v;
    else if (name == "unit_diagonal") o.unit_diagonal = v;
    else if (op == HloOpcode::kCholesky) instr->set_cholesky_lower(v);
    else o.lower = v;
    instr->set_triangular_solve_options(o);
  } else if (name == "transpose_a") {
    ASSIGN_OR_RETURN(Token t, word());
    auto tr = ParseTriangularSolveTranspose(t.text);
    if (!tr) return ErrorAt(t, "unknown transpose_a " + Quote(t.text));
    TriangularSolveOptions o = instr->triangular_solve_options();
    o.transpose_a = *tr;
    instr->set_triangular_solve_options(o);
  } else if (name == "exponent_bits" || name == "mantissa_bits") {
    ASSIGN_OR_RETURN(int64_t v, ParseInt64());
    if (name == "exponent_bits") instr->set_reduce_precision_bits(v, instr->mantissa_bits());
    else instr->set_reduce_precision_bits(instr->exponent_bits(), v);
  } else if (name == "k") {
    ASSIGN_OR_RETURN(int64_t v, ParseInt64());
    instr->set_k(v);
  } else if (name == "largest") {
    ASSIGN_OR_RETURN(bool v, ParseBool());
    instr->set_largest(v);
  } else if (name == "is_stable") {
    ASSIGN_OR_RETURN(bool v, ParseBool());
    instr->set_is_stable(v);
  } else if (name == "custom_call_target") {
    ASSIGN_OR_RETURN(Token t, Expect(TokenKind::kString, "a quoted custom_call_target"));
    instr->set_custom_call_target(t.value);
  } else if (name == "backend_config") {
    Token t = lexer_.Peek();
    if (t.kind == TokenKind::kString) {
      lexer_.Next();
      instr->set_backend_config(t.value);
    } else if (t.kind == TokenKind::kLBrace) {
      size_t start = t.offset;
      RETURN_IF_ERROR(SkipValue());
      instr->set_backend_config(std::string(text_.substr(start, lexer_.offset() - start)));
    } else {
      return ErrorAt(t, "expected a string or {...} for backend_config");
    }
  } else if (name == "custom_call_has_side_effect" || name == "use_global_device_ids") {
    ASSIGN_OR_RETURN(bool v, ParseBool());
    if (name == "use_global_device_ids") instr->set_use_global_device_ids(v);
    else instr->set_custom_call_has_side_effect(v);
  } else if (name == "api_version" || name == "kind") {
    ASSIGN_OR_RETURN(Token t, word());
    if (name == "kind") instr->set_fusion_kind(std::string(t.text));
    else instr->set_api_version(std::string(t.text));
  } else if (name == "replica_groups") {
    ASSIGN_OR_RETURN(auto groups, ParseIntListList());
    instr->set_replica_groups(std::move(groups));
  } else if (name == "channel_id") {
    ASSIGN_OR_RETURN(int64_t v, ParseInt64());
    instr->set_channel_id(v);
  } else if (name == "source_target_pairs") {
    Token at = lexer_.Peek();
    ASSIGN_OR_RETURN(auto pairs, ParseIntListList());
    std::vector<std::pair<int64_t, int64_t>> out;
    for (const auto& p : pairs) {
      if (p.size() != 2) return ErrorAt(at, "source_target_pairs entries must be {source,target}");
      out.push_back({p[0], p[1]});
    }
    instr->set_source_target_pairs(std::move(out));
  } else if (name == "operand_precision") {
    RETURN_IF_ERROR(Expect(TokenKind::kLBrace).status());
    std::vector<std::string> precision;
    if (!TryConsume(TokenKind::kRBrace)) {
      do {
        ASSIGN_OR_RETURN(Token t, word());
        precision.emplace_back(t.text);
      } while (TryConsume(TokenKind::kComma));
      RETURN_IF_ERROR(Expect(TokenKind::kRBrace, "',' or '}'").status());
    }
    instr->set_operand_precision(std::move(precision));
  } else if (IsIgnoredAttribute(name)) {
    RETURN_IF_ERROR(SkipValue());
  } else {
    return ErrorAt(name_tok, "unknown attribute " + Quote(name));
  }
  return OkStatus();
}

}  // namespace xla
