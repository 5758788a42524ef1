// Black-box tests of `tilewave layout`.
#include "tools/run_tool.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

using tw::test::last_line;
using tw::test::run_tool;

namespace {
std::string layout(const std::string& expr) {
  return "layout '" + expr + "'";
}
} // namespace

TEST_CASE("tilewave layout prints the result in CuTe notation as the last line") {
  auto r = run_tool(layout("(4,2):(2,1)"));
  CHECK(r.status == 0);
  CHECK(last_line(r.output) == "(4,2):(2,1)");
  // The examples; expected values follow CuTe's definitions.
  r = run_tool(layout("composition((4,2):(2,1), (2,2):(1,2))"));
  CHECK(r.status == 0);
  CHECK(last_line(r.output) == "(2,2):(2,4)");
  r = run_tool(layout("logical_divide((8,8):(1,8), (2,4):(1,2))"));
  CHECK(last_line(r.output) == "((2,4),8):((1,2),8)");
  // CuTe's documented results (02_layout_algebra.md).
  CHECK(last_line(run_tool(layout("(6,2):(8,2) o (4,3):(3,1)")).output) == "((2,2),3):((24,2),8)");
  CHECK(last_line(run_tool(layout("complement((2,2):(1,6), 24)")).output) == "(3,2):(2,12)");
  CHECK(last_line(
            run_tool(layout("logical_divide((9,(4,8)):(59,(13,1)), <3:3,(2,4):(1,8)>)")).output) ==
        "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
  CHECK(last_line(run_tool(layout("logical_product((2,2):(4,1), 6:1)")).output) ==
        "((2,2),(2,3)):((4,1),(2,8))");
  CHECK(last_line(run_tool(layout("raked_product((3,4):(4,1), (2,5):(1,2))")).output) ==
        "((2,3),(5,4)):((12,4),(24,1))");
  CHECK(last_line(run_tool(layout("right_inverse((2,4,6):(4,1,8))")).output) == "(4,2,6):(2,1,8)");
  CHECK(last_line(run_tool(layout("Sw<3,3,3> o (8,64):(64,1)")).output) ==
        "Sw<3,3,3> o (8,64):(64,1)");
}

TEST_CASE("tilewave layout --table prints the grid of indices") {
  auto r = run_tool(layout("(2,3):(3,1)") + " --table");
  CHECK(r.status == 0);
  // Row 0 holds 0 1 2, row 1 holds 3 4 5.
  CHECK(r.output.find("| 0 | 1 | 2 |") != std::string::npos);
  CHECK(r.output.find("| 3 | 4 | 5 |") != std::string::npos);
  CHECK(last_line(r.output) == "(2,3):(3,1)");
  // A swizzled layout shows swizzled indices: row 4 of Sw<1,2,3> o (8,8):(8,1) starts at 36.
  r = run_tool(layout("Sw<1,2,3> o (8,8):(8,1)") + " --table");
  CHECK(r.output.find("  4 | 36 | 37 | 38 | 39 | 32 |") != std::string::npos);
  // A rank-3 layout cannot be a table.
  r = run_tool(layout("(2,2,2):(1,2,4)") + " --table");
  CHECK(r.status != 0);
  CHECK(r.output.find("rank-2") != std::string::npos);
}

TEST_CASE("tilewave layout --svg draws labelled cells") {
  const std::string file = "test_layout_cli_out.svg";
  std::remove(file.c_str());
  auto r = run_tool(layout("(4,8):(8,1)") + " --svg " + file);
  CHECK(r.status == 0);
  CHECK(last_line(r.output) == "(4,8):(8,1)");
  std::ifstream in(file);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string svg = ss.str();
  CHECK(svg.rfind("<svg", 0) == 0);
  size_t cells = 0;
  for (size_t p = svg.find("<rect x="); p != std::string::npos; p = svg.find("<rect x=", p + 1))
    ++cells;
  CHECK(cells == 32);
  CHECK(svg.find(">31</text>") != std::string::npos);
  CHECK(svg.find("</svg>") != std::string::npos);
}

TEST_CASE("tilewave layout rejects bad expressions with the position") {
  auto r = run_tool(layout("(4,2):(2"));
  CHECK(r.status != 0);
  CHECK(r.output.find("at character 9") != std::string::npos);
  CHECK(r.output.find("expected ')'") != std::string::npos);
  r = run_tool(layout("logical_divide(8:1, 3:1)"));
  CHECK(r.status != 0);
  CHECK(r.output.find("the tiler does not divide the layout: logical_divide(8:1, 3:1)") !=
        std::string::npos);
  r = run_tool(layout("frobnicate(8:1)"));
  CHECK(r.status != 0);
  CHECK(r.output.find("unknown function 'frobnicate'") != std::string::npos);
  r = run_tool(layout("(2,3):(1,(2,2))"));
  CHECK(r.status != 0);
  CHECK(r.output.find("not congruent") != std::string::npos);
  r = run_tool("layout");
  CHECK(r.status != 0);
}
