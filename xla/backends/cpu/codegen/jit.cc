// See jit.h. The only translation unit that talks to ORC.
#include "xla/backends/cpu/codegen/jit.h"

#include <dlfcn.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectTransformLayer.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "xla/backends/cpu/codegen/object_check.h"
#include "xla/hlo/ir/native_type.h"

namespace xla::cpu {
namespace {

// The single llvm::Error -> Status conversion.
Status ToStatus(llvm::Error err, const std::string& what) {
  if (!err) return OkStatus();
  return Internal(what + ": " + llvm::toString(std::move(err)));
}

template <typename T>
StatusOr<T> ToStatusOr(llvm::Expected<T> value, const std::string& what) {
  if (!value) return ToStatus(value.takeError(), what);
  return std::move(*value);
}

// IEEE half conversions behind the compiler-rt calls LLVM emits for `fpext half` and
// `fptrunc to half` where no instruction does them (double -> half always; float <->
// half without F16C); ours (the IR's conversions), so the plugin does not depend on
// which libgcc the host has. On x86-64 these calls pass and return the half in an
// SSE register, as _Float16, not as an integer.
_Float16 BitsToF16(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, sizeof(h));
  return h;
}

uint16_t F16ToBits(_Float16 h) {
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof(bits));
  return bits;
}

extern "C" float XlaCpuExtendHalf(_Float16 h) { return HalfToFloat(half{F16ToBits(h)}); }
extern "C" _Float16 XlaCpuTruncFloatToHalf(float f) { return BitsToF16(FloatToHalf(f).bits); }
extern "C" _Float16 XlaCpuTruncDoubleToHalf(double d) {
  return BitsToF16(DoubleToHalf(d).bits);
}

// Every external symbol a kernel may reference. The plugin is loaded with
// hidden symbols and RTLD_LOCAL, so nothing is looked up in the global
// namespace: a kernel that calls anything else fails to link with a clear error.
struct RuntimeSymbol {
  const char* name;
  void* address;
};

#define XLA_F(fn) {#fn, reinterpret_cast<void*>(static_cast<float (*)(float)>(&::fn))}
#define XLA_D(fn) {#fn, reinterpret_cast<void*>(static_cast<double (*)(double)>(&::fn))}
#define XLA_FF(fn) {#fn, reinterpret_cast<void*>(static_cast<float (*)(float, float)>(&::fn))}
#define XLA_DD(fn) {#fn, reinterpret_cast<void*>(static_cast<double (*)(double, double)>(&::fn))}

const RuntimeSymbol kRuntimeSymbols[] = {
    XLA_F(expf), XLA_D(exp), XLA_F(exp2f), XLA_D(exp2), XLA_F(expm1f), XLA_D(expm1),
    XLA_F(logf), XLA_D(log), XLA_F(log2f), XLA_D(log2), XLA_F(log10f), XLA_D(log10),
    XLA_F(log1pf), XLA_D(log1p), XLA_F(sinf), XLA_D(sin), XLA_F(cosf), XLA_D(cos),
    XLA_F(tanf), XLA_D(tan), XLA_F(tanhf), XLA_D(tanh), XLA_F(asinf), XLA_D(asin),
    XLA_F(acosf), XLA_D(acos), XLA_F(atanf), XLA_D(atan), XLA_F(sinhf), XLA_D(sinh),
    XLA_F(coshf), XLA_D(cosh), XLA_F(asinhf), XLA_D(asinh), XLA_F(acoshf), XLA_D(acosh),
    XLA_F(atanhf), XLA_D(atanh), XLA_F(erff), XLA_D(erf), XLA_F(erfcf), XLA_D(erfc),
    XLA_F(cbrtf), XLA_D(cbrt), XLA_F(sqrtf), XLA_D(sqrt), XLA_F(floorf), XLA_D(floor),
    XLA_F(ceilf), XLA_D(ceil), XLA_F(roundf), XLA_D(round), XLA_F(truncf), XLA_D(trunc),
    XLA_F(rintf), XLA_D(rint), XLA_F(nearbyintf), XLA_D(nearbyint), XLA_F(fabsf), XLA_D(fabs),
    XLA_F(lgammaf), XLA_D(lgamma), XLA_F(tgammaf), XLA_D(tgamma),
    XLA_FF(powf), XLA_DD(pow), XLA_FF(fmodf), XLA_DD(fmod), XLA_FF(atan2f), XLA_DD(atan2),
    XLA_FF(fmaxf), XLA_DD(fmax), XLA_FF(fminf), XLA_DD(fmin), XLA_FF(copysignf),
    XLA_DD(copysign), XLA_FF(nextafterf), XLA_DD(nextafter), XLA_FF(hypotf), XLA_DD(hypot),
    {"ldexpf", reinterpret_cast<void*>(static_cast<float (*)(float, int)>(&::ldexpf))},
    {"ldexp", reinterpret_cast<void*>(static_cast<double (*)(double, int)>(&::ldexp))},
    {"sincosf", reinterpret_cast<void*>(&::sincosf)},
    {"sincos", reinterpret_cast<void*>(&::sincos)},
    // Loop idiom recognition turns copy and fill loops into these.
    {"memcpy", reinterpret_cast<void*>(&::memcpy)},
    {"memmove", reinterpret_cast<void*>(&::memmove)},
    {"memset", reinterpret_cast<void*>(&::memset)},
    // Half-precision conversions LLVM emits as libcalls without F16C.
    {"__extendhfsf2", reinterpret_cast<void*>(&XlaCpuExtendHalf)},
    {"__gnu_h2f_ieee", reinterpret_cast<void*>(&XlaCpuExtendHalf)},
    {"__truncsfhf2", reinterpret_cast<void*>(&XlaCpuTruncFloatToHalf)},
    {"__gnu_f2h_ieee", reinterpret_cast<void*>(&XlaCpuTruncFloatToHalf)},
    {"__truncdfhf2", reinterpret_cast<void*>(&XlaCpuTruncDoubleToHalf)},
};

