// See compiler.h. Emits each kernel's loop nest, then hands the module to the JIT.
#include "xla/backends/cpu/codegen/compiler.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "xla/backends/cpu/codegen/elemental_emitter.h"
#include "xla/backends/cpu/codegen/jit.h"
#include "xla/backends/cpu/codegen/kernel_planner.h"
#include "xla/backends/cpu/codegen/reduce_emitter.h"
#include "xla/backends/cpu/codegen/scalar_ops.h"
#include "xla/backends/cpu/codegen/scatter_emitter.h"
#include "xla/backends/cpu/codegen/thunk_builder.h"
#include "xla/backends/cpu/runtime/cpu_buffer.h"

namespace xla::cpu {
namespace {

// Slots a kernel reads: those of the materialised operands of its inlined nodes,
// less the first `preset` operands of `node` itself (already in its outputs).
void CollectInputSlots(const Plan& plan, const GraphNode* node, size_t preset,
                       std::vector<int>* slots, std::vector<bool>* seen) {
  // Depth-first over the inlined producers, in operand order, with an explicit stack:
  // a fused chain can be thousands of ops deep.
  std::vector<std::pair<const GraphNode*, size_t>> stack = {{node, 0}};
  while (!stack.empty()) {
    auto& [cur, next] = stack.back();
    if (next == cur->operands.size()) {
      stack.pop_back();
      continue;
    }
    const GraphNode* op = cur->operands[next++];
    if (cur == node && next <= preset) continue;
    if (plan.role[op->id] == NodeRole::kInline) {
      if (!(*seen)[op->id]) {
        (*seen)[op->id] = true;
        stack.push_back({op, 0});  // invalidates cur/next; they are not used again
      }
      continue;
    }
    for (int s : plan.slots[op->id]) {
      if (std::find(slots->begin(), slots->end(), s) == slots->end()) slots->push_back(s);
    }
  }
}

// The reduces fused into the kernel of `root`, producers first.
std::vector<const GraphNode*> FusedReduces(const Plan& plan, const GraphNode* root) {
  std::vector<const GraphNode*> reduces;
  std::vector<bool> seen(plan.graph->nodes().size(), false);
  std::vector<const GraphNode*> stack = {root};
  while (!stack.empty()) {
    const GraphNode* cur = stack.back();
    stack.pop_back();
    for (const GraphNode* op : cur->operands) {
      if (plan.role[op->id] != NodeRole::kInline || seen[op->id]) continue;
      seen[op->id] = true;
      if (op->opcode() == HloOpcode::kReduce) reduces.push_back(op);
      stack.push_back(op);
    }
  }
  std::sort(reduces.begin(), reduces.end(),
            [](const GraphNode* a, const GraphNode* b) { return a->id < b->id; });
  return reduces;
}

// Fused reduces are row reduces (InstructionFusion's fuse_row_reductions):
// each one's output index is the kernel's row index, so it is computed once
// per row, before the row's loop over the last dimension.
Status CheckRowReduces(const std::vector<const GraphNode*>& reduces, const KernelInfo& kernel,
                       const Shape& shape) {
  if (reduces.empty()) return OkStatus();
  const bool row_loop = kernel.form == KernelForm::kLoop && !kernel.linear && shape.rank() >= 2 &&
                        kernel.root->opcode() != HloOpcode::kReduce;
  const std::vector<int64_t> row(shape.dimensions().begin(),
                                 shape.dimensions().end() - (shape.rank() > 0 ? 1 : 0));
  for (const GraphNode* r : reduces) {
    if (!row_loop || r->shape().IsTuple() || r->shape().dimensions() != row) {
      return Internal("CPU backend: reduce " + r->instr->name() + " is fused into " +
                      kernel.root->instr->name() +
                      " but does not reduce that kernel's rows (a fusion pass bug)");
    }
  }
  return OkStatus();
}

// The value worth keeping in the output row between a fused row reduce and
// the output loop: the input of `reduce` when it has the output's shape and
// type and the output loop computes it, at the output element's own index
// only (through elementwise ops; the loop overwrites the row as it goes),
// as exp(x - max) in softmax. Null when there is none.
const GraphNode* StashedInput(const Plan& plan, const GraphNode* root,
                              const GraphNode* reduce) {
  const GraphNode* input = reduce->operand(0);
  if (plan.role[input->id] != NodeRole::kInline || input->opcode() == HloOpcode::kReduce ||
      root->shape().IsTuple() || !(input->shape() == root->shape())) {
    return nullptr;
  }
  // (node, whether it is evaluated at the output element's own index).
  std::vector<std::pair<const GraphNode*, bool>> stack = {{root, true}};
  std::vector<std::array<bool, 2>> seen(plan.graph->nodes().size(), {false, false});
  bool used = false;
  while (!stack.empty()) {
    auto [cur, aligned] = stack.back();
    stack.pop_back();
    if (cur == input) {
      if (!aligned) return nullptr;
      used = true;
      continue;
    }
    const bool keeps_index = aligned && IsElementwiseOpcode(cur->opcode()) &&
                             cur->shape().dimensions() == root->shape().dimensions();
    for (const GraphNode* op : cur->operands) {
      if (plan.role[op->id] != NodeRole::kInline || op->opcode() == HloOpcode::kReduce ||
          seen[op->id][keeps_index]) {
        continue;
      }
      seen[op->id][keeps_index] = true;
      stack.push_back({op, keeps_index});
    }
  }
  return used ? input : nullptr;
}

// A dynamic-update-slice whose output already holds its operand
// (KernelInfo::output_preset): stores the update alone, at its clamped start.
// Work items are the update's rows.
Status EmitUpdateSlice(llvm::IRBuilder<>& b, ElementalEmitter& emitter, const GraphNode* root,
                       llvm::Value* out, llvm::Value* begin, llvm::Value* end) {
  const GraphNode* update = root->operand(1);
  const std::vector<int64_t>& dims = update->shape().dimensions();
  const std::vector<int64_t>& out_dims = root->shape().dimensions();
  const PrimitiveType type = root->shape().element_type();
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts, emitter.UpdateStarts(root));
  if (dims.empty()) {
    IrIndex scalar;
    scalar.linear = b.getInt64(0);
    ASSIGN_OR_RETURN(llvm::Value* v, emitter.At(update, scalar));
    StoreElement(b, type, v, out, scalar.linear);
    return OkStatus();
  }
  const int64_t last = dims.back();
  const std::vector<int64_t> outer(dims.begin(), dims.end() - 1);
  return EmitForLoop(b, begin, end, "row", [&](llvm::Value* r) -> Status {
    IrIndex row;
    row.linear = r;
    std::vector<llvm::Value*> outer_multi = MultiOf(b, row, outer);
    // Where the row's first element lands in the output.
    IrIndex target;
    for (size_t d = 0; d < outer.size(); ++d) target.multi.push_back(b.CreateAdd(outer_multi[d], starts[d]));
    target.multi.push_back(starts.back());
    llvm::Value* out_base = LinearOf(b, target, out_dims);
    llvm::Value* base = b.CreateMul(r, b.getInt64(last));
    return EmitForLoop(b, b.getInt64(0), b.getInt64(last), "col", [&](llvm::Value* i) -> Status {
      IrIndex index;
      index.multi = outer_multi;
      index.multi.push_back(i);
      index.linear = b.CreateAdd(base, i);
      ASSIGN_OR_RETURN(llvm::Value* v, emitter.At(update, index));
      StoreElement(b, type, v, out, b.CreateAdd(out_base, i));
      return OkStatus();
    });
  });
}

// void name(void** buffers, i64 begin, i64 end) calls an always-inlined body
// taking each slot as a `noalias align kKernelAlignment` pointer: once inlined,
// LLVM knows outputs and inputs do not overlap and vectorises without runtime
// checks. The alignment is only what zero-copy host buffers guarantee, so wide
// vector loads are unaligned ones (as fast as aligned ones on aligned data).
Status EmitKernel(llvm::Module* module, const Plan& plan, const KernelInfo& kernel,
                  ScalarFunctions* scalar_functions) {
  llvm::LLVMContext& ctx = module->getContext();
  const GraphNode* root = kernel.root;
  // The partials kernel writes the partial slot; the finishing one reads it.
  std::vector<int> out_slots = kernel.form == KernelForm::kReducePartials
                                   ? std::vector<int>{kernel.partial_slot}
                                   : plan.slots[root->id];
  std::vector<int> slots = out_slots;
  if (kernel.form == KernelForm::kReduceFinish) slots.push_back(kernel.partial_slot);
  std::vector<bool> seen(plan.graph->nodes().size(), false);
  CollectInputSlots(plan, root, kernel.output_preset ? out_slots.size() : 0, &slots, &seen);

  llvm::Type* ptr = llvm::PointerType::getUnqual(ctx);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  std::vector<llvm::Type*> body_params(slots.size(), ptr);
  body_params.push_back(i64);
  body_params.push_back(i64);
  auto* body = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx),
                                                              body_params, false),
                                      llvm::Function::InternalLinkage, kernel.name + ".body",
                                      module);
  body->addFnAttr(llvm::Attribute::AlwaysInline);
  scalar_functions->SetTargetAttributes(body);
  std::map<int, llvm::Value*> slot_arg;
  for (size_t i = 0; i < slots.size(); ++i) {
    body->addParamAttr(i, llvm::Attribute::NoAlias);
    body->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx, llvm::Align(kKernelAlignment)));
    slot_arg[slots[i]] = body->getArg(i);
  }
  llvm::Value* begin = body->getArg(slots.size());
  llvm::Value* end = body->getArg(slots.size() + 1);

  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", body));
  ElementalEmitter emitter(b, plan, scalar_functions, [&](int s) { return slot_arg.at(s); });
  const Shape& shape = root->shape().IsTuple() ? root->shape().tuple_shapes(0) : root->shape();
  std::vector<PrimitiveType> out_types;
  for (const Shape& leaf : FlattenShape(root->shape())) out_types.push_back(leaf.element_type());

  auto store_at = [&](const IrIndex& index) -> Status {
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> values, emitter.Compute(root, index));
    for (size_t k = 0; k < out_slots.size(); ++k) {
      StoreElement(b, out_types[k], values[k], slot_arg.at(out_slots[k]), index.linear);
    }
    return OkStatus();
  };
  const std::vector<const GraphNode*> row_reduces = FusedReduces(plan, root);
  RETURN_IF_ERROR(CheckRowReduces(row_reduces, kernel, shape));
  if (kernel.form == KernelForm::kColumnReduce) {
    RETURN_IF_ERROR(EmitColumnReduce(b, emitter, scalar_functions, kernel,
                                     slot_arg.at(out_slots[0]), begin, end));
  } else if (kernel.form == KernelForm::kReducePartials) {
    RETURN_IF_ERROR(
        EmitReducePartials(b, emitter, kernel, slot_arg.at(kernel.partial_slot), begin, end));
  } else if (kernel.form == KernelForm::kReduceFinish) {
    RETURN_IF_ERROR(EmitReduceFinish(b, emitter, kernel, slot_arg.at(kernel.partial_slot),
                                     slot_arg.at(out_slots[0]), begin, end));
  } else if (IsScatterLikeOpcode(root->opcode())) {
    std::vector<llvm::Value*> outputs;
    for (int s : out_slots) outputs.push_back(slot_arg.at(s));
    RETURN_IF_ERROR(EmitScatterLikeKernel(b, emitter, scalar_functions, root, outputs,
                                          kernel.output_preset));
  } else if (kernel.output_preset) {
    RETURN_IF_ERROR(EmitUpdateSlice(b, emitter, root, slot_arg.at(out_slots[0]), begin, end));
  } else if (kernel.linear) {
    RETURN_IF_ERROR(EmitForLoop(b, begin, end, "i", [&](llvm::Value* i) {
      IrIndex index;
      index.linear = i;
      return store_at(index);
    }));
  } else {
    const std::vector<int64_t>& dims = shape.dimensions();
    const int64_t last = dims.back();
    std::vector<int64_t> outer(dims.begin(), dims.end() - 1);
    RETURN_IF_ERROR(EmitForLoop(b, begin, end, "row", [&](llvm::Value* r) {
      IrIndex row;
      row.linear = r;
      std::vector<llvm::Value*> outer_multi = MultiOf(b, row, outer);
      // The output row has room for one stashed value: the last reduce's input.
      const GraphNode* stash =
          row_reduces.empty() ? nullptr : StashedInput(plan, root, row_reduces.back());
      for (const GraphNode* reduce : row_reduces) {
        IrIndex at;
        at.multi = outer_multi;
        if (stash != nullptr && reduce == row_reduces.back()) {
          emitter.BeginStash(stash, slot_arg.at(out_slots[0]));
        }
        RETURN_IF_ERROR(emitter.Hoist(reduce, at));
        if (stash != nullptr && reduce == row_reduces.back()) emitter.EndStash();
      }
      llvm::Value* base = b.CreateMul(r, b.getInt64(last));
      return EmitForLoop(b, b.getInt64(0), b.getInt64(last), "col", [&](llvm::Value* i) {
        IrIndex index;
        index.multi = outer_multi;
        index.multi.push_back(i);
        index.linear = b.CreateAdd(base, i);
        return store_at(index);
      });
    }));
  }
  b.CreateRetVoid();

  // The exported entry: unpack the slot table and call the body.
  auto* entry = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, i64, i64}, false),
      llvm::Function::ExternalLinkage, kernel.name, module);
  scalar_functions->SetTargetAttributes(entry);
  if (kernel.form == KernelForm::kReduceFinish) {
    // A few dozen partials per output: unrolling and vectorising this loop
    // would cost more compile time than it could ever save.
    for (llvm::Function* fn : {body, entry}) {
      fn->addFnAttr(llvm::Attribute::OptimizeForSize);
      fn->addFnAttr(llvm::Attribute::MinSize);
    }
  }
  llvm::IRBuilder<> eb(llvm::BasicBlock::Create(ctx, "entry", entry));
  std::vector<llvm::Value*> args;
  for (int s : slots) {
    llvm::Value* addr = eb.CreateConstInBoundsGEP1_64(ptr, entry->getArg(0), s);
    args.push_back(eb.CreateLoad(ptr, addr));
  }
  args.push_back(entry->getArg(1));
  args.push_back(entry->getArg(2));
  eb.CreateCall(body, args);
  eb.CreateRetVoid();
  return OkStatus();
}

