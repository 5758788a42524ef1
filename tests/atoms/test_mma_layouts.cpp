// The lane layouts of every gfx12 WMMA / SWMMAC atom: bijections onto their matrices, equal to
// the RDNA4.md formulas (mma_formulas.hpp), and the typed tw layouts equal to the table.
#include "atoms/mma_formulas.hpp"

#include <atoms/mma/gfx12.hpp>

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace tw::atoms;

template <class Formula>
void check_operand(const MmaInstrInfo& in, const char* operand, const TvMap& map, int vgprs,
                   MmaElem type, int rows, int cols, Formula formula) {
  CAPTURE(std::string(in.mnemonic));
  CAPTURE(std::string(operand));
  REQUIRE(map.rows == rows);
  REQUIRE(map.cols == cols);
  REQUIRE(map.elem_bits == elem_bits(type));
  const int per_vgpr = 32 / elem_bits(type);
  REQUIRE(map.values_per_lane() == vgprs * per_vgpr);
  REQUIRE(32 * map.values_per_lane() == rows * cols); // no replication: every element once
  std::vector<int> hits(rows * cols, 0);
  for (int l = 0; l < 32; ++l)
    for (int g = 0; g < vgprs; ++g)
      for (int e = 0; e < per_vgpr; ++e) {
        const auto [r, c] = map.coord(l, g * per_vgpr + e);
        const tw::test::MatCoord f = formula(in, l, g, e);
        CAPTURE(l);
        CAPTURE(g);
        CAPTURE(e);
        REQUIRE(r == f.row);
        REQUIRE(c == f.col);
        REQUIRE(r >= 0);
        REQUIRE(r < rows);
        REQUIRE(c >= 0);
        REQUIRE(c < cols);
        ++hits[r + rows * c];
      }
  for (int h : hits)
    REQUIRE(h == 1);
}

// The typed layout, brought to the run-time tree once (cheap to compile), evaluated at every
// (lane, value): its linear index is lane + 32 * value since the thread mode (16, 2) comes first.
void check_tv_layout(const tw::DynLayout& typed, const TvMap& map) {
  REQUIRE(typed.size() == 32 * map.values_per_lane());
  for (int l = 0; l < 32; ++l)
    for (int v = 0; v < map.values_per_lane(); ++v)
      REQUIRE(typed(int64_t(l + 32 * v)) == map.index(l, v));
}

template <class Atom>
void check_typed_layouts() {
  const MmaInstrInfo& in = Atom::info;
  CAPTURE(std::string(in.mnemonic));
  check_tv_layout(tw::to_dyn(Atom::a_layout), in.a);
  check_tv_layout(tw::to_dyn(Atom::b_layout), in.b);
  check_tv_layout(tw::to_dyn(Atom::c_layout), in.cd);
  static_assert(tw::StaticLayout<typename Atom::ALayout> &&
                tw::StaticLayout<typename Atom::CLayout>);
  REQUIRE(Atom::Operation::mnemonic == in.mnemonic);
}

} // namespace

TEST_CASE("mma layouts: every atom's maps are bijections equal to the RDNA4.md formulas") {
  REQUIRE(all_mma_instrs().size() == 22);
  for (const MmaInstrInfo& in : all_mma_instrs()) {
    const int a_cols = in.sparse ? in.k / 2 : in.k;
    check_operand(in, "A", in.a, in.a_vgprs, in.a_type, in.m, a_cols, tw::test::formula_a);
    check_operand(in, "B", in.b, in.b_vgprs, in.b_type, in.k, in.n, tw::test::formula_b);
    check_operand(in, "C", in.cd, in.cd_vgprs, in.cd_type, in.m, in.n, tw::test::formula_cd);
  }
}

TEST_CASE("mma layouts: SWMMAC index bits cover every kept value once") {
  for (const MmaInstrInfo& in : all_mma_instrs()) {
    if (!in.sparse)
      continue;
    CAPTURE(std::string(in.mnemonic));
    // Each lane's kept values v use index bits [2v+1 : 2v]; they must agree with the RDNA4.md
    // slot of their k-group and fit the index set (16 bits, 32 for iu4 16x16x64).
    const int set_bits = in.index_keys == 2 ? 16 : 32;
    for (int l = 0; l < 32; ++l)
      for (int v = 0; v < in.a.values_per_lane(); ++v) {
        const auto [row, ck] = in.a.coord(l, v);
        const tw::test::IndexSlot s = tw::test::formula_index(in, ck / 2);
        REQUIRE(row == l % 16);
        REQUIRE(s.lane_half == l / 16);
        REQUIRE(in.index_bit(v) == s.bit + 2 * (ck % 2));
        REQUIRE(in.index_bit(v) + 2 <= set_bits);
      }
  }
}

