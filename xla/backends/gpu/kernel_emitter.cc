#include "xla/backends/gpu/kernel_emitter.h"

#include <algorithm>

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "xla/backends/cpu/codegen/scalar_ops.h"
#include "xla/backends/cpu/codegen/scatter_emitter.h"

namespace xla::gpu {
namespace {

using cpu::GraphNode;
using cpu::Slot;

// The slots a kernel touches, outputs first, each once.
std::vector<int> KernelSlots(const cpu::Plan& plan, const cpu::KernelInfo& kernel) {
  const cpu::Step& step = plan.program.steps.at(kernel.step);
  std::vector<int> slots;
  for (const std::vector<int>* list : {&step.writes, &step.reads}) {
    for (int s : *list) {
      if (std::find(slots.begin(), slots.end(), s) == slots.end()) slots.push_back(s);
    }
  }
  return slots;
}

// for (i = start; i < end; i += stride) body(i); the builder ends up after it.
Status EmitStridedLoop(llvm::IRBuilder<>& b, llvm::Value* start, llvm::Value* end,
                       int64_t stride, const std::function<Status(llvm::Value*)>& body) {
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b.getContext();
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx, "element.header", fn);
  auto* body_bb = llvm::BasicBlock::Create(ctx, "element.body", fn);
  auto* exit = llvm::BasicBlock::Create(ctx, "element.exit", fn);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, "element");
  i->addIncoming(start, preheader);
  b.CreateCondBr(b.CreateICmpSLT(i, end), body_bb, exit);
  b.SetInsertPoint(body_bb);
  RETURN_IF_ERROR(body(i));
  i->addIncoming(b.CreateAdd(i, b.getInt64(stride), "element.next", true, true),
                 b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(exit);
  return OkStatus();
}

}  // namespace

llvm::GlobalVariable* ConstantGlobals::Get(const cpu::Plan& plan, int slot) {
  auto key = std::make_pair(&plan, slot);
  if (auto it = globals_.find(key); it != globals_.end()) return it->second;
  const Slot& s = plan.program.slots.at(slot);
  llvm::LLVMContext& ctx = module_->getContext();
  // Zero-sized constants still get a (never read) byte.
  std::string bytes(static_cast<const char*>(s.data), s.data ? s.size : 0);
  if (bytes.empty()) bytes.push_back('\0');
  llvm::Constant* init = llvm::ConstantDataArray::getRaw(
      bytes, bytes.size(), llvm::Type::getInt8Ty(ctx));
  auto* global = new llvm::GlobalVariable(
      *module_, init->getType(), /*isConstant=*/true, llvm::GlobalValue::InternalLinkage, init,
      "constant_" + std::to_string(globals_.size()), nullptr,
      llvm::GlobalValue::NotThreadLocal, address_space_);
  global->setAlignment(llvm::Align(64));
  globals_[key] = global;
  return global;
}

StatusOr<GpuKernelSpec> EmitGpuKernel(llvm::Module* module, const GpuTarget& target,
                                      const cpu::Plan& plan, const cpu::KernelInfo& kernel,
                                      cpu::ScalarFunctions* scalar_functions,
                                      ConstantGlobals* constants) {
  if (kernel.form != cpu::KernelForm::kLoop) {
    return Internal("GPU kernel " + kernel.name + " was planned with a CPU-only loop form");
  }
  llvm::LLVMContext& ctx = module->getContext();
  const GraphNode* root = kernel.root;
  GpuKernelSpec spec;
  spec.name = kernel.name;
  spec.instruction = root->instr->name();
  std::vector<int> slots = KernelSlots(plan, kernel);
  for (int s : slots) {
    if (plan.program.slots[s].kind != Slot::Kind::kConstant) spec.param_slots.push_back(s);
  }

  llvm::Type* global_ptr = llvm::PointerType::get(ctx, /*AddressSpace=*/1);
  std::vector<llvm::Type*> params(spec.param_slots.size(), global_ptr);
  auto* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), params, false),
      llvm::Function::ExternalLinkage, kernel.name, module);
  std::map<int, llvm::Value*> slot_ptr;
  for (size_t i = 0; i < spec.param_slots.size(); ++i) {
    // As on the CPU: distinct slots never overlap while a kernel runs.
    fn->addParamAttr(i, llvm::Attribute::NoAlias);
    fn->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx, llvm::Align(16)));
    slot_ptr[spec.param_slots[i]] = fn->getArg(i);
  }
  for (int s : slots) {
    if (plan.program.slots[s].kind == Slot::Kind::kConstant) slot_ptr[s] = constants->Get(plan, s);
  }
  scalar_functions->SetTargetAttributes(fn);
  target.MarkKernel(fn, kBlockSize);

  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  cpu::ElementalEmitter emitter(b, plan, scalar_functions, [&](int s) { return slot_ptr.at(s); });
  const std::vector<int>& out_slots = plan.slots[root->id];
  std::vector<PrimitiveType> out_types;
  for (const Shape& leaf : FlattenShape(root->shape())) out_types.push_back(leaf.element_type());
  const Shape& shape = root->shape().IsTuple() ? root->shape().tuple_shapes(0) : root->shape();
  llvm::Value* thread = target.EmitGlobalThreadIndex(b, kBlockSize);

  if (cpu::IsScatterLikeOpcode(root->opcode())) {
    // Updates to one element apply in update order: one thread does them all.
    spec.elements = 1;
    auto* run = llvm::BasicBlock::Create(ctx, "scatter", fn);
    auto* done = llvm::BasicBlock::Create(ctx, "done", fn);
    b.CreateCondBr(b.CreateICmpEQ(thread, b.getInt64(0)), run, done);
    b.SetInsertPoint(run);
    std::vector<llvm::Value*> outputs;
    for (int s : out_slots) outputs.push_back(slot_ptr.at(s));
    RETURN_IF_ERROR(cpu::EmitScatterLikeKernel(b, emitter, scalar_functions, root, outputs,
                                               /*operands_preset=*/false));
    b.CreateBr(done);
    b.SetInsertPoint(done);
  } else {
    spec.elements = shape.element_count();
    spec.blocks = std::min(kMaxBlocks, (spec.elements + kBlockSize - 1) / kBlockSize);
    RETURN_IF_ERROR(EmitStridedLoop(
        b, thread, b.getInt64(spec.elements), std::max<int64_t>(1, spec.blocks) * kBlockSize,
        [&](llvm::Value* i) -> Status {
          cpu::IrIndex index;
          index.linear = i;
          ASSIGN_OR_RETURN(std::vector<llvm::Value*> values, emitter.Compute(root, index));
          for (size_t k = 0; k < out_slots.size(); ++k) {
            cpu::StoreElement(b, out_types[k], values[k], slot_ptr.at(out_slots[k]), i);
          }
          return OkStatus();
        }));
  }
  if (spec.elements > 0 && spec.blocks == 0) spec.blocks = 1;
  spec.threads_per_block = kBlockSize;
  b.CreateRetVoid();
  return spec;
}

}  // namespace xla::gpu
