// mma_fast against atoms::mma_reference: every gfx12 WMMA / SWMMAC form, every modifier
// combination the form accepts, random registers salted with the special values of each element
// type (NaN, Inf, denormals, signed zeros, extremes), and every output bit compared.
#include <runtime/emu/valu/mma_engine.hpp>

#include <atoms/mma/gfx12_instrs.hpp>
#include <atoms/mma/reference.hpp>
#include <atoms/mma/verify.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <ios>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace tw;
using atoms::MmaElem;

namespace {

// Bit patterns worth hitting for an element type (the rest of the elements are random bits).
std::vector<uint32_t> special_values(MmaElem e) {
  switch (e) {
  case MmaElem::f16: // +-0, +-inf, quiet / signalling NaN, min / max denormal, max, 1
    return {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe01, 0x0001, 0x83ff, 0x7bff, 0x3c00};
  case MmaElem::bf16:
    return {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x0001, 0x807f, 0x7f7f, 0x3f80};
  case MmaElem::fp8: // e4m3: NaN S.1111.111, max 448, min denormal
    return {0x00, 0x80, 0x7f, 0xff, 0x7e, 0x01, 0x87, 0x38};
  case MmaElem::bf8: // e5m2: inf, NaN, max, denormals
    return {0x00, 0x80, 0x7c, 0xfc, 0x7e, 0x7d, 0x7b, 0x01, 0x83};
  case MmaElem::f32:
    return {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u,
            0x00000001u, 0x807fffffu, 0x7f7fffffu, 0xff7fffffu, 0x3f800000u};
  case MmaElem::i32:
    return {0x80000000u, 0x7fffffffu, 0x7fffff00u, 0x80000100u, 0u, 0xffffffffu};
  case MmaElem::iu8:
    return {0x00, 0x7f, 0x80, 0xff, 0x01};
  case MmaElem::iu4:
    return {0x0, 0x7, 0x8, 0xf, 0x1};
  }
  return {};
}

// `vgprs` x 32 register words whose elements are random bits or (one in three) special values.
std::vector<uint32_t> random_registers(std::mt19937& rng, MmaElem e, int vgprs) {
  const int bits = atoms::elem_bits(e);
  const auto specials = special_values(e);
  std::vector<uint32_t> r(size_t(vgprs) * 32, 0);
  for (auto& word : r)
    for (int pos = 0; pos < 32; pos += bits) {
      uint32_t v = rng();
      if (rng() % 3 == 0)
        v = specials[rng() % specials.size()];
      const uint32_t mask = bits == 32 ? ~0u : (1u << bits) - 1u;
      word |= (v & mask) << pos;
    }
  return r;
}

// Every modifier set `info` accepts.
std::vector<atoms::MmaModifiers> valid_modifiers(const atoms::MmaInstrInfo& info) {
  std::vector<atoms::MmaModifiers> all;
  for (unsigned neg_lo = 0; neg_lo < 8; ++neg_lo)
    for (unsigned neg_hi = 0; neg_hi < 8; ++neg_hi)
      for (unsigned flags = 0; flags < 8; ++flags)
        for (unsigned key = 0; key < 2; ++key) {
          atoms::MmaModifiers m;
          m.neg_lo = neg_lo;
          m.neg_hi = neg_hi;
          m.a_signed = flags & 1u;
          m.b_signed = flags & 2u;
          m.clamp = flags & 4u;
          m.index_key = key;
          if (atoms::mma_modifier_error(info, m).empty())
            all.push_back(m);
        }
  return all;
}

std::string describe(const atoms::MmaModifiers& m) {
  return "neg_lo " + std::to_string(m.neg_lo) + " neg_hi " + std::to_string(m.neg_hi) +
         " a_signed " + std::to_string(m.a_signed) + " b_signed " + std::to_string(m.b_signed) +
         " clamp " + std::to_string(m.clamp) + " index_key " + std::to_string(m.index_key);
}

} // namespace

