#pragma once
// The gfx12 per-lane copy instructions tilewave uses, as constexpr data. Mnemonics, MC names
// and immediate offset ranges were checked with llvm-mc-22 -mcpu=gfx1201 (-show-encoding,
// -show-inst; cf. llvm/test/MC/AMDGPU/gfx12_asm_vglobal.s, gfx12_asm_vbuffer_mubuf.s,
// gfx12_asm_ds.s); the IR forms with llc-22 / clang-22, which select exactly these
// instructions from them (LDS b64 / b128 only when the IR states natural alignment: with less,
// LLVM splits them into ds_load_2addr_* / ds_store_2addr_*).
#include <atoms/copy/copy_instr_info.hpp>

#include <array>
#include <span>

namespace tw::atoms {

namespace detail {
inline constexpr std::int64_t kGlobalMinOffset = -(std::int64_t{1} << 23); // 24-bit signed
inline constexpr std::int64_t kGlobalMaxOffset = (std::int64_t{1} << 23) - 1;
inline constexpr std::int64_t kBufferMaxOffset = (std::int64_t{1} << 23) - 1; // 23-bit unsigned
inline constexpr std::int64_t kLdsMaxOffset = (std::int64_t{1} << 16) - 1;    // 16-bit unsigned
} // namespace detail

// clang-format off
inline constexpr std::array<CopyInstrInfo, 18> gfx12_copy_instrs{{
  // ---- global: plain load / store through ptr addrspace(1) ----
  {"global_load_b32", "GLOBAL_LOAD_DWORD", CopyPath::global, CopyDir::load, 32, 4,
   AddressSpace::global, "i32", "",
   "%r = load i32, ptr addrspace(1) %p, align 4",
   "r = *(const __attribute__((address_space(1))) uint32_t*)p",
   detail::kGlobalMinOffset, detail::kGlobalMaxOffset, false, false},
  {"global_load_b64", "GLOBAL_LOAD_DWORDX2", CopyPath::global, CopyDir::load, 64, 8,
   AddressSpace::global, "<2 x i32>", "",
   "%r = load <2 x i32>, ptr addrspace(1) %p, align 8",
   "r = *(const __attribute__((address_space(1))) uint32x2_t*)p",
   detail::kGlobalMinOffset, detail::kGlobalMaxOffset, false, false},
  {"global_load_b128", "GLOBAL_LOAD_DWORDX4", CopyPath::global, CopyDir::load, 128, 16,
   AddressSpace::global, "<4 x i32>", "",
   "%r = load <4 x i32>, ptr addrspace(1) %p, align 16",
   "r = *(const __attribute__((address_space(1))) uint32x4_t*)p",
   detail::kGlobalMinOffset, detail::kGlobalMaxOffset, false, false},
  {"global_store_b32", "GLOBAL_STORE_DWORD", CopyPath::global, CopyDir::store, 32, 4,
   AddressSpace::global, "i32", "",
   "store i32 %v, ptr addrspace(1) %p, align 4",
   "*(__attribute__((address_space(1))) uint32_t*)p = v",
   detail::kGlobalMinOffset, detail::kGlobalMaxOffset, false, false},
  {"global_store_b64", "GLOBAL_STORE_DWORDX2", CopyPath::global, CopyDir::store, 64, 8,
   AddressSpace::global, "<2 x i32>", "",
   "store <2 x i32> %v, ptr addrspace(1) %p, align 8",
   "*(__attribute__((address_space(1))) uint32x2_t*)p = v",
   detail::kGlobalMinOffset, detail::kGlobalMaxOffset, false, false},
  {"global_store_b128", "GLOBAL_STORE_DWORDX4", CopyPath::global, CopyDir::store, 128, 16,
   AddressSpace::global, "<4 x i32>", "",
   "store <4 x i32> %v, ptr addrspace(1) %p, align 16",
   "*(__attribute__((address_space(1))) uint32x4_t*)p = v",
   detail::kGlobalMinOffset, detail::kGlobalMaxOffset, false, false},
  // ---- buffer: raw buffer intrinsics on a ptr addrspace(8) resource (offen, soffset 0) ----
  {"buffer_load_b32", "BUFFER_LOAD_DWORD_VBUFFER", CopyPath::buffer, CopyDir::load, 32, 4,
   AddressSpace::buffer_resource, "i32", "llvm.amdgcn.raw.ptr.buffer.load.i32",
   "%r = call i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8) %p, i32 %off, i32 0, i32 0)",
   "r = __builtin_amdgcn_raw_buffer_load_b32(rsrc, off, 0, 0)",
   0, detail::kBufferMaxOffset, true, false},
  {"buffer_load_b64", "BUFFER_LOAD_DWORDX2_VBUFFER", CopyPath::buffer, CopyDir::load, 64, 8,
   AddressSpace::buffer_resource, "<2 x i32>", "llvm.amdgcn.raw.ptr.buffer.load.v2i32",
   "%r = call <2 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v2i32(ptr addrspace(8) %p, i32 %off, i32 0, i32 0)",
   "r = __builtin_amdgcn_raw_buffer_load_b64(rsrc, off, 0, 0)",
   0, detail::kBufferMaxOffset, true, false},
  {"buffer_load_b128", "BUFFER_LOAD_DWORDX4_VBUFFER", CopyPath::buffer, CopyDir::load, 128, 16,
   AddressSpace::buffer_resource, "<4 x i32>", "llvm.amdgcn.raw.ptr.buffer.load.v4i32",
   "%r = call <4 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v4i32(ptr addrspace(8) %p, i32 %off, i32 0, i32 0)",
   "r = __builtin_amdgcn_raw_buffer_load_b128(rsrc, off, 0, 0)",
   0, detail::kBufferMaxOffset, true, false},
  {"buffer_store_b32", "BUFFER_STORE_DWORD_VBUFFER", CopyPath::buffer, CopyDir::store, 32, 4,
   AddressSpace::buffer_resource, "i32", "llvm.amdgcn.raw.ptr.buffer.store.i32",
   "call void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32 %v, ptr addrspace(8) %p, i32 %off, i32 0, i32 0)",
   "__builtin_amdgcn_raw_buffer_store_b32(v, rsrc, off, 0, 0)",
   0, detail::kBufferMaxOffset, false, true},
  {"buffer_store_b64", "BUFFER_STORE_DWORDX2_VBUFFER", CopyPath::buffer, CopyDir::store, 64, 8,
   AddressSpace::buffer_resource, "<2 x i32>", "llvm.amdgcn.raw.ptr.buffer.store.v2i32",
   "call void @llvm.amdgcn.raw.ptr.buffer.store.v2i32(<2 x i32> %v, ptr addrspace(8) %p, i32 %off, i32 0, i32 0)",
   "__builtin_amdgcn_raw_buffer_store_b64(v, rsrc, off, 0, 0)",
   0, detail::kBufferMaxOffset, false, true},
  {"buffer_store_b128", "BUFFER_STORE_DWORDX4_VBUFFER", CopyPath::buffer, CopyDir::store, 128, 16,
   AddressSpace::buffer_resource, "<4 x i32>", "llvm.amdgcn.raw.ptr.buffer.store.v4i32",
   "call void @llvm.amdgcn.raw.ptr.buffer.store.v4i32(<4 x i32> %v, ptr addrspace(8) %p, i32 %off, i32 0, i32 0)",
   "__builtin_amdgcn_raw_buffer_store_b128(v, rsrc, off, 0, 0)",
   0, detail::kBufferMaxOffset, false, true},
  // ---- LDS: plain load / store through ptr addrspace(3) ----
  {"ds_load_b32", "DS_READ_B32", CopyPath::lds, CopyDir::load, 32, 4,
   AddressSpace::lds, "i32", "",
   "%r = load i32, ptr addrspace(3) %p, align 4",
   "r = *(const __attribute__((address_space(3))) uint32_t*)p",
   0, detail::kLdsMaxOffset, false, false},
  {"ds_load_b64", "DS_READ_B64", CopyPath::lds, CopyDir::load, 64, 8,
   AddressSpace::lds, "<2 x i32>", "",
   "%r = load <2 x i32>, ptr addrspace(3) %p, align 8",
   "r = *(const __attribute__((address_space(3))) uint32x2_t*)p",
   0, detail::kLdsMaxOffset, false, false},
  {"ds_load_b128", "DS_READ_B128", CopyPath::lds, CopyDir::load, 128, 16,
   AddressSpace::lds, "<4 x i32>", "",
   "%r = load <4 x i32>, ptr addrspace(3) %p, align 16",
   "r = *(const __attribute__((address_space(3))) uint32x4_t*)p",
   0, detail::kLdsMaxOffset, false, false},
  {"ds_store_b32", "DS_WRITE_B32", CopyPath::lds, CopyDir::store, 32, 4,
   AddressSpace::lds, "i32", "",
   "store i32 %v, ptr addrspace(3) %p, align 4",
   "*(__attribute__((address_space(3))) uint32_t*)p = v",
   0, detail::kLdsMaxOffset, false, false},
  {"ds_store_b64", "DS_WRITE_B64", CopyPath::lds, CopyDir::store, 64, 8,
   AddressSpace::lds, "<2 x i32>", "",
   "store <2 x i32> %v, ptr addrspace(3) %p, align 8",
   "*(__attribute__((address_space(3))) uint32x2_t*)p = v",
   0, detail::kLdsMaxOffset, false, false},
  {"ds_store_b128", "DS_WRITE_B128", CopyPath::lds, CopyDir::store, 128, 16,
   AddressSpace::lds, "<4 x i32>", "",
   "store <4 x i32> %v, ptr addrspace(3) %p, align 16",
   "*(__attribute__((address_space(3))) uint32x4_t*)p = v",
   0, detail::kLdsMaxOffset, false, false},
}};
// clang-format on

constexpr bool is_copy_width(int width_bits) {
  return width_bits == 32 || width_bits == 64 || width_bits == 128;
}

// The instruction for (path, dir, width), or nullptr when tilewave has none (width not 32 /
// 64 / 128).
constexpr const CopyInstrInfo* find_copy_instr(CopyPath path, CopyDir dir, int width_bits) {
  for (const CopyInstrInfo& i : gfx12_copy_instrs)
    if (i.path == path && i.dir == dir && i.width_bits == width_bits)
      return &i;
  return nullptr;
}

constexpr const CopyInstrInfo* find_copy_instr(std::string_view mnemonic) {
  for (const CopyInstrInfo& i : gfx12_copy_instrs)
    if (i.mnemonic == mnemonic)
      return &i;
  return nullptr;
}

} // namespace tw::atoms
