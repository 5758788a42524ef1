// Copy atoms: the instruction table against facts read off llvm-mc-22 -mcpu=gfx1201 by hand
// (mnemonic, MC name, immediate offset range), verify() sentences, the typed atoms' static
// checks and the buffer range-check semantics.
#include <atoms/copy.hpp>

#include <doctest/doctest.h>

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

using namespace tw::atoms;

namespace {

struct Expected {
  CopyPath path;
  CopyDir dir;
  int bits;
  std::string_view mnemonic;
  std::string_view mc_name; // from `llvm-mc-22 -show-inst`, offen / vaddr-only variants
  unsigned llvm_as;
};

// Typed from llvm-mc-22 -mcpu=gfx1201 -show-inst output (not from the table under test).
constexpr Expected expected[] = {
    {CopyPath::global, CopyDir::load, 32, "global_load_b32", "GLOBAL_LOAD_DWORD_gfx12", 1},
    {CopyPath::global, CopyDir::load, 64, "global_load_b64", "GLOBAL_LOAD_DWORDX2_gfx12", 1},
    {CopyPath::global, CopyDir::load, 128, "global_load_b128", "GLOBAL_LOAD_DWORDX4_gfx12", 1},
    {CopyPath::global, CopyDir::store, 32, "global_store_b32", "GLOBAL_STORE_DWORD_gfx12", 1},
    {CopyPath::global, CopyDir::store, 64, "global_store_b64", "GLOBAL_STORE_DWORDX2_gfx12", 1},
    {CopyPath::global, CopyDir::store, 128, "global_store_b128", "GLOBAL_STORE_DWORDX4_gfx12", 1},
    {CopyPath::buffer, CopyDir::load, 32, "buffer_load_b32",
     "BUFFER_LOAD_DWORD_VBUFFER_OFFEN_gfx12", 8},
    {CopyPath::buffer, CopyDir::load, 64, "buffer_load_b64",
     "BUFFER_LOAD_DWORDX2_VBUFFER_OFFEN_gfx12", 8},
    {CopyPath::buffer, CopyDir::load, 128, "buffer_load_b128",
     "BUFFER_LOAD_DWORDX4_VBUFFER_OFFEN_gfx12", 8},
    {CopyPath::buffer, CopyDir::store, 32, "buffer_store_b32",
     "BUFFER_STORE_DWORD_VBUFFER_OFFEN_gfx12", 8},
    {CopyPath::buffer, CopyDir::store, 64, "buffer_store_b64",
     "BUFFER_STORE_DWORDX2_VBUFFER_OFFEN_gfx12", 8},
    {CopyPath::buffer, CopyDir::store, 128, "buffer_store_b128",
     "BUFFER_STORE_DWORDX4_VBUFFER_OFFEN_gfx12", 8},
    {CopyPath::lds, CopyDir::load, 32, "ds_load_b32", "DS_READ_B32_gfx12", 3},
    {CopyPath::lds, CopyDir::load, 64, "ds_load_b64", "DS_READ_B64_gfx12", 3},
    {CopyPath::lds, CopyDir::load, 128, "ds_load_b128", "DS_READ_B128_gfx12", 3},
    {CopyPath::lds, CopyDir::store, 32, "ds_store_b32", "DS_WRITE_B32_gfx12", 3},
    {CopyPath::lds, CopyDir::store, 64, "ds_store_b64", "DS_WRITE_B64_gfx12", 3},
    {CopyPath::lds, CopyDir::store, 128, "ds_store_b128", "DS_WRITE_B128_gfx12", 3},
};

// Concatenation by append (operator+ on literals trips a g++-12 -Wrestrict false positive).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts)
    out.append(p);
  return out;
}

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

