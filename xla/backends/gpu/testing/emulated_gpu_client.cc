#include "xla/backends/gpu/testing/emulated_gpu_client.h"

#include <functional>
#include <map>

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Target/TargetOptions.h"
#include "xla/backends/cpu/codegen/jit.h"
#include "xla/backends/cpu/cpu_client.h"
#include "xla/backends/cpu/runtime/cpu_executable.h"
#include "xla/backends/cpu/runtime/thread_pool.h"
#include "xla/backends/gpu/gpu_compiler.h"
#include "xla/backends/gpu/gpu_target.h"
#include "xla/hlo/parser/parser.h"

namespace xla::gpu::testing {
namespace {

// The emulated thread index: a plain global the launch wrapper sets before
// each call (launches run one at a time, threads in order).
constexpr char kThreadIndex[] = "xla_emulated_thread_index";

llvm::GlobalVariable* ThreadIndexGlobal(llvm::Module& module) {
  if (llvm::GlobalVariable* g = module.getNamedGlobal(kThreadIndex)) return g;
  llvm::Type* i64 = llvm::Type::getInt64Ty(module.getContext());
  // External linkage: the optimiser must not assume it is never written.
  return new llvm::GlobalVariable(module, i64, false, llvm::GlobalValue::ExternalLinkage,
                                  llvm::ConstantInt::get(i64, 0), kThreadIndex);
}

// GpuTarget for the host: kernels are ordinary functions, the code is IR.
class HostTarget final : public GpuTarget {
 public:
  HostTarget(std::string cpu, std::unique_ptr<llvm::TargetMachine> machine)
      : GpuTarget(std::move(cpu), std::move(machine)) {}

  std::string backend_name() const override { return "emulated GPU backend"; }
  unsigned constant_address_space() const override { return 0; }
  std::string code_extension() const override { return "ll"; }
  llvm::Value* EmitGlobalThreadIndex(llvm::IRBuilder<>& b, int64_t) const override {
    llvm::Module& module = *b.GetInsertBlock()->getModule();
    return b.CreateLoad(b.getInt64Ty(), ThreadIndexGlobal(module), "thread");
  }
  void MarkKernel(llvm::Function*, int64_t) const override {}
  Status LowerMath(llvm::Module*) const override { return OkStatus(); }  // the host's libm
  bool ProvidesFunction(const llvm::Function&) const override { return true; }
  StatusOr<std::string> EmitCode(llvm::Module* module) const override {
    return PrintModule(*module);
  }
};

StatusOr<std::unique_ptr<HostTarget>> CreateHostTarget(const cpu::JitTarget& host) {
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(host.triple, error);
  if (target == nullptr) return Internal("host target " + host.triple + ": " + error);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      host.triple, host.cpu_name, host.cpu_features, llvm::TargetOptions(), std::nullopt));
  if (machine == nullptr) return Internal("no target machine for " + host.triple);
  return std::make_unique<HostTarget>(host.cpu_name, std::move(machine));
}

// void <kernel>.launch(void** buffers, i64, i64): runs every thread of the
// kernel's grid, passing the slots in the kernel's parameter order.
void EmitLaunch(llvm::Module& module, const GpuKernelSpec& spec) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Function* kernel = module.getFunction(spec.name);
  llvm::Type* ptr = llvm::PointerType::getUnqual(ctx);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  auto* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, i64, i64}, false),
      llvm::Function::ExternalLinkage, spec.name + ".launch", module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < spec.param_slots.size(); ++i) {
    llvm::Value* slot = b.CreateConstInBoundsGEP1_64(ptr, fn->getArg(0), spec.param_slots[i]);
    args.push_back(b.CreateAddrSpaceCast(b.CreateLoad(ptr, slot),
                                         kernel->getFunctionType()->getParamType(i)));
  }
  const int64_t threads = spec.blocks * spec.threads_per_block;
  llvm::GlobalVariable* index = ThreadIndexGlobal(module);
  llvm::BasicBlock* pre = b.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(ctx, "thread", fn);
  auto* body = llvm::BasicBlock::Create(ctx, "run", fn);
  auto* done = llvm::BasicBlock::Create(ctx, "done", fn);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* t = b.CreatePHI(i64, 2);
  t->addIncoming(b.getInt64(0), pre);
  b.CreateCondBr(b.CreateICmpSLT(t, b.getInt64(threads)), body, done);
  b.SetInsertPoint(body);
  b.CreateStore(t, index);
  b.CreateCall(kernel, args);
  t->addIncoming(b.CreateAdd(t, b.getInt64(1)), body);
  b.CreateBr(loop);
  b.SetInsertPoint(done);
  b.CreateRetVoid();
}