TEST_CASE("mma layouts: the typed atoms' tw layouts equal the table") {
  check_typed_layouts<wmma_f32_16x16x16_f16>();
  check_typed_layouts<wmma_f32_16x16x16_bf16>();
  check_typed_layouts<wmma_f16_16x16x16_f16>();
  check_typed_layouts<wmma_bf16_16x16x16_bf16>();
  check_typed_layouts<wmma_i32_16x16x16_iu8>();
  check_typed_layouts<wmma_i32_16x16x16_iu4>();
  check_typed_layouts<wmma_i32_16x16x32_iu4>();
  check_typed_layouts<wmma_f32_16x16x16_fp8_fp8>();
  check_typed_layouts<wmma_f32_16x16x16_fp8_bf8>();
  check_typed_layouts<wmma_f32_16x16x16_bf8_fp8>();
  check_typed_layouts<wmma_f32_16x16x16_bf8_bf8>();
  check_typed_layouts<swmmac_f32_16x16x32_f16>();
  check_typed_layouts<swmmac_f32_16x16x32_bf16>();
  check_typed_layouts<swmmac_f16_16x16x32_f16>();
  check_typed_layouts<swmmac_bf16_16x16x32_bf16>();
  check_typed_layouts<swmmac_i32_16x16x32_iu8>();
  check_typed_layouts<swmmac_i32_16x16x32_iu4>();
  check_typed_layouts<swmmac_i32_16x16x64_iu4>();
  check_typed_layouts<swmmac_f32_16x16x32_fp8_fp8>();
  check_typed_layouts<swmmac_f32_16x16x32_fp8_bf8>();
  check_typed_layouts<swmmac_f32_16x16x32_bf8_fp8>();
  check_typed_layouts<swmmac_f32_16x16x32_bf8_bf8>();
  // Direct evaluation of a typed layout at (lane, value) (RDNA4.md: lane 17, VGPR 1, high half
  // of 16-bit A is row 1, k 7), and the CuTe notation of two of them.
  CHECK(wmma_f32_16x16x16_f16::a_layout(17, 3) == 1 + 16 * 7);
  CHECK(tw::to_string(wmma_f32_16x16x16_f16::a_layout) == "((16,2),(2,2,2)):((1,64),(16,32,128))");
  CHECK(tw::to_string(wmma_f32_16x16x16_f16::c_layout) == "((16,2),8):((16,8),1)");
}

TEST_CASE("mma table: names, lookups, register counts") {
  std::set<std::string> names;
  for (const MmaInstrInfo& in : all_mma_instrs()) {
    CAPTURE(std::string(in.mnemonic));
    REQUIRE(names.insert(std::string(in.mnemonic)).second);
    REQUIRE(find_mma_instr(in.mnemonic) == &in);
    REQUIRE(in.m == 16);
    REQUIRE(in.n == 16);
    // A (compressed for SWMMAC), B and C/D registers hold exactly their matrices.
    const int a_cols = in.sparse ? in.k / 2 : in.k;
    REQUIRE(in.a_vgprs * 32 * 32 == in.m * a_cols * elem_bits(in.a_type));
    REQUIRE(in.b_vgprs * 32 * 32 == in.k * in.n * elem_bits(in.b_type));
    REQUIRE(in.cd_vgprs * 32 * 32 == in.m * in.n * elem_bits(in.cd_type));
    REQUIRE(find_mma_instr(
                MmaQuery{in.m, in.n, in.k, in.a_type, in.b_type, in.cd_type, in.sparse}) == &in);
  }
  CHECK(find_mma_instr("v_wmma_f32_16x16x16_f16_w32") == nullptr);
  CHECK(find_mma_instr("v_mfma_f32_16x16x16f16") == nullptr);
  // RDNA4.md register counts.
  const auto* iu4k32 = find_mma_instr("v_wmma_i32_16x16x32_iu4");
  REQUIRE(iu4k32);
  CHECK(std::tie(iu4k32->a_vgprs, iu4k32->b_vgprs, iu4k32->cd_vgprs) == std::tuple(2, 2, 8));
  const auto* sp64 = find_mma_instr("v_swmmac_i32_16x16x64_iu4");
  REQUIRE(sp64);
  CHECK(std::tie(sp64->a_vgprs, sp64->b_vgprs, sp64->cd_vgprs) == std::tuple(2, 4, 8));
}

