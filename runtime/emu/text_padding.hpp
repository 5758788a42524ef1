#pragma once
// Alignment padding inside .text: the linker fills the gap between two functions of one code
// object with zero dwords, which gfx12 decodes as v_illegal. They are not instructions of any
// kernel, so `tilewave emu --check` must not list them as instructions the emulator lacks.
#include <runtime/emu/decoded_instr.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace tw::emu {

// For each instruction of `program` (decode_text of `text`, whose first byte is at
// text_address): whether it is padding, i.e. a zero dword that control cannot fall into (it
// follows s_endpgm, s_code_end, an unconditional branch, s_setpc_b64 or more padding).
std::vector<bool> padding_instructions(std::span<const DecodedInstr> program, const uint8_t* text,
                                       uint64_t text_address);

} // namespace tw::emu
