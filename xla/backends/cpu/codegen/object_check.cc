// See object_check.h.
#include "xla/backends/cpu/codegen/object_check.h"

#include <cstdint>
#include <string>

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Error.h"
#include "llvm/TargetParser/Triple.h"

namespace xla::cpu {
namespace {

using File = llvm::object::ELF64LEFile;
using Shdr = File::Elf_Shdr;

// Sections bigger than this are not something our code generator emits; the
// limit keeps a damaged size from turning into a huge allocation in the linker.
constexpr uint64_t kMaxSectionBytes = uint64_t{1} << 30;
constexpr uint64_t kMaxAlignment = uint64_t{1} << 16;

Status Bad(const std::string& what) {
  return InvalidArgument("serialized machine code is damaged: " + what);
}

template <typename T>
StatusOr<T> Take(llvm::Expected<T> value, const std::string& what) {
  if (!value) return Bad(what + " (" + llvm::toString(value.takeError()) + ")");
  return std::move(*value);
}

uint16_t MachineOf(const llvm::Triple& triple) {
  switch (triple.getArch()) {
    case llvm::Triple::x86_64: return llvm::ELF::EM_X86_64;
    case llvm::Triple::aarch64: return llvm::ELF::EM_AARCH64;
    case llvm::Triple::ppc64le: return llvm::ELF::EM_PPC64;
    case llvm::Triple::riscv64: return llvm::ELF::EM_RISCV;
    default: return llvm::ELF::EM_NONE;
  }
}

// Bytes an x86-64 relocation writes at its offset, for the kinds LLVM's
// code generator emits with the small and medium code models; -1 for others.
int X86_64RelocationWidth(uint32_t type) {
  using namespace llvm::ELF;
  switch (type) {
    case R_X86_64_NONE: return 0;
    case R_X86_64_64: case R_X86_64_PC64: case R_X86_64_GOTOFF64: case R_X86_64_GOTPC64:
    case R_X86_64_GOT64: case R_X86_64_GOTPCREL64: case R_X86_64_SIZE64:
      return 8;
    case R_X86_64_PC32: case R_X86_64_PLT32: case R_X86_64_32: case R_X86_64_32S:
    case R_X86_64_GOTPCREL: case R_X86_64_GOTPCRELX: case R_X86_64_REX_GOTPCRELX:
    case R_X86_64_GOTPC32: case R_X86_64_SIZE32:
      return 4;
    default: return -1;
  }
}

Status CheckHeader(const File& file, const llvm::Triple& triple) {
  const auto& h = file.getHeader();
  if (h.e_type != llvm::ELF::ET_REL) return Bad("not a relocatable object (e_type)");
  uint16_t machine = MachineOf(triple);
  if (machine == llvm::ELF::EM_NONE || h.e_machine != machine) {
    return Bad("the object's machine (" + std::to_string(h.e_machine) +
               ") is not this host's (" + triple.str() + ")");
  }
  if (h.e_shnum != 0 && h.e_shentsize != sizeof(Shdr)) return Bad("section header entry size");
  return OkStatus();
}

Status CheckSection(const File& file, const Shdr& s, size_t index, size_t count) {
  std::string where = "section " + std::to_string(index);
  if (s.sh_addralign > kMaxAlignment || (s.sh_addralign & (s.sh_addralign - 1)) != 0) {
    return Bad(where + " has alignment " + std::to_string(s.sh_addralign));
  }
  if (s.sh_size > kMaxSectionBytes) return Bad(where + " is too large");
  if (s.sh_link >= count) return Bad(where + " links to a section that does not exist");
  if (s.sh_type != llvm::ELF::SHT_NOBITS) {
    RETURN_IF_ERROR(Take(file.getSectionContents(s), where + " contents").status());
  }
  RETURN_IF_ERROR(Take(file.getSectionName(s), where + " name").status());
  return OkStatus();
}

Status CheckSymbols(const File& file, const Shdr& symtab, llvm::ArrayRef<Shdr> sections,
                    const std::function<bool(std::string_view)>& is_runtime_symbol) {
  if (symtab.sh_entsize != sizeof(File::Elf_Sym)) return Bad("symbol table entry size");
  ASSIGN_OR_RETURN(auto symbols, Take(file.symbols(&symtab), "symbol table"));
  ASSIGN_OR_RETURN(llvm::StringRef strtab,
                   Take(file.getStringTableForSymtab(symtab, sections), "symbol names"));
  size_t i = 0;
  for (const auto& sym : symbols) {
    std::string where = "symbol " + std::to_string(i++);
    ASSIGN_OR_RETURN(llvm::StringRef name, Take(sym.getName(strtab), where + " name"));
    uint16_t shndx = sym.st_shndx;
    if (shndx == llvm::ELF::SHN_UNDEF) {
      if (!name.empty() && !is_runtime_symbol(std::string_view(name.data(), name.size()))) {
        return Bad("it calls '" + name.str() + "', which is not part of the kernels' runtime");
      }
      continue;
    }
    if (shndx == llvm::ELF::SHN_ABS) continue;
    if (shndx >= sections.size()) return Bad(where + " is in a section that does not exist");
    const Shdr& home = sections[shndx];
    if (sym.getType() == llvm::ELF::STT_SECTION) continue;
    if (sym.st_value > home.sh_size || sym.st_size > home.sh_size - sym.st_value) {
      return Bad(where + " lies outside its section");
    }
  }
  return OkStatus();
}

Status CheckRelocations(const File& file, const Shdr& rela, llvm::ArrayRef<Shdr> sections,
                        uint16_t machine) {
  if (rela.sh_entsize != sizeof(File::Elf_Rela)) return Bad("relocation entry size");
  if (rela.sh_info >= sections.size()) return Bad("relocations of a section that does not exist");
  const Shdr& target = sections[rela.sh_info];
  const Shdr& symtab = sections[rela.sh_link];
  if (symtab.sh_type != llvm::ELF::SHT_SYMTAB || symtab.sh_entsize == 0) {
    return Bad("relocations that do not refer to a symbol table");
  }
  uint64_t num_symbols = symtab.sh_size / symtab.sh_entsize;
  ASSIGN_OR_RETURN(auto relocations, Take(file.relas(rela), "relocation table"));
  for (const auto& r : relocations) {
    uint32_t type = r.getType(false);
    int width = machine == llvm::ELF::EM_X86_64 ? X86_64RelocationWidth(type) : 1;
    if (width < 0) return Bad("relocation type " + std::to_string(type) + " is not supported");
    if (r.getSymbol(false) >= num_symbols) return Bad("relocation against a missing symbol");
    if (r.r_offset > target.sh_size || static_cast<uint64_t>(width) > target.sh_size - r.r_offset) {
      return Bad("relocation outside the section it patches");
    }
  }
  return OkStatus();
}

}  // namespace

Status CheckJitObject(std::string_view object, std::string_view triple_name,
                      const std::function<bool(std::string_view)>& is_runtime_symbol) {
  llvm::Triple triple{llvm::StringRef(triple_name.data(), triple_name.size())};
  ASSIGN_OR_RETURN(File file, Take(File::create(llvm::StringRef(object.data(), object.size())),
                                   "ELF header"));
  RETURN_IF_ERROR(CheckHeader(file, triple));
  ASSIGN_OR_RETURN(auto sections, Take(file.sections(), "section headers"));
  llvm::ArrayRef<Shdr> table(sections.begin(), sections.end());
  for (size_t i = 0; i < table.size(); ++i) {
    RETURN_IF_ERROR(CheckSection(file, table[i], i, table.size()));
  }
  for (const Shdr& s : table) {
    switch (s.sh_type) {
      case llvm::ELF::SHT_SYMTAB:
        RETURN_IF_ERROR(CheckSymbols(file, s, table, is_runtime_symbol));
        break;
      case llvm::ELF::SHT_RELA:
        RETURN_IF_ERROR(CheckRelocations(file, s, table, file.getHeader().e_machine));
        break;
      case llvm::ELF::SHT_REL:
        return Bad("REL relocations (this target's objects use RELA)");
      case llvm::ELF::SHT_SYMTAB_SHNDX:
        return Bad("extended section indices");
      default:
        break;
    }
  }
  return OkStatus();
}

}  // namespace xla::cpu
