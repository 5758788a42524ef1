// Regression tests for issue 17 (code objects): a code object built here by clang-22 with one
// field mutated at a time must be refused with one CodeObjectError sentence naming the field,
// never crash, hang or allocate gigabytes; and 600 seeded random byte mutations must each
// load or be refused.
#include "emu_test_util.hpp"

#include <runtime/emu/code_object.hpp>
#include <runtime/emu/code_object_checks.hpp>

#include <llvm/BinaryFormat/ELF.h>

#include <cstring>
#include <doctest/doctest.h>
#include <optional>
#include <random>
#include <string>

using namespace tw::emu;
namespace elf = llvm::ELF;

namespace {

std::vector<uint8_t> original() {
  static const std::vector<uint8_t> bytes =
      tw::test::read_file_bytes(tw::test::kernel_variants("core_globals")[3].path);
  return bytes;
}

template <class T>
T get(const std::vector<uint8_t>& b, uint64_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}
template <class T>
void put(std::vector<uint8_t>& b, uint64_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof(T));
}

elf::Elf64_Ehdr header(const std::vector<uint8_t>& b) {
  return get<elf::Elf64_Ehdr>(b, 0);
}
uint64_t phdr_offset(const std::vector<uint8_t>& b, uint32_t type) {
  const auto h = header(b);
  for (uint64_t i = 0; i < h.e_phnum; ++i) {
    const uint64_t off = h.e_phoff + i * sizeof(elf::Elf64_Phdr);
    if (get<elf::Elf64_Phdr>(b, off).p_type == type)
      return off;
  }
  FAIL("no program header of type " << type);
  return 0;
}
// File offset of the section header with this name or type (first match).
std::optional<uint64_t> shdr_offset(const std::vector<uint8_t>& b, std::string_view name,
                                    uint32_t type = 0) {
  const auto h = header(b);
  const auto strtab =
      get<elf::Elf64_Shdr>(b, h.e_shoff + uint64_t(h.e_shstrndx) * sizeof(elf::Elf64_Shdr));
  for (uint64_t i = 0; i < h.e_shnum; ++i) {
    const uint64_t off = h.e_shoff + i * sizeof(elf::Elf64_Shdr);
    const auto sh = get<elf::Elf64_Shdr>(b, off);
    const char* n = reinterpret_cast<const char*>(b.data() + strtab.sh_offset + sh.sh_name);
    if ((type != 0 && sh.sh_type == type) || (type == 0 && name == n))
      return off;
  }
  return std::nullopt;
}
elf::Elf64_Shdr section(const std::vector<uint8_t>& b, uint64_t shdr_off) {
  return get<elf::Elf64_Shdr>(b, shdr_off);
}
// File offset of the AMDGPU metadata note's descriptor (msgpack).
uint64_t metadata_offset(const std::vector<uint8_t>& b) {
  const auto note = section(b, *shdr_offset(b, "", elf::SHT_NOTE));
  const uint32_t namesz = get<uint32_t>(b, note.sh_offset);
  return note.sh_offset + 12 + ((namesz + 3) & ~3u);
}
// File offset of the first kernel descriptor (the first "*.kd" symbol's value).
uint64_t descriptor_symbol_offset(const std::vector<uint8_t>& b) {
  const auto symtab = section(b, *shdr_offset(b, "", elf::SHT_SYMTAB));
  const auto strtab = section(b, header(b).e_shoff + symtab.sh_link * sizeof(elf::Elf64_Shdr));
  for (uint64_t off = symtab.sh_offset; off < symtab.sh_offset + symtab.sh_size;
       off += sizeof(elf::Elf64_Sym)) {
    const std::string n(reinterpret_cast<const char*>(b.data() + strtab.sh_offset +
                                                      get<elf::Elf64_Sym>(b, off).st_name));
    if (n.size() > 3 && n.substr(n.size() - 3) == ".kd")
      return off;
  }
  FAIL("no .kd symbol");
  return 0;
}

