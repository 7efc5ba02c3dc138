// Buffer assignment for one Program, after its steps are known:
//
//  * Temporaries share arena memory when their live ranges (first to last
//    step that touches them) do not overlap; a step's inputs and outputs
//    are live at that step, so no step ever writes over what it reads.
//  * Program::may_alias lists the (parameter, output) pairs whose memory a
//    donated argument can give to the output: the parameter is last read
//    before the output is first written, or at that step by a step that
//    reads it only at the index it writes (a copy, or a kernel that reaches
//    the parameter through elementwise ops only: x * 2 + broadcast(1)).
//
// It does not reorder steps and does not alias across subprograms.
#ifndef XLA_BACKENDS_CPU_CODEGEN_BUFFER_ASSIGNMENT_H_
#define XLA_BACKENDS_CPU_CODEGEN_BUFFER_ASSIGNMENT_H_

#include "xla/backends/cpu/runtime/program.h"

namespace xla::cpu {

// Sets Slot::offset of every kTemp slot, Program::temp_bytes and may_alias.
void AssignBuffers(Program& program);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CODEGEN_BUFFER_ASSIGNMENT_H_
