// The CUDA side of GpuTarget: NVPTX kernels, libdevice math, PTX text.
#include <mutex>

#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Metadata.h"
#include "xla/backends/gpu/gpu_target.h"
#include "xla/backends/gpu/libdevice.h"
#include "xla/backends/gpu/llvm_target.h"

namespace xla::gpu {
namespace {

class NvptxTarget final : public GpuTarget {
 public:
  NvptxTarget(std::string arch, std::unique_ptr<llvm::TargetMachine> machine,
              std::string libdevice_dir)
      : GpuTarget(std::move(arch), std::move(machine)), libdevice_dir_(std::move(libdevice_dir)) {}

  std::string backend_name() const override { return "CUDA backend"; }
  unsigned constant_address_space() const override { return 1; }  // global: constants may exceed 64 KiB
  std::string code_extension() const override { return "ptx"; }

  llvm::Value* EmitGlobalThreadIndex(llvm::IRBuilder<>& b, int64_t block_size) const override {
    llvm::Value* block = b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {}, {});
    llvm::Value* thread = b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {}, {});
    return b.CreateAdd(b.CreateMul(b.CreateZExt(block, b.getInt64Ty()), b.getInt64(block_size)),
                       b.CreateZExt(thread, b.getInt64Ty()), "thread", true, true);
  }

  void MarkKernel(llvm::Function* fn, int64_t block_size) const override {
    // The calling convention is what newer LLVMs read; LLVM 19's NVPTX
    // backend still reads nvvm.annotations, so both are set.
    fn->setCallingConv(llvm::CallingConv::PTX_Kernel);
    llvm::LLVMContext& ctx = fn->getContext();
    llvm::NamedMDNode* annotations = fn->getParent()->getOrInsertNamedMetadata("nvvm.annotations");
    auto i32 = [&](int64_t v) {
      return llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), v));
    };
    annotations->addOperand(llvm::MDNode::get(
        ctx, {llvm::ValueAsMetadata::get(fn), llvm::MDString::get(ctx, "kernel"), i32(1)}));
    annotations->addOperand(llvm::MDNode::get(
        ctx, {llvm::ValueAsMetadata::get(fn), llvm::MDString::get(ctx, "maxntidx"), i32(block_size)}));
  }

  Status LowerMath(llvm::Module* module) const override {
    // Full-precision denormals in libdevice (its __nvvm_reflect("__CUDA_FTZ")).
    module->addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t{0});
    std::vector<std::string> ops = RewriteMathToLibdevice(module);
    if (ops.empty()) return OkStatus();
    std::string needed_for;
    for (const std::string& op : ops) needed_for += (needed_for.empty() ? "" : ", ") + op;
    ASSIGN_OR_RETURN(std::string path, FindLibdevice(libdevice_dir_, needed_for));
    return LinkLibdevice(module, path);
  }

  StatusOr<std::string> EmitCode(llvm::Module* module) const override {
    return RunCodegen(module, llvm::CodeGenFileType::AssemblyFile);
  }

 private:
  std::string libdevice_dir_;
};

}  // namespace

StatusOr<std::unique_ptr<GpuTarget>> CreateNvptxTarget(const std::string& arch,
                                                       const std::string& libdevice_dir) {
  auto machine = CreateTargetMachine("nvptx64-nvidia-cuda", arch, "");
  if (!machine.ok()) {
    return InvalidArgument("CUDA backend: unsupported compute capability '" + arch +
                           "' (expected sm_70 ... sm_90): " + machine.status().message());
  }
  return std::unique_ptr<GpuTarget>(
      new NvptxTarget(arch, std::move(machine).value(), libdevice_dir));
}

}  // namespace xla::gpu
