// HLO modules as serialized HloModuleProto bytes: the "hlo" program format of
// the PJRT C API, read and written by OpenXLA's plugins (CPU, libtpu, ...).
//
// The writer follows XLA's conventions so real XLA reads what it writes:
// instruction and computation ids are unique across the module, operands and
// callees are referenced by id, computations come callees first with the entry
// last, and host_program_shape carries the entry layout. Opcodes travel as
// their HLO text spelling.
//
// The reader accepts what real XLA writes (including fields our IR does not
// keep, such as metadata and sharding, which it drops) and refuses anything it
// cannot represent. Malformed bytes, unknown opcodes, dangling ids and bad
// shapes are InvalidArgument naming the instruction or field; the module it
// returns has passed the same verifier as xla::ParseHloModule's.
#ifndef XLA_HLO_PROTO_HLO_PROTO_H_
#define XLA_HLO_PROTO_HLO_PROTO_H_

#include <memory>
#include <string>
#include <string_view>

#include "xla/hlo/ir/module.h"
#include "xla/status.h"

namespace xla {

// Fails (InvalidArgument) only for attribute values the wire format cannot
// carry, such as an operand_precision spelling XLA does not define.
StatusOr<std::string> SerializeHloModuleProto(const HloModule& module);

StatusOr<std::unique_ptr<HloModule>> ParseHloModuleProto(std::string_view bytes);

}  // namespace xla

#endif  // XLA_HLO_PROTO_HLO_PROTO_H_
