// Vector memory: global_*, flat_*, scratch_* and buffer_* loads, stores and atomics.
// Buffer accesses honour the resource descriptor: components past num_records read 0 and
// are not written.
#include <runtime/emu/load_result.hpp>
#include <runtime/emu/memory_access.hpp>

#include <array>
#include <bit>
#include <cstring>
#include <fmt/format.h>
#include <utility>
#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tw::emu {
namespace {

enum class Space { Global, Flat, Scratch, Buffer };
enum class Width {
  B8,
  B16,
  B32,
  B64,
  B96,
  B128,
  U8,
  I8,
  U16,
  I16,
  D16U8,
  D16I8,
  D16B16,
  D16HiU8,
  D16HiI8,
  D16HiB16,
  D16HiStore8,
  D16HiStore16
};

constexpr uint32_t width_bytes(Width w) {
  switch (w) {
  case Width::B8:
  case Width::U8:
  case Width::I8:
  case Width::D16U8:
  case Width::D16I8:
  case Width::D16HiU8:
  case Width::D16HiI8:
  case Width::D16HiStore8:
    return 1;
  case Width::B16:
  case Width::U16:
  case Width::I16:
  case Width::D16B16:
  case Width::D16HiB16:
  case Width::D16HiStore16:
    return 2;
  case Width::B32:
    return 4;
  case Width::B64:
    return 8;
  case Width::B96:
    return 12;
  case Width::B128:
    return 16;
  }
  return 4;
}

constexpr LoadResult load_result(Width w) {
  switch (w) {
  case Width::B8:
  case Width::U8:
    return LoadResult::U8;
  case Width::I8:
    return LoadResult::I8;
  case Width::B16:
  case Width::U16:
    return LoadResult::U16;
  case Width::I16:
    return LoadResult::I16;
  case Width::D16U8:
    return LoadResult::D16U8;
  case Width::D16I8:
    return LoadResult::D16I8;
  case Width::D16B16:
    return LoadResult::D16B16;
  case Width::D16HiU8:
    return LoadResult::D16HiU8;
  case Width::D16HiI8:
    return LoadResult::D16HiI8;
  case Width::D16HiB16:
    return LoadResult::D16HiB16;
  default:
    return LoadResult::Dwords;
  }
}

// Buffer resource (V#) fields used here.
struct BufferRsrc {
  uint64_t base;
  uint32_t stride, num_records, oob_select;
};

BufferRsrc read_rsrc(WaveContext& c, const DecodedInstr& in, const Operand& op) {
  const WaveState& w = c.wave;
  const uint32_t d0 = w.read_dword(op, 0, 0), d1 = w.read_dword(op, 0, 1),
                 d2 = w.read_dword(op, 0, 2), d3 = w.read_dword(op, 0, 3);
  BufferRsrc r{d0 | (uint64_t(d1 & 0xffff) << 32), (d1 >> 16) & 0x3fff, d2, (d3 >> 28) & 3};
  if ((d1 >> 30) & 3)
    c.fail(in, "buffer resource with swizzle_enable is not supported");
  if ((d3 >> 23) & 1)
    c.fail(in, "buffer resource with add_tid_enable is not supported");
  return r;
}

// One lane's access: where the bytes are (or nullptr per 4-byte component when dropped).
struct LaneAccess {
  Space space;
  uint64_t addr = 0;          // global/flat address, scratch offset, or buffer byte address
  uint64_t buffer_offset = 0; // for the raw range check
  uint32_t buffer_index = 0;
  BufferRsrc rsrc{};
};

// Operand positions: (data, addr, saddr/srsrc, soffset) by space and direction.
struct Layout {
  int vdst = -1, vaddr = -1, vdata = -1, saddr = -1, soffset = -1;
};
Layout layout(Space s, bool is_load, bool is_atomic, bool atomic_return) {
  Layout l;
  if (s == Space::Buffer) {
    l.vdst = (is_load || atomic_return) ? 0 : -1;
    l.vdata = is_load ? -1 : 0;
    l.vaddr = 1;
    l.saddr = 2;
    l.soffset = 3;
    return l;
  }
  int i = 0;
  if (is_load || (is_atomic && atomic_return))
    l.vdst = i++;
  l.vaddr = i++;
  if (!is_load)
    l.vdata = i++;
  if (s != Space::Flat)
    l.saddr = i++;
  return l;
}

LaneAccess lane_address(WaveContext& c, const DecodedInstr& in, Space s, const Layout& l, int lane,
                        const BufferRsrc* rsrc) {
  const WaveState& w = c.wave;
  LaneAccess a{s};
  const int64_t inst_off = in.mods.offset;
  switch (s) {
  case Space::Global: {
    const Operand& sa = in.op(l.saddr);
    if (sa.kind == OperandKind::Off)
      a.addr = w.read64(in.op(l.vaddr), lane) + inst_off;
    else
      a.addr = w.sread64(sa) + w.read32(in.op(l.vaddr), lane) + inst_off;
    break;
  }
  case Space::Flat:
    a.addr = w.read64(in.op(l.vaddr), lane) + inst_off;
    break;
  case Space::Scratch: {
    const Operand& va = in.op(l.vaddr);
    const Operand& sa = in.op(l.saddr);
    uint64_t off = static_cast<uint64_t>(inst_off);
    if (va.kind != OperandKind::Off)
      off += w.read32(va, lane);
    if (sa.kind != OperandKind::Off)
      off += w.sread32(sa);
    a.addr = off & 0xffffffffull;
    break;
  }
  case Space::Buffer: {
    a.rsrc = *rsrc;
    const Operand& va = in.op(l.vaddr);
    uint32_t index = 0, voff = 0;
    if (va.kind != OperandKind::Off) {
      int k = 0;
      if (in.mods.idxen)
        index = w.read_dword(va, lane, k++);
      if (in.mods.offen)
        voff = w.read_dword(va, lane, k);
    }
    uint32_t soff = 0;
    if (l.soffset >= 0 && l.soffset < static_cast<int>(in.ops.size()))
      soff = in.ops[l.soffset].kind == OperandKind::Off ? 0 : w.sread32(in.ops[l.soffset]);
    a.buffer_index = index;
    a.buffer_offset = uint64_t(voff) + soff + static_cast<uint64_t>(inst_off);
    a.addr = a.rsrc.base + uint64_t(index) * a.rsrc.stride + a.buffer_offset;
    break;
  }
  }
  return a;
}

// Is the component [off, off + n) of this buffer access in range?
bool buffer_in_range(const LaneAccess& a, uint32_t comp_off, uint32_t n) {
  const BufferRsrc& r = a.rsrc;
  if (r.stride == 0 || r.oob_select == 3)
    return a.buffer_offset + comp_off + n <= r.num_records;
  if (r.oob_select == 2)
    return r.num_records != 0;
  if (a.buffer_index >= r.num_records)
    return false;
  return r.oob_select == 1 || a.buffer_offset + comp_off < r.stride;
}

uint8_t* resolve(WaveContext& c, const DecodedInstr& in, const LaneAccess& a, int lane,
                 uint32_t comp_off, uint32_t n, bool write) {
  switch (a.space) {
  case Space::Flat:
    return flat_ptr(c, in, lane, a.addr + comp_off, n, write);
  case Space::Scratch:
    return scratch_ptr(c, in, lane, a.addr + comp_off, n);
  case Space::Buffer:
    if (!buffer_in_range(a, comp_off, n))
      return nullptr;
    [[fallthrough]];
  case Space::Global:
    (write ? c.stats.global_bytes_written : c.stats.global_bytes_read) += n;
    return global_ptr(c, in, lane, a.addr + comp_off, n, write);
  }
  return nullptr;
}

// in_region below for all 32 lanes, without branches; also built for AVX2 hosts (chosen when
// the program starts), whose 64-bit vector compares the baseline x86-64 lacks.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
bool all_in_region(const uint64_t* addr, uint64_t base, uint64_t size, uint32_t bytes) {
  uint64_t outside = 0;
  for (int lane = 0; lane < kWaveSize; ++lane) {
    const uint64_t a = addr[lane], into = a - base;
    outside |= uint64_t(a < base) | uint64_t(into > size) | uint64_t(size - into < bytes);
  }
  return outside == 0;
}

// Are every active lane's accesses [addr, addr + bytes) inside allocations (the wave's cached
// one or the one before it, or the one the map gives, remembered for the next lane)?
bool lanes_in_allocations(WaveContext& c, const std::array<uint64_t, kWaveSize>& addr,
                          uint32_t bytes) {
  auto in_region = [&](uint64_t a) {
    const uint64_t into = a - c.region_base;
    return a >= c.region_base && into <= c.region_size && c.region_size - into >= bytes;
  };
  const uint32_t exec = c.wave.exec();
  if (exec == ~0u) { // the common case, all lanes in the last region: one vector loop
    if (all_in_region(addr.data(), c.region_base, c.region_size, bytes))
      return true;
    // Loops that read two arrays alternate between two allocations.
    if (all_in_region(addr.data(), c.previous_base, c.previous_size, bytes)) {
      std::swap(c.region_base, c.previous_base);
      std::swap(c.region_size, c.previous_size);
      return true;
    }
  }
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint64_t a = addr[std::countr_zero(m)];
    if (in_region(a))
      continue;
    const GlobalMemory::Region* r = c.memory.find(a, bytes);
    if (!r)
      return false;
    c.previous_base = c.region_base;
    c.previous_size = c.region_size;
    c.region_base = r->base;
    c.region_size = r->size;
  }
  return true;
}

