#include "xla/backends/gpu/math_functions.h"

#include <map>

#include "llvm/IR/Intrinsics.h"

namespace xla::gpu {
namespace {

// libm base name -> the HLO op whose lowering calls it.
const std::map<std::string, std::string>& LibmFunctions() {
  static const auto* table = new std::map<std::string, std::string>{
      {"atan2", "atan2"},
      {"cbrt", "cbrt"},
      {"cos", "cosine"},
      {"erf", "erf"},
      {"exp", "exponential"},
      {"exp10", "exponential"},
      {"exp2", "exponential"},
      {"expm1", "exponential-minus-one"},
      {"fmod", "remainder"},
      {"hypot", "abs (complex)"},
      {"log", "log"},
      {"log10", "log"},
      {"log1p", "log-plus-one"},
      {"log2", "log"},
      {"pow", "power"},
      {"sin", "sine"},
      {"tan", "tan"},
      {"tanh", "tanh"},
  };
  return *table;
}

// Math intrinsics that are calls on a GPU, by their libm base name.
const std::map<llvm::Intrinsic::ID, std::string>& MathIntrinsics() {
  static const auto* table = new std::map<llvm::Intrinsic::ID, std::string>{
      {llvm::Intrinsic::cos, "cos"},     {llvm::Intrinsic::exp, "exp"},
      {llvm::Intrinsic::exp10, "exp10"}, {llvm::Intrinsic::exp2, "exp2"},
      {llvm::Intrinsic::log, "log"},     {llvm::Intrinsic::log10, "log10"},
      {llvm::Intrinsic::log2, "log2"},   {llvm::Intrinsic::pow, "pow"},
      {llvm::Intrinsic::sin, "sin"},     {llvm::Intrinsic::tan, "tan"},
  };
  return *table;
}

}  // namespace

bool MathFunctionOf(const llvm::Function& fn, std::string* base, bool* is_f32) {
  llvm::Type* ret = fn.getReturnType();
  if (!ret->isFloatTy() && !ret->isDoubleTy()) return false;
  *is_f32 = ret->isFloatTy();
  if (fn.isIntrinsic()) {
    auto it = MathIntrinsics().find(fn.getIntrinsicID());
    if (it == MathIntrinsics().end()) return false;
    *base = it->second;
    return true;
  }
  std::string name = fn.getName().str();
  if (*is_f32) {
    if (name.empty() || name.back() != 'f') return false;
    name.pop_back();
  }
  if (LibmFunctions().count(name) == 0) return false;
  *base = name;
  return true;
}

std::string HloOpOfMathFunction(const std::string& base) {
  auto it = LibmFunctions().find(base);
  return it == LibmFunctions().end() ? base : it->second;
}

}  // namespace xla::gpu
