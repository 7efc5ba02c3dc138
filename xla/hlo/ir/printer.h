// HLO text printer. The parser (//xla/hlo/parser) reads exactly this format;
// parse(print(m)) prints identically, and for modules printed by JAX the
// output equals the input text.
#ifndef XLA_HLO_IR_PRINTER_H_
#define XLA_HLO_IR_PRINTER_H_

#include <string>

namespace xla {

class HloModule;
class HloComputation;
class HloInstruction;

std::string ToString(const HloModule& module);
std::string ToString(const HloComputation& computation);
std::string ToString(const HloInstruction& instruction);

}  // namespace xla

#endif  // XLA_HLO_IR_PRINTER_H_
