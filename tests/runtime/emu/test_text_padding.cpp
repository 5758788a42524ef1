// Padding between functions: zero dwords after an instruction that does not fall through are
// padding; a zero dword control can reach is an instruction (v_illegal).
#include "runtime/emu/emu_test_util.hpp"

#include <runtime/emu/text_padding.hpp>

#include <vector>

using namespace tw::emu;

TEST_CASE("text padding: zero dwords after s_endpgm / s_branch are padding, reachable ones not") {
  const uint32_t text[] = {
      0xbf800000u, // s_nop 0
      0xbfb00000u, // s_endpgm
      0x00000000u, // padding
      0x00000000u, // padding
      0xbf800000u, // s_nop 0: the next function
      0x00000000u, // reachable: v_illegal, not padding
      0xbfa00000u, // s_branch 0
      0x00000000u, // padding
      0xbf9f0000u, // s_code_end
      0x00000000u, // padding
  };
  const auto* bytes = reinterpret_cast<const uint8_t*>(text);
  const auto program = decode_text(bytes, sizeof text, 0x4000, "gfx1201");
  REQUIRE(program.size() == 10);
  CHECK(program[5].mnemonic == "v_illegal");
  const auto padding = padding_instructions(program, bytes, 0x4000);
  const std::vector<bool> want{false, false, true, true, false, false, false, true, false, true};
  CHECK(padding == want);
}