// The fast path of a global load / store: every active lane's address computed, and its whole
// access [addr, addr + bytes) found inside one allocation (lanes_in_allocations), before
// anything is read or written. False when a lane falls outside (memcheck's report or the
// zero-fill / dropped-store rules per 4-byte component are the general path's) or for an
// unusual operand, or when an observer asks for every component: the general path runs.
// Another observer is told every component the general path would report (observe_global).
bool global_fast_addresses(WaveContext& c, const DecodedInstr& in, const Layout& l, uint32_t bytes,
                           std::array<uint64_t, kWaveSize>& addr) {
  if (c.observer && c.observer->every_component())
    return false;
  const WaveState& w = c.wave;
  const Operand& sa = in.op(l.saddr);
  const Operand& va = in.op(l.vaddr);
  if (!va.is_vgpr())
    return false;
  const uint64_t off = static_cast<uint64_t>(in.mods.offset);
  const uint32_t* low = w.vgpr[va.reg].data();
  if (sa.kind == OperandKind::Off) {
    if (va.reg + 1 >= kMaxVgprs)
      return false;
    const uint32_t* high = w.vgpr[va.reg + 1].data();
    for (int lane = 0; lane < kWaveSize; ++lane)
      addr[lane] = (low[lane] | (uint64_t(high[lane]) << 32)) + off;
  } else {
    const uint64_t base = w.sread64(sa) + off;
    for (int lane = 0; lane < kWaveSize; ++lane)
      addr[lane] = base + low[lane];
  }
  return lanes_in_allocations(c, addr, bytes);
}

