// Mutations of HLO text that keep it close to parseable, so that a fuzzer
// starting from real modules reaches the verifier, the compiler and the
// runtime instead of stopping in the parser: a number becomes a nearby,
// boundary or huge value; an element type becomes another; an opcode becomes
// another of the same arity; a line is duplicated or dropped.
#ifndef XLA_BACKENDS_CPU_FUZZ_HLO_MUTATOR_H_
#define XLA_BACKENDS_CPU_FUZZ_HLO_MUTATOR_H_

#include <cstdint>
#include <random>
#include <string>

namespace xla::cpu::fuzz {

// Applies one structure-aware mutation to `text`; false if none applied
// (the text has no token of the chosen kind).
bool MutateHloText(std::string& text, std::mt19937_64& rng);

}  // namespace xla::cpu::fuzz

#endif  // XLA_BACKENDS_CPU_FUZZ_HLO_MUTATOR_H_
