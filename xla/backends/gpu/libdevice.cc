#include "xla/backends/gpu/libdevice.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <set>

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "xla/backends/gpu/math_functions.h"

namespace xla::gpu {
namespace {

constexpr char kLibdevice[] = "libdevice.10.bc";

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string Parent(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

// The toolkit folders of every ptxas on $PATH.
std::vector<std::string> ToolkitsOfPtxas() {
  std::vector<std::string> out;
  const char* path = std::getenv("PATH");
  std::string rest = path ? path : "";
  while (!rest.empty()) {
    size_t colon = rest.find(':');
    std::string dir = rest.substr(0, colon);
    rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
    std::string ptxas = (dir.empty() ? "." : dir) + "/ptxas";
    if (!IsFile(ptxas)) continue;
    char real[PATH_MAX];
    if (realpath(ptxas.c_str(), real) != nullptr) out.push_back(Parent(Parent(real)));
  }
  return out;
}

// libdevice marks its functions alwaysinline. A kernel fused from thousands of
// ops (a 10,000-op elementwise chain) would then hold thousands of copies of,
// say, __nv_sinf with its argument-reduction loop, and -O3's loop and
// dominator analyses grow faster than linearly with that: 1,000 sines took 77 s
// and 10,000 did not finish in 15 minutes. Past this many call sites a library
// function stays one out-of-line copy; ordinary kernels call each only a few
// times and keep everything inlined.
constexpr int kMaxInlinedCallSites = 32;

void KeepOutOfLineWhenCalledOften(llvm::Function& fn) {
  int call_sites = 0;
  for (const llvm::Use& use : fn.uses()) {
    if (llvm::isa<llvm::CallBase>(use.getUser())) ++call_sites;
  }
  if (call_sites <= kMaxInlinedCallSites) return;
  fn.removeFnAttr(llvm::Attribute::AlwaysInline);
  fn.addFnAttr(llvm::Attribute::NoInline);
}

}  // namespace

std::vector<std::string> LibdeviceCandidates(const std::string& explicit_dir) {
  std::vector<std::string> dirs;
  if (!explicit_dir.empty()) dirs.push_back(explicit_dir);
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') dirs.push_back(std::string(v) + "/nvvm/libdevice");
  }
  for (const std::string& toolkit : ToolkitsOfPtxas()) dirs.push_back(toolkit + "/nvvm/libdevice");
  dirs.push_back("/usr/local/cuda/nvvm/libdevice");
  return dirs;
}

StatusOr<std::string> FindLibdevice(const std::string& explicit_dir,
                                    const std::string& needed_for) {
  std::vector<std::string> dirs = LibdeviceCandidates(explicit_dir);
  std::string searched;
  for (const std::string& dir : dirs) {
    // The explicit folder may be the toolkit root or the libdevice folder itself.
    for (const std::string& path : {dir + "/" + kLibdevice, dir + "/nvvm/libdevice/" + kLibdevice}) {
      if (IsFile(path)) return path;
    }
    searched += (searched.empty() ? "" : ", ") + dir;
  }
  return FailedPrecondition(
      "CUDA backend: " + needed_for + " needs " + kLibdevice +
      " from the CUDA toolkit, which was not found (searched " + searched +
      "). Install the CUDA toolkit, or set CUDA_HOME to the folder that holds nvvm/libdevice.");
}

std::vector<std::string> RewriteMathToLibdevice(llvm::Module* module) {
  std::set<std::string> ops;
  std::vector<llvm::Function*> math;
  for (llvm::Function& fn : *module) {
    std::string base;
    bool is_f32 = false;
    if (fn.isDeclaration() && !fn.use_empty() && MathFunctionOf(fn, &base, &is_f32)) {
      math.push_back(&fn);
    }
  }
  for (llvm::Function* fn : math) {
    std::string base;
    bool is_f32 = false;
    MathFunctionOf(*fn, &base, &is_f32);
    ops.insert(HloOpOfMathFunction(base));
    llvm::FunctionCallee nv =
        module->getOrInsertFunction("__nv_" + base + (is_f32 ? "f" : ""), fn->getFunctionType());
    fn->replaceAllUsesWith(nv.getCallee());
    fn->eraseFromParent();
  }
  // PTX's rem is not fmod: x - y * trunc(x / y) loses digits.
  std::vector<llvm::Instruction*> frems;
  for (llvm::Function& fn : *module) {
    for (llvm::Instruction& inst : llvm::instructions(fn)) {
      if (inst.getOpcode() == llvm::Instruction::FRem) frems.push_back(&inst);
    }
  }
  for (llvm::Instruction* frem : frems) {
    llvm::Type* ty = frem->getType();
    llvm::FunctionCallee nv = module->getOrInsertFunction(
        ty->isFloatTy() ? "__nv_fmodf" : "__nv_fmod", ty, ty, ty);
    llvm::IRBuilder<> b(frem);
    llvm::Value* call = b.CreateCall(nv, {frem->getOperand(0), frem->getOperand(1)});
    frem->replaceAllUsesWith(call);
    frem->eraseFromParent();
    ops.insert("remainder");
  }
  return std::vector<std::string>(ops.begin(), ops.end());
}

Status LinkLibdevice(llvm::Module* module, const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) return FailedPrecondition("cannot read " + path + ": " + buffer.getError().message());
  auto library = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), module->getContext());
  if (!library) {
    return FailedPrecondition(path + " is not LLVM bitcode this compiler can read: " +
                              llvm::toString(library.takeError()));
  }
  (*library)->setTargetTriple(module->getTargetTriple());
  (*library)->setDataLayout(module->getDataLayout());
  std::set<std::string> kernels;
  for (llvm::Function& fn : *module) {
    if (!fn.isDeclaration() && fn.hasExternalLinkage()) kernels.insert(fn.getName().str());
  }
  if (llvm::Linker::linkModules(*module, std::move(*library), llvm::Linker::Flags::LinkOnlyNeeded)) {
    return Internal("linking " + path + " failed");
  }
  for (llvm::Function& fn : *module) {
    if (!fn.isDeclaration() && kernels.count(fn.getName().str()) == 0) {
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
      KeepOutOfLineWhenCalledOften(fn);
    }
  }
  return OkStatus();
}

}  // namespace xla::gpu
