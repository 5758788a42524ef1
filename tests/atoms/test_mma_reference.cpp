// mma_reference against a plain matrix product of the decoded operands, for every gfx12 WMMA and
// SWMMAC, on random inputs. Registers are packed with the RDNA4.md formulas of mma_formulas.hpp,
// not with the atom's own maps.
#include "atoms/mma_formulas.hpp"

#include <atoms/formats.hpp>
#include <atoms/mma/reference.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace tw::atoms;
using tw::test::formula_a;
using tw::test::formula_b;
using tw::test::formula_cd;
using tw::test::MatCoord;

// A matrix of element codes (the bits as stored) with its decoded values.
struct Operand {
  int rows, cols;
  std::vector<uint32_t> code;
  std::vector<double> value; // decoded (floats) or integer value
  double at(int r, int c) const { return value[r * cols + c]; }
};

double decode(MmaElem t, uint32_t code, bool is_signed) {
  switch (t) {
  case MmaElem::f16:
    return tw::num::f16_to_f32(uint16_t(code));
  case MmaElem::bf16:
    return tw::num::bf16_to_f32(uint16_t(code));
  case MmaElem::fp8:
    return tw::num::e4m3_to_f32(uint8_t(code));
  case MmaElem::bf8:
    return tw::num::e5m2_to_f32(uint8_t(code));
  case MmaElem::f32:
    return std::bit_cast<float>(code);
  case MmaElem::iu8:
    return is_signed ? double(int8_t(uint8_t(code))) : double(code);
  case MmaElem::iu4:
    return is_signed ? double(int(code ^ 8u) - 8) : double(code);
  case MmaElem::i32:
    return double(int32_t(code));
  }
  return 0;
}

// A random finite code of type t: floats from moderate values, integers over the full range.
uint32_t random_code(MmaElem t, std::mt19937& rng) {
  std::uniform_real_distribution<float> val(-4.0f, 4.0f);
  switch (t) {
  case MmaElem::f16:
    return tw::num::f32_to_f16(val(rng));
  case MmaElem::bf16:
    return tw::num::f32_to_bf16(val(rng));
  case MmaElem::fp8:
    return tw::num::f32_to_e4m3(val(rng), tw::num::Saturate::yes);
  case MmaElem::bf8:
    return tw::num::f32_to_e5m2(val(rng), tw::num::Saturate::yes);
  case MmaElem::f32:
    return std::bit_cast<uint32_t>(val(rng) * 8.0f);
  case MmaElem::iu8:
    return rng() & 0xFFu;
  case MmaElem::iu4:
    return rng() & 0xFu;
  case MmaElem::i32:
    return uint32_t(int32_t(rng() % 200001) - 100000);
  }
  return 0;
}

Operand random_operand(MmaElem t, int rows, int cols, bool is_signed, std::mt19937& rng) {
  Operand o{rows, cols, std::vector<uint32_t>(rows * cols), std::vector<double>(rows * cols)};
  for (int i = 0; i < rows * cols; ++i) {
    o.code[i] = random_code(t, rng);
    o.value[i] = decode(t, o.code[i], is_signed);
  }
  return o;
}

template <class Formula>
std::vector<uint32_t> pack(const MmaInstrInfo& in, MmaElem t, int vgprs, const Operand& m,
                           Formula formula) {
  const int bits = elem_bits(t), per_vgpr = 32 / bits;
  std::vector<uint32_t> regs(vgprs * 32, 0);
  for (int l = 0; l < 32; ++l)
    for (int g = 0; g < vgprs; ++g)
      for (int e = 0; e < per_vgpr; ++e) {
        const MatCoord c = formula(in, l, g, e);
        const uint32_t mask = bits == 32 ? ~0u : (1u << bits) - 1u;
        regs[g * 32 + l] |= (m.code[c.row * m.cols + c.col] & mask) << (e * bits);
      }
  return regs;
}

