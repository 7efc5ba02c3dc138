#include "xla/passes/complex_dot_expander.h"

#include <string>
#include <vector>

#include "xla/passes/name_uniquer.h"

namespace xla {
namespace {

PrimitiveType RealPart(PrimitiveType complex) {
  return complex == PrimitiveType::C64 ? PrimitiveType::F32 : PrimitiveType::F64;
}

bool IsComplex(const HloInstruction* instr) {
  const PrimitiveType t = instr->shape().element_type();
  return t == PrimitiveType::C64 || t == PrimitiveType::C128;
}

Shape WithType(Shape shape, PrimitiveType type) {
  shape.set_element_type(type);
  return shape;
}

class Expander {
 public:
  explicit Expander(HloComputation* comp) : comp_(comp), names_(*comp) {}

  // The complex result of `dot` built from real dots.
  HloInstruction* Expand(HloInstruction* dot) {
    HloInstruction* a = dot->operand(0);
    HloInstruction* b = dot->operand(1);
    const PrimitiveType real = RealPart(dot->shape().element_type());
    HloInstruction* ra = Part(HloOpcode::kReal, a, real);
    HloInstruction* ia = Part(HloOpcode::kImag, a, real);
    HloInstruction* rb = Part(HloOpcode::kReal, b, real);
    HloInstruction* ib = Part(HloOpcode::kImag, b, real);
    const Shape out = WithType(dot->shape(), real);
    HloInstruction* re = Binary(HloOpcode::kSubtract, out, RealDot(dot, ra, rb, out),
                                RealDot(dot, ia, ib, out), dot->name() + ".re");
    HloInstruction* im = Binary(HloOpcode::kAdd, out, RealDot(dot, ra, ib, out),
                                RealDot(dot, ia, rb, out), dot->name() + ".im");
    return Binary(HloOpcode::kComplex, dot->shape(), re, im, dot->name() + ".complex");
  }

 private:
  HloInstruction* Part(HloOpcode opcode, HloInstruction* x, PrimitiveType real) {
    const std::string suffix = opcode == HloOpcode::kReal ? ".real" : ".imag";
    return comp_->AddInstruction(HloInstruction::Create(
        opcode, WithType(x->shape(), real), {x}, names_.Unique(x->name() + suffix)));
  }

  HloInstruction* RealDot(HloInstruction* dot, HloInstruction* a, HloInstruction* b,
                          const Shape& shape) {
    HloInstruction* d = comp_->AddInstruction(
        HloInstruction::Create(HloOpcode::kDot, shape, {a, b}, names_.Unique(dot->name())));
    d->set_dot_dimension_numbers(dot->dot_dimension_numbers());
    d->set_operand_precision(dot->operand_precision());
    return d;
  }

  HloInstruction* Binary(HloOpcode opcode, const Shape& shape, HloInstruction* x,
                         HloInstruction* y, const std::string& name) {
    return comp_->AddInstruction(
        HloInstruction::Create(opcode, shape, {x, y}, names_.Unique(name)));
  }

  HloComputation* comp_;
  NameUniquer names_;
};

}  // namespace

StatusOr<bool> ComplexDotExpander::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* comp : module->computations()) {
    std::vector<HloInstruction*> dots;
    for (HloInstruction* instr : comp->MakeInstructionPostOrder()) {
      if (instr->opcode() == HloOpcode::kDot && IsComplex(instr) && IsComplex(instr->operand(0)) &&
          IsComplex(instr->operand(1))) {
        dots.push_back(instr);
      }
    }
    if (dots.empty()) continue;
    Expander expander(comp);
    for (HloInstruction* dot : dots) {
      RETURN_IF_ERROR(dot->ReplaceAllUsesWith(expander.Expand(dot)));
    }
    comp->SortInstructionsInPostOrder();  // the dots are left for DCE
    changed = true;
  }
  return changed;
}

}  // namespace xla