// The fast path of a buffer load / store: every active lane's byte address computed as
// lane_address does (base + index * stride + voffset + soffset + inst offset), and every
// component of every active lane's access within the resource's bounds (buffer_in_range for
// the last component, which implies it for the others) and inside an allocation
// (lanes_in_allocations). False otherwise (some component reads 0 or is dropped, or memcheck
// reports: the general path's rules per component), for an unusual operand, or when an
// observer asks for every component.
bool buffer_fast_addresses(WaveContext& c, const DecodedInstr& in, const Layout& l,
                           const BufferRsrc& r, uint32_t bytes,
                           std::array<uint64_t, kWaveSize>& addr) {
  if (c.observer && c.observer->every_component())
    return false;
  const WaveState& w = c.wave;
  const Operand& va = in.op(l.vaddr);
  static constexpr std::array<uint32_t, kWaveSize> zeros{};
  const uint32_t* index = zeros.data();
  const uint32_t* voff = zeros.data();
  if (va.kind != OperandKind::Off && (in.mods.idxen || in.mods.offen)) {
    const int regs = int(in.mods.idxen) + int(in.mods.offen);
    if (!va.is_vgpr() || va.reg + regs > kMaxVgprs)
      return false;
    int k = 0;
    if (in.mods.idxen)
      index = w.vgpr[va.reg + k++].data();
    if (in.mods.offen)
      voff = w.vgpr[va.reg + k].data();
  }
  uint32_t soff = 0;
  if (l.soffset >= 0 && l.soffset < static_cast<int>(in.ops.size()) &&
      in.ops[l.soffset].kind != OperandKind::Off)
    soff = w.sread32(in.ops[l.soffset]);
  const uint64_t fixed = uint64_t(soff) + static_cast<uint64_t>(in.mods.offset);
  const uint32_t last = bytes - (bytes < 4 ? bytes : 4); // offset of the last component
  const bool raw = r.stride == 0 || r.oob_select == 3;
  const uint32_t exec = w.exec();
  bool out = false;
  for (int lane = 0; lane < kWaveSize; ++lane) {
    const uint64_t offset = voff[lane] + fixed;
    addr[lane] = r.base + uint64_t(index[lane]) * r.stride + offset;
    bool ok;
    if (raw)
      ok = offset + bytes <= r.num_records;
    else if (r.oob_select == 2)
      ok = r.num_records != 0;
    else
      ok = index[lane] < r.num_records && (r.oob_select == 1 || offset + last < r.stride);
    out |= ((exec >> lane) & 1u) && !ok;
  }
  return !out && lanes_in_allocations(c, addr, bytes);
}

