// LDS instructions (DS): loads / stores of every width, the two-address forms, atomics,
// and the cross-lane ds_bpermute / ds_permute / ds_swizzle.
#include <runtime/emu/load_result.hpp>
#include <runtime/emu/memory_access.hpp>

#include <array>
#include <bit>
#include <cstring>
#include <fmt/format.h>

namespace tw::emu {
namespace {

enum class DsStore { B8, B16, B32, B64, B96, B128, B8D16Hi, B16D16Hi };

constexpr uint32_t store_bytes(DsStore k) {
  switch (k) {
  case DsStore::B8:
  case DsStore::B8D16Hi:
    return 1;
  case DsStore::B16:
  case DsStore::B16D16Hi:
    return 2;
  case DsStore::B32:
    return 4;
  case DsStore::B64:
    return 8;
  case DsStore::B96:
    return 12;
  case DsStore::B128:
    return 16;
  }
  return 4;
}

uint64_t ds_addr(const WaveState& w, const DecodedInstr& in, int addr_op, int lane) {
  // LDS addresses are 32-bit: a negative base plus a positive offset wraps.
  return static_cast<uint32_t>(w.read32(in.op(addr_op), lane) +
                               static_cast<uint32_t>(in.mods.offset));
}

// The fast path of an LDS access of n bytes per lane at addr[lane]: every active lane checked
// first (inside the group segment; a read with memcheck on: every byte written before), so
// nothing happens unless the whole instruction runs here. False when a lane fails a check
// (the general path runs and reports it) or an observer asks for every component. Another
// observer is told each lane's access, as the general path would (one per lane, lowest first).
bool lds_fast_ok(const WaveContext& c, const std::array<uint32_t, kWaveSize>& addr, uint32_t n,
                 bool read) {
  if (c.observer && c.observer->every_component())
    return false;
  const Workgroup& g = c.group;
  const uint32_t exec = c.wave.exec();
  // Inside the group segment: addr + n <= size (a compare per lane the compiler vectorises).
  const uint32_t last = g.lds_size - n;
  uint32_t outside = 0;
  if (g.lds_size < n) {
    outside = exec;
  } else if (exec == ~0u) {
    for (int lane = 0; lane < kWaveSize; ++lane)
      outside |= addr[size_t(lane)] > last ? 1u : 0u;
  } else {
    for (uint32_t m = exec; m; m &= m - 1)
      outside |= addr[size_t(std::countr_zero(m))] > last ? 1u : 0u;
  }
  bool ok = outside == 0;
  if (ok && read && c.memcheck)
    WaveState::for_each_lane_of(exec, [&](int lane) { // no byte never written
      ok &= std::memchr(g.lds_written.data() + addr[size_t(lane)], 0, n) == nullptr;
    });
  if (ok && c.observer)
    c.observer->on_lds_accesses(addr, c.wave.exec(), n);
  return ok;
}

// Every lane's ds address (operand addr_op + offset, wrapping at 32 bits); the operand must
// be a VGPR (else false: the general path).
bool ds_addresses(const WaveState& w, const DecodedInstr& in, int addr_op,
                  std::array<uint32_t, kWaveSize>& addr) {
  const Operand& op = in.op(static_cast<size_t>(addr_op));
  if (!op.is_vgpr())
    return false;
  const uint32_t off = static_cast<uint32_t>(in.mods.offset);
  const uint32_t* row = w.vgpr[op.reg].data();
  for (int lane = 0; lane < kWaveSize; ++lane)
    addr[lane] = row[lane] + off;
  return true;
}

template <LoadResult K, uint32_t n>
bool ds_load_fast(WaveContext& c, const DecodedInstr& in) {
  WaveState& w = c.wave;
  std::array<uint32_t, kWaveSize> addr;
  if (!ds_addresses(w, in, 1, addr) || !lds_fast_ok(c, addr, n, true))
    return false;
  const Operand& dst = in.op(0);
  const uint8_t* lds = c.group.lds.data();
  const uint32_t exec = w.exec();
  if (K == LoadResult::Dwords && dst.is_vgpr() && dst.reg + n / 4 <= kMaxVgprs) {
    for (uint32_t i = 0; i < n / 4; ++i) {
      uint32_t* row = w.vgpr[dst.reg + i].data();
      WaveState::for_each_lane_of(
          exec, [&](int lane) { std::memcpy(&row[lane], lds + addr[lane] + 4 * i, 4); });
    }
  } else {
    WaveState::for_each_lane_of(
        exec, [&](int lane) { write_load_result(w, dst, lane, K, lds + addr[lane], n); });
  }
  c.stats.lds_bytes_read += uint64_t(n) * std::popcount(exec);
  return true;
}

template <LoadResult K, uint32_t n>
void ds_load(WaveContext& c, const DecodedInstr& in) {
  WaveState& w = c.wave;
  if (ds_load_fast<K, n>(c, in))
    return;
  w.for_each_active([&](int lane) {
    uint8_t buf[16] = {};
    lds_read(c, in, lane, ds_addr(w, in, 1, lane), buf, n);
    write_load_result(w, in.op(0), lane, K, buf, n);
  });
}

template <DsStore K>
bool ds_store_fast(WaveContext& c, const DecodedInstr& in) {
  constexpr uint32_t n = store_bytes(K);
  const WaveState& w = c.wave;
  const Operand& data = in.op(1);
  std::array<uint32_t, kWaveSize> addr;
  if (!data.is_vgpr() || data.reg + (n + 3) / 4 > kMaxVgprs || !ds_addresses(w, in, 0, addr) ||
      !lds_fast_ok(c, addr, n, false))
    return false;
  Workgroup& g = c.group;
  const uint32_t exec = w.exec();
  WaveState::for_each_lane_of(exec, [&](int lane) { // the highest lane's store lands last
    uint8_t* p = g.lds.data() + addr[lane];
    if constexpr (n >= 4) {
      for (uint32_t i = 0; i < n / 4; ++i)
        std::memcpy(p + 4 * i, &w.vgpr[data.reg + i][lane], 4);
    } else {
      uint32_t v = w.vgpr[data.reg][lane];
      if (K == DsStore::B8D16Hi || K == DsStore::B16D16Hi)
        v >>= 16;
      std::memcpy(p, &v, n);
    }
    if (c.memcheck) // the written map is read only under memcheck (a launch-wide setting)
      std::memset(g.lds_written.data() + addr[lane], 1, n);
  });
  c.stats.lds_bytes_written += uint64_t(n) * std::popcount(exec);
  return true;
}

template <DsStore K>
void ds_store(WaveContext& c, const DecodedInstr& in) {
  WaveState& w = c.wave;
  constexpr uint32_t n = store_bytes(K);
  if (ds_store_fast<K>(c, in))
    return;
  w.for_each_active([&](int lane) {
    uint8_t buf[16] = {};
    if constexpr (n >= 4) {
      for (uint32_t i = 0; i < n / 4; ++i) {
        const uint32_t v = w.read_dword(in.op(1), lane, static_cast<int>(i));
        std::memcpy(buf + 4 * i, &v, 4);
      }
    } else {
      uint32_t v = w.read32(in.op(1), lane);
      if (K == DsStore::B8D16Hi || K == DsStore::B16D16Hi)
        v >>= 16;
      std::memcpy(buf, &v, n);
    }
    lds_write(c, in, lane, ds_addr(w, in, 0, lane), buf, n);
  });
}

// ds_load_2addr[_stride64]_b32/b64: two elements at offset0 / offset1 (in element units,
// x64 for stride64).
template <uint32_t Elem, uint32_t Scale>
void ds_load_2addr(WaveContext& c, const DecodedInstr& in) {
  WaveState& w = c.wave;
  w.for_each_active([&](int lane) {
    const uint64_t base = w.read32(in.op(1), lane);
    const uint64_t a0 = static_cast<uint32_t>(base + uint64_t(in.mods.offset0) * Elem * Scale);
    const uint64_t a1 = static_cast<uint32_t>(base + uint64_t(in.mods.offset1) * Elem * Scale);
    uint32_t buf[4] = {};
    lds_read(c, in, lane, a0, buf, Elem);
    lds_read(c, in, lane, a1, reinterpret_cast<uint8_t*>(buf) + Elem, Elem);
    for (uint32_t i = 0; i < 2 * Elem / 4; ++i)
      w.write_dword(in.op(0), lane, static_cast<int>(i), buf[i]);
  });
}

template <uint32_t Elem, uint32_t Scale>
void ds_store_2addr(WaveContext& c, const DecodedInstr& in) {
  WaveState& w = c.wave;
  w.for_each_active([&](int lane) {
    const uint64_t base = w.read32(in.op(0), lane);
    uint32_t d0[2] = {w.read_dword(in.op(1), lane, 0),
                      Elem == 8 ? w.read_dword(in.op(1), lane, 1) : 0};
    uint32_t d1[2] = {w.read_dword(in.op(2), lane, 0),
                      Elem == 8 ? w.read_dword(in.op(2), lane, 1) : 0};
    lds_write(c, in, lane, static_cast<uint32_t>(base + uint64_t(in.mods.offset0) * Elem * Scale),
              d0, Elem);
    lds_write(c, in, lane, static_cast<uint32_t>(base + uint64_t(in.mods.offset1) * Elem * Scale),
              d1, Elem);
  });
}

// ds_<op>[_rtn]_<type>: returning forms have vdst first.
void ds_atomic(WaveContext& c, const DecodedInstr& in) {
  WaveState& w = c.wave;
  std::string op = in.mnemonic.substr(3);
  const bool ret = op.find("_rtn") != std::string::npos;
  if (ret)
    op.erase(op.find("_rtn"), 4);
  const std::string type = op.substr(op.rfind('_') + 1);
  const int bytes = (type == "u64" || type == "i64" || type == "b64" || type == "f64") ? 8 : 4;
  if (op.rfind("min_", 0) != 0 && op.rfind("max_", 0) != 0 && type != "f32" && type != "f64")
    op = op.substr(0, op.rfind('_'));
  const int a = ret ? 1 : 0;
  const bool cmp = op == "cmpstore";
  w.for_each_active([&](int lane) {
    const uint64_t addr = ds_addr(w, in, a, lane);
    const uint64_t data = bytes == 8 ? w.read64(in.op(a + 1), lane) : w.read32(in.op(a + 1), lane);
    uint64_t cmpv = 0;
    if (cmp)
      cmpv = bytes == 8 ? w.read64(in.op(a + 2), lane) : w.read32(in.op(a + 2), lane);
    uint8_t* p = lds_ptr(c, in, lane, addr, static_cast<uint32_t>(bytes), false);
    c.stats.lds_bytes_read += bytes;
    c.stats.lds_bytes_written += bytes;
    uint64_t old = 0;
    if (p) {
      std::memset(c.group.lds_written.data() + addr, 1, static_cast<size_t>(bytes));
      old = atomic_rmw(c, in, op, p, bytes, data, cmpv, false);
    }
    if (ret) {
      if (bytes == 8)
        w.write64(in.op(0), lane, old);
      else
        w.write32(in.op(0), lane, static_cast<uint32_t>(old));
    }
  });
}

// ds_bpermute_b32 vdst, vaddr, vdata: lane l reads vdata of lane (vaddr[l] + offset) / 4.
void ds_bpermute_b32(WaveContext& c, const DecodedInstr& in) {
  WaveState& w = c.wave;
  std::array<uint32_t, kWaveSize> src{};
  for (int l = 0; l < kWaveSize; ++l)
    src[l] = w.lane_active(l) ? w.read32(in.op(2), l) : 0;
  std::array<uint32_t, kWaveSize> out{};
  w.for_each_active([&](int l) {
    out[l] = src[((w.read32(in.op(1), l) + static_cast<uint32_t>(in.mods.offset)) / 4) % kWaveSize];
  });
  w.for_each_active([&](int l) { w.write32(in.op(0), l, out[l]); });
}

// ds_permute_b32: lane l writes its vdata to lane (vaddr[l] + offset) / 4.
void ds_permute_b32(WaveContext& c, const DecodedInstr& in) {
  WaveState& w = c.wave;
  std::array<uint32_t, kWaveSize> out{};
  w.for_each_active([&](int l) {
    out[((w.read32(in.op(1), l) + static_cast<uint32_t>(in.mods.offset)) / 4) % kWaveSize] =
        w.read32(in.op(2), l);
  });
  w.for_each_active([&](int l) { w.write32(in.op(0), l, out[l]); });
}

// ds_swizzle_b32: offset[15] = 1: quad permute (2 bits per lane of a quad);
// otherwise bitmask mode within 32 lanes: src = ((l & and) | or) ^ xor.
void ds_swizzle_b32(WaveContext& c, const DecodedInstr& in) {
  WaveState& w = c.wave;
  const auto imms = in.mc_imms();
  if (imms.empty())
    c.fail(in, "ds_swizzle without an offset");
  const uint32_t pat = static_cast<uint32_t>(imms[0]) & 0xffff;
  std::array<uint32_t, kWaveSize> src{};
  for (int l = 0; l < kWaveSize; ++l)
    src[l] = w.lane_active(l) ? w.read32(in.op(1), l) : 0;
  auto source_lane = [&](int l) -> int {
    if (pat & 0x8000) {
      if ((pat & 0xe000) != 0x8000)
        c.fail(in,
               fmt::format("ds_swizzle pattern 0x{:x} (rotate / FFT mode) is not supported", pat));
      return (l & ~3) | static_cast<int>((pat >> (2 * (l & 3))) & 3);
    }
    const int and_mask = pat & 31, or_mask = (pat >> 5) & 31, xor_mask = (pat >> 10) & 31;
    return ((l & and_mask) | or_mask) ^ xor_mask;
  };
  std::array<uint32_t, kWaveSize> out{};
  w.for_each_active([&](int l) { out[l] = src[source_lane(l)]; });
  w.for_each_active([&](int l) { w.write32(in.op(0), l, out[l]); });
}

} // namespace

void register_lds_handlers(HandlerTable& t) {
  t.add("ds_load_b32", ds_load<LoadResult::Dwords, 4>);
  t.add("ds_load_b64", ds_load<LoadResult::Dwords, 8>);
  t.add("ds_load_b96", ds_load<LoadResult::Dwords, 12>);
  t.add("ds_load_b128", ds_load<LoadResult::Dwords, 16>);
  t.add("ds_load_u8", ds_load<LoadResult::U8, 1>);
  t.add("ds_load_i8", ds_load<LoadResult::I8, 1>);
  t.add("ds_load_u16", ds_load<LoadResult::U16, 2>);
  t.add("ds_load_i16", ds_load<LoadResult::I16, 2>);
  t.add("ds_load_u8_d16", ds_load<LoadResult::D16U8, 1>);
  t.add("ds_load_i8_d16", ds_load<LoadResult::D16I8, 1>);
  t.add("ds_load_u16_d16", ds_load<LoadResult::D16B16, 2>);
  t.add("ds_load_u8_d16_hi", ds_load<LoadResult::D16HiU8, 1>);
  t.add("ds_load_i8_d16_hi", ds_load<LoadResult::D16HiI8, 1>);
  t.add("ds_load_u16_d16_hi", ds_load<LoadResult::D16HiB16, 2>);
  t.add("ds_store_b8", ds_store<DsStore::B8>);
  t.add("ds_store_b16", ds_store<DsStore::B16>);
  t.add("ds_store_b32", ds_store<DsStore::B32>);
  t.add("ds_store_b64", ds_store<DsStore::B64>);
  t.add("ds_store_b96", ds_store<DsStore::B96>);
  t.add("ds_store_b128", ds_store<DsStore::B128>);
  t.add("ds_store_b8_d16_hi", ds_store<DsStore::B8D16Hi>);
  t.add("ds_store_b16_d16_hi", ds_store<DsStore::B16D16Hi>);
  t.add("ds_load_2addr_b32", ds_load_2addr<4, 1>);
  t.add("ds_load_2addr_b64", ds_load_2addr<8, 1>);
  t.add("ds_load_2addr_stride64_b32", ds_load_2addr<4, 64>);
  t.add("ds_load_2addr_stride64_b64", ds_load_2addr<8, 64>);
  t.add("ds_store_2addr_b32", ds_store_2addr<4, 1>);
  t.add("ds_store_2addr_b64", ds_store_2addr<8, 1>);
  t.add("ds_store_2addr_stride64_b32", ds_store_2addr<4, 64>);
  t.add("ds_store_2addr_stride64_b64", ds_store_2addr<8, 64>);
  for (const char* op :
       {"add_u32", "sub_u32",     "rsub_u32",    "inc_u32",      "dec_u32",     "min_i32",
        "max_i32", "min_u32",     "max_u32",     "and_b32",      "or_b32",      "xor_b32",
        "add_f32", "min_num_f32", "max_num_f32", "add_u64",      "sub_u64",     "rsub_u64",
        "inc_u64", "dec_u64",     "min_i64",     "max_i64",      "min_u64",     "max_u64",
        "and_b64", "or_b64",      "xor_b64",     "cmpstore_b32", "cmpstore_b64"}) {
    std::string name(op);
    const auto us = name.rfind('_');
    t.add("ds_" + name, ds_atomic);
    t.add("ds_" + name.substr(0, us) + "_rtn" + name.substr(us), ds_atomic);
  }
  t.add("ds_storexchg_rtn_b32", ds_atomic);
  t.add("ds_storexchg_rtn_b64", ds_atomic);
  t.add("ds_bpermute_b32", ds_bpermute_b32);
  t.add("ds_permute_b32", ds_permute_b32);
  t.add("ds_swizzle_b32", ds_swizzle_b32);
  t.add("ds_nop", [](WaveContext&, const DecodedInstr&) {});
}

} // namespace tw::emu
