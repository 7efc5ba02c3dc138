// The JIT compiles a module, resolves libm through its symbol map, and reports
// a missing symbol as a status rather than a crash.
#include "xla/backends/cpu/codegen/jit.h"

#include <cmath>
#include <cstdio>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace xla::cpu {
namespace {

int failures = 0;
#define CHECK(cond)                                               \
  do {                                                            \
    if (!(cond)) {                                                \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
                   __LINE__, #cond);                              \
      ++failures;                                                 \
    }                                                             \
  } while (0)

// float f(float x) { return expf(x) + 1; }
std::unique_ptr<llvm::Module> MakeModule(llvm::LLVMContext& ctx, const char* callee) {
  auto m = std::make_unique<llvm::Module>("test", ctx);
  llvm::Type* f32 = llvm::Type::getFloatTy(ctx);
  auto* fty = llvm::FunctionType::get(f32, {f32}, false);
  auto* fn = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, "f", *m);
  llvm::FunctionCallee ext = m->getOrInsertFunction(callee, fty);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Value* e = b.CreateCall(ext, {fn->getArg(0)});
  b.CreateRet(b.CreateFAdd(e, llvm::ConstantFP::get(f32, 1.0)));
  return m;
}

void TestExpf() {
  auto jit = Jit::Create();
  CHECK(jit.ok());
  if (!jit.ok()) return;
  CHECK(!(*jit)->target().cpu_name.empty());
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = MakeModule(*ctx, "expf");
  CHECK((*jit)->AddModule(std::move(ctx), std::move(m)).ok());
  auto f = (*jit)->Lookup("f");
  CHECK(f.ok());
  if (!f.ok()) return;
  auto fn = reinterpret_cast<float (*)(float)>(*f);
  CHECK(std::fabs(fn(1.0f) - (std::exp(1.0f) + 1.0f)) < 1e-5f);
  CHECK((*jit)->code_size() > 0);
}

void TestMissingSymbol() {
  auto jit = Jit::Create();
  CHECK(jit.ok());
  if (!jit.ok()) return;
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = MakeModule(*ctx, "no_such_function_anywhere");
  CHECK((*jit)->AddModule(std::move(ctx), std::move(m)).ok());
  auto f = (*jit)->Lookup("f");
  CHECK(!f.ok());
  if (!f.ok()) std::fprintf(stderr, "expected error: %s\n", f.status().ToString().c_str());
}

}  // namespace
}  // namespace xla::cpu

int main() {
  xla::cpu::TestExpf();
  xla::cpu::TestMissingSymbol();
  std::printf("%s\n", xla::cpu::failures ? "FAILED" : "PASSED");
  return xla::cpu::failures ? 1 : 0;
}
