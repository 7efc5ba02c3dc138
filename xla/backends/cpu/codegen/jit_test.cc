// The JIT compiles a module, resolves libm through its symbol map, and reports
// a missing symbol as a status rather than a crash.
#include "xla/backends/cpu/codegen/jit.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
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

// void f(const float* noalias x, float* noalias y, i64 n): y[i] = exp(x[i]),
// with the target attributes the emitters stamp on kernels.
std::unique_ptr<llvm::Module> MakeExpLoop(llvm::LLVMContext& ctx, const JitTarget& target) {
  auto m = std::make_unique<llvm::Module>("loop", ctx);
  llvm::Type* f32 = llvm::Type::getFloatTy(ctx);
  llvm::Type* ptr = llvm::PointerType::getUnqual(ctx);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  auto* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr, i64}, false),
      llvm::Function::ExternalLinkage, "f", *m);
  fn->addFnAttr("target-cpu", target.cpu_name);
  fn->addFnAttr("target-features", target.cpu_features);
  fn->addParamAttr(0, llvm::Attribute::NoAlias);
  fn->addParamAttr(1, llvm::Attribute::NoAlias);
  auto* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  auto* loop = llvm::BasicBlock::Create(ctx, "loop", fn);
  auto* exit = llvm::BasicBlock::Create(ctx, "exit", fn);
  llvm::IRBuilder<> b(entry);
  b.CreateCondBr(b.CreateICmpSGT(fn->getArg(2), b.getInt64(0)), loop, exit);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(i64, 2);
  i->addIncoming(b.getInt64(0), entry);
  llvm::Value* x = b.CreateLoad(f32, b.CreateInBoundsGEP(f32, fn->getArg(0), i));
  llvm::Value* e = b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
  b.CreateStore(e, b.CreateInBoundsGEP(f32, fn->getArg(1), i));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1), "", true, true);
  i->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpSLT(next, fn->getArg(2)), loop, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  return m;
}

// With glibc's libmvec present, an exp loop calls a vector variant, and the
// JIT resolves it; the values match libm within a few ulp.
void TestVectorExp() {
  auto jit = Jit::Create();
  CHECK(jit.ok());
  if (!jit.ok()) return;
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string prefix = std::string(tmp ? tmp : ".") + "/exp_loop";
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = MakeExpLoop(*ctx, (*jit)->target());
  CHECK((*jit)->AddModule(std::move(ctx), std::move(m), prefix).ok());
  auto f = (*jit)->Lookup("f");
  CHECK(f.ok());
  if (!f.ok()) return;
  std::ifstream in(prefix + ".opt.ll");
  std::stringstream ir;
  ir << in.rdbuf();
  const bool has_libmvec = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL) != nullptr;
  CHECK(!has_libmvec || ir.str().find("_ZGV") != std::string::npos);
  std::vector<float> x(1003), y(x.size());
  for (size_t k = 0; k < x.size(); ++k) x[k] = -90.0f + 0.178f * static_cast<float>(k);  // up to 88.4: no overflow
  reinterpret_cast<void (*)(const float*, float*, int64_t)>(*f)(x.data(), y.data(), x.size());
  for (size_t k = 0; k < x.size(); ++k) {
    const double want = std::exp(static_cast<double>(x[k]));
    // A few ulp, or a few denormal steps below the normal range.
    CHECK(std::fabs(y[k] - want) <= 4e-7 * want + 1e-44 * 8);
  }
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

// Machine code loaded back from bytes: the intact object runs; every one-byte
// damage is either refused with INVALID_ARGUMENT or loads (damage inside the
// instructions, which are code and cannot be checked) -- never a crash inside
// the linker. Under ASan this also catches reads and writes out of bounds.
void TestDamagedObjects() {
  std::string object;
  {
    auto jit = Jit::Create();
    CHECK(jit.ok());
    if (!jit.ok()) return;
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto m = MakeModule(*ctx, "expf");
    CHECK((*jit)->AddModule(std::move(ctx), std::move(m)).ok());
    CHECK((*jit)->Lookup("f").ok());
    std::vector<std::string> objects = (*jit)->objects();
    CHECK(objects.size() == 1);
    if (objects.size() != 1) return;
    object = objects[0];
  }
  {
    auto jit = Jit::Create();
    CHECK(jit.ok() && (*jit)->AddObject(object).ok());
    auto f = (*jit)->Lookup("f");
    CHECK(f.ok());
    if (f.ok()) CHECK(std::fabs(reinterpret_cast<float (*)(float)>(*f)(0.0f) - 2.0f) < 1e-6f);
  }
  int refused = 0;
  for (size_t i = 0; i < object.size(); ++i) {
    for (unsigned char pattern : {0xffu, 0x80u}) {
      std::string damaged = object;
      damaged[i] = static_cast<char>(damaged[i] ^ pattern);
      auto jit = Jit::Create();
      CHECK(jit.ok());
      if (!jit.ok()) return;
      Status added = (*jit)->AddObject(damaged);
      if (!added.ok()) {
        CHECK(added.code() == StatusCode::kInvalidArgument);
        ++refused;
        continue;
      }
      (void)(*jit)->Lookup("f");  // links the object; may fail, must not crash
    }
  }
  CHECK(refused > 0);
  std::fprintf(stderr, "damaged objects: %d of %zu refused\n", refused, 2 * object.size());
}

// An object that calls a C library function outside the kernels' runtime is
// refused before linking (ORC would otherwise look it up in the process).
void TestForeignCallRefused() {
  std::vector<std::string> objects;
  {
    auto jit = Jit::Create();
    CHECK(jit.ok());
    if (!jit.ok()) return;
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto m = MakeModule(*ctx, "system");
    CHECK((*jit)->AddModule(std::move(ctx), std::move(m)).ok());
    (void)(*jit)->Lookup("f");  // compiles the module; linking may or may not succeed
    objects = (*jit)->objects();
  }
  CHECK(objects.size() == 1);
  if (objects.size() != 1) return;
  auto jit = Jit::Create();
  CHECK(jit.ok());
  if (!jit.ok()) return;
  Status added = (*jit)->AddObject(objects[0]);
  CHECK(!added.ok() && added.message().find("'system'") != std::string::npos);
}

}  // namespace
}  // namespace xla::cpu

int main() {
  xla::cpu::TestExpf();
  xla::cpu::TestMissingSymbol();
  xla::cpu::TestVectorExp();
  xla::cpu::TestDamagedObjects();
  xla::cpu::TestForeignCallRefused();
  std::printf("%s\n", xla::cpu::failures ? "FAILED" : "PASSED");
  return xla::cpu::failures ? 1 : 0;
}
