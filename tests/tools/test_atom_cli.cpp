// Black-box tests of `tilewave atom`: expected lines are hand-derived from the lane layouts of
// shared/RDNA4.md (lane l, VGPR g, element e).
#include "tools/run_tool.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

using tw::test::run_tool;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

bool has_line(const std::string& text, const std::string& line) {
  for (const std::string& l : lines_of(text))
    if (l == line)
      return true;
  return false;
}

} // namespace

TEST_CASE("atom --operand A prints one line per lane, VGPR and element (16-bit A)") {
  auto r = run_tool("atom v_wmma_f32_16x16x16_f16 --operand A");
  REQUIRE(r.status == 0);
  const auto lines = lines_of(r.output);
  CHECK(lines.size() == 32 * 4 * 2);
  CHECK(lines.front() == "lane 0 v0[15:0] -> A[0][0]");
  // Lanes 16-31 hold k 4,5 | 6,7 | 12,13 | 14,15: lane 17 VGPR 1 is k 6 and 7 of row 1.
  CHECK(has_line(r.output, "lane 17 v1[15:0] -> A[1][6]"));
  CHECK(has_line(r.output, "lane 17 v1[31:16] -> A[1][7]"));
  CHECK(has_line(r.output, "lane 3 v2[15:0] -> A[3][8]"));
  CHECK(has_line(r.output, "lane 31 v3[31:16] -> A[15][15]"));
}

TEST_CASE("atom prints B and C/D lines with the bit ranges of each element width") {
  auto b = run_tool("atom v_wmma_i32_16x16x32_iu4 --operand B");
  REQUIRE(b.status == 0);
  CHECK(lines_of(b.output).size() == 32 * 2 * 8);
  CHECK(has_line(b.output, "lane 17 v1[7:4] -> B[25][1]")); // k = 16*(l/16) + 8g + n
  CHECK(has_line(b.output, "lane 0 v0[31:28] -> B[7][0]"));
  auto a8 = run_tool("atom v_wmma_i32_16x16x16_iu8 --operand A");
  CHECK(has_line(a8.output, "lane 18 v1[23:16] -> A[2][14]")); // k = 8*(l/16) + 4g + b
  auto c32 = run_tool("atom v_wmma_f32_16x16x16_bf16 --operand C");
  CHECK(lines_of(c32.output).size() == 32 * 8);
  CHECK(has_line(c32.output, "lane 20 v3[31:0] -> C[11][4]")); // row 8*(l/16) + r, col l%16
  auto c16 = run_tool("atom v_wmma_f16_16x16x16_f16 --operand D");
  CHECK(lines_of(c16.output).size() == 32 * 4 * 2);
  CHECK(has_line(c16.output, "lane 16 v2[31:16] -> C[13][0]")); // row 8*(l/16) + 2g + h
  auto fp8b = run_tool("atom v_wmma_f32_16x16x16_fp8_bf8 --operand B");
  CHECK(has_line(fp8b.output, "lane 5 v0[15:8] -> B[1][5]"));
}

TEST_CASE("atom shows SWMMAC A as kept values with their index bits") {
  auto r = run_tool("atom v_swmmac_f32_16x16x32_f16 --operand A");
  REQUIRE(r.status == 0);
  CHECK(lines_of(r.output).size() == 32 * 4 * 2);
  // Lane 16, VGPR 1: the k-group starting at 16*(g/2) + 8*(l/16) + 4*(g%2) = 12; its second
  // kept value is the 4th value of the lane, position in index bits [7:6].
  CHECK(has_line(r.output, "lane 16 v1[31:16] -> A[0][12 + index[7:6]]"));
  CHECK(has_line(r.output, "lane 0 v0[15:0] -> A[0][0 + index[1:0]]"));
  auto b = run_tool("atom v_swmmac_f32_16x16x32_f16 --operand B");
  CHECK(lines_of(b.output).size() == 32 * 8 * 2);
  CHECK(has_line(b.output, "lane 16 v4[15:0] -> B[24][0]")); // 16*(g/4) + 8*(l/16) + 2*(g%4) + h
}