// int32 name(const void* const* elements): loads element 2k / 2k+1 as the
// lhs / rhs of operand k and calls the comparator computation (SortComparator).
// void name(void* acc, const void* in, i64 n): acc[i] = reducer(acc[i], in[i]),
// the vectorisable inner loop of a collective's reduction (CollectiveCombiner).
Status EmitCombiner(llvm::Module* module, const HelperFunction& helper,
                    ScalarFunctions* scalar_functions) {
  llvm::LLVMContext& ctx = module->getContext();
  ASSIGN_OR_RETURN(llvm::Function* reduce, scalar_functions->Get(*helper.computation));
  if (reduce->arg_size() != 2) {
    return Unimplemented("CPU backend: reducer " + helper.computation->name() +
                         " of a collective must take two scalars");
  }
  const PrimitiveType type = helper.types.at(0);
  llvm::Type* ptr = llvm::PointerType::getUnqual(ctx);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  auto* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr, i64}, false),
      llvm::Function::ExternalLinkage, helper.name, module);
  scalar_functions->SetTargetAttributes(fn);
  fn->addParamAttr(0, llvm::Attribute::NoAlias);
  fn->addParamAttr(1, llvm::Attribute::NoAlias);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  RETURN_IF_ERROR(EmitForLoop(b, b.getInt64(0), fn->getArg(2), "i", [&](llvm::Value* i) {
    llvm::Value* acc = LoadElement(b, type, fn->getArg(0), i);
    llvm::Value* x = LoadElement(b, type, fn->getArg(1), i);
    StoreElement(b, type, b.CreateCall(reduce, {acc, x}), fn->getArg(0), i);
    return OkStatus();
  }));
  b.CreateRetVoid();
  return OkStatus();
}