// The timing model's observer sees the accesses of a fast-path instruction as the general
// path reports them: per lane, components of 4 bytes (or the whole access below 4).
void observe_global(WaveContext& c, const std::array<uint64_t, kWaveSize>& addr, uint32_t bytes) {
  const uint32_t unit = bytes < 4 ? bytes : 4;
  c.observer->on_global_accesses(addr, c.wave.exec(), unit, bytes / unit);
}

// Every active lane's address computed and checked by global_fast_addresses or
// buffer_fast_addresses (S): false when the general path must run.
template <Space S>
bool fast_addresses(WaveContext& c, const DecodedInstr& in, const Layout& l, const BufferRsrc& r,
                    uint32_t bytes, std::array<uint64_t, kWaveSize>& addr) {
  if constexpr (S == Space::Buffer)
    return buffer_fast_addresses(c, in, l, r, bytes, addr);
  else
    return global_fast_addresses(c, in, l, bytes, addr);
}

#if defined(__x86_64__) && defined(__SSE2__)
#define TW_VMEM_SSE2 1
// Every lane's 16 bytes at addr[lane] as dwords 0..3 of row0..row3 (a 4 x 4 transpose of each
// four lanes' loads: the same values the dword-by-dword copy gives).
void load_b128_rows(const std::array<uint64_t, kWaveSize>& addr, uint32_t* row0, uint32_t* row1,
                    uint32_t* row2, uint32_t* row3) {
  for (int lane = 0; lane < kWaveSize; lane += 4) {
    auto at = [&](int l) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(addr[l])); };
    const __m128i a = at(lane), b = at(lane + 1), c = at(lane + 2), d = at(lane + 3);
    const __m128i ab_lo = _mm_unpacklo_epi32(a, b), cd_lo = _mm_unpacklo_epi32(c, d);
    const __m128i ab_hi = _mm_unpackhi_epi32(a, b), cd_hi = _mm_unpackhi_epi32(c, d);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(row0 + lane), _mm_unpacklo_epi64(ab_lo, cd_lo));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(row1 + lane), _mm_unpackhi_epi64(ab_lo, cd_lo));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(row2 + lane), _mm_unpacklo_epi64(ab_hi, cd_hi));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(row3 + lane), _mm_unpackhi_epi64(ab_hi, cd_hi));
  }
}
#endif

