#include "xla/hlo/ir/opcode.h"

namespace xla {

std::string_view HloOpcodeString(HloOpcode opcode) {
  switch (opcode) {
#define XLA_CASE(e, spelling, arity) \
  case HloOpcode::e:                 \
    return spelling;
    XLA_HLO_OPCODES(XLA_CASE)
#undef XLA_CASE
  }
  return "unknown-opcode";
}

int HloOpcodeArity(HloOpcode opcode) {
  switch (opcode) {
#define XLA_CASE(e, spelling, arity) \
  case HloOpcode::e:                 \
    return arity;
    XLA_HLO_OPCODES(XLA_CASE)
#undef XLA_CASE
  }
  return -1;
}

std::optional<HloOpcode> StringToHloOpcode(std::string_view spelling) {
  // A linear scan over ~90 short strings; the parser calls this once per
  // instruction, far below the cost of building the instruction.
#define XLA_CASE(e, s, arity) \
  if (spelling == s) return HloOpcode::e;
  XLA_HLO_OPCODES(XLA_CASE)
#undef XLA_CASE
  return std::nullopt;
}

bool IsElementwiseUnary(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAbs: case HloOpcode::kBitcastConvert: case HloOpcode::kCbrt:
    case HloOpcode::kCeil: case HloOpcode::kClz: case HloOpcode::kConvert:
    case HloOpcode::kCopy: case HloOpcode::kCos: case HloOpcode::kErf:
    case HloOpcode::kExp: case HloOpcode::kExpm1: case HloOpcode::kFloor:
    case HloOpcode::kImag: case HloOpcode::kIsFinite: case HloOpcode::kLog:
    case HloOpcode::kLog1p: case HloOpcode::kLogistic: case HloOpcode::kNegate:
    case HloOpcode::kNot: case HloOpcode::kPopulationCount: case HloOpcode::kReal:
    case HloOpcode::kReducePrecision: case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven: case HloOpcode::kRsqrt: case HloOpcode::kSign:
    case HloOpcode::kSin: case HloOpcode::kSqrt: case HloOpcode::kTan:
    case HloOpcode::kTanh:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseBinary(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd: case HloOpcode::kAnd: case HloOpcode::kAtan2:
    case HloOpcode::kCompare: case HloOpcode::kComplex: case HloOpcode::kDivide:
    case HloOpcode::kMaximum: case HloOpcode::kMinimum: case HloOpcode::kMultiply:
    case HloOpcode::kOr: case HloOpcode::kPower: case HloOpcode::kRemainder:
    case HloOpcode::kShiftLeft: case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical: case HloOpcode::kSubtract: case HloOpcode::kXor:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseOpcode(HloOpcode opcode) {
  return IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode) ||
         opcode == HloOpcode::kSelect || opcode == HloOpcode::kClamp;
}

bool HasSideEffect(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAfterAll: case HloOpcode::kAllGather: case HloOpcode::kAllReduce:
    case HloOpcode::kAllToAll: case HloOpcode::kCollectivePermute: case HloOpcode::kRng:
    case HloOpcode::kReduceScatter: case HloOpcode::kCustomCall:
    case HloOpcode::kOptimizationBarrier:
      return true;
    default:
      return false;
  }
}

}  // namespace xla