Status EmitComparator(llvm::Module* module, const HelperFunction& helper,
                      ScalarFunctions* scalar_functions) {
  llvm::LLVMContext& ctx = module->getContext();
  ASSIGN_OR_RETURN(llvm::Function* compare, scalar_functions->Get(*helper.computation));
  if (compare->arg_size() != 2 * helper.types.size()) {
    return InvalidArgument("comparator " + helper.computation->name() + " takes " +
                           std::to_string(compare->arg_size()) + " parameters, expected " +
                           std::to_string(2 * helper.types.size()));
  }
  llvm::Type* ptr = llvm::PointerType::getUnqual(ctx);
  auto* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx), {ptr}, false),
      llvm::Function::ExternalLinkage, helper.name, module);
  scalar_functions->SetTargetAttributes(fn);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < 2 * helper.types.size(); ++i) {
    llvm::Value* element = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, fn->getArg(0), i));
    args.push_back(LoadElement(b, helper.types[i / 2], element, b.getInt64(0)));
  }
  llvm::Value* r = b.CreateCall(compare, args);
  if (!r->getType()->isIntegerTy(1)) {
    return InvalidArgument("comparator " + helper.computation->name() + " does not return a pred");
  }
  b.CreateRet(b.CreateZExt(r, b.getInt32Ty()));
  return OkStatus();
}