template <Space S, Width W>
bool load_fast(WaveContext& c, const DecodedInstr& in, const Layout& l, const BufferRsrc& r) {
  constexpr uint32_t bytes = width_bytes(W);
  std::array<uint64_t, kWaveSize> addr;
  if (!fast_addresses<S>(c, in, l, r, bytes, addr))
    return false;
  if (c.observer)
    observe_global(c, addr, bytes);
  WaveState& w = c.wave;
  const Operand& dst = in.op(l.vdst);
  const uint32_t exec = w.exec();
  if (load_result(W) == LoadResult::Dwords && dst.is_vgpr() && dst.reg + bytes / 4 <= kMaxVgprs) {
#ifdef TW_VMEM_SSE2
    if (bytes == 16 && exec == ~0u) { // b128: four lanes' 16 bytes transposed into 4 rows
      load_b128_rows(addr, w.vgpr[dst.reg].data(), w.vgpr[dst.reg + 1].data(),
                     w.vgpr[dst.reg + 2].data(), w.vgpr[dst.reg + 3].data());
      c.stats.global_bytes_read += uint64_t(bytes) * kWaveSize;
      return true;
    }
#endif
    for (uint32_t i = 0; i < bytes / 4; ++i) {
      uint32_t* row = w.vgpr[dst.reg + i].data();
      WaveState::for_each_lane_of(exec, [&](int lane) {
        std::memcpy(&row[lane], reinterpret_cast<const uint8_t*>(addr[lane]) + 4 * i, 4);
      });
    }
  } else {
    WaveState::for_each_lane_of(exec, [&](int lane) {
      uint8_t buf[16];
      std::memcpy(buf, reinterpret_cast<const uint8_t*>(addr[lane]), bytes);
      write_load_result(w, dst, lane, load_result(W), buf, bytes);
    });
  }
  c.stats.global_bytes_read += uint64_t(bytes) * std::popcount(exec);
  return true;
}

template <Space S, Width W>
bool store_fast(WaveContext& c, const DecodedInstr& in, const Layout& l, const BufferRsrc& r) {
  constexpr uint32_t bytes = width_bytes(W);
  const WaveState& w = c.wave;
  const Operand& data = in.op(l.vdata);
  if (!data.is_vgpr() || data.reg + (bytes + 3) / 4 > kMaxVgprs)
    return false;
  std::array<uint64_t, kWaveSize> addr;
  if (!fast_addresses<S>(c, in, l, r, bytes, addr))
    return false;
  if (c.observer)
    observe_global(c, addr, bytes);
  const uint32_t exec = w.exec();
  WaveState::for_each_lane_of(exec, [&](int lane) { // the highest lane's store lands last
    uint8_t* p = reinterpret_cast<uint8_t*>(addr[lane]);
    if constexpr (bytes >= 4) {
      for (uint32_t i = 0; i < bytes / 4; ++i)
        std::memcpy(p + 4 * i, &w.vgpr[data.reg + i][lane], 4);
    } else {
      uint32_t v = w.vgpr[data.reg][lane];
      if (W == Width::D16HiStore8 || W == Width::D16HiStore16)
        v >>= 16;
      std::memcpy(p, &v, bytes);
    }
  });
  c.stats.global_bytes_written += uint64_t(bytes) * std::popcount(exec);
  return true;
}

