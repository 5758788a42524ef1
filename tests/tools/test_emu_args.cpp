// Unit tests of the `tilewave emu --arg` parsers (tools/tilewave/emu_args.cpp) on hostile
// values: every bad value is a std::invalid_argument naming the argument, never a wrong
// number, an exception of another kind or a sanitizer report (these run in the sanitized
// suite too).
#include "tilewave/emu_args.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

using namespace tw::tool;

TEST_CASE("emu args: parse_cli_number takes the whole text, in range, or nothing") {
  CHECK(parse_cli_number<int32_t>("-5") == -5);
  CHECK(parse_cli_number<uint32_t>("0xff") == 255u);
  CHECK(parse_cli_number<uint64_t>("18446744073709551615") == std::numeric_limits<uint64_t>::max());
  CHECK_FALSE(parse_cli_number<uint64_t>("18446744073709551616").has_value());
  CHECK_FALSE(parse_cli_number<int32_t>("2147483648").has_value());
  CHECK_FALSE(parse_cli_number<uint32_t>("-1").has_value());
  CHECK_FALSE(parse_cli_number<int32_t>("12x").has_value());
  CHECK_FALSE(parse_cli_number<int32_t>("").has_value());
  CHECK_FALSE(parse_cli_number<int32_t>("0x").has_value());
  CHECK_FALSE(parse_cli_number<float>("1.5.2").has_value());
  CHECK(parse_cli_number<float>("0.5") == 0.5f);
}

TEST_CASE("emu args: bytes= refuses odd digits and non-hex, naming the argument") {
  CHECK(*parse_raw_arg("bytes", "0a_ff", "bytes=0a_ff") == std::vector<uint8_t>{0x0a, 0xff});
  CHECK_FALSE(parse_raw_arg("i32", "5", "i32=5").has_value());
  CHECK_THROWS_WITH_AS(parse_raw_arg("bytes", "abc", "bytes=abc"), doctest::Contains("bytes=abc"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_raw_arg("bytes", "zz", "bytes=zz"), doctest::Contains("bytes=zz"),
                       std::invalid_argument);
  CHECK_THROWS_AS(parse_raw_arg("file", "/nonexistent/args.bin", "file=/nonexistent/args.bin"),
                  std::invalid_argument);
}

TEST_CASE("emu args: ptr= is only 0, struct= fields are checked one by one") {
  CHECK_NOTHROW(check_null_pointer_arg("0", "ptr=0"));
  CHECK_THROWS_WITH_AS(check_null_pointer_arg("0x1000", "ptr=0x1000"),
                       doctest::Contains("ptr=0x1000"), std::invalid_argument);
  const StructSpec s = parse_struct_arg("q:ptr,n:i32=7,x:f64=0.5", "struct=...");
  REQUIRE(s.fields.size() == 3);
  CHECK(s.fields[1].size == 4);
  for (const char* bad : {"", "q", "q:ptr=5", "n:i33=1", "n:i32=12x", "n:i8=300", ",",
                          "q:ptr,q:ptr", "n:u64=-1", "9q:ptr"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_struct_arg(bad, std::string("struct=") + bad), std::invalid_argument);
  }
  CHECK_THROWS_WITH_AS(pack_struct(parse_struct_arg("q:ptr", "struct=q:ptr"), {}, "struct=q:ptr"),
                       doctest::Contains("struct=q:ptr"), std::invalid_argument);
}

TEST_CASE("emu args: --buffer NAME must be an identifier") {
  CHECK(split_named_buffer("q:in=q.npy") ==
        std::pair<std::string, std::string>{"q", "buf:in=q.npy"});
  // (The kind after NAME: is checked where the buffer is parsed, tools/tilewave/cmd_emu.cpp.)
  for (const char* bad : {":in=q.npy", "1q:in=q.npy", "q", "q=in:q.npy"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(split_named_buffer(bad), std::invalid_argument);
  }
}