// Loading `b` throws a CodeObjectError whose message holds every `fragment`.
void refused(const std::vector<uint8_t>& b, std::initializer_list<std::string_view> fragments) {
  try {
    (void)CodeObject::load(b);
    FAIL("the mutated code object was accepted");
  } catch (const CodeObjectError& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.rfind("code object: ", 0) == 0);
    for (auto f : fragments)
      CHECK(what.find(f) != std::string::npos);
  }
}

} // namespace

TEST_CASE("code object hostile: the unmutated code object loads") {
  CHECK_NOTHROW((void)CodeObject::load(original()));
}

TEST_CASE("code object hostile: a 32-bit or big-endian ELF is refused") {
  auto b = original();
  b[elf::EI_CLASS] = elf::ELFCLASS32;
  refused(b, {"EI_CLASS", "64-bit"});
  b = original();
  b[elf::EI_DATA] = elf::ELFDATA2MSB;
  refused(b, {"EI_DATA", "little-endian"});
  b = original();
  put<uint16_t>(b, offsetof(elf::Elf64_Ehdr, e_machine), elf::EM_X86_64);
  refused(b, {"e_machine 62"});
}

TEST_CASE("code object hostile: header tables outside the file are refused") {
  auto b = original();
  put<uint64_t>(b, offsetof(elf::Elf64_Ehdr, e_phoff), uint64_t(1) << 62);
  refused(b, {"program-header table", "e_phoff"});
  b = original();
  put<uint64_t>(b, offsetof(elf::Elf64_Ehdr, e_shoff), b.size() - 8);
  refused(b, {"section-header table", "e_shoff"});
  b = original();
  put<uint16_t>(b, offsetof(elf::Elf64_Ehdr, e_shnum), 0xfff0);
  refused(b, {"section-header table", "e_shnum 65520"});
  b = original();
  put<uint16_t>(b, offsetof(elf::Elf64_Ehdr, e_shstrndx), header(b).e_shnum);
  refused(b, {"e_shstrndx"});
  b = original();
  put<uint16_t>(b, offsetof(elf::Elf64_Ehdr, e_phentsize), 32);
  refused(b, {"e_phentsize 32"});
  b = original();
  b.resize(40);
  refused(b, {"not an ELF file"});
}

TEST_CASE("code object hostile: a segment's size is checked before the image is allocated") {
  // The file: p_memsz 0x200000001 asked for 8.4 GB.
  auto b = original();
  const uint64_t load = phdr_offset(b, elf::PT_LOAD);
  put<uint64_t>(b, load + offsetof(elf::Elf64_Phdr, p_memsz), 0x200000001ull);
  refused(b, {"p_memsz 0x200000001", "64 MiB limit"});
  b = original(); // p_vaddr + p_memsz wraps around 2^64
  put<uint64_t>(b, load + offsetof(elf::Elf64_Phdr, p_vaddr), ~uint64_t(0) - 15);
  refused(b, {"p_vaddr 0xfffffffffffffff0"});
  b = original();
  put<uint64_t>(b, load + offsetof(elf::Elf64_Phdr, p_offset), ~uint64_t(0) - 3);
  refused(b, {"p_offset", "runs past the end"});
  b = original();
  const auto ph = get<elf::Elf64_Phdr>(b, load);
  put<uint64_t>(b, load + offsetof(elf::Elf64_Phdr, p_filesz), ph.p_memsz + 4);
  refused(b, {"p_filesz"});
}

TEST_CASE("code object hostile: section fields are bounds-checked") {
  auto b = original();
  const uint64_t text = *shdr_offset(b, ".text");
  put<uint64_t>(b, text + offsetof(elf::Elf64_Shdr, sh_offset), uint64_t(1) << 40);
  refused(b, {"sh_offset", "runs past the end"});
  b = original();
  put<uint64_t>(b, text + offsetof(elf::Elf64_Shdr, sh_addralign), 3);
  refused(b, {"sh_addralign 3 is not a power of two"});
  b = original(); // .text placed beyond the loaded image (decoding would read past it)
  put<uint64_t>(b, text + offsetof(elf::Elf64_Shdr, sh_addr), uint64_t(1) << 40);
  refused(b, {".text sh_addr", "outside"});
  b = original();
  const uint64_t symtab = *shdr_offset(b, "", elf::SHT_SYMTAB);
  put<uint64_t>(b, symtab + offsetof(elf::Elf64_Shdr, sh_entsize), 5);
  refused(b, {"sh_entsize 5"});
  b = original();
  put<uint32_t>(b, symtab + offsetof(elf::Elf64_Shdr, sh_link), 0x7fff);
  refused(b, {"sh_link 32767"});
  b = original();
  const uint64_t note = *shdr_offset(b, "", elf::SHT_NOTE);
  put<uint64_t>(b, note + offsetof(elf::Elf64_Shdr, sh_addralign), 16);
  refused(b, {"sh_addralign 16 is not 4 or 8"});
}

