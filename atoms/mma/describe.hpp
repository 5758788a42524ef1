#pragma once
// Text views of the gfx12 matrix instructions: the lane lines of `tilewave atom`, the
// instruction list, CuTe notation of the lane layouts and Markdown matrix pictures (docs/atoms.md
// is generated from these). Run-time strings only: include where text is wanted.
#include <atoms/mma/gfx12_instrs.hpp>
#include <layouts/layout.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tw::atoms {

namespace detail {
// Concatenation by append (g++-12 warns -Wrestrict on `"literal" + std::string&&`, PR 105329).
inline void cat_one(std::string& out, std::string_view s) {
  out.append(s);
}
inline void cat_one(std::string& out, int i) {
  out.append(std::to_string(i));
}
inline void cat_one(std::string& out, char c) {
  out.push_back(c);
}
template <class... T>
std::string cat(const T&... parts) {
  std::string out;
  (cat_one(out, parts), ...);
  return out;
}
} // namespace detail

// "A", "B" or "C" (C and D share one layout).
enum class MmaOperand { A, B, C };

inline MmaOperand parse_mma_operand(std::string_view s) {
  if (s == "A" || s == "a")
    return MmaOperand::A;
  if (s == "B" || s == "b")
    return MmaOperand::B;
  if (s == "C" || s == "c" || s == "D" || s == "d")
    return MmaOperand::C;
  throw std::invalid_argument(
      detail::cat("unknown operand '", s, "': expected A, B or C (C and D share one layout)"));
}

inline const TvMap& mma_operand_map(const MmaInstrInfo& in, MmaOperand op) {
  return op == MmaOperand::A ? in.a : op == MmaOperand::B ? in.b : in.cd;
}

inline int mma_operand_vgprs(const MmaInstrInfo& in, MmaOperand op) {
  return op == MmaOperand::A ? in.a_vgprs : op == MmaOperand::B ? in.b_vgprs : in.cd_vgprs;
}

// "[15:0]": the bits of element e of a VGPR holding `bits`-wide elements.
inline std::string mma_bit_range(int bits, int e) {
  return detail::cat('[', bits * (e + 1) - 1, ':', bits * e, ']');
}

// The matrix entry that lane `lane`, VGPR `g`, element `e` of an operand holds, e.g. "A[1][6]".
// SWMMAC A: "A[row][4q + index[b+1:b]]", the k of the kept value being 4q plus the 2-bit
// position at bits [b+1:b] of the lane's index set (index VGPR bits [15:0] for index_key 0,
// [31:16] for 1; all 32 bits for v_swmmac_i32_16x16x64_iu4).
inline std::string mma_entry(const MmaInstrInfo& in, MmaOperand op, int lane, int g, int e) {
  const TvMap& map = mma_operand_map(in, op);
  const int v = g * map.elems_per_vgpr() + e;
  const auto [row, col] = map.coord(lane, v);
  const char name = op == MmaOperand::A ? 'A' : op == MmaOperand::B ? 'B' : 'C';
  if (op == MmaOperand::A && in.sparse)
    return detail::cat(name, '[', row, "][", 4 * (col / 2), " + index",
                       mma_bit_range(2, in.index_bit(v) / 2), ']');
  return detail::cat(name, '[', row, "][", col, ']');
}

// One line per (lane, vgpr, element): "lane 17 v1[15:0] -> A[1][6]".
inline std::vector<std::string> mma_operand_lines(const MmaInstrInfo& in, MmaOperand op) {
  const TvMap& map = mma_operand_map(in, op);
  std::vector<std::string> lines;
  for (int lane = 0; lane < 32; ++lane)
    for (int g = 0; g < mma_operand_vgprs(in, op); ++g)
      for (int e = 0; e < map.elems_per_vgpr(); ++e)
        lines.push_back(detail::cat("lane ", lane, " v", g, mma_bit_range(map.elem_bits, e), " -> ",
                                    mma_entry(in, op, lane, g, e)));
  return lines;
}

// CuTe notation of an operand's (thread, value) layout, e.g.
// "((16,2),(2,2,2)):((1,64),(16,32,128))".
inline std::string tv_layout_string(const TvMap& m) {
  const auto t = make_shape(int64_t(m.thread[0].extent), int64_t(m.thread[1].extent));
  const auto ts = make_stride(int64_t(m.thread[0].stride), int64_t(m.thread[1].stride));
  auto e = [&](int i) { return int64_t(m.value[i].extent); };
  auto s = [&](int i) { return int64_t(m.value[i].stride); };
  if (m.value[2].extent > 1)
    return to_string(make_layout(make_shape(t, make_shape(e(0), e(1), e(2))),
                                 make_stride(ts, make_stride(s(0), s(1), s(2)))));
  if (m.value[1].extent > 1)
    return to_string(make_layout(make_shape(t, make_shape(e(0), e(1))),
                                 make_stride(ts, make_stride(s(0), s(1)))));
  return to_string(make_layout(make_shape(t, e(0)), make_stride(ts, s(0))));
}