std::string thrown_message(const CopyInstrInfo& info, const CopyUse& use) {
  try {
    verify_copy(info, use);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

} // namespace

TEST_CASE("copy atom table matches the gfx12 assembler") {
  CHECK(gfx12_copy_instrs.size() == std::size(expected));
  for (const Expected& e : expected) {
    INFO(e.mnemonic);
    const CopyInstrInfo* info = find_copy_instr(e.path, e.dir, e.bits);
    REQUIRE(info != nullptr);
    CHECK(info->mnemonic == e.mnemonic);
    CHECK(find_copy_instr(e.mnemonic) == info);
    CHECK(std::string_view(e.mc_name).substr(0, info->mc_name_prefix.size()) ==
          info->mc_name_prefix);
    CHECK(contains(e.mc_name, cat({info->mc_name_prefix, "_"}))); // prefix ends a word
    CHECK(llvm_address_space(info->address_space) == e.llvm_as);
    CHECK(info->width_bits == e.bits);
    CHECK(info->bytes() * 8 == e.bits);
    CHECK(info->vgprs() == e.bits / 32);
    CHECK(info->alignment_bytes == e.bits / 8);
    // The IR form names the right pointer type and width.
    CHECK(contains(info->ir_form, cat({"ptr addrspace(", std::to_string(e.llvm_as), ")"})));
    const std::string_view vec = e.bits == 32 ? "i32" : (e.bits == 64 ? "<2 x i32>" : "<4 x i32>");
    CHECK(info->ir_type == vec);
    CHECK(contains(info->ir_form, vec));
    if (e.path == CopyPath::buffer) {
      const std::string suffix = e.bits == 32 ? "i32" : (e.bits == 64 ? "v2i32" : "v4i32");
      const std::string op = e.dir == CopyDir::load ? "load" : "store";
      CHECK(info->intrinsic == cat({"llvm.amdgcn.raw.ptr.buffer.", op, ".", suffix}));
      CHECK(contains(info->ir_form, cat({"@", info->intrinsic, "("})));
      CHECK(contains(info->hip_form,
                     cat({"__builtin_amdgcn_raw_buffer_", op, "_b", std::to_string(e.bits)})));
      CHECK(info->zero_past_num_records == (e.dir == CopyDir::load));
      CHECK(info->drop_past_num_records == (e.dir == CopyDir::store));
    } else {
      CHECK(info->intrinsic.empty());
      CHECK(contains(info->ir_form, cat({"align ", std::to_string(e.bits / 8)})));
      CHECK(contains(info->ir_form, e.dir == CopyDir::load ? "load " : "store "));
      CHECK_FALSE(info->zero_past_num_records);
    }
  }
  CHECK(find_copy_instr(CopyPath::global, CopyDir::load, 96) == nullptr);
  CHECK(find_copy_instr("global_load_b96") == nullptr);
}

TEST_CASE("copy atoms know their immediate offset ranges") {
  // llvm-mc-22: "expected a 24-bit signed offset" (global), "a 23-bit unsigned offset for
  // buffer ops", "a 16-bit unsigned offset" (DS).
  const CopyInstrInfo& g = global_load_b128::info;
  CHECK(g.fits_imm_offset(8388607));
  CHECK(g.fits_imm_offset(-8388608));
  CHECK_FALSE(g.fits_imm_offset(8388608));
  const CopyInstrInfo& b = buffer_load_b128::info;
  CHECK(b.fits_imm_offset(0));
  CHECK(b.fits_imm_offset(8388607));
  CHECK_FALSE(b.fits_imm_offset(-4));
  CHECK_FALSE(b.fits_imm_offset(8388608));
  const CopyInstrInfo& d = ds_load_b128::info;
  CHECK(d.fits_imm_offset(65520));
  CHECK(d.fits_imm_offset(65535));
  CHECK_FALSE(d.fits_imm_offset(65536));
  CHECK_FALSE(d.fits_imm_offset(-16));
}

TEST_CASE("typed copy atoms and their static checks") {
  static_assert(global_load_b128::check<AddressSpace::global, 32>());
  static_assert(global_load_b128::check<AddressSpace::global, -16>());
  static_assert(ds_store_b64::check<AddressSpace::lds, 8>());
  static_assert(buffer_load_b32::check<AddressSpace::buffer_resource, 4>());
  static_assert(&global_store_b64::info == find_copy_instr(CopyPath::global, CopyDir::store, 64));
  static_assert(ds_load_b128::bytes == 16 && ds_load_b128::info.elements(16) == 8);
  static_assert(buffer_load_b64::info.elements(8) == 8);
  // The constexpr rule is usable in static_assert as well.
  static_assert(copy_error(ds_load_b128::info, {AddressSpace::lds, 32}).empty());
  static_assert(!copy_error(ds_load_b128::info, {AddressSpace::lds, 8}).empty());
  static_assert(
      copy_error(global_load_b32::info, AddressSpace::global, 4, tw::Arch::gfx1200).empty());
  CHECK_NOTHROW(buffer_store_b128::verify({AddressSpace::buffer_resource, 48, "gfx1200"}));
}

TEST_CASE("verify rejects what the instructions cannot do, with the rule") {
  CHECK(copy_width_error(64).empty());
  CHECK(contains(copy_width_error(96), "copy atoms move 32, 64 or 128 bits per lane"));
  CHECK(contains(copy_width_error(16), "32, 64 or 128"));
  try {
    copy_instr_or_throw(CopyPath::lds, CopyDir::load, 96);
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) ==
          "LDS load of 96 bits: copy atoms move 32, 64 or 128 bits per lane (b32, b64, b128): "
          "other widths are not tilewave copy atoms (split the access, or widen it to a "
          "supported width)");
  }

  // Misaligned static offsets.
  CHECK(thrown_message(ds_load_b128::info, {AddressSpace::lds, 8}) ==
        "ds_load_b128: LDS accesses must be naturally aligned (4 / 8 / 16 bytes for b32 / b64 / "
        "b128): LLVM selects ds_load_b64 / b128 and ds_store_b64 / b128 only for such addresses "
        "and splits less aligned ones into ds_*_2addr pairs (got static offset 8, not a multiple "
        "of 16)");
  CHECK(contains(thrown_message(global_store_b64::info, {AddressSpace::global, 12}),
                 "global_store_b64: global accesses must be naturally aligned"));
  CHECK(contains(thrown_message(buffer_load_b32::info, {AddressSpace::buffer_resource, 2}),
                 "(got static offset 2, not a multiple of 4)"));
  CHECK(contains(thrown_message(global_load_b128::info, {AddressSpace::global, -8}),
                 "not a multiple of 16"));

  // Wrong address spaces.
  CHECK(thrown_message(global_load_b128::info, {AddressSpace::lds, 0}) ==
        "global_load_b128: global copy atoms take a global pointer (addrspace 1) (got an LDS "
        "pointer (addrspace 3))");
  CHECK(contains(thrown_message(buffer_load_b128::info, {AddressSpace::global, 0}),
                 "buffer copy atoms take a buffer resource (addrspace 8): make one from the "
                 "global pointer"));
  CHECK(contains(thrown_message(ds_store_b32::info, {AddressSpace::buffer_resource, 0}),
                 "LDS copy atoms take an LDS pointer (addrspace 3)"));

  // Not gfx12.
  CHECK(thrown_message(global_load_b32::info, {AddressSpace::global, 0, "gfx942"}) ==
        "global_load_b32: copy atoms are gfx12 instructions: the target must be gfx1200 or "
        "gfx1201 (got arch 'gfx942')");
  CHECK(contains(thrown_message(ds_load_b64::info, {AddressSpace::lds, 0, "gfx1100"}),
                 "gfx1200 or gfx1201"));

  // Everything valid: no error for any atom at offset 0 in its own space on both archs.
  for (const CopyInstrInfo& info : gfx12_copy_instrs)
    for (std::string_view arch : {"gfx1200", "gfx1201"}) {
      INFO(info.mnemonic);
      CHECK(copy_error(info, {info.address_space, 3 * info.alignment_bytes, arch}).empty());
    }
}