TEST_CASE("mma_fast: every output bit equals mma_reference (all forms, all valid modifiers, "
          "special values)") {
  std::mt19937 rng(20261203);
  size_t compared = 0;
  for (const atoms::MmaInstrInfo& info : atoms::all_mma_instrs()) {
    const auto mods = valid_modifiers(info);
    REQUIRE(!mods.empty());
    for (const atoms::MmaModifiers& m : mods)
      for (int trial = 0; trial < 10; ++trial) {
        const auto a = random_registers(rng, info.a_type, info.a_vgprs);
        const auto b = random_registers(rng, info.b_type, info.b_vgprs);
        const auto c = random_registers(rng, info.cd_type, info.cd_vgprs);
        const auto index = random_registers(rng, MmaElem::i32, 1);
        std::vector<uint32_t> want(c.size(), 0xdeadbeefu), got(c.size(), 0x12345678u);
        atoms::mma_reference(info, m, a.data(), b.data(), c.data(), index.data(), want.data());
        emu::valu::mma_fast(info, m, a.data(), b.data(), c.data(), index.data(), got.data());
        size_t first_bad = want.size();
        for (size_t i = 0; i < want.size() && first_bad == want.size(); ++i)
          if (want[i] != got[i])
            first_bad = i;
        INFO(info.mnemonic, " ", describe(m), " trial ", trial);
        if (first_bad < want.size())
          FAIL_CHECK("word ", first_bad, ": reference 0x", std::hex, want[first_bad], " fast 0x",
                     got[first_bad]);
        ++compared;
        // D in place of C (SWMMAC always accumulates in place): the same result.
        std::vector<uint32_t> in_place = c;
        emu::valu::mma_fast(info, m, a.data(), b.data(), in_place.data(), index.data(),
                            in_place.data());
        CHECK(in_place == want);
      }
  }
  CHECK(compared > 2000); // about 4,700 (forms x modifier sets x 10)
}

namespace {

// Index VGPRs as a 2:4 sparse matrix has them: every k-group names two different positions
// (in increasing order), so no position holds the sum of two values (mma_fast then sums with
// fused multiply-adds where the host has them: each product is exact).
std::vector<uint32_t> distinct_index_sets(std::mt19937& rng) {
  static constexpr uint32_t kPairs[6] = {0 | 1 << 2, 0 | 2 << 2, 0 | 3 << 2,
                                         1 | 2 << 2, 1 | 3 << 2, 2 | 3 << 2};
  std::vector<uint32_t> index(32, 0);
  for (auto& set : index)
    for (int group = 0; group < 8; ++group)
      set |= kPairs[rng() % 6] << (4 * group);
  return index;
}

} // namespace

TEST_CASE("mma_fast: every SWMMAC output bit equals mma_reference with 2:4 index sets "
          "(distinct positions in every group)") {
  std::mt19937 rng(20261204);
  size_t compared = 0;
  for (const atoms::MmaInstrInfo& info : atoms::all_mma_instrs()) {
    if (!info.sparse)
      continue;
    for (const atoms::MmaModifiers& m : valid_modifiers(info))
      for (int trial = 0; trial < 10; ++trial) {
        const auto a = random_registers(rng, info.a_type, info.a_vgprs);
        const auto b = random_registers(rng, info.b_type, info.b_vgprs);
        const auto c = random_registers(rng, info.cd_type, info.cd_vgprs);
        const auto index = distinct_index_sets(rng);
        std::vector<uint32_t> want(c.size(), 0xdeadbeefu), got(c.size(), 0x12345678u);
        atoms::mma_reference(info, m, a.data(), b.data(), c.data(), index.data(), want.data());
        emu::valu::mma_fast(info, m, a.data(), b.data(), c.data(), index.data(), got.data());
        INFO(info.mnemonic, " ", describe(m), " trial ", trial);
        CHECK(got == want);
        ++compared;
      }
  }
  CHECK(compared > 500);
}

TEST_CASE("mma_fast: rejects what mma_reference rejects") {
  const auto& wmma_f16 = *atoms::find_mma_instr("v_wmma_f32_16x16x16_f16");
  const auto& wmma_iu8 = *atoms::find_mma_instr("v_wmma_i32_16x16x16_iu8");
  std::vector<uint32_t> regs(8 * 32, 0), d(8 * 32);
  atoms::MmaModifiers clamp_on_float;
  clamp_on_float.clamp = true;
  CHECK_THROWS_AS(emu::valu::mma_fast(wmma_f16, clamp_on_float, regs.data(), regs.data(),
                                      regs.data(), nullptr, d.data()),
                  std::invalid_argument);
  atoms::MmaModifiers neg_on_int;
  neg_on_int.neg_lo = 1;
  CHECK_THROWS_AS(emu::valu::mma_fast(wmma_iu8, neg_on_int, regs.data(), regs.data(), regs.data(),
                                      nullptr, d.data()),
                  std::invalid_argument);
  CHECK_THROWS_AS(
      emu::valu::mma_fast(wmma_f16, {}, nullptr, regs.data(), regs.data(), nullptr, d.data()),
      std::invalid_argument);
  const auto& swmmac = *atoms::find_mma_instr("v_swmmac_f32_16x16x32_f16");
  CHECK_THROWS_AS(
      emu::valu::mma_fast(swmmac, {}, regs.data(), regs.data(), regs.data(), nullptr, d.data()),
      std::invalid_argument);
}
