// Scalar memory: s_load_* and s_buffer_load_* (SMEM), through the kernel's view of global
// memory (kernarg segment, dispatch packet, buffers).
#include <runtime/emu/memory_access.hpp>

#include <cstring>
#include <fmt/format.h>

namespace tw::emu {
namespace {

// Size of the load from the mnemonic suffix: b32..b512, u8/i8/u16/i16.
struct SmemWidth {
  uint32_t bytes;
  bool sign;
};
SmemWidth smem_width(std::string_view m) {
  auto pos = m.rfind('_');
  std::string_view w = m.substr(pos + 1);
  if (w == "u8")
    return {1, false};
  if (w == "i8")
    return {1, true};
  if (w == "u16")
    return {2, false};
  if (w == "i16")
    return {2, true};
  return {static_cast<uint32_t>(std::stoul(std::string(w.substr(1)))) / 8, false};
}

// Byte offset of an SMEM instruction: printed "0x10", or "s2" (+ "offset:0x10").
uint64_t smem_offset(const WaveState& w, const DecodedInstr& in) {
  uint64_t off = static_cast<uint64_t>(in.mods.offset);
  if (in.ops.size() > 2) {
    const Operand& o = in.ops[2];
    if (o.kind == OperandKind::Imm)
      off += static_cast<uint64_t>(o.value);
    else if (o.is_sgpr())
      off += w.sread32(o);
  }
  return off;
}

void write_result(WaveState& w, const DecodedInstr& in, const uint8_t* data, SmemWidth sw) {
  if (sw.bytes >= 4) {
    for (uint32_t i = 0; i < sw.bytes / 4; ++i) {
      uint32_t v;
      std::memcpy(&v, data + 4 * i, 4);
      w.write_dword(in.op(0), 0, static_cast<int>(i), v);
    }
    return;
  }
  uint32_t v = sw.bytes == 1 ? data[0] : static_cast<uint32_t>(data[0] | (data[1] << 8));
  if (sw.sign)
    v = sw.bytes == 1 ? static_cast<uint32_t>(static_cast<int8_t>(v))
                      : static_cast<uint32_t>(static_cast<int16_t>(v));
  w.swrite32(in.op(0), v);
}

void s_load(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  const SmemWidth sw = smem_width(in.mnemonic);
  uint64_t addr = w.sread64(in.op(1)) + smem_offset(w, in);
  if (sw.bytes >= 4)
    addr &= ~uint64_t(3); // dword loads ignore the low address bits
  uint8_t buf[64] = {};
  global_read(c, in, 0, addr, buf, sw.bytes);
  if (addr >= c.kernarg_begin && addr < c.kernarg_end)
    c.stats.kernarg_bytes_read += sw.bytes;
  write_result(w, in, buf, sw);
}

void s_buffer_load(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  const SmemWidth sw = smem_width(in.mnemonic);
  const Operand& rsrc = in.op(1);
  const uint64_t desc_lo = w.read64(rsrc, 0);
  const uint32_t num_records = w.read_dword(rsrc, 0, 2);
  const uint64_t base = desc_lo & 0xffff'ffff'ffffull;
  uint64_t off = smem_offset(w, in);
  if (sw.bytes >= 4)
    off &= ~uint64_t(3);
  uint8_t buf[64] = {};
  // Each dword past num_records reads 0.
  const uint32_t unit = std::min<uint32_t>(sw.bytes, 4);
  for (uint32_t i = 0; i < sw.bytes; i += unit)
    if (off + i + unit <= num_records)
      global_read(c, in, 0, base + off + i, buf + i, unit);
  write_result(w, in, buf, sw);
}

} // namespace

void register_smem_handlers(HandlerTable& t) {
  t.add_all({"s_load_b32", "s_load_b64", "s_load_b96", "s_load_b128", "s_load_b256", "s_load_b512",
             "s_load_u8", "s_load_i8", "s_load_u16", "s_load_i16"},
            s_load);
  t.add_all({"s_buffer_load_b32", "s_buffer_load_b64", "s_buffer_load_b96", "s_buffer_load_b128",
             "s_buffer_load_b256", "s_buffer_load_b512", "s_buffer_load_u8", "s_buffer_load_i8",
             "s_buffer_load_u16", "s_buffer_load_i16"},
            s_buffer_load);
}

} // namespace tw::emu
