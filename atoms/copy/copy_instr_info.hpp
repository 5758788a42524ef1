#pragma once
// Plain constexpr description of one gfx12 per-lane copy instruction (a load or a store of
// 32, 64 or 128 bits through global memory, a buffer resource or LDS): what the emitters, the
// emulator and the verifier read without instantiating any atom type.
#include <atoms/copy/address_space.hpp>

#include <cstdint>
#include <string_view>

namespace tw::atoms {

// The instruction family, which fixes the address space and the addressing rules.
enum class CopyPath : std::uint8_t {
  global, // global_load_* / global_store_*: 64-bit address, 24-bit signed immediate offset
  buffer, // buffer_*: descriptor + 32-bit byte offset, range-checked against num_records
  lds,    // ds_load_* / ds_store_*: 32-bit LDS address, 16-bit unsigned immediate offset
};

enum class CopyDir : std::uint8_t { load, store };

constexpr std::string_view copy_path_name(CopyPath p) {
  return p == CopyPath::global ? "global" : (p == CopyPath::buffer ? "buffer" : "LDS");
}

constexpr AddressSpace address_space_of(CopyPath p) {
  return p == CopyPath::global
             ? AddressSpace::global
             : (p == CopyPath::buffer ? AddressSpace::buffer_resource : AddressSpace::lds);
}

struct CopyInstrInfo {
  std::string_view mnemonic; // gfx12 assembly, e.g. "global_load_b128"
  // Prefix of LLVM's MCInstrInfo names for this instruction (the emulator dispatches on it);
  // the full names add the addressing variant and "_gfx12", e.g. GLOBAL_LOAD_DWORDX4_SADDR_gfx12,
  // BUFFER_LOAD_DWORDX4_VBUFFER_OFFEN_gfx12, DS_READ_B128_gfx12.
  std::string_view mc_name_prefix;
  CopyPath path;
  CopyDir dir;
  int width_bits;      // bits moved per lane: 32, 64 or 128
  int alignment_bytes; // the address must be a multiple of this (see alignment_rule)
  AddressSpace address_space;
  std::string_view ir_type;   // the LLVM value type moved: "i32", "<2 x i32>", "<4 x i32>"
  std::string_view intrinsic; // LLVM intrinsic, empty when the IR form is a plain load/store
  // How an emitter writes it: the LLVM IR (with %p the pointer / resource, %off the byte
  // offset, %v the stored value) and the HIP / clang form.
  std::string_view ir_form;
  std::string_view hip_form;
  std::int64_t min_imm_offset, max_imm_offset; // immediate offset field of the encoding
  bool zero_past_num_records;                  // buffer loads: dwords past num_records read as 0
  bool drop_past_num_records; // buffer stores: dwords past num_records are not written

  constexpr int bytes() const { return width_bits / 8; }
  constexpr int vgprs() const { return width_bits / 32; }
  constexpr int elements(int elem_bits) const { return width_bits / elem_bits; }
  constexpr bool fits_imm_offset(std::int64_t off) const {
    return off >= min_imm_offset && off <= max_imm_offset;
  }
};

} // namespace tw::atoms
