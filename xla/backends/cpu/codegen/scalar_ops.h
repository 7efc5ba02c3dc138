// Scalar LLVM IR for HLO element types and elementwise opcodes.
//
// Internal to codegen/ (it names LLVM types). Values live in registers in a
// "register type": PRED is i1, integers are iN, f16 and bf16 are computed in
// float and rounded back to their precision after every op, so a fused chain
// gives the same numbers as one op at a time. Memory uses the storage type
// (PRED i8, f16 half, bf16 i16); LoadElement/StoreElement convert.
#ifndef XLA_BACKENDS_CPU_CODEGEN_SCALAR_OPS_H_
#define XLA_BACKENDS_CPU_CODEGEN_SCALAR_OPS_H_

#include <vector>

#include "llvm/IR/IRBuilder.h"
#include "xla/hlo/ir/attributes.h"
#include "xla/hlo/ir/opcode.h"
#include "xla/hlo/ir/primitive_type.h"
#include "xla/status.h"

namespace xla {
class HloInstruction;
class Literal;
}  // namespace xla

namespace xla::cpu {

// Element types the CPU emitters handle (all array types; complex values
// are {re, im} structs, see complex_ops.cc).
bool IsSupportedElementType(PrimitiveType type);

llvm::Type* StorageType(PrimitiveType type, llvm::LLVMContext& ctx);
llvm::Type* RegisterType(PrimitiveType type, llvm::LLVMContext& ctx);

// ptr[index] of element type `type`, in register type.
llvm::Value* LoadElement(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* ptr,
                         llvm::Value* index);
void StoreElement(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* value,
                  llvm::Value* ptr, llvm::Value* index);

// Element `i` of a literal as a register-type constant.
llvm::Value* LiteralElement(llvm::IRBuilder<>& b, const Literal& literal, int64_t i);

// Rounds a float register value to f16/bf16 precision; identity for other types.
llvm::Value* RoundToType(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* value);

// Elementwise ops, given operand register values. `instr` supplies the opcode
// and attributes (comparison direction...); `operand_type` is the element type
// of operand 0 (of operand 1 for select and clamp's min), `result_type` of the result.
StatusOr<llvm::Value*> EmitElementwise(llvm::IRBuilder<>& b, const HloInstruction& instr,
                                       const std::vector<PrimitiveType>& operand_types,
                                       const std::vector<llvm::Value*>& operands);

// Conversion with XLA semantics: float->int saturates (NaN -> 0), x->pred is x != 0.
llvm::Value* EmitConvert(llvm::IRBuilder<>& b, PrimitiveType from, PrimitiveType to,
                         llvm::Value* value);

// An i64 as a register value of `type` (iota).
llvm::Value* IntToType(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* value);

// NaN-propagating maximum/minimum (also for integers), as HLO defines them.
llvm::Value* EmitMax(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* x, llvm::Value* y);
llvm::Value* EmitMin(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* x, llvm::Value* y);

// The additive zero / multiplicative one of a type, in register type.
llvm::Value* Zero(llvm::IRBuilder<>& b, PrimitiveType type);

// Complex support (complex_ops.cc): the {re, im} struct type, building and
// splitting values, and the elementwise ops whose operand 0 is complex.
llvm::Type* ComplexRegisterType(PrimitiveType type, llvm::LLVMContext& ctx);
llvm::Value* MakeComplex(llvm::IRBuilder<>& b, llvm::Value* re, llvm::Value* im);
llvm::Value* ComplexPart(llvm::IRBuilder<>& b, llvm::Value* z, int part);
StatusOr<llvm::Value*> EmitComplexElementwise(llvm::IRBuilder<>& b, const HloInstruction& instr,
                                              PrimitiveType type,
                                              const std::vector<llvm::Value*>& operands);

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_CODEGEN_SCALAR_OPS_H_