TEST_CASE("buffer range check: zero past num_records, per dword") {
  // Hand cases: 64-byte buffer.
  CHECK(buffer_out_of_range_bytes(64, 48, 16) == 0x0000); // bytes 48..63: all in
  CHECK(buffer_out_of_range_bytes(64, 56, 16) == 0xFF00); // dwords at 64, 68 out
  CHECK(buffer_out_of_range_bytes(64, 60, 16) == 0xFFF0);
  CHECK(buffer_out_of_range_bytes(64, 64, 16) == 0xFFFF);
  CHECK(buffer_out_of_range_bytes(64, 60, 4) == 0x0);
  CHECK(buffer_out_of_range_bytes(64, 64, 4) == 0xF);
  CHECK(buffer_out_of_range_bytes(64, 56, 8) == 0x00);
  CHECK(buffer_out_of_range_bytes(64, 60, 8) == 0xF0);
  // A dword cut by num_records is out as a whole (6-byte buffer: bytes 4, 5 read as 0 too).
  CHECK(buffer_out_of_range_bytes(6, 4, 4) == 0xF);
  CHECK(buffer_out_of_range_bytes(6, 0, 8) == 0xF0);
  // The classic "push the lane past the end" trick: offset 0x80000000 is out everywhere.
  CHECK(buffer_out_of_range_bytes(0xFFFFFFF0u, 0x80000000ull + 0xFFFFFFF0ull, 16) == 0xFFFF);
  CHECK(buffer_out_of_range_bytes(0xFFFFFFFFu, 0xFFFFFFFCull, 16) == 0xFFFF); // no wrap-around
  CHECK(buffer_out_of_range_bytes(0, 0, 16) == 0xFFFF);
  CHECK(buffer_access_in_range(64, 48, 16));
  CHECK_FALSE(buffer_access_in_range(64, 52, 16));

  // Sweep against a byte-wise statement of the rule: byte j of the access is zero exactly
  // when the last byte of its dword is at or past num_records.
  for (unsigned num_records = 0; num_records <= 40; ++num_records)
    for (unsigned offset = 0; offset <= 48; offset += 4)
      for (int width : {4, 8, 16}) {
        unsigned expected_mask = 0;
        for (int j = 0; j < width; ++j) {
          const unsigned last_byte_of_dword = offset + unsigned(j / 4) * 4 + 3;
          if (last_byte_of_dword >= num_records)
            expected_mask |= 1u << j;
        }
        INFO("num_records " << num_records << " offset " << offset << " width " << width);
        REQUIRE(buffer_out_of_range_bytes(num_records, offset, width) == expected_mask);
        REQUIRE(buffer_access_in_range(num_records, offset, width) == (expected_mask == 0));
      }
}