// D read back through the RDNA4.md C/D formula, decoded as the C/D type.
std::vector<double> unpack_d(const MmaInstrInfo& in, const std::vector<uint32_t>& d) {
  const int bits = elem_bits(in.cd_type), per_vgpr = 32 / bits;
  std::vector<double> out(in.m * in.n);
  for (int l = 0; l < 32; ++l)
    for (int g = 0; g < in.cd_vgprs; ++g)
      for (int e = 0; e < per_vgpr; ++e) {
        const MatCoord c = formula_cd(in, l, g, e);
        const uint32_t mask = bits == 32 ? ~0u : (1u << bits) - 1u;
        out[c.row * in.n + c.col] = decode(in.cd_type, (d[g * 32 + l] >> (e * bits)) & mask, true);
      }
  return out;
}

// A 2:4 sparse A: for each row and k-group, two distinct positions p0 < p1 are kept.
struct SparseA {
  Operand dense;               // M x K, zeros where not kept
  Operand compressed;          // M x K/2
  std::vector<uint32_t> index; // 32 lanes
  std::vector<int> half;       // M x K: register half (kept slot 0 / 1) of each kept value
};

SparseA random_sparse_a(const MmaInstrInfo& in, bool is_signed, unsigned index_key,
                        std::mt19937& rng) {
  SparseA s{{in.m, in.k, std::vector<uint32_t>(in.m * in.k), std::vector<double>(in.m * in.k)},
            random_operand(in.a_type, in.m, in.k / 2, is_signed, rng),
            std::vector<uint32_t>(32, 0),
            std::vector<int>(in.m * in.k, 0)};
  for (uint32_t& w : s.index) // the unused 16-bit set holds garbage the atom must ignore
    w = in.index_keys == 2 ? (rng() & 0xFFFFu) << (16 * (1 - index_key)) : 0u;
  static const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  for (int r = 0; r < in.m; ++r)
    for (int q = 0; q < in.k / 4; ++q) {
      const int* p = pairs[rng() % 6];
      for (int slot = 0; slot < 2; ++slot) {
        const int ck = 2 * q + slot, k = 4 * q + p[slot];
        s.dense.code[r * in.k + k] = s.compressed.code[r * (in.k / 2) + ck];
        s.dense.value[r * in.k + k] = s.compressed.value[r * (in.k / 2) + ck];
        s.half[r * in.k + k] = slot;
      }
      const tw::test::IndexSlot is = tw::test::formula_index(in, q);
      const unsigned shift = (in.index_keys == 2 ? 16u * index_key : 0u) + is.bit;
      s.index[16 * is.lane_half + r] |= uint32_t(p[0] | (p[1] << 2)) << shift;
    }
  return s;
}

struct Case {
  const MmaInstrInfo* in;
  MmaModifiers mods;
};

