// Sort and top-k over whole arrays.
//
// SortThunk sorts every 1-D lane along `dimension` of N same-shaped operands
// with a JIT-compiled comparator (the HLO to_apply computation), stably, so
// ties keep their order whether or not the HLO asked for is_stable. Each
// lane builds a permutation with std::stable_sort and then gathers every
// operand through it. Lanes run in parallel on the pool.
//
// TopKThunk returns the k largest (or smallest) elements of each last-axis
// row and their s32 indices, in order, ties by lower index; floats compare
// by totalOrder, so NaN ranks above +inf as in XLA.
#ifndef XLA_BACKENDS_CPU_RUNTIME_SORT_THUNK_H_
#define XLA_BACKENDS_CPU_RUNTIME_SORT_THUNK_H_

#include <vector>

#include "xla/backends/cpu/runtime/thunk.h"
#include "xla/hlo/ir/primitive_type.h"

namespace xla::cpu {

// The comparator's ABI: elements[2k] / elements[2k+1] point at the lhs / rhs
// element of operand k; returns nonzero when lhs sorts before rhs.
using SortComparator = int32_t (*)(const void* const* elements);

class SortThunk final : public Thunk {
 public:
  struct Params {
    std::vector<int> input_slots, output_slots;
    std::vector<PrimitiveType> types;  // per operand
    std::vector<int64_t> dims;         // shared by all operands
    int64_t dimension = 0;
  };
  explicit SortThunk(Params p) : p_(std::move(p)) {}
  Status Run(const ThunkParams& params) const override;  // params.function: SortComparator

 private:
  Params p_;
};

class TopKThunk final : public Thunk {
 public:
  struct Params {
    int input_slot = 0, values_slot = 0, indices_slot = 0;
    PrimitiveType type = PrimitiveType::F32;
    int64_t rows = 1, n = 0, k = 0;
    bool largest = true;
  };
  explicit TopKThunk(Params p) : p_(p) {}
  Status Run(const ThunkParams& params) const override;

 private:
  Params p_;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_SORT_THUNK_H_
