// An ORC LLJIT wrapper in the shape of LLVM's KaleidoscopeJIT.
//
// Create() does everything that can fail (host detection, target machine,
// symbol tables); the constructor cannot fail. AddModule optimises a module at
// O3 for the host CPU with the new pass manager and compiles it; Lookup returns
// the address of a compiled function. llvm::Error becomes Status here and
// nowhere else.
//
// This header names LLVM types only by forward declaration so that code which
// runs compiled kernels never includes LLVM (STYLE anti-pattern 2).
#ifndef XLA_BACKENDS_CPU_CODEGEN_JIT_H_
#define XLA_BACKENDS_CPU_CODEGEN_JIT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "xla/status.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace xla::cpu {

// What emitters need to know about the target: they stamp it on every
// function so the vectoriser sees the host's vector width.
struct JitTarget {
  std::string triple;
  std::string data_layout;
  std::string cpu_name;
  std::string cpu_features;  // "+avx2,+fma,..."
};

class Jit {
 public:
  // Detects the host, builds an LLJIT and defines the runtime symbols that
  // kernels may call (libm, memcpy/memset, our half-precision helpers, and
  // the vector variants of libm functions in glibc's libmvec when the host
  // has it: AddModule lets the loop vectoriser call those).
  static StatusOr<std::unique_ptr<Jit>> Create();
  // The host's triple, CPU name and features, as Create() sees them (no data layout).
  static StatusOr<JitTarget> DetectHost();
  ~Jit();
  Jit(const Jit&) = delete;
  Jit& operator=(const Jit&) = delete;

  const JitTarget& target() const { return target_; }

  // Verifies, optimises (O3) and compiles `module`, which must use `context`.
  // Both are owned by the JIT afterwards. If `dump_prefix` is not empty the IR
  // is written to <dump_prefix>.ll (as emitted) and <dump_prefix>.opt.ll.
  Status AddModule(std::unique_ptr<llvm::LLVMContext> context,
                   std::unique_ptr<llvm::Module> module,
                   const std::string& dump_prefix = "");

  // Loads machine code that an earlier AddModule produced (see objects()),
  // on a host with the same target: for executables loaded back from bytes.
  Status AddObject(std::string_view object);

  // The object files compiled so far, in order: AddModule's modules are
  // compiled when a symbol of theirs is first looked up.
  std::vector<std::string> objects() const;

  // Address of a compiled function, or NOT_FOUND.
  StatusOr<void*> Lookup(std::string_view name);

  // Bytes of machine code and data emitted so far.
  int64_t code_size() const;

 private:
  struct Impl;
  Jit(std::unique_ptr<Impl> impl, JitTarget target);
  std::unique_ptr<Impl> impl_;
  JitTarget target_;
};

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CODEGEN_JIT_H_
