// Program: what the compiler hands the runtime. A table of buffer slots and a
// list of steps that run in order, each reading and writing slots.
//
// It holds no LLVM types: kernels are plain function pointers into code owned
// by the JIT, which the executable keeps alive next to the program.
#ifndef XLA_BACKENDS_CPU_RUNTIME_PROGRAM_H_
#define XLA_BACKENDS_CPU_RUNTIME_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "xla/backends/cpu/runtime/thunk.h"
#include "xla/hlo/ir/primitive_type.h"

namespace xla::cpu {

// The ABI of every emitted kernel: `buffers` is the run's slot table; the
// kernel computes work items [begin, end) of its iteration space (rows of its
// output, or elements for purely elementwise kernels).
using KernelFn = void (*)(void* const* buffers, int64_t begin, int64_t end);

struct Slot {
  enum class Kind {
    kParameter,  // index = entry parameter number
    kConstant,   // data = bytes owned by Program::constant_storage
    kTemp,       // offset into the run's temporary arena
    kOutput,     // index = output number; a fresh buffer per run
  };
  Kind kind = Kind::kTemp;
  int64_t index = 0;
  int64_t offset = 0;
  int64_t size = 0;  // bytes
  const void* data = nullptr;
};

// An array shape as the runtime needs it: type and row-major dimensions.
struct ArrayShape {
  PrimitiveType type = PrimitiveType::INVALID;
  std::vector<int64_t> dims;
  int64_t element_count() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  int64_t byte_size() const { return element_count() * ByteWidth(type); }
};

// A dot computed by Eigen. Operands are viewed as [batch, m, k] / [batch, k, n]
// matrices through strides, so transposed operands need no copy when their
// free and contracting dimensions are each contiguous; otherwise the compiler
// inserts a transpose kernel first.
struct DotParams {
  PrimitiveType type = PrimitiveType::F32;  // F32 or F64
  int lhs_slot = 0, rhs_slot = 0, out_slot = 0;
  int64_t batch = 1, m = 1, k = 1, n = 1;
  bool lhs_transposed = false;  // lhs stored as [batch, k, m]
  bool rhs_transposed = false;  // rhs stored as [batch, n, k]
};

struct Program;

// A while loop: state_slots hold the loop state (initialised from
// init_slots); `cond` writes a pred to pred_slot, `body` writes the next state
// to scratch_slots, which is copied back. Both subprograms take the state
// leaves as parameters.
struct WhileParams {
  int cond = 0, body = 0;  // indices in Program::subprograms
  std::vector<int> init_slots, state_slots, scratch_slots;
  int pred_slot = 0;
};

// A conditional: index_slot holds a pred (true -> branch 0) or an s32
// (out of range -> last branch); branch b reads operand_slots[b] and writes
// output_slots.
struct ConditionalParams {
  int index_slot = 0;
  bool index_is_pred = false;
  std::vector<int> branches;  // indices in Program::subprograms
  std::vector<std::vector<int>> operand_slots;
  std::vector<int> output_slots;
};

struct Step {
  enum class Kind { kKernel, kDot, kCopy, kWhile, kConditional, kThunk };
  Kind kind = Kind::kKernel;
  std::string name;  // the HLO instruction it computes, for errors and profiles
  // kKernel
  KernelFn kernel = nullptr;
  std::string kernel_name;  // symbol in the JIT, resolved after compilation
  int64_t work_items = 1;
  int64_t cost_per_item = 1;  // rough element operations per item, for splitting
  // kDot
  DotParams dot;
  // kCopy: bytes from src_slot to dst_slot
  int src_slot = 0, dst_slot = 0;
  int64_t bytes = 0;
  // kWhile / kConditional
  WhileParams while_params;
  ConditionalParams conditional;
  // kThunk: the routine, and the JIT symbol it calls per element (a sort
  // comparator), resolved after compilation like kernel_name.
  std::shared_ptr<const Thunk> thunk;
  std::string function_name;
  void* function = nullptr;
  // Slots the step reads and writes (for liveness and aliasing), and
  // whether it reads every input only at the flat index it writes: such a
  // kernel may write over an input in place.
  std::vector<int> reads, writes;
  bool same_index_only = false;
  // kKernel: the read slots some element is read from at another index than
  // the one being written (through a broadcast, slice, transpose, ...); the
  // others are read only at the written index, so an output may overwrite them.
  std::vector<int> shifted_reads;
};

struct Program {
  std::vector<Slot> slots;
  std::vector<Step> steps;
  int64_t temp_bytes = 0;
  std::vector<ArrayShape> parameters;
  std::vector<ArrayShape> outputs;  // flattened leaves of the entry root
  // (parameter, output) pairs that may share memory when the parameter is
  // donated: the program never reads the parameter after it starts writing
  // the output (or reads it only at the index being written).
  std::vector<std::pair<int64_t, int64_t>> may_alias;
  // Non-scalar constants, 64-byte aligned, referenced by kConstant slots.
  std::vector<std::shared_ptr<void>> constant_storage;
  int64_t constant_bytes = 0;
  // Bodies of while loops and branches of conditionals.
  std::vector<std::shared_ptr<Program>> subprograms;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_PROGRAM_H_