#undef XLA_F
#undef XLA_D
#undef XLA_FF
#undef XLA_DD

// Vector variants of libm functions from glibc's libmvec (x86 vector ABI
// names _ZGV<isa>N<lanes>v_<fn>): the loop vectoriser replaces a scalar call,
// or an llvm.exp/log/sin/cos intrinsic, by a call to one of these, so loops
// with transcendental functions vectorise instead of making one libm call per
// element. Accuracy is that of libmvec (a few ulp; special values handled by
// its scalar fallback path). XLA:CPU calls the scalar functions for sin, cos
// and tan, so those results may differ from JAX's by a few ulp; one call per
// element made sin and cos 17x slower, so speed wins here. f64 log stays
// scalar, as XLA has it: f64 log1p's XLA form calls it and must round as
// XLA's does (the other transcendentals are computed inline, approximations.h).
struct VectorVariant {
  const char* scalar;  // libm name or intrinsic
  const char* base;    // libmvec base name
  bool is_double;
};

const VectorVariant kVectorVariants[] = {
    {"expf", "expf", false},       {"llvm.exp.f32", "expf", false},
    {"logf", "logf", false},       {"llvm.log.f32", "logf", false},
    {"sinf", "sinf", false},       {"llvm.sin.f32", "sinf", false},
    {"cosf", "cosf", false},       {"llvm.cos.f32", "cosf", false},
    {"expm1f", "expm1f", false},   {"log1pf", "log1pf", false},
    {"tanhf", "tanhf", false},     {"tanf", "tanf", false},
    {"exp2f", "exp2f", false},     {"llvm.exp2.f32", "exp2f", false},
    {"log2f", "log2f", false},     {"llvm.log2.f32", "log2f", false},
    {"log10f", "log10f", false},   {"llvm.log10.f32", "log10f", false},
    {"erff", "erff", false},       {"cbrtf", "cbrtf", false},
    {"sinhf", "sinhf", false},     {"coshf", "coshf", false},
    {"asinf", "asinf", false},     {"acosf", "acosf", false},
    {"atanf", "atanf", false},     {"atanhf", "atanhf", false},
    {"exp", "exp", true},          {"llvm.exp.f64", "exp", true},
    {"sin", "sin", true},          {"llvm.sin.f64", "sin", true},
    {"cos", "cos", true},          {"llvm.cos.f64", "cos", true},
    {"expm1", "expm1", true},      {"log1p", "log1p", true},
    {"tanh", "tanh", true},
};

// One instruction-set flavour of the vector ABI: its mangling letter and the
// lane counts of float and double variants.
struct VectorIsa {
  char letter;
  int float_lanes;
  int double_lanes;
  const char* required_feature;  // in the host feature string
};

const VectorIsa kVectorIsas[] = {
    {'b', 4, 2, "+sse4.1"},
    {'d', 8, 4, "+avx2"},
    {'e', 16, 8, "+avx512f"},
};

// The vector variants that exist on this host, with their addresses; the
// strings outlive the TargetLibraryInfoImpl that refers to them.
struct VectorLibrary {
  struct Entry {
    std::string scalar, vector, vabi_prefix;
    int lanes;
    void* address;
  };
  std::vector<Entry> entries;
};