// Emits every kernel and helper of `plans` into one LLVM module and hands it to the JIT.
Status EmitAndAddModule(const HloModule& module, const std::vector<Plan*>& plans,
                        const CompileOptions& options, Jit* jit) {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto llvm_module = std::make_unique<llvm::Module>(module.name(), *context);
  llvm_module->setTargetTriple(jit->target().triple);
  llvm_module->setDataLayout(jit->target().data_layout);
  ScalarFunctions scalar_functions(llvm_module.get(), jit->target().cpu_name,
                                   jit->target().cpu_features);
  for (Plan* plan : plans) {
    for (const KernelInfo& kernel : plan->kernels) {
      RETURN_IF_ERROR(EmitKernel(llvm_module.get(), *plan, kernel, &scalar_functions));
    }
    for (const HelperFunction& helper : plan->helpers) {
      RETURN_IF_ERROR(helper.kind == HelperFunction::Kind::kCombiner
                          ? EmitCombiner(llvm_module.get(), helper, &scalar_functions)
                          : EmitComparator(llvm_module.get(), helper, &scalar_functions));
    }
  }
  std::string dump_prefix;
  if (!options.dump_llvm_ir_dir.empty()) {
    static std::atomic<int> counter{0};
    dump_prefix = options.dump_llvm_ir_dir + "/" + module.name() + "." +
                  std::to_string(counter.fetch_add(1));
  }
  return jit->AddModule(std::move(context), std::move(llvm_module), dump_prefix);
}