// Points every kernel step of the program tree at its launch function.
Status BindKernels(cpu::Program& program, const std::map<std::string, cpu::KernelFn>& launches) {
  for (cpu::Step& step : program.steps) {
    if (step.kind != cpu::Step::Kind::kKernel) continue;
    auto it = launches.find(step.kernel_name);
    if (it == launches.end()) return Internal("no launch for kernel " + step.kernel_name);
    step.kernel = it->second;
    step.work_items = 1;  // one call runs the whole grid
  }
  for (auto& sub : program.subprograms) RETURN_IF_ERROR(BindKernels(*sub, launches));
  return OkStatus();
}

class EmulatedGpuClient final : public Client {
 public:
  EmulatedGpuClient(std::unique_ptr<Client> host, std::unique_ptr<HostTarget> target)
      : host_(std::move(host)), target_(std::move(target)) {}

  const std::string& platform_name() const override { return name_; }
  const std::string& platform_version() const override { return name_; }
  const std::vector<Device*>& devices() const override { return host_->devices(); }
  StatusOr<std::unique_ptr<Buffer>> BufferFromHost(const void* data, PrimitiveType type,
                                                   const std::vector<int64_t>& dims,
                                                   const std::vector<int64_t>& byte_strides,
                                                   Device* device) override {
    return host_->BufferFromHost(data, type, dims, byte_strides, device);
  }

  StatusOr<std::unique_ptr<Executable>> Compile(std::unique_ptr<HloModule> module, const Options&,
                                                const std::vector<Device*>&) override {
    ASSIGN_OR_RETURN(GpuCompiledModule compiled, CompileForGpu(module.get(), *target_, {}));
    auto context = std::make_unique<llvm::LLVMContext>();
    llvm::SMDiagnostic diagnostic;
    std::unique_ptr<llvm::Module> ir = llvm::parseAssemblyString(compiled.code, diagnostic, *context);
    if (ir == nullptr) return Internal("emulated GPU: unreadable IR: " + diagnostic.getMessage().str());
    for (const GpuKernelSpec& spec : compiled.kernels) EmitLaunch(*ir, spec);
    ASSIGN_OR_RETURN(std::unique_ptr<cpu::Jit> jit, cpu::Jit::Create());
    RETURN_IF_ERROR(jit->AddModule(std::move(context), std::move(ir)));
    std::map<std::string, cpu::KernelFn> launches;
    for (const GpuKernelSpec& spec : compiled.kernels) {
      ASSIGN_OR_RETURN(void* fn, jit->Lookup(spec.name + ".launch"));
      launches[spec.name] = reinterpret_cast<cpu::KernelFn>(fn);
    }
    RETURN_IF_ERROR(BindKernels(compiled.program, launches));
    const int64_t code_size = jit->code_size();
    return std::unique_ptr<Executable>(new cpu::CpuExecutable(
        module->name(), std::move(compiled.program), std::shared_ptr<cpu::Jit>(std::move(jit)),
        code_size, {host_->devices()[0]}, compiled.optimized_hlo, &cpu::ThreadPool::Default()));
  }

 private:
  std::string name_ = "emulated-gpu";
  std::unique_ptr<Client> host_;
  std::unique_ptr<HostTarget> target_;
};

}  // namespace

StatusOr<std::unique_ptr<Client>> CreateEmulatedGpuClient() {
  ASSIGN_OR_RETURN(std::unique_ptr<Client> host, CpuPluginInfo().create_client({}));
  ASSIGN_OR_RETURN(std::unique_ptr<cpu::Jit> jit, cpu::Jit::Create());  // registers the host target
  ASSIGN_OR_RETURN(std::unique_ptr<HostTarget> target, CreateHostTarget(jit->target()));
  return std::unique_ptr<Client>(new EmulatedGpuClient(std::move(host), std::move(target)));
}

}  // namespace xla::gpu::testing