// Whether "+name" is one of the comma-separated entries of `features`.
bool HasFeature(const std::string& features, const std::string& name) {
  size_t start = 0;
  while (start <= features.size()) {
    size_t end = features.find(',', start);
    if (end == std::string::npos) end = features.size();
    if (features.compare(start, end - start, name) == 0) return true;
    start = end + 1;
  }
  return false;
}

const VectorLibrary& HostVectorLibrary(const std::string& features) {
  static const VectorLibrary* library = [&] {
    auto* lib = new VectorLibrary;
    // Never unloaded: compiled kernels keep calling into it.
    void* handle = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return lib;
    for (const VectorIsa& isa : kVectorIsas) {
      if (!HasFeature(features, isa.required_feature)) continue;
      for (const VectorVariant& v : kVectorVariants) {
        const int lanes = v.is_double ? isa.double_lanes : isa.float_lanes;
        const std::string n = std::to_string(lanes);
        std::string vector = std::string("_ZGV") + isa.letter + "N" + n + "v_" + v.base;
        void* address = dlsym(handle, vector.c_str());
        if (address == nullptr) continue;
        lib->entries.push_back({v.scalar, vector, "_ZGV_LLVM_N" + n + "v", lanes, address});
      }
    }
    return lib;
  }();
  return *library;
}

void InitializeNativeTargetOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

Status WriteFile(const std::string& path, const llvm::Module& module) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec) return Internal("cannot write " + path + ": " + ec.message());
  module.print(out, nullptr);
  return OkStatus();
}

// Whether a kernel may call `name`: the runtime symbols Create() defines.
bool IsRuntimeSymbol(std::string_view name, const VectorLibrary& vector_library) {
  for (const RuntimeSymbol& s : kRuntimeSymbols) {
    if (name == s.name) return true;
  }
  for (const VectorLibrary::Entry& e : vector_library.entries) {
    if (name == e.vector) return true;
  }
  return false;
}

}  // namespace

struct Jit::Impl {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::unique_ptr<llvm::TargetMachine> target_machine;  // for the optimiser
  std::atomic<int64_t> code_size{0};
  // ORC reports link failures (an unresolved symbol) through the session's
  // error reporter, not through lookup's error; keep the text for Lookup.
  std::mutex mu;
  std::string last_session_error;
  const VectorLibrary* vector_library = nullptr;
  // Copies of the emitted object files, kept for Executable::Serialize.
  std::vector<std::string> objects;
};

Jit::Jit(std::unique_ptr<Impl> impl, JitTarget target)
    : impl_(std::move(impl)), target_(std::move(target)) {}

Jit::~Jit() = default;

StatusOr<JitTarget> Jit::DetectHost() {
  ASSIGN_OR_RETURN(llvm::orc::JITTargetMachineBuilder jtmb,
                   ToStatusOr(llvm::orc::JITTargetMachineBuilder::detectHost(),
                              "detecting the host CPU"));
  JitTarget target;
  target.triple = jtmb.getTargetTriple().str();
  target.cpu_name = jtmb.getCPU();
  target.cpu_features = jtmb.getFeatures().getString();
  return target;
}

StatusOr<std::unique_ptr<Jit>> Jit::Create() {
  InitializeNativeTargetOnce();
  ASSIGN_OR_RETURN(llvm::orc::JITTargetMachineBuilder jtmb,
                   ToStatusOr(llvm::orc::JITTargetMachineBuilder::detectHost(),
                              "detecting the host CPU"));
  // detectHost fills in getHostCPUName and getHostCPUFeatures.
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // A multiply whose only use is an add or subtract becomes one fused
  // multiply-add (on hosts with FMA), as XLA:CPU compiles it: programs get the
  // same bits as under JAX's own CPU backend, and one rounding instead of two.
  jtmb.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Fast;
  ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm,
                   ToStatusOr(jtmb.createTargetMachine(), "creating the target machine"));

  auto impl = std::make_unique<Impl>();
  ASSIGN_OR_RETURN(impl->lljit,
                   ToStatusOr(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(jtmb).create(),
                              "creating the LLJIT"));
  impl->target_machine = std::move(tm);
  impl->lljit->getExecutionSession().setErrorReporter([raw = impl.get()](llvm::Error err) {
    std::lock_guard<std::mutex> lock(raw->mu);
    raw->last_session_error = llvm::toString(std::move(err));
  });

  // Count emitted object bytes for Executable::memory_stats and keep a copy
  // of each object file, so the executable can be serialized.
  Impl* raw = impl.get();
  impl->lljit->getObjTransformLayer().setTransform(
      [raw](std::unique_ptr<llvm::MemoryBuffer> obj)
          -> llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> {
        raw->code_size += static_cast<int64_t>(obj->getBufferSize());
        std::lock_guard<std::mutex> lock(raw->mu);
        raw->objects.emplace_back(obj->getBufferStart(), obj->getBufferSize());
        return std::move(obj);
      });

  llvm::orc::SymbolMap symbols;
  for (const RuntimeSymbol& s : kRuntimeSymbols) {
    symbols[impl->lljit->mangleAndIntern(s.name)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(s.address), llvm::JITSymbolFlags::Exported);
  }
  impl->vector_library = &HostVectorLibrary(jtmb.getFeatures().getString());
  for (const VectorLibrary::Entry& e : impl->vector_library->entries) {
    symbols[impl->lljit->mangleAndIntern(e.vector)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(e.address), llvm::JITSymbolFlags::Exported);
  }
  RETURN_IF_ERROR(ToStatus(
      impl->lljit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols))),
      "defining runtime symbols"));

  const llvm::Triple& triple = impl->lljit->getTargetTriple();
  JitTarget target;
  target.triple = triple.str();
  target.data_layout = impl->lljit->getDataLayout().getStringRepresentation();
  target.cpu_name = jtmb.getCPU();
  target.cpu_features = jtmb.getFeatures().getString();
  return std::unique_ptr<Jit>(new Jit(std::move(impl), std::move(target)));
}