template <Space S, Width W>
void vmem_load(WaveContext& c, const DecodedInstr& in) {
  WaveState& w = c.wave;
  const Layout l = layout(S, true, false, false);
  BufferRsrc rsrc{};
  if constexpr (S == Space::Buffer)
    rsrc = read_rsrc(c, in, in.op(l.saddr));
  if constexpr (S == Space::Global || S == Space::Buffer)
    if (load_fast<S, W>(c, in, l, rsrc))
      return;
  constexpr uint32_t bytes = width_bytes(W);
  const Operand& dst = in.op(l.vdst);
  w.for_each_active([&](int lane) {
    const LaneAccess a = lane_address(c, in, S, l, lane, &rsrc);
    uint8_t buf[16] = {};
    const uint32_t unit = bytes < 4 ? bytes : 4;
    for (uint32_t off = 0; off < bytes; off += unit)
      if (const uint8_t* p = resolve(c, in, a, lane, off, unit, false))
        std::memcpy(buf + off, p, unit);
    write_load_result(w, dst, lane, load_result(W), buf, bytes);
  });
}

template <Space S, Width W>
void vmem_store(WaveContext& c, const DecodedInstr& in) {
  WaveState& w = c.wave;
  const Layout l = layout(S, false, false, false);
  BufferRsrc rsrc{};
  if constexpr (S == Space::Buffer)
    rsrc = read_rsrc(c, in, in.op(l.saddr));
  if constexpr (S == Space::Global || S == Space::Buffer)
    if (store_fast<S, W>(c, in, l, rsrc))
      return;
  constexpr uint32_t bytes = width_bytes(W);
  const Operand& data = in.op(l.vdata);
  w.for_each_active([&](int lane) {
    const LaneAccess a = lane_address(c, in, S, l, lane, &rsrc);
    uint8_t buf[16] = {};
    if constexpr (bytes >= 4) {
      for (uint32_t i = 0; i < bytes / 4; ++i) {
        const uint32_t v = w.read_dword(data, lane, static_cast<int>(i));
        std::memcpy(buf + 4 * i, &v, 4);
      }
    } else {
      uint32_t v = w.read32(data, lane);
      if (W == Width::D16HiStore8 || W == Width::D16HiStore16)
        v >>= 16;
      std::memcpy(buf, &v, bytes);
    }
    const uint32_t unit = bytes < 4 ? bytes : 4;
    for (uint32_t off = 0; off < bytes; off += unit)
      if (uint8_t* p = resolve(c, in, a, lane, off, unit, true))
        std::memcpy(p, buf + off, unit);
  });
}

