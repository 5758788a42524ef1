// Validation of a code object's ELF layout and metadata encoding (see code_object_checks.hpp).
#include <runtime/emu/code_object_checks.hpp>

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackReader.h>
#include <llvm/Support/Error.h>

#include <cstring>
#include <fmt/format.h>
#include <vector>

namespace tw::emu {
namespace {

[[noreturn]] void fail(std::string_view what) {
  throw CodeObjectError(fmt::format("code object: {}", what));
}

template <class T>
T read_at(std::span<const uint8_t> file, uint64_t offset) {
  T v;
  std::memcpy(&v, file.data() + offset, sizeof(T));
  return v;
}

// [offset, offset + count * entry_size) lies in the file (no overflow on the way).
bool table_fits(std::span<const uint8_t> file, uint64_t offset, uint64_t count,
                uint64_t entry_size) {
  if (offset > file.size())
    return false;
  const uint64_t room = file.size() - offset;
  return entry_size == 0 || count <= room / entry_size;
}

bool is_power_of_two_or_zero(uint64_t v) {
  return (v & (v - 1)) == 0;
}

void check_header(std::span<const uint8_t> file, const llvm::ELF::Elf64_Ehdr& h) {
  using namespace llvm::ELF;
  if (h.e_ident[EI_CLASS] != ELFCLASS64)
    fail(fmt::format("e_ident[EI_CLASS] {} is not ELFCLASS64 (an AMDGPU code object is a 64-bit "
                     "ELF)",
                     h.e_ident[EI_CLASS]));
  if (h.e_ident[EI_DATA] != ELFDATA2LSB)
    fail(fmt::format("e_ident[EI_DATA] {} is not ELFDATA2LSB (an AMDGPU code object is "
                     "little-endian)",
                     h.e_ident[EI_DATA]));
  if (h.e_machine != EM_AMDGPU)
    fail(fmt::format("e_machine {} is not EM_AMDGPU ({})", h.e_machine, int(EM_AMDGPU)));
  if (h.e_ehsize != sizeof(Elf64_Ehdr))
    fail(fmt::format("e_ehsize {} is not {}", h.e_ehsize, sizeof(Elf64_Ehdr)));
  if (h.e_phnum != 0 && h.e_phentsize != sizeof(Elf64_Phdr))
    fail(fmt::format("e_phentsize {} is not {}", h.e_phentsize, sizeof(Elf64_Phdr)));
  if (h.e_phnum == PN_XNUM)
    fail("e_phnum 0xffff (extended program-header numbering) is not supported");
  if (h.e_phoff % 8 != 0 || !table_fits(file, h.e_phoff, h.e_phnum, sizeof(Elf64_Phdr)))
    fail(fmt::format("program-header table (e_phoff {}, e_phnum {}) is misaligned or runs past "
                     "the end of the {}-byte file",
                     h.e_phoff, h.e_phnum, file.size()));
  if (h.e_shnum == 0)
    fail("e_shnum is 0: the file has no section headers (need .text, notes and symbols)");
  if (h.e_shentsize != sizeof(Elf64_Shdr))
    fail(fmt::format("e_shentsize {} is not {}", h.e_shentsize, sizeof(Elf64_Shdr)));
  if (h.e_shoff % 8 != 0 || !table_fits(file, h.e_shoff, h.e_shnum, sizeof(Elf64_Shdr)))
    fail(fmt::format("section-header table (e_shoff {}, e_shnum {}) is misaligned or runs past "
                     "the end of the {}-byte file",
                     h.e_shoff, h.e_shnum, file.size()));
  if (h.e_shstrndx >= h.e_shnum)
    fail(fmt::format("e_shstrndx {} is not a section index (e_shnum {})", h.e_shstrndx, h.e_shnum));
}

uint64_t check_segments(std::span<const uint8_t> file, const llvm::ELF::Elf64_Ehdr& h) {
  using namespace llvm::ELF;
  uint64_t end = 0;
  for (uint64_t i = 0; i < h.e_phnum; ++i) {
    const auto ph = read_at<Elf64_Phdr>(file, h.e_phoff + i * sizeof(Elf64_Phdr));
    if (ph.p_type != PT_LOAD)
      continue;
    if (!table_fits(file, ph.p_offset, ph.p_filesz, 1))
      fail(fmt::format("program header {}: p_offset {} + p_filesz {} runs past the end of the "
                       "{}-byte file",
                       i, ph.p_offset, ph.p_filesz, file.size()));
    if (ph.p_filesz > ph.p_memsz)
      fail(fmt::format("program header {}: p_filesz {} exceeds p_memsz {}", i, ph.p_filesz,
                       ph.p_memsz));
    if (ph.p_vaddr > kMaxCodeObjectImageBytes || ph.p_memsz > kMaxCodeObjectImageBytes - ph.p_vaddr)
      fail(fmt::format("program header {}: p_vaddr {:#x} + p_memsz {:#x} exceeds the {} MiB "
                       "limit of a loaded code object",
                       i, ph.p_vaddr, ph.p_memsz, kMaxCodeObjectImageBytes >> 20));
    end = std::max(end, ph.p_vaddr + ph.p_memsz);
  }
  if (end == 0)
    fail("no PT_LOAD program header with contents: nothing to load");
  return (end + 4095) & ~uint64_t(4095);
}

void check_sections(std::span<const uint8_t> file, const llvm::ELF::Elf64_Ehdr& h) {
  using namespace llvm::ELF;
  for (uint64_t i = 0; i < h.e_shnum; ++i) {
    const auto sh = read_at<Elf64_Shdr>(file, h.e_shoff + i * sizeof(Elf64_Shdr));
    if (sh.sh_type == SHT_NULL)
      continue;
    if (sh.sh_type != SHT_NOBITS && !table_fits(file, sh.sh_offset, sh.sh_size, 1))
      fail(fmt::format("section {}: sh_offset {} + sh_size {} runs past the end of the {}-byte "
                       "file",
                       i, sh.sh_offset, sh.sh_size, file.size()));
    if (!is_power_of_two_or_zero(sh.sh_addralign))
      fail(fmt::format("section {}: sh_addralign {} is not a power of two", i, sh.sh_addralign));
    if (sh.sh_link >= h.e_shnum)
      fail(fmt::format("section {}: sh_link {} is not a section index (e_shnum {})", i, sh.sh_link,
                       h.e_shnum));
    uint64_t entry = 0;
    if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
      entry = sizeof(Elf64_Sym);
    else if (sh.sh_type == SHT_RELA)
      entry = sizeof(Elf64_Rela);
    if (entry && (sh.sh_entsize != entry || sh.sh_size % entry != 0))
      fail(fmt::format("section {}: sh_entsize {} / sh_size {} is not a table of {}-byte entries",
                       i, sh.sh_entsize, sh.sh_size, entry));
    if (sh.sh_type == SHT_NOTE && sh.sh_addralign != 4 && sh.sh_addralign != 8)
      fail(fmt::format("note section {}: sh_addralign {} is not 4 or 8", i, sh.sh_addralign));
  }
}

} // namespace

uint64_t check_elf_layout(std::span<const uint8_t> file) {
  if (file.size() < sizeof(llvm::ELF::Elf64_Ehdr) ||
      std::memcmp(file.data(), llvm::ELF::ElfMagic, 4) != 0)
    fail("not an ELF file (an offload bundle? compile with --no-gpu-bundle-output)");
  const auto h = read_at<llvm::ELF::Elf64_Ehdr>(file, 0);
  check_header(file, h);
  check_sections(file, h);
  return check_segments(file, h);
}

void check_metadata_msgpack(std::string_view blob) {
  using llvm::msgpack::Type;
  struct Level {
    uint64_t remaining; // values still to read (a map counts keys and values)
    bool is_map;
  };
  std::vector<Level> open;
  llvm::msgpack::Reader reader(llvm::StringRef(blob.data(), blob.size()));
  bool root_read = false;
  while (!(root_read && open.empty())) {
    if (!open.empty() && open.back().remaining == 0) {
      open.pop_back();
      continue;
    }
    const bool is_key = !open.empty() && open.back().is_map && open.back().remaining % 2 == 0;
    llvm::msgpack::Object obj;
    auto more = reader.read(obj);
    if (!more)
      fail("AMDGPU metadata note is not valid msgpack: " + llvm::toString(more.takeError()));
    if (!*more)
      fail("AMDGPU metadata note ends inside a msgpack array or map");
    if (open.empty())
      root_read = true;
    else
      --open.back().remaining;
    if (is_key && obj.Kind != Type::String && obj.Kind != Type::Int && obj.Kind != Type::UInt &&
        obj.Kind != Type::Boolean && obj.Kind != Type::Nil && obj.Kind != Type::Binary)
      fail("AMDGPU metadata note has a map key that is not a string or integer");
    if (obj.Kind == Type::Array || obj.Kind == Type::Map) {
      if (open.size() >= 64)
        fail("AMDGPU metadata note nests arrays / maps more than 64 deep");
      open.push_back(
          {obj.Kind == Type::Map ? 2 * uint64_t(obj.Length) : obj.Length, obj.Kind == Type::Map});
    }
  }
}

} // namespace tw::emu
