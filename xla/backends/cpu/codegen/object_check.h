// Structural checks of a relocatable object file before the JIT links it.
//
// Executables loaded back from bytes carry machine code as ELF objects. ORC's
// linker trusts the structure of what it is given (section, symbol and
// relocation tables), so a damaged object could make it read or write out of
// bounds. CheckJitObject validates every offset, size, count and index the
// linker will follow, and the relocation kinds it will apply, and refuses
// anything else with a message naming the part that is wrong. It cannot make
// untrusted machine code safe to run: the instructions themselves are code.
#ifndef XLA_BACKENDS_CPU_CODEGEN_OBJECT_CHECK_H_
#define XLA_BACKENDS_CPU_CODEGEN_OBJECT_CHECK_H_

#include <functional>
#include <string_view>

#include "xla/status.h"

namespace xla::cpu {

// OK if `object` is a well-formed little-endian ELF64 relocatable object for
// the architecture of `triple` whose tables stay inside the file and its
// sections, and whose undefined symbols all satisfy `is_runtime_symbol` (the
// JIT would otherwise resolve them in the process); INVALID_ARGUMENT otherwise.
Status CheckJitObject(std::string_view object, std::string_view triple,
                      const std::function<bool(std::string_view)>& is_runtime_symbol);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CODEGEN_OBJECT_CHECK_H_