// global_load_tr_b128 (16-bit elements) / global_load_tr_b64 (8-bit elements), RDNA4 ISA
// 11.6: every lane reads 8 contiguous elements at its own address (like global_load_b128 /
// _b64, memcheck per 4-byte component), then the wave permutes them across lanes so that a
// 16x16 tile stored with the other major order lands in the WMMA operand layout. Writing R(S)
// for the 8 elements lane S read, lane L receives element j (in register order) from
//   b128: R(8 * (L / 8) + j)[L % 8]                        (an 8x8 transpose per 8 lanes)
//   b64:  R(16 * (L / 16) + 8 * (j / 4) + 4 * (L / 8 % 2) + j % 4)[L % 8]
// (both measured on gfx1201 hardware by third parties; docs/copy_atoms.md has the sources).
// EXEC must be all ones (else the ISA leaves the result undefined); EXEC == 0 is a no-op.
// The reads take the global fast path's checks (global_fast_addresses) when every lane's read
// lies inside an allocation and no observer asks for every component (an observer that does
// not, the timing model's, is told the reads as the general path reports them); else the
// general per-component path.
template <uint32_t ElemBytes>
void global_load_tr(WaveContext& c, const DecodedInstr& in) {
  WaveState& w = c.wave;
  if (w.exec() == 0)
    return;
  if (w.exec() != 0xffffffffu)
    c.fail(in, fmt::format("transpose load with EXEC = {:#010x}: the ISA requires all 32 lanes "
                           "(or none) to be active",
                           w.exec()));
  constexpr uint32_t bytes = 8 * ElemBytes;
  const Layout l = layout(Space::Global, true, false, false);
  uint8_t raw[32][bytes] = {};
  std::array<uint64_t, kWaveSize> addr;
  if (global_fast_addresses(c, in, l, bytes, addr)) { // every lane's read inside an allocation
    for (int lane = 0; lane < 32; ++lane)
      std::memcpy(raw[lane], reinterpret_cast<const uint8_t*>(addr[lane]), bytes);
    c.stats.global_bytes_read += uint64_t(bytes) * 32;
    if (c.observer) // the timing model's cache lines, as the general path reports them
      observe_global(c, addr, bytes);
  } else {
    for (int lane = 0; lane < 32; ++lane) {
      const LaneAccess a = lane_address(c, in, Space::Global, l, lane, nullptr);
      for (uint32_t off = 0; off < bytes; off += 4)
        if (const uint8_t* p = resolve(c, in, a, lane, off, 4, false))
          std::memcpy(raw[lane] + off, p, 4);
    }
  }
  const Operand& dst = in.op(l.vdst);
  const bool rows = dst.is_vgpr() && dst.reg + bytes / 4 <= kMaxVgprs; // straight to the rows
  for (int lane = 0; lane < 32; ++lane) {
    uint8_t buf[bytes];
    for (int j = 0; j < 8; ++j) {
      const int src = ElemBytes == 2 ? 8 * (lane / 8) + j
                                     : 16 * (lane / 16) + 8 * (j / 4) + 4 * (lane / 8 % 2) + j % 4;
      std::memcpy(buf + j * ElemBytes, raw[src] + (lane % 8) * ElemBytes, ElemBytes);
    }
    if (rows)
      for (uint32_t i = 0; i < bytes / 4; ++i)
        std::memcpy(&w.vgpr[dst.reg + i][size_t(lane)], buf + 4 * i, 4);
    else
      write_load_result(w, dst, lane, LoadResult::Dwords, buf, bytes);
  }
}

// "global_atomic_add_u32" -> op "add", 4 bytes; "..._cmpswap_b64" -> "cmpswap", 8 bytes.
template <Space S>
void vmem_atomic(WaveContext& c, const DecodedInstr& in) {
  WaveState& w = c.wave;
  std::string_view m = in.mnemonic;
  m.remove_prefix(m.find("_atomic_") + 8);
  const bool is64 =
      m.size() > 3 && m.substr(m.size() - 3) == "x2"
          ? true
          : (m.size() > 3 && (m.substr(m.size() - 3) == "u64" || m.substr(m.size() - 3) == "i64" ||
                              m.substr(m.size() - 3) == "b64" || m.substr(m.size() - 3) == "f64"));
  std::string op(m);
  // Keep the signedness suffix for min/max (and the type for float ops); drop it otherwise.
  if (op.rfind("min_", 0) != 0 && op.rfind("max_", 0) != 0 &&
      op.find("_f32") == std::string::npos && op.find("_f64") == std::string::npos)
    op = op.substr(0, op.rfind('_'));
  if (op == "cond_sub" || op == "sub_clamp" || op == "csub" || op.find("pk_") == 0)
    c.fail(in, "unimplemented atomic operation");
  const bool ret = in.mods.th.find("RETURN") != std::string::npos;
  const Layout l = layout(S, false, true, ret);
  BufferRsrc rsrc{};
  if constexpr (S == Space::Buffer)
    rsrc = read_rsrc(c, in, in.op(l.saddr));
  const int bytes = is64 ? 8 : 4;
  const Operand& data = in.op(S == Space::Buffer ? 0 : l.vdata);
  const bool cmpswap = op == "cmpswap";
  w.for_each_active([&](int lane) {
    const LaneAccess a = lane_address(c, in, S, l, lane, &rsrc);
    // cmpswap data: {new, cmp} in consecutive registers.
    const uint64_t v = is64 ? w.read64(data, lane) : w.read32(data, lane);
    uint64_t cmp = 0;
    if (cmpswap)
      cmp = is64 ? (uint64_t(w.read_dword(data, lane, 2)) |
                    (uint64_t(w.read_dword(data, lane, 3)) << 32))
                 : w.read_dword(data, lane, 1);
    uint8_t* p = resolve(c, in, a, lane, 0, static_cast<uint32_t>(bytes), true);
    uint64_t old = 0;
    if (p) {
      const bool shared =
          S != Space::Scratch && !(S == Space::Flat && (a.addr >> 32) << 32 == kSharedApertureBase);
      old = atomic_rmw(c, in, op, p, bytes, v, cmp, shared);
    }
    if (ret) {
      const Operand& dst = in.op(l.vdst);
      if (is64)
        w.write64(dst, lane, old);
      else
        w.write32(dst, lane, static_cast<uint32_t>(old));
    }
  });
}

