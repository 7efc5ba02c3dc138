// See gpu_compiler.h. Plan, emit every kernel, lower math, optimise, codegen.
#include "xla/backends/gpu/gpu_compiler.h"

#include <fstream>
#include <functional>

#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "xla/backends/cpu/codegen/elemental_emitter.h"
#include "xla/backends/cpu/codegen/kernel_planner.h"
#include "xla/backends/gpu/gpu_target.h"
#include "xla/backends/gpu/kernel_emitter.h"
#include "xla/passes/optimization_pipeline.h"

namespace xla::gpu {
namespace {

// The planner and emitter are shared with the CPU backend and name it in
// their errors; a GPU compile reports its own backend instead.
Status NameBackend(const Status& status, const std::string& backend) {
  if (status.ok()) return status;
  std::string message = status.message();
  const std::string cpu = "CPU backend";
  for (size_t at = message.find(cpu); at != std::string::npos; at = message.find(cpu, at)) {
    message.replace(at, cpu.size(), backend);
    at += backend.size();
  }
  return Status(status.code(), message);
}

std::vector<cpu::Plan*> AllPlans(cpu::Plan* top) {
  std::vector<cpu::Plan*> plans;
  std::function<void(cpu::Plan*)> collect = [&](cpu::Plan* p) {
    plans.push_back(p);
    for (auto& sub : p->subplans) collect(sub.get());
  };
  collect(top);
  return plans;
}

int64_t CountDots(const cpu::Program& program) {
  int64_t n = 0;
  for (const cpu::Step& step : program.steps) n += step.kind == cpu::Step::Kind::kDot;
  for (const auto& sub : program.subprograms) n += CountDots(*sub);
  return n;
}

// -O3 with the target's own passes (NVVMReflect, AMDGPU attributes...). No
// library functions exist on the device, so none may be introduced.
void Optimize(llvm::Module* module, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::TargetLibraryInfoImpl tlii(llvm::Triple(module->getTargetTriple()));
  tlii.disableAllFunctions();
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  llvm::PassBuilder pb(&machine);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(*module, mam);
}

// After math lowering and optimisation only what the target provides may
// stay external: anything else would fail at load time on the device.
Status CheckNoExternalCalls(const llvm::Module& module, const GpuTarget& target) {
  for (const llvm::Function& fn : module) {
    if (fn.isDeclaration() && !fn.use_empty() && !target.ProvidesFunction(fn)) {
      return Unimplemented(target.backend_name() + ": the generated code calls " +
                           fn.getName().str() + ", which no GPU library provides");
    }
  }
  return OkStatus();
}

Status WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary);
  out << contents;
  out.close();
  if (!out) return Internal("cannot write " + path + " (--xla_dump_to)");
  return OkStatus();
}

// Module names become file names: keep them to a safe alphabet.
std::string FileStem(const std::string& name) {
  std::string stem;
  for (char c : name) stem += (isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') ? c : '_';
  return stem.empty() ? "module" : stem;
}

Status Dump(const std::string& dir, const std::string& module_name, const GpuCompiledModule& out,
            const std::string& llvm_ir) {
  const std::string stem = dir + "/" + FileStem(module_name);
  RETURN_IF_ERROR(WriteFile(stem + ".after_optimizations.txt", out.optimized_hlo));
  RETURN_IF_ERROR(WriteFile(stem + ".ll", llvm_ir));
  return WriteFile(stem + "." + out.code_extension, out.code);
}

// A 10,000-op elementwise chain fused into one kernel holds thousands of math
// calls, and LLVM 19's NVPTX backend erases the proxy register of each call
// result by scanning the whole function (66 s for 10,000 sines). Kernels of at
// most 1,000 instructions compile in well under a second each.
OptimizationOptions GpuOptimizationOptions() {
  OptimizationOptions options;
  options.fusion.max_fused_instructions = 1000;
  return options;
}

}  // namespace

StatusOr<GpuCompiledModule> CompileForGpu(HloModule* module, const GpuTarget& target,
                                          const GpuCompileOptions& options) {
  const std::string backend = target.backend_name();
  if (module->entry_computation() == nullptr) {
    return InvalidArgument("module " + module->name() + " has no entry computation");
  }
  if (Status passes = RunOptimizationPipeline(module, GpuOptimizationOptions()); !passes.ok()) {
    return passes.WithContext("optimizing module " + module->name());
  }
  GpuCompiledModule out;
  out.optimized_hlo = module->ToString();
  out.code_extension = target.code_extension();

  cpu::PlannerOptions planner;
  planner.backend = backend;
  planner.loop_kernels_only = true;
  auto planned = cpu::PlanKernels(*module->entry_computation(), module->name(), planner);
  if (!planned.ok()) return NameBackend(planned.status(), backend);
  std::unique_ptr<cpu::Plan> top = std::move(planned).value();

  llvm::LLVMContext context;
  llvm::Module llvm_module(module->name(), context);
  llvm_module.setTargetTriple(target.machine().getTargetTriple().str());
  llvm_module.setDataLayout(target.machine().createDataLayout());
  cpu::ScalarFunctions scalar_functions(&llvm_module, target.arch(), "");
  ConstantGlobals constants(&llvm_module, target.constant_address_space());
  for (cpu::Plan* plan : AllPlans(top.get())) {
    if (!plan->helpers.empty()) {
      return Internal(backend + ": the plan asks for thunk helpers, which GPUs do not run");
    }
    for (const cpu::KernelInfo& kernel : plan->kernels) {
      auto spec = EmitGpuKernel(&llvm_module, target, *plan, kernel, &scalar_functions, &constants);
      if (!spec.ok()) return NameBackend(spec.status(), backend);
      out.kernels.push_back(std::move(spec).value());
    }
  }
  std::string broken;
  llvm::raw_string_ostream why(broken);
  if (llvm::verifyModule(llvm_module, &why)) {
    return Internal(backend + ": invalid LLVM IR for module " + module->name() + ": " + broken);
  }
  RETURN_IF_ERROR(target.LowerMath(&llvm_module));
  Optimize(&llvm_module, target.machine());
  RETURN_IF_ERROR(CheckNoExternalCalls(llvm_module, target));
  std::string llvm_ir = options.dump_dir.empty() ? "" : PrintModule(llvm_module);
  ASSIGN_OR_RETURN(out.code, target.EmitCode(&llvm_module));

  out.program = cpu::FinalizeProgram(*top);
  out.blas_calls = CountDots(out.program);
  if (!options.dump_dir.empty()) RETURN_IF_ERROR(Dump(options.dump_dir, module->name(), out, llvm_ir));
  return out;
}

std::string PrintModule(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

StatusOr<std::string> GpuTarget::RunCodegen(llvm::Module* module, llvm::CodeGenFileType type) const {
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (machine_->addPassesToEmitFile(pm, os, nullptr, type)) {
    return Internal(backend_name() + ": LLVM cannot generate code for " + arch_);
  }
  pm.run(*module);
  return std::string(buffer.str());
}

Executable::MemoryStats MemoryStatsOf(const GpuCompiledModule& compiled) {
  auto bytes = [](const std::vector<cpu::ArrayShape>& shapes) {
    int64_t n = 0;
    for (const cpu::ArrayShape& s : shapes) n += s.byte_size();
    return n;
  };
  Executable::MemoryStats stats;
  stats.generated_code_size = static_cast<int64_t>(compiled.code.size());
  stats.temp_size = compiled.program.temp_bytes;
  stats.argument_size = bytes(compiled.program.parameters);
  stats.output_size = bytes(compiled.program.outputs);
  return stats;
}

}  // namespace xla::gpu
