// Internal to the evaluator: the per-family op implementations and shared
// helpers. Each family lives in its own .cc file.
#ifndef XLA_HLO_EVALUATOR_EVALUATOR_INTERNAL_H_
#define XLA_HLO_EVALUATOR_EVALUATOR_INTERNAL_H_

#include <complex>
#include <functional>
#include <type_traits>
#include <vector>

#include "xla/hlo/ir/computation.h"
#include "xla/hlo/ir/literal.h"
#include "xla/status.h"

namespace xla::eval {

// Evaluates a called computation (reducers, comparators, loop bodies).
using CallFn = std::function<StatusOr<Literal>(const HloComputation&, const std::vector<const Literal*>&)>;

// f16/bf16/f8 compute in float; every other type computes in itself.
template <typename T> struct ComputeType { using type = T; };
template <> struct ComputeType<half> { using type = float; };
template <> struct ComputeType<bfloat16> { using type = float; };
template <PrimitiveType P> struct ComputeType<float8<P>> { using type = float; };
// Only loaded and stored (converts and arithmetic on them are left to the backend).
template <> struct ComputeType<int4> { using type = int8_t; };
template <> struct ComputeType<uint4> { using type = uint8_t; };

template <typename T>
typename ComputeType<T>::type Load(const Literal& l, int64_t i) {
  T v = l.Get<T>(i);
  if constexpr (std::is_same_v<T, half>) return HalfToFloat(v);
  else if constexpr (std::is_same_v<T, bfloat16>) return BF16ToFloat(v);
  else if constexpr (kIsFloat8<T>) return Float8ToFloat(l.shape().element_type(), v.bits);
  else if constexpr (kIsInt4<T>) return static_cast<typename ComputeType<T>::type>(v.value());
  else return v;
}
template <typename T>
void Store(Literal* l, int64_t i, typename ComputeType<T>::type v) {
  if constexpr (std::is_same_v<T, half>) l->Set<T>(i, FloatToHalf(v));
  else if constexpr (std::is_same_v<T, bfloat16>) l->Set<T>(i, FloatToBF16(v));
  else if constexpr (kIsFloat8<T>) l->Set<T>(i, T{DoubleToFloat8(l->shape().element_type(), v)});
  else if constexpr (kIsInt4<T>) l->Set<T>(i, T::Wrap(v));
  else l->Set<T>(i, v);
}

template <typename T> struct IsComplexT : std::false_type {};
template <typename T> struct IsComplexT<std::complex<T>> : std::true_type {};

// Calls fn(index) for every multi-index of `dims` in row-major order.
void ForEachIndex(const std::vector<int64_t>& dims, const std::function<void(const std::vector<int64_t>&)>& fn);
int64_t LinearIndex(const std::vector<int64_t>& dims, const std::vector<int64_t>& index);
// Copies one element (any type) between literals by linear index.
void CopyElement(const Literal& src, int64_t si, Literal* dst, int64_t di);
// Integer value of a scalar index literal (any integer type).
int64_t ScalarIndex(const Literal& l);

// Families. Each returns the result literal of `instr` (shape = instr.shape()).
StatusOr<Literal> EvalElementwise(const HloInstruction& instr, const std::vector<const Literal*>& ops);
StatusOr<Literal> EvalDataMovement(const HloInstruction& instr, const std::vector<const Literal*>& ops);
StatusOr<Literal> EvalReduction(const HloInstruction& instr, const std::vector<const Literal*>& ops,
                                const CallFn& call);
StatusOr<Literal> EvalLinalg(const HloInstruction& instr, const std::vector<const Literal*>& ops);
StatusOr<Literal> EvalRng(const HloInstruction& instr, const std::vector<const Literal*>& ops);

// A binary elementwise op on two scalars (fast path for reducers like add/max).
StatusOr<Literal> EvalScalarBinary(HloOpcode op, const Literal& a, const Literal& b,
                                   const HloInstruction* compare_attrs);

}  // namespace xla::eval

#endif  // XLA_HLO_EVALUATOR_EVALUATOR_INTERNAL_H_
