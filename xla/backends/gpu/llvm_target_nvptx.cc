#include <memory>
#include <optional>
#include <string>

#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "xla/backends/gpu/llvm_target.h"

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTarget();
extern "C" void LLVMInitializeNVPTXTargetMC();
extern "C" void LLVMInitializeNVPTXAsmPrinter();

namespace xla {

StatusOr<std::string> DescribeLlvmTarget(const std::string& triple, const std::string& cpu) {
  static bool initialized = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    return true;
  }();
  (void)initialized;
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (target == nullptr) return Internal("LLVM target " + triple + ": " + error);
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, "", llvm::TargetOptions(), std::nullopt));
  if (tm == nullptr) return Internal("cannot create an LLVM target machine for " + triple + " " + cpu);
  return std::string(target->getName()) + " (" + triple + ", " + cpu + ")";
}

}  // namespace xla
