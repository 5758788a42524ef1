// Checked memory accesses and atomics.
#include <runtime/emu/memory_access.hpp>

#include <atomic>
#include <cstring>
#include <fmt/format.h>

namespace tw::emu {

uint8_t* global_ptr(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, uint32_t n,
                    bool write) {
  if (c.observer)
    c.observer->on_access(lane, addr, n, false);
  if (c.memory.find(addr, n))
    return reinterpret_cast<uint8_t*>(addr);
  if (c.memcheck)
    c.fail(in, fmt::format("memcheck: global {} of {} bytes at 0x{:x} (lane {}) is outside every "
                           "allocation ({})",
                           write ? "write" : "read", n, addr, lane, c.memory.describe_near(addr)));
  return nullptr;
}

void global_read(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, void* dst,
                 uint32_t n) {
  if (uint8_t* p = global_ptr(c, in, lane, addr, n, false))
    std::memcpy(dst, p, n);
  else
    std::memset(dst, 0, n);
  c.stats.global_bytes_read += n;
}

void global_write(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, const void* src,
                  uint32_t n) {
  if (uint8_t* p = global_ptr(c, in, lane, addr, n, true))
    std::memcpy(p, src, n);
  c.stats.global_bytes_written += n;
}

uint8_t* lds_ptr(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, uint32_t n,
                 bool write) {
  if (c.observer)
    c.observer->on_access(lane, addr, n, true);
  Workgroup& g = c.group;
  if (addr + n > g.lds_size) {
    if (c.memcheck)
      c.fail(in,
             fmt::format("memcheck: LDS {} of {} bytes at 0x{:x} (lane {}) is outside the "
                         "group segment of {} bytes (static {} + dynamic {})",
                         write ? "write" : "read", n, addr, lane, g.lds_size,
                         c.kernel.group_segment_size, g.lds_size - c.kernel.group_segment_size));
    return nullptr;
  }
  if (write) {
    std::memset(g.lds_written.data() + addr, 1, n);
  } else if (c.memcheck) {
    for (uint32_t i = 0; i < n; ++i)
      if (!g.lds_written[addr + i])
        c.fail(in, fmt::format("memcheck: LDS read of {} bytes at 0x{:x} (lane {}) reads byte "
                               "0x{:x}, never written in this workgroup",
                               n, addr, lane, addr + i));
  }
  return g.lds.data() + addr;
}

void lds_read(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, void* dst,
              uint32_t n) {
  if (uint8_t* p = lds_ptr(c, in, lane, addr, n, false))
    std::memcpy(dst, p, n);
  else
    std::memset(dst, 0, n);
  c.stats.lds_bytes_read += n;
}

void lds_write(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, const void* src,
               uint32_t n) {
  if (uint8_t* p = lds_ptr(c, in, lane, addr, n, true))
    std::memcpy(p, src, n);
  c.stats.lds_bytes_written += n;
}

uint8_t* scratch_ptr(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, uint32_t n) {
  Workgroup& g = c.group;
  if (addr + n > g.scratch_per_lane) {
    c.fail(in, fmt::format("scratch access of {} bytes at offset 0x{:x} (lane {}) is outside the "
                           "private segment of {} bytes per lane",
                           n, addr, lane, g.scratch_per_lane));
  }
  return g.scratch[c.wave.wave_id].data() + static_cast<size_t>(lane) * g.scratch_per_lane + addr;
}

uint8_t* flat_ptr(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, uint32_t n,
                  bool write) {
  const uint64_t hi = addr & 0xffff'ffff'0000'0000ull;
  const uint64_t lo = addr & 0xffff'ffffull;
  if (hi == kSharedApertureBase) {
    (write ? c.stats.lds_bytes_written : c.stats.lds_bytes_read) += n;
    return lds_ptr(c, in, lane, lo, n, write);
  }
  if (hi == kPrivateApertureBase)
    return scratch_ptr(c, in, lane, lo, n);
  (write ? c.stats.global_bytes_written : c.stats.global_bytes_read) += n;
  return global_ptr(c, in, lane, addr, n, write);
}

namespace {

template <class T>
T apply_op(WaveContext& c, const DecodedInstr& in, std::string_view op, T old, T data, T cmp) {
  using S = std::make_signed_t<T>;
  auto f_op = [&](auto fn) -> T {
    if constexpr (sizeof(T) == 4) {
      float a, b;
      std::memcpy(&a, &old, 4);
      std::memcpy(&b, &data, 4);
      float r = fn(a, b);
      T out;
      std::memcpy(&out, &r, 4);
      return out;
    } else {
      double a, b;
      std::memcpy(&a, &old, 8);
      std::memcpy(&b, &data, 8);
      double r = fn(a, b);
      T out;
      std::memcpy(&out, &r, 8);
      return out;
    }
  };
  if (op == "add")
    return old + data;
  if (op == "sub")
    return old - data;
  if (op == "rsub")
    return data - old;
  if (op == "min_i32" || op == "min_i64")
    return static_cast<T>(std::min<S>(S(old), S(data)));
  if (op == "max_i32" || op == "max_i64")
    return static_cast<T>(std::max<S>(S(old), S(data)));
  if (op == "min_u32" || op == "min_u64")
    return std::min(old, data);
  if (op == "max_u32" || op == "max_u64")
    return std::max(old, data);
  if (op == "and")
    return old & data;
  if (op == "or")
    return old | data;
  if (op == "xor")
    return old ^ data;
  if (op == "swap" || op == "storexchg")
    return data;
  if (op == "cmpswap" || op == "cmpstore")
    return old == cmp ? data : old;
  if (op == "inc")
    return old >= data ? 0 : old + 1;
  if (op == "dec")
    return (old == 0 || old > data) ? data : old - 1;
  if (op == "add_f32" || op == "add_f64")
    return f_op([](auto a, auto b) { return a + b; });
  if (op == "min_num_f32" || op == "min_num_f64")
    return f_op([](auto a, auto b) { return std::fmin(a, b); });
  if (op == "max_num_f32" || op == "max_num_f64")
    return f_op([](auto a, auto b) { return std::fmax(a, b); });
  c.fail(in, fmt::format("unimplemented atomic operation '{}'", op));
}

template <class T>
T rmw(WaveContext& c, const DecodedInstr& in, std::string_view op, uint8_t* p, T data, T cmp,
      bool host_atomic) {
  if (!host_atomic) {
    T old;
    std::memcpy(&old, p, sizeof(T));
    T nv = apply_op<T>(c, in, op, old, data, cmp);
    std::memcpy(p, &nv, sizeof(T));
    return old;
  }
  std::atomic_ref<T> ref(*reinterpret_cast<T*>(p));
  T old = ref.load();
  while (true) {
    T nv = apply_op<T>(c, in, op, old, data, cmp);
    if (ref.compare_exchange_weak(old, nv))
      return old;
  }
}

} // namespace

uint64_t atomic_rmw(WaveContext& c, const DecodedInstr& in, std::string_view op, uint8_t* p,
                    int bytes, uint64_t data, uint64_t cmp, bool host_atomic) {
  if (reinterpret_cast<uintptr_t>(p) % bytes != 0)
    c.fail(in, "misaligned atomic");
  if (bytes == 4)
    return rmw<uint32_t>(c, in, op, p, static_cast<uint32_t>(data), static_cast<uint32_t>(cmp),
                         host_atomic);
  return rmw<uint64_t>(c, in, op, p, data, cmp, host_atomic);
}

} // namespace tw::emu
