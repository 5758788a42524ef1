// Every WMMA / SWMMAC builtin (kernels/valu_wmma.hip) on the emulator, each compared with a
// plain host matrix product of the decoded inputs. Register packing follows the lane layouts
// written in shared/RDNA4.md (not the atoms' code); the one exception is B of the 8-bit and
// 4-bit SWMMAC forms, which RDNA4.md only describes as "the same pattern": for those the
// test takes the k of each B element from the atoms' published TvMap (a table, not the
// semantics under test).
#include "emu_test_util.hpp"

#include <atoms/formats/bf16.hpp>
#include <atoms/formats/f16.hpp>
#include <atoms/formats/fp8.hpp>
#include <atoms/mma/gfx12_instrs.hpp>

#include <doctest/doctest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace tw;

namespace {

enum class El { f16, bf16, fp8, bf8, iu8, iu4, f32, i32 };

int bits_of(El e) {
  switch (e) {
  case El::f16:
  case El::bf16:
    return 16;
  case El::fp8:
  case El::bf8:
  case El::iu8:
    return 8;
  case El::iu4:
    return 4;
  default:
    return 32;
  }
}

struct Case {
  std::string kernel;
  const char* mnemonic;
  El ab, b2, cd; // A type, B type, C/D type
  int k;         // K of the (uncompressed) product
  bool sparse;
  bool a_signed = false, b_signed = false, clamp = false;
  int index_key = 0;
};

// Decoded value of raw element bits.
double decode(El e, uint32_t raw, bool is_signed) {
  switch (e) {
  case El::f16:
    return num::f16_to_f32(uint16_t(raw));
  case El::bf16:
    return num::bf16_to_f32(uint16_t(raw));
  case El::fp8:
    return num::e4m3_to_f32(uint8_t(raw));
  case El::bf8:
    return num::e5m2_to_f32(uint8_t(raw));
  case El::iu8:
    return is_signed ? double(int8_t(uint8_t(raw))) : double(uint8_t(raw));
  case El::iu4:
    return is_signed ? double(int32_t(raw << 28) >> 28) : double(raw & 15);
  case El::f32:
    return std::bit_cast<float>(raw);
  case El::i32:
    return double(int32_t(raw));
  }
  return 0;
}

// Random raw bits of an input element: small values so every product and sum is exact in f32.
uint32_t random_raw(El e, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(-8, 8);
  switch (e) {
  case El::f16:
    return num::f32_to_f16(float(d(rng)) * 0.25f);
  case El::bf16:
    return num::f32_to_bf16(float(d(rng)) * 0.25f);
  case El::fp8:
    return num::f32_to_e4m3(float(d(rng)) * 0.5f, num::Saturate::no);
  case El::bf8:
    return num::f32_to_e5m2(float(d(rng)) * 0.5f, num::Saturate::no);
  case El::iu8:
    return uint32_t(rng()) & 0xffu;
  case El::iu4:
    return uint32_t(rng()) & 0xfu;
  default:
    return 0;
  }
}

// k of element e (0-based within the VGPR) of VGPR g in lane l for a dense operand with
// `kdim` K values, per shared/RDNA4.md.
int dense_k(El e, int kdim, int l, int g, int e_in_vgpr) {
  const int half = l / 16;
  switch (bits_of(e)) {
  case 16:
    return 8 * (g / 2) + 4 * half + 2 * (g % 2) + e_in_vgpr;
  case 8:
    return 8 * half + 4 * g + e_in_vgpr;
  default:
    return kdim == 16 ? 8 * half + e_in_vgpr : 16 * half + 8 * g + e_in_vgpr;
  }
}

struct Product {
  std::vector<uint32_t> a, b, c, idx; // register images: word v*32 + lane
  double A[16][64] = {};              // decoded dense (uncompressed) A
  double B[64][16] = {};
  double C[16][16] = {};
};

Product make_inputs(const Case& cs, const atoms::MmaInstrInfo& info, std::mt19937& rng) {
  Product p;
  const int abits = bits_of(cs.ab), per_vgpr_a = 32 / abits, per_vgpr_b = 32 / bits_of(cs.b2);
  p.a.assign(size_t(info.a_vgprs) * 32, 0);
  p.b.assign(size_t(info.b_vgprs) * 32, 0);
  p.c.assign(size_t(info.cd_vgprs) * 32, 0);
  p.idx.assign(32, 0);
  // Sparse: per (row, group of 4 along K), the two kept positions p0 < p1.
  std::array<std::array<std::array<int, 2>, 16>, 16> keep{};
  for (auto& row : keep)
    for (auto& grp : row) {
      const int p0 = int(rng() % 3);
      grp = {p0, p0 + 1 + int(rng() % unsigned(3 - p0))};
    }
  const int a_kdim = cs.sparse ? cs.k / 2 : cs.k; // A holds K/2 kept values per row when sparse
  for (int l = 0; l < 32; ++l)
    for (int g = 0; g < info.a_vgprs; ++g)
      for (int e = 0; e < per_vgpr_a; ++e) {
        const uint32_t raw = random_raw(cs.ab, rng);
        p.a[size_t(g * 32 + l)] |= raw << (abits * e);
        const int i = l % 16, kc = dense_k(cs.ab, a_kdim, l, g, e);
        int k = kc;
        if (cs.sparse) {
          const int grp = kc / 2, slot = kc % 2, pos = keep[i][grp][slot];
          k = 4 * grp + pos;
          // 2-bit position of value v = g * per_vgpr + e at bit 2v of the 16-bit set index_key.
          p.idx[size_t(l)] |= uint32_t(pos) << (2 * (g * per_vgpr_a + e) + 16 * cs.index_key);
        }
        p.A[i][k] = decode(cs.ab, raw, cs.a_signed);
      }
  const bool b_from_table = cs.sparse && bits_of(cs.b2) < 16;
  const int bbits = bits_of(cs.b2);
  for (int l = 0; l < 32; ++l)
    for (int g = 0; g < info.b_vgprs; ++g)
      for (int e = 0; e < per_vgpr_b; ++e) {
        const uint32_t raw = random_raw(cs.b2, rng);
        p.b[size_t(g * 32 + l)] |= raw << (bbits * e);
        int k;
        if (b_from_table)
          k = info.b.coord(l, g * per_vgpr_b + e).first;
        else if (cs.sparse) // 16-bit B of 16x16x32 (RDNA4.md): k = 16*(g/4) + 8*(l/16) + 2*(g%4) +
                            // h
          k = 16 * (g / 4) + 8 * (l / 16) + 2 * (g % 4) + e;
        else
          k = dense_k(cs.b2, cs.k, l, g, e);
        p.B[k][l % 16] = decode(cs.b2, raw, cs.b_signed);
      }
  // C: 32-bit: VGPR r of lane l = (8*(l/16) + r, l%16); 16-bit: (8*(l/16) + 2g + h, l%16).
  std::uniform_int_distribution<int> cd(-20, 20);
  for (int l = 0; l < 32; ++l)
    for (int g = 0; g < info.cd_vgprs; ++g) {
      const int j = l % 16;
      if (cs.cd == El::f32) {
        const float v = float(cd(rng)) * 0.5f;
        p.c[size_t(g * 32 + l)] = std::bit_cast<uint32_t>(v);
        p.C[8 * (l / 16) + g][j] = v;
      } else if (cs.cd == El::i32) {
        const int i = 8 * (l / 16) + g;
        // Near the i32 limits in half of the entries so clamp / wrap-around are exercised.
        const int32_t v = (i + j) % 4 == 0   ? INT32_MAX - 3000
                          : (i + j) % 4 == 1 ? INT32_MIN + 3000
                                             : cd(rng) * 1000;
        p.c[size_t(g * 32 + l)] = uint32_t(v);
        p.C[i][j] = v;
      } else {
        for (int h = 0; h < 2; ++h) {
          const float v = float(cd(rng)) * 0.25f;
          const uint32_t raw = cs.cd == El::f16 ? num::f32_to_f16(v) : num::f32_to_bf16(v);
          p.c[size_t(g * 32 + l)] |= raw << (16 * h);
          p.C[8 * (l / 16) + 2 * g + h][j] = v;
        }
      }
    }
  return p;
}

void check_case(const Case& cs, const test::KernelVariant& var, test::EmuRun& run) {
  const atoms::MmaInstrInfo* info = atoms::find_mma_instr(cs.mnemonic);
  REQUIRE(info != nullptr);
  std::mt19937 rng(std::hash<std::string>{}(cs.kernel));
  const Product p = make_inputs(cs, *info, rng);

  auto da = run.upload(p.a), db = run.upload(p.b), dc = run.upload(p.c), di = run.upload(p.idx);
  auto dd = run.alloc<uint32_t>(p.c.size());
  runtime::KernelArgs args;
  args.ptr(da).ptr(db).ptr(dc).ptr(di).ptr(dd);
  run.launch(cs.kernel, {1, 1, 1}, {32, 1, 1}, args);
  const std::vector<uint32_t> d = run.download<uint32_t>(dd, p.c.size());

  for (int l = 0; l < 32; ++l)
    for (int g = 0; g < info->cd_vgprs; ++g)
      for (int h = 0; h < (bits_of(cs.cd) == 16 ? 2 : 1); ++h) {
        const int i = bits_of(cs.cd) == 16 ? 8 * (l / 16) + 2 * g + h : 8 * (l / 16) + g,
                  j = l % 16;
        double ref = p.C[i][j];
        for (int k = 0; k < cs.k; ++k)
          ref += p.A[i][k] * p.B[k][j];
        const uint32_t word = d[size_t(g * 32 + l)];
        CAPTURE(var.label);
        CAPTURE(cs.kernel);
        CAPTURE(i);
        CAPTURE(j);
        if (cs.cd == El::i32) {
          const int64_t exact = int64_t(ref);
          const int32_t want = cs.clamp ? int32_t(std::clamp<int64_t>(exact, INT32_MIN, INT32_MAX))
                                        : int32_t(uint32_t(uint64_t(exact)));
          CHECK(int32_t(word) == want);
        } else if (cs.cd == El::f32) {
          CHECK(std::bit_cast<float>(word) == doctest::Approx(ref).epsilon(1e-6));
        } else {
          const uint32_t raw = (word >> (16 * h)) & 0xffff;
          const double got = decode(cs.cd, raw, false);
          const double ulp = cs.cd == El::f16 ? 1.0 / 1024 : 1.0 / 128;
          CHECK(std::fabs(got - ref) <= std::fabs(ref) * ulp + 1e-3);
        }
      }
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    std::vector<Case> v = {
        {"wmma_f32_f16", "v_wmma_f32_16x16x16_f16", El::f16, El::f16, El::f32, 16, false},
        {"wmma_f32_bf16", "v_wmma_f32_16x16x16_bf16", El::bf16, El::bf16, El::f32, 16, false},
        {"wmma_f16_f16", "v_wmma_f16_16x16x16_f16", El::f16, El::f16, El::f16, 16, false},
        {"wmma_bf16_bf16", "v_wmma_bf16_16x16x16_bf16", El::bf16, El::bf16, El::bf16, 16, false},
        {"wmma_fp8_fp8", "v_wmma_f32_16x16x16_fp8_fp8", El::fp8, El::fp8, El::f32, 16, false},
        {"wmma_fp8_bf8", "v_wmma_f32_16x16x16_fp8_bf8", El::fp8, El::bf8, El::f32, 16, false},
        {"wmma_bf8_fp8", "v_wmma_f32_16x16x16_bf8_fp8", El::bf8, El::fp8, El::f32, 16, false},
        {"wmma_bf8_bf8", "v_wmma_f32_16x16x16_bf8_bf8", El::bf8, El::bf8, El::f32, 16, false},
        {"swmmac_f32_f16", "v_swmmac_f32_16x16x32_f16", El::f16, El::f16, El::f32, 32, true},
        {"swmmac_f32_bf16", "v_swmmac_f32_16x16x32_bf16", El::bf16, El::bf16, El::f32, 32, true},
        {"swmmac_f16_f16", "v_swmmac_f16_16x16x32_f16", El::f16, El::f16, El::f16, 32, true},
        {"swmmac_bf16_bf16", "v_swmmac_bf16_16x16x32_bf16", El::bf16, El::bf16, El::bf16, 32, true},
        {"swmmac_fp8_fp8", "v_swmmac_f32_16x16x32_fp8_fp8", El::fp8, El::fp8, El::f32, 32, true},
        {"swmmac_fp8_bf8", "v_swmmac_f32_16x16x32_fp8_bf8", El::fp8, El::bf8, El::f32, 32, true},
        {"swmmac_bf8_fp8", "v_swmmac_f32_16x16x32_bf8_fp8", El::bf8, El::fp8, El::f32, 32, true},
        {"swmmac_bf8_bf8", "v_swmmac_f32_16x16x32_bf8_bf8", El::bf8, El::bf8, El::f32, 32, true},
    };
    Case key1{
        "swmmac_f32_f16_key1", "v_swmmac_f32_16x16x32_f16", El::f16, El::f16, El::f32, 32, true};
    key1.index_key = 1;
    v.push_back(key1);
    struct Int {
      const char* prefix;
      const char* mnemonic;
      El e;
      int k;
      bool sparse;
    };
    for (const Int& f : {Int{"wmma_iu8_", "v_wmma_i32_16x16x16_iu8", El::iu8, 16, false},
                         Int{"wmma_iu4_", "v_wmma_i32_16x16x16_iu4", El::iu4, 16, false},
                         Int{"wmma_iu4k32_", "v_wmma_i32_16x16x32_iu4", El::iu4, 32, false},
                         Int{"swmmac_iu8_", "v_swmmac_i32_16x16x32_iu8", El::iu8, 32, true},
                         Int{"swmmac_iu4_", "v_swmmac_i32_16x16x32_iu4", El::iu4, 32, true},
                         Int{"swmmac_iu4k64_", "v_swmmac_i32_16x16x64_iu4", El::iu4, 64, true}})
      for (const char* flags : {"000", "110", "101", "011"}) {
        Case c{std::string(f.prefix) + flags, f.mnemonic, f.e, f.e, El::i32, f.k, f.sparse};
        c.a_signed = flags[0] == '1';
        c.b_signed = flags[1] == '1';
        c.clamp = flags[2] == '1';
        v.push_back(c);
      }
    return v;
  }();
  return all;
}

} // namespace

TEST_CASE("valu: every WMMA builtin matches a host matrix product (all code object variants)") {
  int checked = 0;
  for (const test::KernelVariant& var : test::kernel_variants("valu_wmma")) {
    test::EmuRun run(var.path); // one load (and decode) per code object
    for (const Case& cs : cases())
      if (!cs.sparse) {
        check_case(cs, var, run);
        ++checked;
      }
  }
  CHECK(checked == 5 * 20);
}

TEST_CASE("valu: every SWMMAC builtin matches a host product of the 2:4-sparse A (all variants)") {
  int checked = 0;
  for (const test::KernelVariant& var : test::kernel_variants("valu_wmma")) {
    test::EmuRun run(var.path);
    for (const Case& cs : cases())
      if (cs.sparse) {
        check_case(cs, var, run);
        ++checked;
      }
  }
  CHECK(checked == 5 * 21);
}
