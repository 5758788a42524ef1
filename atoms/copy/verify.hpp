#pragma once
// What a copy atom can do, as one rule sentence per violation. copy_error / copy_width_error
// are constexpr (usable in static_assert and in the typed atoms' checks); verify_copy is the
// throwing form for run-time authoring paths (the CLI, JSON configs, the IR verifier).
#include <atoms/arch.hpp>
#include <atoms/copy/gfx12_copy_instrs.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tw::atoms {

// One use of a copy atom, as the author states it.
struct CopyUse {
  AddressSpace pointer_space;           // space of the pointer / resource the copy goes through
  std::int64_t static_offset_bytes = 0; // compile-time byte offset from an aligned base
  std::string_view arch = "gfx1201";    // target processor name
};

// Why a copy atom needs its alignment, per instruction family.
constexpr std::string_view alignment_rule(const CopyInstrInfo& info) {
  switch (info.path) {
  case CopyPath::lds:
    return "LDS accesses must be naturally aligned (4 / 8 / 16 bytes for b32 / b64 / b128): "
           "LLVM selects ds_load_b64 / b128 and ds_store_b64 / b128 only for such addresses and "
           "splits less aligned ones into ds_*_2addr pairs";
  case CopyPath::buffer:
    return "buffer accesses must be naturally aligned (4 / 8 / 16 bytes for b32 / b64 / b128) "
           "so that the per-dword num_records check never splits an element";
  case CopyPath::global:
    return "global accesses must be naturally aligned (4 / 8 / 16 bytes for b32 / b64 / b128): "
           "the hardware tolerates less, but tilewave states `align N` in the IR and keeps "
           "each vector within one N-byte block";
  }
  return {};
}

// Empty when tilewave has a (path, dir) copy of width_bits, else the rule.
constexpr std::string_view copy_width_error(int width_bits) {
  if (is_copy_width(width_bits))
    return {};
  return "copy atoms move 32, 64 or 128 bits per lane (b32, b64, b128): other widths are not "
         "tilewave copy atoms (split the access, or widen it to a supported width)";
}

// Empty when `use` is valid for `info`, else the rule that it breaks.
constexpr std::string_view copy_error(const CopyInstrInfo& info, const CopyUse& use) {
  if (!try_parse_arch(use.arch))
    return "copy atoms are gfx12 instructions: the target must be gfx1200 or gfx1201";
  if (use.pointer_space != info.address_space) {
    switch (info.path) {
    case CopyPath::global:
      return "global copy atoms take a global pointer (addrspace 1)";
    case CopyPath::lds:
      return "LDS copy atoms take an LDS pointer (addrspace 3)";
    case CopyPath::buffer:
      return "buffer copy atoms take a buffer resource (addrspace 8): make one from the global "
             "pointer and the tensor's size in bytes (num_records)";
    }
  }
  if (use.static_offset_bytes % info.alignment_bytes != 0)
    return alignment_rule(info);
  return {};
}

constexpr std::string_view copy_error(const CopyInstrInfo& info, AddressSpace space,
                                      std::int64_t static_offset_bytes, Arch arch) {
  return copy_error(info, CopyUse{space, static_offset_bytes, arch_name(arch)});
}

// Throws std::invalid_argument "<mnemonic>: <rule> (<what was given>)" when `use` is invalid.
inline void verify_copy(const CopyInstrInfo& info, const CopyUse& use) {
  const std::string_view e = copy_error(info, use);
  if (e.empty())
    return;
  std::string given;
  if (!try_parse_arch(use.arch))
    given = "got arch '" + std::string(use.arch) + "'";
  else if (use.pointer_space != info.address_space)
    given = "got " + std::string(address_space_name(use.pointer_space));
  else
    given = "got static offset " + std::to_string(use.static_offset_bytes) +
            ", not a multiple of " + std::to_string(info.alignment_bytes);
  throw std::invalid_argument(std::string(info.mnemonic) + ": " + std::string(e) + " (" + given +
                              ")");
}

// The instruction for (path, dir, width_bits), or std::invalid_argument with the width rule.
inline const CopyInstrInfo& copy_instr_or_throw(CopyPath path, CopyDir dir, int width_bits) {
  if (const CopyInstrInfo* i = find_copy_instr(path, dir, width_bits))
    return *i;
  throw std::invalid_argument(
      std::string(copy_path_name(path)) + (dir == CopyDir::load ? " load of " : " store of ") +
      std::to_string(width_bits) + " bits: " + std::string(copy_width_error(width_bits)));
}

} // namespace tw::atoms