Status Jit::AddModule(std::unique_ptr<llvm::LLVMContext> context,
                      std::unique_ptr<llvm::Module> module, const std::string& dump_prefix) {
  // The caller destroys arguments in an unspecified order, and a module must die before its
  // context: on every early return the module goes first, here (after a move it is null).
  struct ModuleFirst {
    std::unique_ptr<llvm::Module>& module;
    ~ModuleFirst() { module.reset(); }
  } module_first{module};
  module->setDataLayout(impl_->lljit->getDataLayout());
  module->setTargetTriple(impl_->lljit->getTargetTriple().str());
  if (!dump_prefix.empty()) RETURN_IF_ERROR(WriteFile(dump_prefix + ".ll", *module));
  {
    std::string message;
    llvm::raw_string_ostream os(message);
    if (llvm::verifyModule(*module, &os)) {
      return Internal("emitted LLVM IR does not verify (a codegen bug): " + os.str());
    }
  }

  // O3 with the host target machine, so the cost model knows the vector width.
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder pb(impl_->target_machine.get(), tuning);
  // Registered before the defaults so this library info (with the vector
  // variants) is the one the vectoriser sees.
  llvm::TargetLibraryInfoImpl tlii(impl_->lljit->getTargetTriple());
  std::vector<llvm::VecDesc> vector_functions;
  for (const VectorLibrary::Entry& e : impl_->vector_library->entries) {
    vector_functions.emplace_back(e.scalar, e.vector, llvm::ElementCount::getFixed(e.lanes),
                                  /*Masked=*/false, e.vabi_prefix);
  }
  tlii.addVectorizableFunctions(vector_functions);
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(*module, mam);
  if (!dump_prefix.empty()) RETURN_IF_ERROR(WriteFile(dump_prefix + ".opt.ll", *module));

  llvm::orc::ThreadSafeModule tsm(std::move(module), std::move(context));
  return ToStatus(impl_->lljit->addIRModule(std::move(tsm)), "adding a module to the JIT");
}

Status Jit::AddObject(std::string_view object) {
  RETURN_IF_ERROR(CheckJitObject(object, target_.triple, [this](std::string_view name) {
    return IsRuntimeSymbol(name, *impl_->vector_library);
  }));
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(object.data(), object.size()), "serialized-kernels");
  // Only serialized bytes come through here, so what ORC refuses is damaged input.
  if (llvm::Error err = impl_->lljit->addObjectFile(std::move(buffer))) {
    return InvalidArgument("serialized machine code is damaged: " +
                           llvm::toString(std::move(err)));
  }
  return OkStatus();
}

std::vector<std::string> Jit::objects() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->objects;
}

StatusOr<void*> Jit::Lookup(std::string_view name) {
  auto addr = impl_->lljit->lookup(llvm::StringRef(name.data(), name.size()));
  if (!addr) {
    std::string message = llvm::toString(addr.takeError());
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (!impl_->last_session_error.empty()) message += " (" + impl_->last_session_error + ")";
    return NotFound("JIT symbol '" + std::string(name) + "': " + message);
  }
  return addr->toPtr<void*>();
}

int64_t Jit::code_size() const { return impl_->code_size.load(); }

}  // namespace xla::cpu