TEST_CASE("code object hostile: a note descriptor larger than its section is refused") {
  auto b = original();
  const auto note = section(b, *shdr_offset(b, "", elf::SHT_NOTE));
  put<uint32_t>(b, note.sh_offset + 4, 0x7ffffff0); // n_descsz
  refused(b, {"note"});
}

TEST_CASE("code object hostile: malformed AMDHSA metadata msgpack is refused, not aborted on") {
  // An array used as a map key made llvm::msgpack::Document abort (SIGILL).
  auto b = original();
  const uint64_t md = metadata_offset(b);
  const uint8_t array_key[] = {0x81, 0x91, 0x01, 0x01}; // {[1]: 1}
  std::memcpy(b.data() + md, array_key, sizeof array_key);
  refused(b, {"map key that is not a string or integer"});
  b = original(); // an array claiming 2^32 - 1 elements
  const uint8_t huge_array[] = {0xdd, 0xff, 0xff, 0xff, 0xff};
  std::memcpy(b.data() + md, huge_array, sizeof huge_array);
  refused(b, {"metadata note ends inside"});
  b = original(); // deep nesting
  std::memset(b.data() + md, 0x91, 80);
  refused(b, {"more than 64 deep"});
}

TEST_CASE("code object hostile: a target other than gfx1200 / gfx1201 is refused") {
  auto b = original();
  const uint64_t md = metadata_offset(b);
  const std::string_view cpu = "gfx1201";
  auto* begin = b.data() + md;
  auto* at = std::search(begin, b.data() + b.size(), cpu.begin(), cpu.end());
  REQUIRE(at != b.data() + b.size());
  at[4] = '9'; // gfx1901
  refused(b, {"target 'gfx1901' is not gfx12"});
}

TEST_CASE("code object hostile: descriptor fields are bounds-checked") {
  auto b = original();
  const uint64_t sym = descriptor_symbol_offset(b);
  put<uint64_t>(b, sym + offsetof(elf::Elf64_Sym, st_value), ~uint64_t(0) - 8);
  refused(b, {"descriptor symbol", "outside"});
  // private_segment_fixed_size 0x7fffffff would size scratch at 64 GiB per wave.
  b = original();
  const uint64_t kd_vaddr = get<elf::Elf64_Sym>(b, sym).st_value;
  const auto load = get<elf::Elf64_Phdr>(b, phdr_offset(b, elf::PT_LOAD));
  REQUIRE(kd_vaddr >= load.p_vaddr);
  REQUIRE(kd_vaddr + 64 <= load.p_vaddr + load.p_filesz);
  put<uint32_t>(b, load.p_offset + (kd_vaddr - load.p_vaddr) + 4, 0x7fffffff);
  refused(b, {"private_segment_fixed_size 2147483647"});
}

TEST_CASE("code object hostile: 600 seeded random byte mutations load or are refused") {
  const auto base = original();
  std::mt19937_64 rng(17);
  int refused_count = 0, loaded = 0;
  for (int trial = 0; trial < 600; ++trial) {
    auto b = base;
    // Mostly the headers and tables (where the loader's trust was), some anywhere.
    const int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      const size_t at = rng() % 2 ? rng() % 64 : rng() % b.size();
      b[at] = static_cast<uint8_t>(rng());
    }
    try {
      (void)CodeObject::load(b);
      ++loaded;
    } catch (const EmuError&) {
      ++refused_count;
    }
  }
  MESSAGE(loaded << " loaded, " << refused_count << " refused");
  CHECK(loaded + refused_count == 600);
  CHECK(refused_count > 0);
}