TEST_CASE("mma verify: shapes, arch and modifiers rejected with the rule") {
  using E = MmaElem;
  CHECK(mma_query_error({16, 16, 32, E::f16, E::f16, E::f32, false}).find("only for iu4") !=
        std::string_view::npos);
  CHECK(mma_query_error({16, 16, 32, E::f16, E::f16, E::f32, true}).empty());
  CHECK(mma_query_error({16, 16, 64, E::iu8, E::iu8, E::i32, true}).find("only for iu4") !=
        std::string_view::npos);
  CHECK(mma_query_error({32, 32, 16, E::f16, E::f16, E::f32, false}).find("16 x 16") !=
        std::string_view::npos);
  CHECK(mma_query_error({16, 16, 16, E::f16, E::bf16, E::f32, false}).find("same element") !=
        std::string_view::npos);
  CHECK(mma_query_error({16, 16, 16, E::fp8, E::bf8, E::f32, false}).empty());
  CHECK(mma_query_error({16, 16, 16, E::fp8, E::fp8, E::f16, false}).find("C/D type") !=
        std::string_view::npos);
  CHECK_THROWS_WITH_AS(select_mma_instr({16, 16, 32, E::bf16, E::bf16, E::f32, false}),
                       doctest::Contains("WMMA 16x16x32 bf16 x bf16 -> f32: a dense 16x16x32"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(select_mma_instr({}, "gfx942"),
                       doctest::Contains("arch 'gfx942': WMMA / SWMMAC atoms are gfx12"),
                       std::invalid_argument);
  CHECK(select_mma_instr({16, 16, 32, E::iu4, E::iu4, E::i32, false}, "gfx1200").mnemonic ==
        "v_wmma_i32_16x16x32_iu4");
  CHECK_THROWS_WITH_AS(wmma_f32_16x16x16_f16::verify("gfx1100"),
                       doctest::Contains("v_wmma_f32_16x16x16_f16 on arch 'gfx1100'"),
                       std::invalid_argument);
  CHECK_NOTHROW(wmma_f32_16x16x16_f16::verify("gfx1201", MmaModifiers{.neg_lo = 7, .neg_hi = 7}));
  CHECK_THROWS_WITH_AS(wmma_f32_16x16x16_fp8_fp8::verify(MmaModifiers{.neg_hi = 2}),
                       doctest::Contains("fp8 / bf8 operands cannot be negated"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(wmma_f32_16x16x16_bf16::verify(MmaModifiers{.clamp = true}),
                       doctest::Contains("clamp"), std::invalid_argument);
  // The static forms accept what the instruction accepts.
  static_assert(wmma_f32_16x16x16_f16::require_modifiers<MmaModifiers{.neg_lo = 7, .neg_hi = 7}>());
  static_assert(wmma_f32_16x16x16_fp8_fp8::require_modifiers<MmaModifiers{.neg_lo = 4}>());
  static_assert(wmma_i32_16x16x32_iu4::require_modifiers<MmaModifiers{true, true, true}>());
  static_assert(
      swmmac_f16_16x16x32_f16::require_modifiers<MmaModifiers{.neg_lo = 2, .index_key = 1}>());
  static_assert(std::is_same_v<select_mma_atom<MmaQuery{16, 16, 64, E::iu4, E::iu4, E::i32, true}>,
                               swmmac_i32_16x16x64_iu4>);
  static_assert(mma_arch_error("gfx1201").empty() && !mma_arch_error("gfx90a").empty());
}

TEST_CASE("mma verify: the constexpr error() of an atom") {
  static_assert(wmma_i32_16x16x16_iu8::error().empty());
  static_assert(wmma_i32_16x16x16_iu8::error("gfx1200", MmaModifiers{true, false, true}).empty());
  static_assert(!wmma_i32_16x16x16_iu8::error("gfx942").empty());
  static_assert(!swmmac_f32_16x16x32_fp8_fp8::error("gfx1201", MmaModifiers{.neg_lo = 4}).empty());
  CHECK(wmma_f32_16x16x16_f16::error("gfx1201", MmaModifiers{.clamp = true}).find("clamp") == 0);
  CHECK(wmma_f32_16x16x16_f16::error("gfx1151").find("must be gfx1200 or gfx1201") !=
        std::string_view::npos);
}
