// The ROCm side of GpuTarget: AMDGPU kernels, native math only, an ELF
// code object.
//
// The code object is the relocatable ELF the AMDGPU backend writes: LLVM 19's
// lld is not available as a library here, so the ROCm runtime links it into
// the shared object HIP loads with ROCm's comgr (comgr.h).
#include <set>

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "xla/backends/gpu/gpu_target.h"
#include "xla/backends/gpu/llvm_target.h"
#include "xla/backends/gpu/math_functions.h"

namespace xla::gpu {
namespace {

// Math the AMDGPU backend lowers to instructions itself: the f32 forms of
// exp, exp2, exp10, log, log2, log10, sin and cos. Everything else in
// math_functions.h would need the ROCm device libraries (ocml).
bool LowersNatively(const std::string& base, bool is_f32) {
  static const std::set<std::string> f32_native = {"exp", "exp2", "exp10", "log",
                                                   "log2", "log10", "sin", "cos"};
  return is_f32 && f32_native.count(base) > 0;
}

// The function in which `fn` is first called, for the error message.
std::string FirstCaller(const llvm::Function& fn) {
  for (const llvm::User* user : fn.users()) {
    if (const auto* call = llvm::dyn_cast<llvm::CallBase>(user)) {
      return call->getFunction()->getName().str();
    }
  }
  return "?";
}

class AmdgpuTarget final : public GpuTarget {
 public:
  AmdgpuTarget(std::string arch, std::unique_ptr<llvm::TargetMachine> machine)
      : GpuTarget(std::move(arch), std::move(machine)) {}

  std::string backend_name() const override { return "ROCm backend"; }
  unsigned constant_address_space() const override { return 4; }  // AMDGPU constant memory
  std::string code_extension() const override { return "o"; }

  llvm::Value* EmitGlobalThreadIndex(llvm::IRBuilder<>& b, int64_t block_size) const override {
    llvm::Value* block = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_workgroup_id_x, {}, {});
    llvm::Value* thread = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_workitem_id_x, {}, {});
    return b.CreateAdd(b.CreateMul(b.CreateZExt(block, b.getInt64Ty()), b.getInt64(block_size)),
                       b.CreateZExt(thread, b.getInt64Ty()), "thread", true, true);
  }

  void MarkKernel(llvm::Function* fn, int64_t block_size) const override {
    fn->setCallingConv(llvm::CallingConv::AMDGPU_KERNEL);
    fn->addFnAttr("amdgpu-flat-work-group-size", "1," + std::to_string(block_size));
  }

  Status LowerMath(llvm::Module* module) const override {
    for (const llvm::Function& fn : *module) {
      std::string base;
      bool is_f32 = false;
      if (fn.isDeclaration() && !fn.use_empty() && MathFunctionOf(fn, &base, &is_f32) &&
          !LowersNatively(base, is_f32)) {
        return Unimplemented("ROCm backend: " + HloOpOfMathFunction(base) + " on " +
                             (is_f32 ? "f32" : "f64") + " (" + fn.getName().str() + " in " +
                             FirstCaller(fn) +
                             ") needs the ROCm device libraries (ocml), which this backend does "
                             "not link yet");
      }
    }
    return OkStatus();
  }

  StatusOr<std::string> EmitCode(llvm::Module* module) const override {
    return RunCodegen(module, llvm::CodeGenFileType::ObjectFile);
  }
};

}  // namespace

StatusOr<std::unique_ptr<GpuTarget>> CreateAmdgpuTarget(const std::string& arch) {
  auto machine = CreateTargetMachine("amdgcn-amd-amdhsa", arch, "");
  if (!machine.ok()) {
    return InvalidArgument("ROCm backend: unsupported GPU architecture '" + arch +
                           "' (expected e.g. gfx90a or gfx942): " + machine.status().message());
  }
  return std::unique_ptr<GpuTarget>(new AmdgpuTarget(arch, std::move(machine).value()));
}

}  // namespace xla::gpu
