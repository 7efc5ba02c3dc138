// HloOpcode: the one list of HLO operations.
//
// Each entry is V(enum, HLO text spelling, operand count); -1 means variadic.
// The list generates the enum, the spelling table, the arity table and the
// parser's keyword lookup, so adding an op is one line here plus its rules in
// the verifier and evaluator tables. Keep it sorted by enum name.
#ifndef XLA_HLO_IR_OPCODE_H_
#define XLA_HLO_IR_OPCODE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace xla {

#define XLA_HLO_OPCODES(V)                                         \
  V(kAbs, "abs", 1)                                                \
  V(kAdd, "add", 2)                                                \
  V(kAfterAll, "after-all", -1)                                    \
  V(kAllGather, "all-gather", -1)                                  \
  V(kAllReduce, "all-reduce", -1)                                  \
  V(kAllToAll, "all-to-all", -1)                                   \
  V(kAnd, "and", 2)                                                \
  V(kAtan2, "atan2", 2)                                            \
  V(kBitcast, "bitcast", 1)                                        \
  V(kBitcastConvert, "bitcast-convert", 1)                         \
  V(kBroadcast, "broadcast", 1)                                    \
  V(kCall, "call", -1)                                             \
  V(kCbrt, "cbrt", 1)                                              \
  V(kCeil, "ceil", 1)                                              \
  V(kCholesky, "cholesky", 1)                                      \
  V(kClamp, "clamp", 3)                                            \
  V(kClz, "count-leading-zeros", 1)                                \
  V(kCollectivePermute, "collective-permute", 1)                   \
  V(kCompare, "compare", 2)                                        \
  V(kComplex, "complex", 2)                                        \
  V(kConcatenate, "concatenate", -1)                               \
  V(kConditional, "conditional", -1)                               \
  V(kConstant, "constant", 0)                                      \
  V(kConvert, "convert", 1)                                        \
  V(kConvolution, "convolution", 2)                                \
  V(kCopy, "copy", 1)                                              \
  V(kCopyDone, "copy-done", 1)                                     \
  V(kCopyStart, "copy-start", 1)                                   \
  V(kCos, "cosine", 1)                                             \
  V(kCustomCall, "custom-call", -1)                                \
  V(kDivide, "divide", 2)                                          \
  V(kDot, "dot", 2)                                                \
  V(kDynamicSlice, "dynamic-slice", -1)                            \
  V(kDynamicUpdateSlice, "dynamic-update-slice", -1)               \
  V(kErf, "erf", 1)                                                \
  V(kExp, "exponential", 1)                                        \
  V(kExpm1, "exponential-minus-one", 1)                            \
  V(kFft, "fft", 1)                                                \
  V(kFloor, "floor", 1)                                            \
  V(kFusion, "fusion", -1)                                         \
  V(kGather, "gather", 2)                                          \
  V(kGetTupleElement, "get-tuple-element", 1)                      \
  V(kImag, "imag", 1)                                              \
  V(kIota, "iota", 0)                                              \
  V(kIsFinite, "is-finite", 1)                                     \
  V(kLog, "log", 1)                                                \
  V(kLog1p, "log-plus-one", 1)                                     \
  V(kLogistic, "logistic", 1)                                      \
  V(kMap, "map", -1)                                               \
  V(kMaximum, "maximum", 2)                                        \
  V(kMinimum, "minimum", 2)                                        \
  V(kMultiply, "multiply", 2)                                      \
  V(kNegate, "negate", 1)                                          \
  V(kNot, "not", 1)                                                \
  V(kOptimizationBarrier, "opt-barrier", 1)                        \
  V(kOr, "or", 2)                                                  \
  V(kPad, "pad", 2)                                                \
  V(kParameter, "parameter", 0)                                    \
  V(kPartitionId, "partition-id", 0)                               \
  V(kPopulationCount, "popcnt", 1)                                 \
  V(kPower, "power", 2)                                            \
  V(kReal, "real", 1)                                              \
  V(kReduce, "reduce", -1)                                         \
  V(kReducePrecision, "reduce-precision", 1)                       \
  V(kReduceScatter, "reduce-scatter", -1)                          \
  V(kReduceWindow, "reduce-window", -1)                            \
  V(kRemainder, "remainder", 2)                                    \
  V(kReplicaId, "replica-id", 0)                                   \
  V(kReshape, "reshape", 1)                                        \
  V(kReverse, "reverse", 1)                                        \
  V(kRng, "rng", -1)                                               \
  V(kRngBitGenerator, "rng-bit-generator", 1)                      \
  V(kRoundNearestAfz, "round-nearest-afz", 1)                      \
  V(kRoundNearestEven, "round-nearest-even", 1)                    \
  V(kRsqrt, "rsqrt", 1)                                            \
  V(kScatter, "scatter", -1)                                       \
  V(kSelect, "select", 3)                                          \
  V(kSelectAndScatter, "select-and-scatter", 3)                    \
  V(kShiftLeft, "shift-left", 2)                                   \
  V(kShiftRightArithmetic, "shift-right-arithmetic", 2)            \
  V(kShiftRightLogical, "shift-right-logical", 2)                  \
  V(kSign, "sign", 1)                                              \
  V(kSin, "sine", 1)                                               \
  V(kSlice, "slice", 1)                                            \
  V(kSort, "sort", -1)                                             \
  V(kSqrt, "sqrt", 1)                                              \
  V(kSubtract, "subtract", 2)                                      \
  V(kTan, "tan", 1)                                                \
  V(kTanh, "tanh", 1)                                              \
  V(kTopK, "topk", 1)                                              \
  V(kTranspose, "transpose", 1)                                    \
  V(kTriangularSolve, "triangular-solve", 2)                       \
  V(kTuple, "tuple", -1)                                           \
  V(kWhile, "while", 1)                                            \
  V(kXor, "xor", 2)

enum class HloOpcode : uint8_t {
#define XLA_HLO_OPCODE_ENUM(enum_name, spelling, arity) enum_name,
  XLA_HLO_OPCODES(XLA_HLO_OPCODE_ENUM)
#undef XLA_HLO_OPCODE_ENUM
};

#define XLA_HLO_OPCODE_COUNT(enum_name, spelling, arity) +1
inline constexpr int kHloOpcodeCount = 0 XLA_HLO_OPCODES(XLA_HLO_OPCODE_COUNT);
#undef XLA_HLO_OPCODE_COUNT
// Update this when adding an op, so an accidental edit of the list shows up.
static_assert(kHloOpcodeCount == 95, "opcode list changed: update the count");

// "add", "get-tuple-element", ...
std::string_view HloOpcodeString(HloOpcode opcode);
// Operand count, or -1 for variadic ops.
int HloOpcodeArity(HloOpcode opcode);
// Inverse of HloOpcodeString; nullopt for an unknown spelling.
std::optional<HloOpcode> StringToHloOpcode(std::string_view spelling);

// Elementwise ops: output element i depends only on operand element i
// (unary, binary, compare, select, clamp, convert, ...).
bool IsElementwiseOpcode(HloOpcode opcode);
bool IsElementwiseUnary(HloOpcode opcode);
bool IsElementwiseBinary(HloOpcode opcode);
// Ops with effects or results that must not be deduplicated or deleted.
bool HasSideEffect(HloOpcode opcode);

}  // namespace xla

#endif  // XLA_HLO_IR_OPCODE_H_