template <Space S>
void register_space(HandlerTable& t, const std::string& p) {
  t.add(p + "load_b32", vmem_load<S, Width::B32>);
  t.add(p + "load_b64", vmem_load<S, Width::B64>);
  t.add(p + "load_b96", vmem_load<S, Width::B96>);
  t.add(p + "load_b128", vmem_load<S, Width::B128>);
  t.add(p + "load_u8", vmem_load<S, Width::U8>);
  t.add(p + "load_i8", vmem_load<S, Width::I8>);
  t.add(p + "load_u16", vmem_load<S, Width::U16>);
  t.add(p + "load_i16", vmem_load<S, Width::I16>);
  t.add(p + "load_d16_u8", vmem_load<S, Width::D16U8>);
  t.add(p + "load_d16_i8", vmem_load<S, Width::D16I8>);
  t.add(p + "load_d16_b16", vmem_load<S, Width::D16B16>);
  t.add(p + "load_d16_hi_u8", vmem_load<S, Width::D16HiU8>);
  t.add(p + "load_d16_hi_i8", vmem_load<S, Width::D16HiI8>);
  t.add(p + "load_d16_hi_b16", vmem_load<S, Width::D16HiB16>);
  t.add(p + "store_b8", vmem_store<S, Width::B8>);
  t.add(p + "store_b16", vmem_store<S, Width::B16>);
  t.add(p + "store_b32", vmem_store<S, Width::B32>);
  t.add(p + "store_b64", vmem_store<S, Width::B64>);
  t.add(p + "store_b96", vmem_store<S, Width::B96>);
  t.add(p + "store_b128", vmem_store<S, Width::B128>);
  t.add(p + "store_d16_hi_b8", vmem_store<S, Width::D16HiStore8>);
  t.add(p + "store_d16_hi_b16", vmem_store<S, Width::D16HiStore16>);
  if (S == Space::Scratch)
    return;
  for (const char* op :
       {"add_u32", "sub_u32",  "min_i32",     "max_i32",     "min_u32",     "max_u32",
        "and_b32", "or_b32",   "xor_b32",     "swap_b32",    "cmpswap_b32", "inc_u32",
        "dec_u32", "add_f32",  "min_num_f32", "max_num_f32", "add_u64",     "sub_u64",
        "min_i64", "max_i64",  "min_u64",     "max_u64",     "and_b64",     "or_b64",
        "xor_b64", "swap_b64", "cmpswap_b64", "inc_u64",     "dec_u64"})
    t.add(p + "atomic_" + op, vmem_atomic<S>);
}

} // namespace

void register_vmem_handlers(HandlerTable& t) {
  register_space<Space::Global>(t, "global_");
  t.add("global_load_tr_b128", global_load_tr<2>);
  t.add("global_load_tr_b64", global_load_tr<1>);
  register_space<Space::Flat>(t, "flat_");
  register_space<Space::Scratch>(t, "scratch_");
  register_space<Space::Buffer>(t, "buffer_");
  t.add_all({"global_inv", "global_wb", "global_wbinv", "buffer_gl0_inv", "buffer_gl1_inv",
             "buffer_inv", "buffer_wb", "global_prefetch_b8", "flat_prefetch_b8"},
            [](WaveContext&, const DecodedInstr&) {});
}

} // namespace tw::emu
