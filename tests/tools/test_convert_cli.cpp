// Black-box tests of `tilewave convert`: expected lines are hand-derived from the format
// definitions (IEEE binary16, bfloat16, OCP OFP8 E4M3FN / E5M2, OCP MX E8M0).
#include "tools/run_tool.hpp"

#include <doctest/doctest.h>

using tw::test::run_tool;

TEST_CASE("convert prints bits and decoded value per input, in order") {
  auto r = run_tool("convert --to e4m3 448 1 0.1 500");
  CHECK(r.status == 0);
  // 0.1 lies between 0.09375 (0x1c) and 0.1015625 (0x1d), nearer the latter; 500 overflows.
  CHECK(r.output == "0x7e 448\n0x38 1\n0x1d 0.1015625\n0x7f nan\n");
}

TEST_CASE("convert saturates only when asked") {
  CHECK(run_tool("convert --to e4m3 --saturate -- -500 1000").output == "0xfe -448\n0x7e 448\n");
  CHECK(run_tool("convert --to e5m2 61440 inf").output == "0x7c inf\n0x7c inf\n");
  CHECK(run_tool("convert --to e5m2 --saturate 61440 inf").output == "0x7b 57344\n0x7b 57344\n");
  CHECK(run_tool("convert --to f16 65520").output == "0x7c00 inf\n");
  CHECK(run_tool("convert --to f16 --saturate 65520").output == "0x7bff 65504\n");
}

TEST_CASE("convert handles negatives after --, denormals, NaN and every format") {
  CHECK(run_tool("convert --to f16 -- -2 -0 0x1p-24").output ==
        "0xc000 -2\n0x8000 -0\n0x0001 5.9604645e-08\n");
  CHECK(run_tool("convert --to bf16 1.00390625 3.140625").output ==
        "0x3f80 1\n0x4049 3.140625\n"); // 1 + 2^-8 is a tie: even 0x3f80
  CHECK(run_tool("convert --to e5m2 nan 1.375").output == "0x7e nan\n0x3e 1.5\n");
  CHECK(run_tool("convert --to e8m0 1 3 0.75").output == "0x7f 1\n0x80 2\n0x7e 0.5\n");
  CHECK(run_tool("convert --to int4 -- 2.5 -1.5 9").output == "0x2 2\n0xe -2\n0x7 7\n");
  CHECK(run_tool("convert --to int8 -- -128.5 127.5 3.5").output ==
        "0x80 -128\n0x7f 127\n0x04 4\n");
}

TEST_CASE("convert rejects bad input with the rule") {
  auto r = run_tool("convert --to fp8 1");
  CHECK(r.status != 0);
  CHECK(r.output.find("unknown number format 'fp8': expected one of f16, bf16, e4m3") !=
        std::string::npos);
  r = run_tool("convert --to f16 1 x2");
  CHECK(r.status != 0);
  CHECK(r.output.find("value 'x2' is not a number") != std::string::npos);
  CHECK(r.output.find("0x3c00") == std::string::npos); // nothing printed before the error
  CHECK(run_tool("convert 1").status != 0);            // --to is required
}
