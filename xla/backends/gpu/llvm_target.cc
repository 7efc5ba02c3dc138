#include "xla/backends/gpu/llvm_target.h"

#include <optional>

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

// Compiled once per accelerator plugin with LLVM_TARGET_NAME set to the LLVM
// target it carries (NVPTX or AMDGPU); only that target's libraries are linked.
#ifndef LLVM_TARGET_NAME
#error "LLVM_TARGET_NAME must be defined by the build"
#endif
#define XLA_LLVM_INIT_(target, part) LLVMInitialize##target##part
#define XLA_LLVM_INIT(target, part) XLA_LLVM_INIT_(target, part)

extern "C" void XLA_LLVM_INIT(LLVM_TARGET_NAME, TargetInfo)();
extern "C" void XLA_LLVM_INIT(LLVM_TARGET_NAME, Target)();
extern "C" void XLA_LLVM_INIT(LLVM_TARGET_NAME, TargetMC)();
extern "C" void XLA_LLVM_INIT(LLVM_TARGET_NAME, AsmPrinter)();

namespace xla::gpu {

StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const std::string& triple,
                                                                   const std::string& cpu,
                                                                   const std::string& features) {
  static bool initialized = [] {
    XLA_LLVM_INIT(LLVM_TARGET_NAME, TargetInfo)();
    XLA_LLVM_INIT(LLVM_TARGET_NAME, Target)();
    XLA_LLVM_INIT(LLVM_TARGET_NAME, TargetMC)();
    XLA_LLVM_INIT(LLVM_TARGET_NAME, AsmPrinter)();
    return true;
  }();
  (void)initialized;
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (target == nullptr) return Internal("LLVM target " + triple + ": " + error);
  // Asked with the generic processor: a named unknown one makes LLVM print a warning.
  std::unique_ptr<llvm::MCSubtargetInfo> info(target->createMCSubtargetInfo(triple, "", ""));
  if (info == nullptr || !info->isCPUStringValid(cpu)) {
    return InvalidArgument("unknown " + std::string(target->getName()) + " processor '" + cpu +
                           "'");
  }
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, features, llvm::TargetOptions(), std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (tm == nullptr) return Internal("cannot create an LLVM target machine for " + triple + " " + cpu);
  return tm;
}

}  // namespace xla::gpu