TEST_CASE("atom NAME without --operand prints a summary and all three operands") {
  auto r = run_tool("atom V_WMMA_I32_16X16X32_IU4");
  REQUIRE(r.status == 0);
  const auto lines = lines_of(r.output);
  REQUIRE(lines.size() > 8);
  CHECK(lines[0].rfind("# v_wmma_i32_16x16x32_iu4", 0) == 0);
  CHECK(r.output.find("# intrinsic: llvm.amdgcn.wmma.i32.16x16x32.iu4.v8i32.v2i32 <8 x i32> "
                      "(i1 immarg, <2 x i32>, i1 immarg, <2 x i32>, <8 x i32>, i1 immarg)") !=
        std::string::npos);
  CHECK(r.output.find("# builtin:   __builtin_amdgcn_wmma_i32_16x16x32_iu4_w32_gfx12") !=
        std::string::npos);
  CHECK(r.output.find("a_signed, b_signed") != std::string::npos);
  CHECK(has_line(r.output, "lane 0 v0[3:0] -> A[0][0]"));
  CHECK(has_line(r.output, "lane 0 v0[3:0] -> B[0][0]"));
  CHECK(has_line(r.output, "lane 0 v0[31:0] -> C[0][0]"));
  CHECK(lines.size() == 8 + 32 * 2 * 8 * 2 + 32 * 8);
}

TEST_CASE("atom --list lists every atom with shape, types and registers") {
  auto r = run_tool("atom --list");
  REQUIRE(r.status == 0);
  const auto lines = lines_of(r.output);
  CHECK(lines.size() == 22);
  CHECK(has_line(r.output,
                 "v_wmma_i32_16x16x32_iu4       16x16x32  iu4 x iu4 -> i32    VGPRs A/B/CD 2/2/8"));
  CHECK(has_line(r.output, "v_swmmac_i32_16x16x64_iu4     16x16x64  iu4 x iu4 -> i32    "
                           "VGPRs A/B/CD 2/4/8 + index (2:4 sparse A)"));
  CHECK(has_line(r.output, "v_wmma_f16_16x16x16_f16       16x16x16  f16 x f16 -> f16    "
                           "VGPRs A/B/CD 4/4/4"));
}

TEST_CASE("atom rejects bad input with the rule") {
  auto r = run_tool("atom v_wmma_f32_16x16x32_f16");
  CHECK(r.status != 0);
  CHECK(r.output.find("unknown atom 'v_wmma_f32_16x16x32_f16': expected a gfx12 WMMA / SWMMAC "
                      "mnemonic") != std::string::npos);
  r = run_tool("atom v_wmma_f32_16x16x16_f16 --operand E");
  CHECK(r.status != 0);
  CHECK(r.output.find("unknown operand 'E': expected A, B or C") != std::string::npos);
  r = run_tool("atom");
  CHECK(r.status != 0);
  CHECK(r.output.find("give an instruction mnemonic (NAME) or --list") != std::string::npos);
  r = run_tool("atom --list v_wmma_f32_16x16x16_f16");
  CHECK(r.status != 0);
  CHECK(r.output.find("--list takes no NAME") != std::string::npos);
}

TEST_CASE("docs/atoms.md shows the current layout of every atom's operands") {
  std::ifstream in(std::string(TILEWAVE_SOURCE_DIR) + "/docs/atoms.md");
  REQUIRE(in);
  const std::string doc((std::istreambuf_iterator<char>(in)), {});
  const auto list = run_tool("atom --list");
  REQUIRE(list.status == 0);
  for (const std::string& line : lines_of(list.output)) {
    const std::string name = line.substr(0, line.find(' '));
    CHECK(doc.find("`" + name + "`") != std::string::npos);
    for (const char* op : {"A", "B", "C"}) {
      CAPTURE(name);
      CAPTURE(op);
      const auto pic = run_tool("atom " + name + " --operand " + op + " --matrix");
      REQUIRE(pic.status == 0);
      CHECK(doc.find(pic.output) != std::string::npos);
    }
  }
}