// Runs one random case and compares D with sum_k A[i][k] * B[k][j] + C[i][j].
void check_random_case(const MmaInstrInfo& in, const MmaModifiers& mods, std::mt19937& rng,
                       bool c_near_int_limit = false) {
  CAPTURE(std::string(in.mnemonic));
  CAPTURE(mods.a_signed);
  CAPTURE(mods.b_signed);
  CAPTURE(mods.clamp);
  CAPTURE(mods.neg_lo);
  CAPTURE(mods.neg_hi);
  CAPTURE(mods.index_key);
  const bool integer = !is_float_elem(in.a_type);
  Operand a_dense;
  std::vector<uint32_t> a_regs, index;
  std::vector<int> a_half(in.m * in.k); // which 16-bit half of its VGPR holds A[i][k]
  if (in.sparse) {
    SparseA s = random_sparse_a(in, mods.a_signed, mods.index_key, rng);
    a_regs = pack(in, in.a_type, in.a_vgprs, s.compressed, formula_a);
    a_dense = s.dense;
    index = s.index;
    a_half = s.half;
  } else {
    for (int i = 0; i < in.m * in.k; ++i)
      a_half[i] = (i % in.k) % 2; // dense 16-bit A: the half is k's low bit (RDNA4.md)
    a_dense = random_operand(in.a_type, in.m, in.k, mods.a_signed, rng);
    a_regs = pack(in, in.a_type, in.a_vgprs, a_dense, formula_a);
  }
  Operand b = random_operand(in.b_type, in.k, in.n, mods.b_signed, rng);
  Operand c = random_operand(in.cd_type, in.m, in.n, true, rng);
  if (c_near_int_limit)
    for (int i = 0; i < in.m * in.n; ++i) {
      c.code[i] = uint32_t(i % 2 ? std::numeric_limits<int32_t>::max() - 5
                                 : std::numeric_limits<int32_t>::min() + 5);
      c.value[i] = double(int32_t(c.code[i]));
    }
  const auto b_regs = pack(in, in.b_type, in.b_vgprs, b, formula_b);
  const auto c_regs = pack(in, in.cd_type, in.cd_vgprs, c, formula_cd);
  std::vector<uint32_t> d(in.cd_vgprs * 32, 0xDEADBEEFu);
  mma_reference(in, mods, a_regs.data(), b_regs.data(), c_regs.data(),
                in.sparse ? index.data() : nullptr, d.data());
  const std::vector<double> got = unpack_d(in, d);

  for (int i = 0; i < in.m; ++i)
    for (int j = 0; j < in.n; ++j) {
      double cv = c.at(i, j);
      if (mods.neg_hi & 4u)
        cv = std::fabs(cv);
      if (mods.neg_lo & 4u)
        cv = -cv;
      double sum = cv, magnitude = std::fabs(cv);
      for (int k = 0; k < in.k; ++k) {
        double av = a_dense.at(i, k), bv = b.at(k, j);
        // neg_lo negates the low 16-bit halves, neg_hi the high ones. B: the half is k's low bit.
        const int ah = a_half[i * in.k + k];
        if (mods.neg_lo & 1u && ah == 0)
          av = -av;
        if (mods.neg_hi & 1u && ah == 1)
          av = -av;
        if (mods.neg_lo & 2u && k % 2 == 0)
          bv = -bv;
        if (mods.neg_hi & 2u && k % 2 == 1)
          bv = -bv;
        sum += av * bv;
        magnitude += std::fabs(av * bv);
      }
      if (integer) {
        const int64_t s = int64_t(sum);
        int64_t expect = int64_t(int32_t(uint32_t(uint64_t(s)))); // wraps
        if (mods.clamp)
          expect = std::clamp<int64_t>(s, std::numeric_limits<int32_t>::min(),
                                       std::numeric_limits<int32_t>::max());
        REQUIRE(got[i * in.n + j] == double(expect));
      } else {
        // f32 accumulate: a few f32 ulps of the magnitude; f16/bf16 results: one ulp of the
        // result type on top.
        const double eps = in.cd_type == MmaElem::f32   ? 0x1p-22
                           : in.cd_type == MmaElem::f16 ? 0x1p-10
                                                        : 0x1p-7;
        REQUIRE(std::fabs(got[i * in.n + j] - sum) <= eps * magnitude + 1e-30);
      }
    }
}

MmaModifiers signedness(bool a, bool b, bool clamp) {
  MmaModifiers m;
  m.a_signed = a;
  m.b_signed = b;
  m.clamp = clamp;
  return m;
}

} // namespace

TEST_CASE("mma_reference equals the plain product for every atom (no modifiers)") {
  std::mt19937 rng(12345);
  for (const MmaInstrInfo& in : all_mma_instrs())
    for (int trial = 0; trial < 3; ++trial)
      check_random_case(in, {}, rng);
}

TEST_CASE("mma_reference iu8 / iu4: signed and unsigned A and B, with and without clamp") {
  std::mt19937 rng(777);
  for (const MmaInstrInfo& in : all_mma_instrs()) {
    if (!(in.modifiers & kMmaSignedness))
      continue;
    for (int mask = 0; mask < 8; ++mask) {
      const MmaModifiers m = signedness(mask & 1, mask & 2, mask & 4);
      check_random_case(in, m, rng);
      check_random_case(in, m, rng, /*c_near_int_limit=*/true); // wraps or saturates
    }
  }
}