MachineCode DescribeTarget(const JitTarget& target) {
  MachineCode code;
  code.triple = target.triple;
  code.cpu_name = target.cpu_name;
  code.cpu_features = target.cpu_features;
  return code;
}

// The CPU runs library routines and splits long reductions over its pool.
PlannerOptions CpuPlannerOptions() {
  static const LibraryOps library{&IsThunkNode, &BuildThunk};
  PlannerOptions options;
  options.library = &library;
  return options;
}

}  // namespace

StatusOr<MachineCode> HostMachine() {
  ASSIGN_OR_RETURN(JitTarget host, Jit::DetectHost());
  return DescribeTarget(host);
}

StatusOr<CompiledProgram> CompileHloModule(const HloModule& module, const CompileOptions& options) {
  if (module.entry_computation() == nullptr) {
    return InvalidArgument("module " + module.name() + " has no entry computation");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Plan> top, PlanKernels(*module.entry_computation(), module.name(),
                                                                 CpuPlannerOptions()));
  // Every plan (entry, loop bodies, branches) with kernels to emit.
  std::vector<Plan*> plans;
  std::function<void(Plan*)> collect = [&](Plan* p) {
    plans.push_back(p);
    for (auto& sub : p->subplans) collect(sub.get());
  };
  collect(top.get());
  size_t num_kernels = 0;
  for (Plan* p : plans) num_kernels += p->kernels.size() + p->helpers.size();
  std::vector<std::string> symbols;
  for (Plan* p : plans) {
    for (const KernelInfo& kernel : p->kernels) symbols.push_back(kernel.name);
    for (const HelperFunction& helper : p->helpers) symbols.push_back(helper.name);
  }
  if (options.prebuilt_objects != nullptr &&
      (options.prebuilt_symbols == nullptr || *options.prebuilt_symbols != symbols)) {
    return FailedPrecondition("the machine code of module " + module.name() +
                              " does not match this compiler's plan for it (it was built by "
                              "another build of the CPU plugin); recompile it");
  }
  CompiledProgram result;
  if (num_kernels > 0) {
    ASSIGN_OR_RETURN(std::unique_ptr<Jit> jit, Jit::Create());
    if (options.prebuilt_objects != nullptr) {
      for (const std::string& object : *options.prebuilt_objects) {
        RETURN_IF_ERROR(jit->AddObject(object));
      }
    } else {
      RETURN_IF_ERROR(EmitAndAddModule(module, plans, options, jit.get()));
    }
    for (Plan* plan : plans) {
      for (const KernelInfo& kernel : plan->kernels) {
        ASSIGN_OR_RETURN(void* fn, jit->Lookup(kernel.name));
        plan->program.steps[kernel.step].kernel = reinterpret_cast<KernelFn>(fn);
      }
      for (const HelperFunction& helper : plan->helpers) {
        ASSIGN_OR_RETURN(void* fn, jit->Lookup(helper.name));
        plan->program.steps[helper.step].function = fn;
      }
    }
    result.code_size = jit->code_size();
    std::shared_ptr<Jit> shared(std::move(jit));
    result.machine_code = DescribeTarget(shared->target());
    result.machine_code.symbols = std::move(symbols);
    result.machine_code.objects = [shared] { return shared->objects(); };
    result.code = shared;
  }
  result.program = FinalizeProgram(*top);
  return result;
}

}  // namespace xla::cpu
