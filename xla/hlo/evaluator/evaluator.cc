// The driver: walks a computation in order, dispatching each instruction to
// its op family, and implements the structural ops (tuple, control flow,
// calls) itself.
#include "xla/hlo/evaluator/evaluator.h"

#include <cstring>
#include <unordered_map>

#include "xla/hlo/evaluator/evaluator_internal.h"

namespace xla {
namespace eval {

void ForEachIndex(const std::vector<int64_t>& dims,
                  const std::function<void(const std::vector<int64_t>&)>& fn) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  std::vector<int64_t> index(dims.size(), 0);
  while (true) {
    fn(index);
    int k = static_cast<int>(dims.size()) - 1;
    while (k >= 0 && ++index[k] == dims[k]) index[k--] = 0;
    if (k < 0) return;
  }
}

int64_t LinearIndex(const std::vector<int64_t>& dims, const std::vector<int64_t>& index) {
  int64_t linear = 0;
  for (size_t i = 0; i < dims.size(); ++i) linear = linear * dims[i] + index[i];
  return linear;
}

void CopyElement(const Literal& src, int64_t si, Literal* dst, int64_t di) {
  const size_t w = ByteWidth(src.shape().element_type());
  std::memcpy(static_cast<uint8_t*>(dst->mutable_untyped_data()) + di * w,
              static_cast<const uint8_t*>(src.untyped_data()) + si * w, w);
}

int64_t ScalarIndex(const Literal& l) { return l.GetAsInt64(0); }

namespace {

// Guards against runaway recursion through called computations.
constexpr int kMaxCallDepth = 256;

class Interpreter {
 public:
  StatusOr<Literal> Run(const HloComputation& comp, const std::vector<const Literal*>& args) {
    if (++depth_ > kMaxCallDepth) return ResourceExhausted("evaluator: call depth exceeded");
    StatusOr<Literal> result = RunImpl(comp, args);
    --depth_;
    return result;
  }

  StatusOr<Literal> EvalInstruction(const HloInstruction& instr, const std::vector<const Literal*>& ops) {
    CallFn call = [this](const HloComputation& c, const std::vector<const Literal*>& a) {
      return Run(c, a);
    };
    const HloOpcode op = instr.opcode();
    switch (op) {
      case HloOpcode::kConstant:
        return instr.literal();
      case HloOpcode::kTuple: {
        std::vector<Literal> elements;
        for (const Literal* l : ops) elements.push_back(*l);
        return Literal::MakeTuple(std::move(elements));
      }
      case HloOpcode::kGetTupleElement:
        return ops[0]->tuple_elements()[instr.tuple_index()];
      case HloOpcode::kOptimizationBarrier:
        return *ops[0];
      case HloOpcode::kCall:
        return Run(*instr.to_apply(), ops);
      case HloOpcode::kWhile: {
        Literal state = *ops[0];
        while (true) {
          ASSIGN_OR_RETURN(Literal keep_going, Run(*instr.while_condition(), {&state}));
          if (!keep_going.Get<bool>(0)) return state;
          ASSIGN_OR_RETURN(state, Run(*instr.while_body(), {&state}));
        }
      }
      case HloOpcode::kConditional: {
        const auto& branches = instr.branch_computations();
        int64_t b;
        if (ops[0]->shape().element_type() == PrimitiveType::PRED) {
          b = ops[0]->Get<bool>(0) ? 0 : 1;  // pred form: {true, false}
        } else {
          b = ops[0]->GetAsInt64(0);
          // Out-of-range indices run the last branch, as XLA defines.
          if (b < 0 || b >= static_cast<int64_t>(branches.size())) b = branches.size() - 1;
        }
        return Run(*branches[b], {ops[b + 1]});
      }
      case HloOpcode::kDot: case HloOpcode::kConvolution: case HloOpcode::kCholesky:
      case HloOpcode::kTriangularSolve: case HloOpcode::kFft:
        return eval::EvalLinalg(instr, ops);
      case HloOpcode::kRngBitGenerator:
        return eval::EvalRng(instr, ops);
      case HloOpcode::kReduce: case HloOpcode::kReduceWindow: case HloOpcode::kSelectAndScatter:
      case HloOpcode::kScatter: case HloOpcode::kSort: case HloOpcode::kTopK:
        return eval::EvalReduction(instr, ops, call);
      case HloOpcode::kBroadcast: case HloOpcode::kReshape: case HloOpcode::kBitcast:
      case HloOpcode::kCopy: case HloOpcode::kTranspose: case HloOpcode::kReverse:
      case HloOpcode::kSlice: case HloOpcode::kDynamicSlice: case HloOpcode::kDynamicUpdateSlice:
      case HloOpcode::kConcatenate: case HloOpcode::kPad: case HloOpcode::kIota:
      case HloOpcode::kGather:
        return eval::EvalDataMovement(instr, ops);
      default:
        if (IsElementwiseOpcode(op)) return eval::EvalElementwise(instr, ops);
        return Unimplemented("evaluator: opcode " + std::string(HloOpcodeString(op)) +
                             " is not supported (" + instr.name() + ")");
    }
  }

 private:
  StatusOr<Literal> RunImpl(const HloComputation& comp, const std::vector<const Literal*>& args) {
    if (static_cast<int64_t>(args.size()) != comp.num_parameters()) {
      return InvalidArgument("computation " + comp.name() + " takes " +
                             std::to_string(comp.num_parameters()) + " arguments, given " +
                             std::to_string(args.size()));
    }
    std::unordered_map<const HloInstruction*, Literal> values;
    std::vector<const Literal*> ops;
    for (const HloInstruction* instr : comp.MakeInstructionPostOrder()) {
      if (instr->opcode() == HloOpcode::kParameter) {
        values.emplace(instr, *args[instr->parameter_number()]);
        continue;
      }
      ops.clear();
      for (const HloInstruction* o : instr->operands()) ops.push_back(&values.at(o));
      StatusOr<Literal> v = EvalInstruction(*instr, ops);
      if (!v.ok()) return v.status().WithContext("evaluating " + instr->name());
      values.emplace(instr, std::move(v).value());
    }
    return std::move(values.at(comp.root_instruction()));
  }

  int depth_ = 0;
};

}  // namespace
}  // namespace eval

StatusOr<Literal> EvaluateComputation(const HloComputation& computation,
                                      const std::vector<const Literal*>& args) {
  eval::Interpreter interp;
  return interp.Run(computation, args);
}

StatusOr<Literal> EvaluateInstruction(const HloInstruction& instruction,
                                      const std::vector<const Literal*>& operands) {
  eval::Interpreter interp;
  return interp.EvalInstruction(instruction, operands);
}

StatusOr<std::vector<Literal>> Evaluate(const HloModule& module, const std::vector<Literal>& args) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return InvalidArgument("module has no entry computation");
  std::vector<const Literal*> ptrs;
  for (int64_t i = 0; i < static_cast<int64_t>(args.size()); ++i) {
    if (i < entry->num_parameters() &&
        !args[i].shape().Compatible(entry->parameter_instruction(i)->shape())) {
      return InvalidArgument("argument " + std::to_string(i) + " has shape " +
                             args[i].shape().ToString(false) + ", parameter expects " +
                             entry->parameter_instruction(i)->shape().ToString(false));
    }
    ptrs.push_back(&args[i]);
  }
  ASSIGN_OR_RETURN(Literal result, EvaluateComputation(*entry, ptrs));
  return FlattenLiteral(std::move(result));
}

}  // namespace xla
