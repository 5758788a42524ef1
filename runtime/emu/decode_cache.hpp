#pragma once
// Decoded .text by content, within a process: every EmuDevice (each test, each tool run)
// loads its code objects anew, and decoding with LLVM's disassembler costs far more than the
// launch of a small kernel. The same bytes for the same cpu are decoded once; a later load
// gets a copy with the program counters moved to its own load address.
#include <runtime/emu/decoded_instr.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace tw::emu {

// decode_text's result for these bytes (compared in full, not only by hash).
std::vector<DecodedInstr> decode_text_cached(const uint8_t* bytes, size_t size,
                                             uint64_t text_address, std::string_view cpu);

// Number of distinct texts decoded so far in this process (for tests).
size_t decode_cache_misses();

} // namespace tw::emu
