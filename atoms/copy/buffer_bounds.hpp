#pragma once
// Reference semantics of the buffer range check, for the emulator and the tests.
//
// tilewave's buffer resources are raw (stride 0, offen addressing, OOB_SELECT = 3 in word 3
// bits [29:28]): the byte offset (voffset + the instruction's immediate offset; tilewave always
// passes soffset = 0) is checked against num_records, one dword at a time for the b64 / b128
// forms. A dword at byte offset o is in range when o + 4 <= num_records; the check uses
// unsigned, non-wrapping arithmetic, so offsets near 2^32 stay out of range (LLVM AMDGPUUsage,
// "Relaxed Buffer OOB Mode"; RDNA ISA "range checking ... per component"). Out-of-range dwords
// of a load read as 0 (all four bytes, also when num_records cuts a dword in two); out-of-range
// dwords of a store are not written.
#include <cstdint>

namespace tw::atoms {

// Bit b is set when byte b (0 .. width_bytes - 1) of the access is out of range: it loads
// as 0, or is not stored. width_bytes is 4, 8 or 16; byte_offset is the exact (non-wrapped)
// voffset + immediate offset.
constexpr std::uint32_t buffer_out_of_range_bytes(std::uint32_t num_records,
                                                  std::uint64_t byte_offset, int width_bytes) {
  std::uint32_t mask = 0;
  for (int dword = 0; dword < width_bytes / 4; ++dword)
    if (byte_offset + 4u * unsigned(dword) + 4u > num_records)
      mask |= 0xFu << (4 * dword);
  return mask;
}

// Whether the whole access is in range (the common case the emulator can fast-path).
constexpr bool buffer_access_in_range(std::uint32_t num_records, std::uint64_t byte_offset,
                                      int width_bytes) {
  return byte_offset + std::uint64_t(width_bytes) <= num_records;
}

} // namespace tw::atoms
