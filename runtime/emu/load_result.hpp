#pragma once
// How a VMEM or LDS load writes its bytes into the destination VGPRs: whole dwords, a
// zero- or sign-extended byte / short, or (d16 forms) one 16-bit half of the VGPR with
// the other half kept. Global, buffer, flat, scratch and DS loads share this rule.
#include <runtime/emu/wave_state.hpp>

#include <cstdint>
#include <cstring>

namespace tw::emu {

enum class LoadResult {
  Dwords,
  U8,
  I8,
  U16,
  I16,
  D16U8,
  D16I8,
  D16B16,
  D16HiU8,
  D16HiI8,
  D16HiB16
};

// Writes the `bytes` loaded into `buf` for one lane into `dst`.
inline void write_load_result(WaveState& w, const Operand& dst, int lane, LoadResult kind,
                              const uint8_t* buf, uint32_t bytes) {
  if (kind == LoadResult::Dwords) {
    for (uint32_t i = 0; i < bytes / 4; ++i) {
      uint32_t v;
      std::memcpy(&v, buf + 4 * i, 4);
      w.write_dword(dst, lane, static_cast<int>(i), v);
    }
    return;
  }
  const uint32_t raw = bytes == 1 ? buf[0] : uint32_t(buf[0] | (buf[1] << 8));
  const uint32_t sext8 = uint32_t(int32_t(int8_t(raw)));
  const uint32_t old = w.read32(dst, lane);
  uint32_t v = raw;
  switch (kind) {
  case LoadResult::I8:
    v = sext8;
    break;
  case LoadResult::I16:
    v = uint32_t(int32_t(int16_t(raw)));
    break;
  case LoadResult::D16U8:
  case LoadResult::D16B16:
    v = (old & 0xffff0000u) | raw;
    break;
  case LoadResult::D16I8:
    v = (old & 0xffff0000u) | (sext8 & 0xffff);
    break;
  case LoadResult::D16HiU8:
  case LoadResult::D16HiB16:
    v = (old & 0xffffu) | (raw << 16);
    break;
  case LoadResult::D16HiI8:
    v = (old & 0xffffu) | (sext8 << 16);
    break;
  default:
    break;
  }
  w.write32(dst, lane, v);
}

} // namespace tw::emu