inline std::string mma_modifiers_text(const MmaInstrInfo& in) {
  std::string out;
  auto add = [&](std::string_view s) { out.append(out.empty() ? "" : ", ").append(s); };
  if (in.modifiers & kMmaSignedness)
    add("a_signed, b_signed (neg_lo[0], neg_lo[1])");
  if (in.modifiers & kMmaClamp)
    add("clamp");
  if (in.modifiers & kMmaNegAB)
    add("neg_lo/neg_hi[0..1] (negate A/B halves)");
  if (in.modifiers & kMmaNegC)
    add("neg_lo[2] (-C), neg_hi[2] (|C|)");
  if (in.modifiers & kMmaIndexKey)
    add("index_key 0..1");
  return out.empty() ? "none" : out;
}

// "v_wmma_f32_16x16x16_f16  16x16x16  f16 x f16 -> f32  VGPRs A/B/CD 4/4/8"
inline std::string mma_list_line(const MmaInstrInfo& in) {
  std::string name(in.mnemonic);
  name.resize(std::max<std::size_t>(name.size(), 30), ' ');
  std::string shape = detail::cat(in.m, 'x', in.n, 'x', in.k);
  shape.resize(10, ' ');
  std::string types =
      detail::cat(elem_name(in.a_type), " x ", elem_name(in.b_type), " -> ", elem_name(in.cd_type));
  types.resize(20, ' ');
  return detail::cat(name, shape, types, "VGPRs A/B/CD ", in.a_vgprs, '/', in.b_vgprs, '/',
                     in.cd_vgprs, in.sparse ? " + index (2:4 sparse A)" : "");
}

// Header lines of `tilewave atom NAME` (each starts with "# ").
inline std::vector<std::string> mma_summary_lines(const MmaInstrInfo& in) {
  const int a_cols = in.sparse ? in.k / 2 : in.k;
  using detail::cat;
  return {
      cat("# ", mma_list_line(in)),
      cat("# intrinsic: ", in.intrinsic, ' ', in.signature),
      cat("# builtin:   ", in.builtin),
      cat("# modifiers: ", mma_modifiers_text(in)),
      cat("# A (", in.m, 'x', a_cols, in.sparse ? ", kept values" : "",
          "): ", tv_layout_string(in.a)),
      cat("# B (", in.k, 'x', in.n, "): ", tv_layout_string(in.b)),
      cat("# C/D (", in.m, 'x', in.n, "): ", tv_layout_string(in.cd)),
      "# layouts: (lane, value) -> row + rows * col, value = vgpr * (32 / bits) + element",
  };
}

// Markdown picture of an operand's matrix: each cell "lane:vgpr.element" holding that entry.
inline std::string mma_matrix_markdown(const MmaInstrInfo& in, MmaOperand op) {
  const TvMap& map = mma_operand_map(in, op);
  std::vector<std::string> cell(map.rows * map.cols);
  for (int lane = 0; lane < 32; ++lane)
    for (int v = 0; v < map.values_per_lane(); ++v) {
      const auto [r, c] = map.coord(lane, v);
      cell[r + map.rows * c] =
          detail::cat(lane, ':', v / map.elems_per_vgpr(), '.', v % map.elems_per_vgpr());
    }
  const bool sparse_a = op == MmaOperand::A && in.sparse;
  const char* row_name = op == MmaOperand::B ? "k" : "row";
  std::string out =
      detail::cat("| ", std::string_view(row_name), " \\ ",
                  std::string_view(op == MmaOperand::A ? (sparse_a ? "kept" : "k") : "col"), " |");
  for (int c = 0; c < map.cols; ++c)
    out += detail::cat(' ', c, " |");
  out += "\n|---|";
  for (int c = 0; c < map.cols; ++c)
    out += "---|";
  out += "\n";
  for (int r = 0; r < map.rows; ++r) {
    out += detail::cat("| ", r, " |");
    for (int c = 0; c < map.cols; ++c)
      out += detail::cat(' ', cell[r + map.rows * c], " |");
    out += "\n";
  }
  return out;
}

} // namespace tw::atoms