TEST_CASE("mma_reference clamp saturates and no clamp wraps") {
  const MmaInstrInfo& in = *find_mma_instr("v_wmma_i32_16x16x16_iu8");
  // A = all 127 (signed), B = all 127 (signed): every product sum is 16 * 127 * 127 = 258064.
  std::vector<uint32_t> a(in.a_vgprs * 32, 0x7F7F7F7Fu), b(in.b_vgprs * 32, 0x7F7F7F7Fu);
  std::vector<uint32_t> c(in.cd_vgprs * 32, uint32_t(std::numeric_limits<int32_t>::max() - 1));
  std::vector<uint32_t> d(in.cd_vgprs * 32);
  mma_reference(in, signedness(true, true, true), a.data(), b.data(), c.data(), nullptr, d.data());
  for (uint32_t w : d)
    REQUIRE(int32_t(w) == std::numeric_limits<int32_t>::max());
  mma_reference(in, signedness(true, true, false), a.data(), b.data(), c.data(), nullptr, d.data());
  const int64_t wrapped = int64_t(std::numeric_limits<int32_t>::max() - 1) + 258064 - (1ll << 32);
  for (uint32_t w : d)
    REQUIRE(int32_t(w) == wrapped);
  // Unsigned 0xFF * 0xFF: the same registers read as unsigned give 16 * 255 * 255 per element.
  std::vector<uint32_t> ones(in.a_vgprs * 32, 0xFFFFFFFFu), zero(in.cd_vgprs * 32, 0);
  mma_reference(in, signedness(false, false, false), ones.data(), ones.data(), zero.data(), nullptr,
                d.data());
  for (uint32_t w : d)
    REQUIRE(int32_t(w) == 16 * 255 * 255);
  mma_reference(in, signedness(true, false, false), ones.data(), ones.data(), zero.data(), nullptr,
                d.data());
  for (uint32_t w : d)
    REQUIRE(int32_t(w) == -16 * 255);
}

TEST_CASE("mma_reference f16 / bf16 negation modifiers") {
  std::mt19937 rng(4242);
  for (const MmaInstrInfo& in : all_mma_instrs()) {
    if (!(in.modifiers & kMmaNegAB))
      continue;
    const unsigned c_bits = (in.modifiers & kMmaNegC) ? 4u : 0u;
    for (unsigned lo = 0; lo < 8; ++lo)
      for (unsigned hi = 0; hi < 8; ++hi) {
        if (((lo | hi) & 4u) & ~c_bits)
          continue;
        MmaModifiers m;
        m.neg_lo = lo;
        m.neg_hi = hi;
        check_random_case(in, m, rng);
      }
  }
}

TEST_CASE("mma_reference fp8 / bf8 WMMA: -C and |C|") {
  std::mt19937 rng(99);
  for (const MmaInstrInfo& in : all_mma_instrs()) {
    if (in.a_type != MmaElem::fp8 && in.a_type != MmaElem::bf8)
      continue;
    if (in.sparse)
      continue;
    for (unsigned lo : {0u, 4u})
      for (unsigned hi : {0u, 4u}) {
        MmaModifiers m;
        m.neg_lo = lo;
        m.neg_hi = hi;
        check_random_case(in, m, rng);
      }
  }
}

TEST_CASE("mma_reference SWMMAC: random 2:4 patterns, both index_key values") {
  std::mt19937 rng(2024);
  for (const MmaInstrInfo& in : all_mma_instrs()) {
    if (!in.sparse)
      continue;
    for (unsigned key = 0; key < unsigned(in.index_keys); ++key)
      for (int trial = 0; trial < 4; ++trial) {
        MmaModifiers m;
        m.index_key = key;
        m.a_signed = (in.modifiers & kMmaSignedness) && trial % 2;
        m.b_signed = (in.modifiers & kMmaSignedness) && trial / 2;
        check_random_case(in, m, rng);
      }
  }
}

