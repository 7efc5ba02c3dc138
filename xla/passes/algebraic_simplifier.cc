#include "xla/passes/algebraic_simplifier.h"

#include <string>
#include <utility>
#include <vector>

namespace xla {
namespace {

// The scalar constant `instr` is or broadcasts, or null.
const HloInstruction* ScalarConstant(const HloInstruction* instr) {
  if (instr->opcode() == HloOpcode::kBroadcast) instr = instr->operand(0);
  if (instr->opcode() != HloOpcode::kConstant || instr->shape().rank() != 0) return nullptr;
  return instr;
}

bool IsConstantOne(const HloInstruction* instr) {
  const HloInstruction* c = ScalarConstant(instr);
  return c != nullptr && !IsComplex(c->shape().element_type()) &&
         c->literal().GetAsDouble(0) == 1.0;
}

bool IsConstantZero(const HloInstruction* instr) {
  const HloInstruction* c = ScalarConstant(instr);
  return c != nullptr && !IsComplex(c->shape().element_type()) &&
         c->literal().GetAsDouble(0) == 0.0;
}

// x - 0 -> x, and x + 0 or 0 + x -> x (a zero x keeps its sign, as in
// XLA's simplifier): what a distribution's (v - loc) / scale becomes for
// loc = 0, scale = 1, so the ops around it meet (exp(z)^2 -> exp(z + z)).
HloInstruction* AddOrSubtractZero(HloInstruction* instr) {
  for (int k = instr->opcode() == HloOpcode::kSubtract ? 1 : 0; k < 2; ++k) {
    HloInstruction* other = instr->operand(1 - k);
    if (IsConstantZero(instr->operand(k)) && other->shape() == instr->shape()) return other;
  }
  return nullptr;
}

bool IsIdentityPermutation(const std::vector<int64_t>& dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// An op whose result equals its first operand element for element.
bool IsNoOp(const HloInstruction* instr) {
  const HloInstruction* operand = instr->operand_count() > 0 ? instr->operand(0) : nullptr;
  if (operand == nullptr || !(instr->shape() == operand->shape())) return false;
  switch (instr->opcode()) {
    case HloOpcode::kReshape:
    case HloOpcode::kConvert:
    case HloOpcode::kCopy:
      return true;
    case HloOpcode::kTranspose:
    case HloOpcode::kBroadcast:
      return IsIdentityPermutation(instr->dimensions());
    case HloOpcode::kReverse:
      for (int64_t d : instr->dimensions()) {
        if (operand->shape().dimensions(d) > 1) return false;
      }
      return true;
    case HloOpcode::kSlice:
      for (int64_t s : instr->slice_strides()) {
        if (s != 1) return false;
      }
      return true;  // same shape and unit strides: the whole operand
    default:
      return false;
  }
}

std::string UniqueName(const HloComputation* comp, const std::string& wanted) {
  std::string name = wanted;
  for (int i = 1; comp->GetInstructionWithName(name) != nullptr; ++i) {
    name = wanted + "." + std::to_string(i);
  }
  return name;
}

bool IsF32OrF64(const HloInstruction* instr) {
  const PrimitiveType type = instr->shape().element_type();
  return type == PrimitiveType::F32 || type == PrimitiveType::F64;
}

// The scalar `f(c)` in the element type of constant `c` (f32 or f64),
// rounded once as that type's arithmetic would.
template <typename F>
Literal MapScalar(const HloInstruction* c, F f) {
  const PrimitiveType type = c->shape().element_type();
  Literal out(Shape::Scalar(type));
  if (type == PrimitiveType::F32) {
    out.Set<float>(0, f(c->literal().Get<float>(0)));
  } else {
    out.Set<double>(0, f(c->literal().Get<double>(0)));
  }
  return out;
}

// x * broadcast(scalar), named after `replaced` (unique in its computation).
HloInstruction* MultiplyByScalar(HloInstruction* replaced, HloInstruction* x,
                                 HloInstruction* scalar) {
  HloComputation* comp = replaced->parent();
  const std::string& base = replaced->name();
  HloInstruction* operand = scalar;
  if (replaced->shape().rank() > 0) {
    operand = comp->AddInstruction(HloInstruction::Create(
        HloOpcode::kBroadcast, replaced->shape(), {scalar}, UniqueName(comp, base + ".broadcast")));
  }
  return comp->AddInstruction(HloInstruction::Create(HloOpcode::kMultiply, replaced->shape(),
                                                     {x, operand},
                                                     UniqueName(comp, base + ".multiply")));
}

// x / c -> x * (1/c).
HloInstruction* DivideByConstantAsMultiply(HloInstruction* divide) {
  const HloInstruction* c = ScalarConstant(divide->operand(1));
  if (!IsF32OrF64(divide) || c == nullptr) return nullptr;
  HloComputation* comp = divide->parent();
  HloInstruction* reciprocal = comp->AddInstruction(HloInstruction::CreateConstant(
      MapScalar(c, [](auto v) { return decltype(v)(1) / v; }),
      UniqueName(comp, divide->name() + ".reciprocal")));
  return MultiplyByScalar(divide, divide->operand(0), reciprocal);
}

// x / broadcast(b) -> x * broadcast(1 / b) for f32/f64 and any b: one
// divide per element of b instead of one per element of x. XLA's CPU
// compiler rounds this way (softmax's divide by its row sums matches real
// JAX bit for bit only so).
HloInstruction* DivideByBroadcastAsMultiply(HloInstruction* divide) {
  HloInstruction* bcast = divide->operand(1);
  if (!IsF32OrF64(divide) || bcast->opcode() != HloOpcode::kBroadcast ||
      bcast->shape().rank() == 0) {
    return nullptr;
  }
  HloInstruction* b = bcast->operand(0);
  HloComputation* comp = divide->parent();
  const std::string& base = divide->name();
  Literal one_value(Shape::Scalar(b->shape().element_type()));
  if (b->shape().element_type() == PrimitiveType::F32) {
    one_value.Set<float>(0, 1.0f);
  } else {
    one_value.Set<double>(0, 1.0);
  }
  HloInstruction* one = comp->AddInstruction(
      HloInstruction::CreateConstant(std::move(one_value), UniqueName(comp, base + ".one")));
  if (b->shape().rank() > 0) {
    one = comp->AddInstruction(HloInstruction::Create(HloOpcode::kBroadcast, b->shape(), {one},
                                                      UniqueName(comp, base + ".ones")));
  }
  HloInstruction* reciprocal = comp->AddInstruction(HloInstruction::Create(
      HloOpcode::kDivide, b->shape(), {one, b}, UniqueName(comp, base + ".reciprocal")));
  HloInstruction* spread = comp->AddInstruction(HloInstruction::Create(
      HloOpcode::kBroadcast, bcast->shape(), {reciprocal}, UniqueName(comp, base + ".broadcast")));
  spread->set_dimensions(bcast->dimensions());
  return comp->AddInstruction(HloInstruction::Create(HloOpcode::kMultiply, divide->shape(),
                                                     {divide->operand(0), spread},
                                                     UniqueName(comp, base + ".multiply")));
}

// The scalar an array operand broadcasts (broadcast from rank 0), or null.
HloInstruction* BroadcastScalar(HloInstruction* instr) {
  if (instr->opcode() != HloOpcode::kBroadcast || instr->shape().rank() == 0) return nullptr;
  HloInstruction* scalar = instr->operand(0);
  return scalar->shape().rank() == 0 ? scalar : nullptr;
}

// (x * broadcast(s1)) * broadcast(s2) -> x * broadcast(s2 * s1), operands in
// either order: the factors multiply once as scalars instead of once per
// element, and this is the rounding XLA gives (jnp.linspace depends on it).
// The inner product stays for its other users, if any. Each rewrite leaves
// one array multiply fewer in the chain, so repeating it terminates.
HloInstruction* FoldScalarFactors(HloInstruction* multiply) {
  if (!IsF32OrF64(multiply) || multiply->shape().rank() == 0) return nullptr;
  for (int outer = 0; outer < 2; ++outer) {
    HloInstruction* s2 = BroadcastScalar(multiply->operand(outer));
    HloInstruction* inner = multiply->operand(1 - outer);
    if (s2 == nullptr || inner->opcode() != HloOpcode::kMultiply ||
        !(inner->shape() == multiply->shape())) {
      continue;
    }
    for (int k = 0; k < 2; ++k) {
      HloInstruction* s1 = BroadcastScalar(inner->operand(k));
      HloInstruction* x = inner->operand(1 - k);
      if (s1 == nullptr || BroadcastScalar(x) != nullptr) continue;
      HloComputation* comp = multiply->parent();
      HloInstruction* factor = comp->AddInstruction(HloInstruction::Create(
          HloOpcode::kMultiply, s1->shape(), {s2, s1},
          UniqueName(comp, multiply->name() + ".factor")));
      return MultiplyByScalar(multiply, x, factor);
    }
  }
  return nullptr;
}

bool IsRank0Constant(const HloInstruction* instr) {
  return instr->opcode() == HloOpcode::kConstant && instr->shape().rank() == 0;
}

// `m` as x * c with c a rank-0 constant and x not a constant (either order).
bool SplitConstantFactor(HloInstruction* m, HloInstruction** x, HloInstruction** c) {
  if (m->opcode() != HloOpcode::kMultiply) return false;
  for (int k = 0; k < 2; ++k) {
    if (IsRank0Constant(m->operand(k)) && m->operand(1 - k)->opcode() != HloOpcode::kConstant) {
      *c = m->operand(k);
      *x = m->operand(1 - k);
      return true;
    }
  }
  return false;
}

// For rank-0 values, (x * c1) * c2 -> x * (c1 * c2) and (x * c1) * (y * c2)
// -> (x * y) * (c1 * c2), in any operand order, with c1 and c2 constants: the
// roundings XLA's simplifier gives scalar code (the second is scalar-only
// there; arrays take FoldScalarFactors). A Gaussian's ((v - m) / s)^2 with a
// constant s is the pattern: (v - m)^2 * (1/s)^2 instead of two rounded
// quotients squared.
HloInstruction* FoldRank0ConstantFactors(HloInstruction* multiply) {
  if (!IsF32OrF64(multiply) || multiply->shape().rank() != 0) return nullptr;
  HloInstruction* a = multiply->operand(0);
  HloInstruction* b = multiply->operand(1);
  HloInstruction *xa, *ca, *xb, *cb;
  const bool split_a = SplitConstantFactor(a, &xa, &ca);
  const bool split_b = SplitConstantFactor(b, &xb, &cb);
  HloComputation* comp = multiply->parent();
  const std::string& base = multiply->name();
  auto mul = [&](HloInstruction* l, HloInstruction* r, const char* suffix) {
    return comp->AddInstruction(HloInstruction::Create(HloOpcode::kMultiply, multiply->shape(),
                                                       {l, r}, UniqueName(comp, base + suffix)));
  };
  if (split_a && split_b) return mul(mul(xa, xb, ".product"), mul(ca, cb, ".factor"), ".scaled");
  if (split_a && IsRank0Constant(b)) return mul(xa, mul(ca, b, ".factor"), ".scaled");
  if (split_b && IsRank0Constant(a)) return mul(xb, mul(cb, a, ".factor"), ".scaled");
  return nullptr;
}

bool IsFloat(const HloInstruction* instr) {
  return IsFloatingPoint(instr->shape().element_type());
}

// exp(a) * exp(b) -> exp(a + b), exp(a) / exp(b) -> exp(a - b) and
// x / exp(b) -> x * exp(-b): one exp and no rounded product of two, the forms
// XLA's simplifier gives (a squared exp(z), as a log-normal density has, is
// exp(z + z) there).
HloInstruction* CombineExps(HloInstruction* instr) {
  if (!IsFloat(instr) || IsComplex(instr->shape().element_type())) return nullptr;
  HloInstruction* a = instr->operand(0);
  HloInstruction* b = instr->operand(1);
  const bool exp_a = a->opcode() == HloOpcode::kExp, exp_b = b->opcode() == HloOpcode::kExp;
  if (!exp_b || !(a->shape() == b->shape())) return nullptr;
  HloComputation* comp = instr->parent();
  const std::string& base = instr->name();
  auto make = [&](HloOpcode op, std::vector<HloInstruction*> operands, const char* suffix) {
    return comp->AddInstruction(HloInstruction::Create(op, instr->shape(), std::move(operands),
                                                       UniqueName(comp, base + suffix)));
  };
  if (instr->opcode() == HloOpcode::kMultiply) {
    if (!exp_a) return nullptr;
    return make(HloOpcode::kExp, {make(HloOpcode::kAdd, {a->operand(0), b->operand(0)}, ".sum")},
                ".exp");
  }
  if (exp_a) {
    return make(HloOpcode::kExp,
                {make(HloOpcode::kSubtract, {a->operand(0), b->operand(0)}, ".difference")},
                ".exp");
  }
  HloInstruction* negated = make(HloOpcode::kNegate, {b->operand(0)}, ".negated");
  return make(HloOpcode::kMultiply, {a, make(HloOpcode::kExp, {negated}, ".exp")}, ".scaled");
}

// transpose(dot(a, b)), dimensions={1,0}, of a rank-2 dot without batch
// dimensions -> dot(b, a): the product is computed in the order it is
// stored instead of being written once and copied through a strided loop
// (reverse-mode gradients of x @ w produce this pattern for every weight).
// Only when the transpose is the dot's one user, so no dot is duplicated.
HloInstruction* TransposeOfDotAsDot(HloInstruction* transpose) {
  HloInstruction* dot = transpose->operand(0);
  if (dot->opcode() != HloOpcode::kDot || dot->user_count() != 1 ||
      transpose->dimensions() != std::vector<int64_t>{1, 0} || dot->shape().rank() != 2 ||
      dot->operand(0)->shape().rank() != 2 || dot->operand(1)->shape().rank() != 2) {
    return nullptr;
  }
  const DotDimensionNumbers& dn = dot->dot_dimension_numbers();
  if (!dn.lhs_batch_dimensions.empty() || dn.lhs_contracting_dimensions.size() != 1) {
    return nullptr;
  }
  DotDimensionNumbers swapped;
  swapped.lhs_contracting_dimensions = dn.rhs_contracting_dimensions;
  swapped.rhs_contracting_dimensions = dn.lhs_contracting_dimensions;
  HloComputation* comp = transpose->parent();
  HloInstruction* result = comp->AddInstruction(HloInstruction::Create(
      HloOpcode::kDot, transpose->shape(), {dot->operand(1), dot->operand(0)},
      UniqueName(comp, dot->name() + ".transposed")));
  result->set_dot_dimension_numbers(std::move(swapped));
  std::vector<std::string> precision = dot->operand_precision();
  if (precision.size() == 2) std::swap(precision[0], precision[1]);
  result->set_operand_precision(std::move(precision));
  return result;
}

// reshape(reshape(x)) -> x when the shapes match, else one reshape of x:
// reshapes keep row-major element order, so only the outer one matters. JAX's
// keepdims reductions leave such pairs ([n] -> [n,1] -> [n]) between a
// reduce and its broadcast.
HloInstruction* ReshapeOfReshape(HloInstruction* reshape) {
  const HloInstruction* inner = reshape->operand(0);
  if (inner->opcode() != HloOpcode::kReshape) return nullptr;
  HloInstruction* x = inner->operand(0);
  if (x->shape() == reshape->shape()) return x;
  HloComputation* comp = reshape->parent();
  return comp->AddInstruction(HloInstruction::Create(
      HloOpcode::kReshape, reshape->shape(), {x}, UniqueName(comp, reshape->name() + ".flat")));
}

// op(reshape(a), reshape(b), broadcast(s)) -> reshape(op(a, b, broadcast'(s))) for
// an elementwise op whose reshaped operands all come from one shape and whose
// other operands are scalars or broadcasts of scalars: an elementwise op
// commutes with a reshape, and the op then meets what a and b were computed
// from, as XLA's reshape mover arranges. A distribution's scale reshaped to
// [1] and squared is the pattern: reshape(exp(z))^2 becomes exp(z + z) so.
HloInstruction* SinkReshapes(HloInstruction* instr) {
  if (!IsElementwiseOpcode(instr->opcode()) || HasSideEffect(instr->opcode())) return nullptr;
  const Shape* from = nullptr;
  for (const HloInstruction* operand : instr->operands()) {
    // A bitcast-convert between widths adds or drops a dimension: not elementwise here.
    if (operand->shape().rank() > 0 &&
        operand->shape().dimensions() != instr->shape().dimensions()) {
      return nullptr;
    }
    if (operand->opcode() != HloOpcode::kReshape) continue;
    const Shape& s = operand->operand(0)->shape();
    if (from == nullptr) {
      from = &s;
    } else if (s.dimensions() != from->dimensions()) {
      return nullptr;
    }
  }
  if (from == nullptr || from->dimensions() == instr->shape().dimensions()) return nullptr;
  // The scalar each other operand is or broadcasts; checked for all operands before
  // anything is built, so a refusal leaves the computation as it was.
  std::vector<HloInstruction*> scalars;
  for (HloInstruction* operand : instr->operands()) {
    if (operand->opcode() == HloOpcode::kReshape) {
      scalars.push_back(nullptr);
      continue;
    }
    scalars.push_back(operand->shape().rank() == 0 ? operand : BroadcastScalar(operand));
    if (scalars.back() == nullptr) return nullptr;
  }
  HloComputation* comp = instr->parent();
  const std::string& base = instr->name();
  std::vector<HloInstruction*> operands;
  for (int64_t i = 0; i < instr->operand_count(); ++i) {
    HloInstruction* scalar = scalars[i];
    if (scalar == nullptr) {
      operands.push_back(instr->operand(i)->operand(0));
      continue;
    }
    if (from->rank() == 0) {
      operands.push_back(scalar);
      continue;
    }
    Shape spread_shape = *from;
    spread_shape.set_element_type(scalar->shape().element_type());
    operands.push_back(comp->AddInstruction(HloInstruction::Create(
        HloOpcode::kBroadcast, spread_shape, {scalar}, UniqueName(comp, base + ".spread"))));
  }
  Shape shape = *from;
  shape.set_element_type(instr->shape().element_type());
  HloInstruction* moved = comp->AddInstruction(
      instr->CloneWithNewOperands(shape, std::move(operands), UniqueName(comp, base + ".unshaped")));
  return comp->AddInstruction(HloInstruction::Create(HloOpcode::kReshape, instr->shape(), {moved},
                                                     UniqueName(comp, base + ".reshaped")));
}

// x * convert(p) -> select(p, x, 0) for a boolean p of the product's shape, in either
// operand order: the product of False and an infinity or a NaN is then 0, as XLA's
// simplifier makes it, and JAX programs count on that (numpyro computes
// `inf * logical_xor(y, x > 0)` expecting 0). Only where XLA:CPU multiplies in the type
// itself (f32, f64, c64, c128); f16 and bf16 products are computed in f32 there, and
// the rewrite does not reach them; nor does it reach a broadcast boolean, whose
// conversion XLA moves before the broadcast.
HloInstruction* MultiplyByPredicateAsSelect(HloInstruction* multiply) {
  const PrimitiveType type = multiply->shape().element_type();
  if (type != PrimitiveType::F32 && type != PrimitiveType::F64 && type != PrimitiveType::C64 &&
      type != PrimitiveType::C128) {
    return nullptr;
  }
  for (int k = 0; k < 2; ++k) {
    HloInstruction* convert = multiply->operand(k);
    HloInstruction* x = multiply->operand(1 - k);
    if (convert->opcode() != HloOpcode::kConvert ||
        convert->operand(0)->shape().element_type() != PrimitiveType::PRED ||
        convert->operand(0)->opcode() == HloOpcode::kBroadcast ||
        !(convert->shape() == multiply->shape()) || !(x->shape() == multiply->shape())) {
      continue;
    }
    HloComputation* comp = multiply->parent();
    const std::string& base = multiply->name();
    HloInstruction* zero = comp->AddInstruction(HloInstruction::CreateConstant(
        Literal(Shape::Scalar(type)), UniqueName(comp, base + ".zero")));
    if (multiply->shape().rank() > 0) {
      zero = comp->AddInstruction(HloInstruction::Create(
          HloOpcode::kBroadcast, multiply->shape(), {zero}, UniqueName(comp, base + ".zeros")));
    }
    return comp->AddInstruction(HloInstruction::Create(
        HloOpcode::kSelect, multiply->shape(), {convert->operand(0), x, zero},
        UniqueName(comp, base + ".select")));
  }
  return nullptr;
}

// The instruction that replaces `instr`, or null.
HloInstruction* Simplify(HloInstruction* instr) {
  switch (instr->opcode()) {
    case HloOpcode::kDivide:
      if (HloInstruction* r = SinkReshapes(instr)) return r;
      if (HloInstruction* e = CombineExps(instr)) return e;
      if (HloInstruction* m = DivideByConstantAsMultiply(instr)) return m;
      return DivideByBroadcastAsMultiply(instr);
    case HloOpcode::kMultiply:
      if (HloInstruction* s = MultiplyByPredicateAsSelect(instr)) return s;
      if (HloInstruction* r = SinkReshapes(instr)) return r;
      if (HloInstruction* e = CombineExps(instr)) return e;
      if (IsConstantOne(instr->operand(1)) && instr->operand(0)->shape() == instr->shape()) {
        return instr->operand(0);
      }
      if (IsConstantOne(instr->operand(0)) && instr->operand(1)->shape() == instr->shape()) {
        return instr->operand(1);
      }
      if (HloInstruction* m = FoldScalarFactors(instr)) return m;
      return FoldRank0ConstantFactors(instr);
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
      if (HloInstruction* r = SinkReshapes(instr)) return r;
      return AddOrSubtractZero(instr);
    case HloOpcode::kTranspose:
      if (IsNoOp(instr)) return instr->operand(0);
      return TransposeOfDotAsDot(instr);
    case HloOpcode::kReshape:
      if (IsNoOp(instr)) return instr->operand(0);
      return ReshapeOfReshape(instr);
    default:
      if (IsNoOp(instr)) return instr->operand(0);
      return SinkReshapes(instr);
  }
}

}  // namespace

StatusOr<bool> AlgebraicSimplifier::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* comp : module->computations()) {
    bool appended = false;
    for (HloInstruction* instr : comp->MakeInstructionPostOrder()) {
      HloInstruction* replacement = Simplify(instr);
      if (replacement == nullptr) continue;
      RETURN_IF_ERROR(instr->ReplaceAllUsesWith(replacement));
      appended = true;  // the replaced instruction is left for DCE
    }
    if (appended) comp->SortInstructionsInPostOrder();
    changed |= appended;
  }
  return changed;
}

}  // namespace xla
