// Zero-dword padding between functions of a .text section.
#include <runtime/emu/text_padding.hpp>

#include <cstring>
#include <string_view>

namespace tw::emu {
namespace {

// Whether execution never continues at the next instruction.
bool ends_fall_through(const DecodedInstr& d) {
  const std::string_view m = d.mnemonic;
  return m == "s_endpgm" || m == "s_code_end" || m == "s_branch" || m == "s_setpc_b64" ||
         m == "s_endpgm_saved";
}

} // namespace

std::vector<bool> padding_instructions(std::span<const DecodedInstr> program, const uint8_t* text,
                                       uint64_t text_address) {
  std::vector<bool> padding(program.size(), false);
  bool unreachable = false; // the previous instruction does not fall through
  for (size_t i = 0; i < program.size(); ++i) {
    const DecodedInstr& d = program[i];
    uint32_t word = 1;
    if (d.size == 4)
      std::memcpy(&word, text + (d.pc - text_address), 4);
    padding[i] = unreachable && word == 0;
    unreachable = padding[i] || ends_fall_through(d);
  }
  return padding;
}

} // namespace tw::emu