TEST_CASE("mma_reference: d may alias c (SWMMAC accumulates in place)") {
  std::mt19937 rng(5);
  for (const char* name : {"v_swmmac_f32_16x16x32_f16", "v_wmma_i32_16x16x32_iu4"}) {
    const MmaInstrInfo& in = *find_mma_instr(name);
    std::vector<uint32_t> a(in.a_vgprs * 32), b(in.b_vgprs * 32), c(in.cd_vgprs * 32), index(32);
    for (auto* v : {&a, &b, &index})
      for (uint32_t& w : *v)
        w = rng() & 0x3C003C00u; // f16 1.0 / 0 patterns and int nibbles; finite either way
    for (uint32_t& w : c)
      w = in.cd_type == MmaElem::f32 ? std::bit_cast<uint32_t>(1.5f) : 7u;
    std::vector<uint32_t> d(c.size());
    mma_reference(in, {}, a.data(), b.data(), c.data(), index.data(), d.data());
    mma_reference(in, {}, a.data(), b.data(), c.data(), index.data(), c.data());
    REQUIRE(c == d);
  }
}

TEST_CASE("mma_reference rejects modifiers the instruction does not accept") {
  const auto* f16 = find_mma_instr("v_wmma_f32_16x16x16_f16");
  const auto* fp8 = find_mma_instr("v_wmma_f32_16x16x16_fp8_fp8");
  const auto* iu8 = find_mma_instr("v_wmma_i32_16x16x16_iu8");
  const auto* sp16 = find_mma_instr("v_swmmac_f32_16x16x32_f16");
  const auto* sp64 = find_mma_instr("v_swmmac_i32_16x16x64_iu4");
  REQUIRE(f16);
  REQUIRE(fp8);
  REQUIRE(iu8);
  REQUIRE(sp16);
  REQUIRE(sp64);
  std::vector<uint32_t> r(8 * 32, 0);
  auto run = [&](const MmaInstrInfo* in, MmaModifiers m) {
    mma_reference(*in, m, r.data(), r.data(), r.data(), r.data(), r.data());
  };
  MmaModifiers m;
  m.neg_lo = 1;
  CHECK_THROWS_WITH_AS(run(fp8, m), doctest::Contains("fp8 / bf8 operands cannot be negated"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(run(iu8, m), doctest::Contains("a_signed / b_signed"),
                       std::invalid_argument);
  m = {};
  m.neg_hi = 4;
  CHECK_THROWS_WITH_AS(run(sp16, m), doctest::Contains("SWMMAC cannot negate C"),
                       std::invalid_argument);
  CHECK_NOTHROW(run(fp8, m)); // dense fp8 takes |C|
  m = {};
  m.clamp = true;
  CHECK_THROWS_WITH_AS(run(f16, m), doctest::Contains("v_wmma_f32_16x16x16_f16: clamp"),
                       std::invalid_argument);
  m = {};
  m.a_signed = true;
  CHECK_THROWS_WITH_AS(run(f16, m), doctest::Contains("only to iu8 / iu4"), std::invalid_argument);
  m = {};
  m.index_key = 1;
  CHECK_THROWS_WITH_AS(run(f16, m), doctest::Contains("index_key applies only to SWMMAC"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(run(sp64, m), doctest::Contains("all 32 index bits"), std::invalid_argument);
  m.index_key = 2;
  CHECK_THROWS_WITH_AS(run(sp16, m), doctest::Contains("index_key must be 0 or 1"),
                       std::invalid_argument);
  m = {};
  m.neg_lo = 9;
  CHECK_THROWS_WITH_AS(run(f16, m), doctest::Contains("3-bit masks"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(mma_reference(*sp16, {}, r.data(), r.data(), r.data(), nullptr, r.data()),
                       doctest::Contains("index must not be null"), std::invalid_argument);
}
