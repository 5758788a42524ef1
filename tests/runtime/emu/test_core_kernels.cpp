// Emulator core on real code objects compiled from tests/runtime/emu/kernels/core_*.hip at
// -O0 / -O3 for gfx1200 / gfx1201 (v6) and gfx1201 -O3 (v5), each checked against a host
// reference computed here. Memcheck is on for all of them (a report fails the launch).
#include "runtime/emu/emu_test_util.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>
#include <random>
#include <sstream>

using namespace tw;
using runtime::Dim3;
using runtime::KernelArgs;

namespace {

struct Params {
  int a, b;
  unsigned ua, ub;
  int n;
  int shift;
  long long x, y;
};

std::vector<int> scalar_reference(const Params& p, const std::vector<int>& table) {
  std::vector<int> r(32);
  r[0] = p.a + p.b;
  r[1] = p.a - p.b;
  r[2] = int(unsigned(p.a) * unsigned(p.b));
  r[3] = p.a & p.b;
  r[4] = p.a | p.b;
  r[5] = p.a ^ p.b;
  r[6] = int(unsigned(p.a) << (p.shift & 31));
  r[7] = p.a >> (p.shift & 31);
  r[8] = int(p.ua >> (p.shift & 31));
  r[9] = std::min(p.a, p.b);
  r[10] = std::max(p.a, p.b);
  r[11] = int(std::min(p.ua, p.ub));
  r[12] = int(std::max(p.ua, p.ub));
  r[13] = std::popcount(p.ua);
  r[14] = std::countl_zero(p.ua);
  r[15] = std::countr_zero(p.ua);
  int s = 0;
  for (int i = 0; i < p.n; ++i)
    s += table[i] * (i + 1);
  r[16] = s;
  const auto x = static_cast<unsigned long long>(p.x), y = static_cast<unsigned long long>(p.y);
  const unsigned long long sum = x + y, diff = x - y, prod = x * y;
  r[17] = int(sum), r[18] = int(sum >> 32);
  r[19] = int(diff), r[20] = int(diff >> 32);
  r[21] = int(prod), r[22] = int(prod >> 32);
  const unsigned long long sh = x << (p.shift & 63);
  r[23] = int(sh), r[24] = int(sh >> 32);
  const unsigned long long ush = x >> (p.shift & 63);
  r[25] = int(ush), r[26] = int(ush >> 32);
  r[27] = p.x < p.y ? 1 : 0;
  r[28] = static_cast<signed char>(p.a);
  r[29] = static_cast<short>(p.b);
  r[30] = std::popcount(x);
  r[31] = p.a == p.b ? 7 : 9;
  return r;
}

} // namespace

TEST_CASE("emu core: scalar arguments, SALU 32/64-bit ops and a uniform loop") {
  const std::vector<int> table = {3, -1, 4, 1, -5, 9, 2, 6, 5, 3};
  const Params cases[] = {
      {1234567, -89, 0xf00dbeefu, 77u, 10, 5, 0x123456789abcdefLL, -0x7edcba987654321LL},
      {-7, -7, 1u, 0xffffffffu, 3, 37, -1LL, 1LL},
  };
  for (const auto& v : test::kernel_variants("core_scalar")) {
    for (const Params& p : cases) {
      CAPTURE(v.label);
      test::EmuRun run(v.path);
      auto tab = run.upload(table);
      auto out = run.alloc<int>(32);
      KernelArgs args;
      args.add(p).ptr(tab).ptr(out);
      run.launch("scalar_ops", {1, 1, 1}, {32, 1, 1}, args);
      CHECK(run.download<int>(out, 32) == scalar_reference(p, table));
      CHECK(run.stats().count(emu::InstrClass::Smem) > 0);
      CHECK(run.stats().count(emu::InstrClass::Salu) > 0);
      // Every argument is read from the kernel-argument segment; the table is not in it.
      CHECK(run.stats().kernarg_bytes_read >= sizeof(Params) + 2 * sizeof(uint64_t));
      CHECK(run.stats().global_bytes_read > run.stats().kernarg_bytes_read);
    }
  }
}

TEST_CASE("emu core: divergent per-lane loops over a grid with a tail") {
  const int n = 200; // 4 workgroups of 64, the last one partial
  std::vector<unsigned> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = unsigned(i * 7 + 1);
  std::vector<unsigned> steps(n), flags(n);
  for (int i = 0; i < n; ++i) {
    unsigned x = in[i], s = 0;
    while (x != 1 && s < 1000) {
      x = (x & 1) ? 3 * x + 1 : x >> 1;
      ++s;
    }
    steps[i] = s;
    flags[i] = s % 3 == 0 ? 1 : s % 3 == 1 ? 2 : s * 5;
  }
  for (const auto& v : test::kernel_variants("core_control")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto din = run.upload(in);
    auto dout = run.alloc<unsigned>(n), dflags = run.alloc<unsigned>(n);
    KernelArgs args;
    args.ptr(din).ptr(dout).ptr(dflags).add(n);
    run.launch("collatz", {4, 1, 1}, {64, 1, 1}, args);
    CHECK(run.download<unsigned>(dout, n) == steps);
    CHECK(run.download<unsigned>(dflags, n) == flags);
    CHECK(run.stats().workgroups == 4);
    CHECK(run.stats().waves == 8);
    CHECK(run.stats().count(emu::InstrClass::Branch) > 0);
  }
}

TEST_CASE("emu core: 3D grid and 3D blocks deliver workgroup and work-item ids") {
  const int gx = 3, gy = 2, gz = 2, bx = 4, by = 2, bz = 2;
  const int nx = gx * bx, ny = gy * by, nz = gz * bz;
  std::vector<unsigned> expect(size_t(nx) * ny * nz);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const unsigned t = unsigned(x % bx) | (unsigned(y % by) << 4) | (unsigned(z % bz) << 8);
        const unsigned b = unsigned(x / bx) | (unsigned(y / by) << 4) | (unsigned(z / bz) << 8);
        expect[(size_t(z) * ny + y) * nx + x] = t | (b << 16);
      }
  for (const auto& v : test::kernel_variants("core_control")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto out = run.alloc<unsigned>(expect.size());
    KernelArgs args;
    args.ptr(out).add(nx).add(ny);
    run.launch("ids3d", {gx, gy, gz}, {bx, by, bz}, args);
    CHECK(run.download<unsigned>(out, expect.size()) == expect);
  }
}

TEST_CASE("emu core: LDS exchange and tree reduction across 8 waves with barriers") {
  const int blocks = 6;
  std::vector<int> in(blocks * 256);
  std::mt19937 rng(7);
  for (auto& x : in)
    x = int(rng() % 2001) - 1000;
  std::vector<int> out(in.size()), sums(blocks);
  for (int b = 0; b < blocks; ++b) {
    const int* s = &in[size_t(b) * 256];
    for (int t = 0; t < 256; ++t)
      out[size_t(b) * 256 + t] = s[(t + 37) % 256] * 3 + s[255 - t];
    sums[b] = std::accumulate(s, s + 256, 0);
  }
  for (const auto& v : test::kernel_variants("core_lds")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto din = run.upload(in);
    auto dout = run.alloc<int>(in.size()), dsums = run.alloc<int>(blocks);
    KernelArgs args;
    args.ptr(din).ptr(dout).ptr(dsums);
    run.launch("lds_exchange", {3, 2, 1}, {256, 1, 1}, args);
    CHECK(run.download<int>(dout, in.size()) == out);
    CHECK(run.download<int>(dsums, blocks) == sums);
    CHECK(run.stats().lds_bytes_written > 0);
    if (v.label.find("O3") != std::string::npos) // -O0 reaches LDS through flat pointers
      CHECK(run.stats().count(emu::InstrClass::Lds) > 0);
  }
}

TEST_CASE("emu core: static + dynamic LDS") {
  const int n = 300, blocks = 2;
  std::vector<int> in(size_t(n) * blocks);
  std::iota(in.begin(), in.end(), 5);
  std::vector<int> expect(in.size());
  for (int b = 0; b < blocks; ++b)
    for (int i = 0; i < n; ++i)
      expect[size_t(b) * n + i] = in[size_t(b) * n + (n - 1 - i)] + (i % 32) * 1000;
  for (const auto& v : test::kernel_variants("core_lds")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto din = run.upload(in);
    auto dout = run.alloc<int>(in.size());
    KernelArgs args;
    args.ptr(din).ptr(dout).add(n);
    run.launch("lds_dynamic", {blocks, 1, 1}, {128, 1, 1}, args, n * 4);
    CHECK(run.download<int>(dout, in.size()) == expect);
  }
}

TEST_CASE("emu core: LDS accesses of 8/16/32/64/128 bits") {
  std::vector<int> in(64);
  for (int i = 0; i < 64; ++i)
    in[i] = int(0x01020304u * unsigned(i + 1) ^ 0x80u * unsigned(i));
  std::vector<int> expect(64 * 8);
  for (int t = 0; t < 64; ++t) {
    const int u = 63 - t, x = in[u];
    expect[t * 8 + 0] = 4 * x + 6;
    expect[t * 8 + 1] = x * 2 - x * 3;
    expect[t * 8 + 2] = x;
    expect[t * 8 + 3] = static_cast<signed char>(x >> 8);
    expect[t * 8 + 4] = static_cast<short>(x * 7);
    expect[t * 8 + 5] = x + 3;
    expect[t * 8 + 6] = x * 3;
    expect[t * 8 + 7] = static_cast<unsigned short>(x * 7);
  }
  for (const auto& v : test::kernel_variants("core_lds")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto din = run.upload(in);
    auto dout = run.alloc<int>(expect.size());
    KernelArgs args;
    args.ptr(din).ptr(dout);
    run.launch("lds_widths", {1, 1, 1}, {64, 1, 1}, args);
    CHECK(run.download<int>(dout, expect.size()) == expect);
  }
}

TEST_CASE("emu core: LDS atomics (histogram, max)") {
  std::vector<int> in(128);
  std::mt19937 rng(3);
  for (auto& x : in)
    x = int(rng() % 100000) - 50000;
  std::vector<int> hist(16, 0);
  for (int x : in)
    hist[x & 15]++;
  const int mx = *std::max_element(in.begin(), in.end());
  for (const auto& v : test::kernel_variants("core_lds")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto din = run.upload(in);
    auto dh = run.alloc<int>(16), dm = run.alloc<int>(1);
    KernelArgs args;
    args.ptr(din).ptr(dh).ptr(dm);
    run.launch("lds_atomics", {1, 1, 1}, {128, 1, 1}, args);
    CHECK(run.download<int>(dh, 16) == hist);
    CHECK(run.download<int>(dm, 1)[0] == mx);
  }
}

TEST_CASE("emu core: global loads and stores of every width") {
  const int n = 128; // 2 workgroups of 64
  std::vector<signed char> i8(n);
  std::vector<unsigned char> u8(n);
  std::vector<short> i16(n);
  std::vector<unsigned short> u16(n);
  std::vector<int> i32(n), v2(2 * n), v3(4 * n), v4(4 * n); // int3 vectors occupy 16 bytes
  for (int t = 0; t < n; ++t) {
    i8[t] = static_cast<signed char>(t * 37 - 128);
    u8[t] = static_cast<unsigned char>(t * 53 + 7);
    i16[t] = static_cast<short>(t * 1021 - 30000);
    u16[t] = static_cast<unsigned short>(t * 2039 + 11);
    i32[t] = t * 100003 - 7;
    for (int k = 0; k < 2; ++k)
      v2[2 * t + k] = t * 10 + k;
    for (int k = 0; k < 4; ++k) {
      v3[4 * t + k] = t * 20 + k;
      v4[4 * t + k] = t * 30 + k;
    }
  }
  std::vector<int> out(6 * n), out2(2 * n), out3(4 * n), out4(4 * n);
  std::vector<unsigned char> out8(n);
  std::vector<short> out16(n);
  for (int t = 0; t < n; ++t) {
    out[t * 6 + 0] = i8[t];
    out[t * 6 + 1] = u8[t];
    out[t * 6 + 2] = i16[t];
    out[t * 6 + 3] = u16[t];
    out[t * 6 + 4] = i32[t] + 1;
    out[t * 6 + 5] = v2[2 * t] + v3[4 * t + 2] + v4[4 * t + 3];
    out8[t] = static_cast<unsigned char>(u8[t] + 3);
    out16[t] = static_cast<short>(i16[t] - 5);
    for (int k = 0; k < 2; ++k)
      out2[2 * t + k] = v2[2 * t + k] * 2;
    for (int k = 0; k < 3; ++k)
      out3[4 * t + k] = v3[4 * t + k] + 1;
    for (int k = 0; k < 4; ++k)
      out4[4 * t + k] = v4[4 * t + k] ^ 0x5a5a;
  }
  for (const auto& v : test::kernel_variants("core_memory")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto d8 = run.upload(i8), du8 = run.upload(u8), d16 = run.upload(i16), du16 = run.upload(u16);
    auto d32 = run.upload(i32), dv2 = run.upload(v2), dv3 = run.upload(v3), dv4 = run.upload(v4);
    auto dout = run.alloc<int>(out.size()), dout8 = run.alloc<unsigned char>(n);
    auto dout16 = run.alloc<short>(n), dout2 = run.alloc<int>(out2.size());
    auto dout3 = run.alloc<int>(out3.size()), dout4 = run.alloc<int>(out4.size());
    KernelArgs args;
    for (auto p :
         {d8, du8, d16, du16, d32, dv2, dv3, dv4, dout, dout8, dout16, dout2, dout3, dout4})
      args.ptr(p);
    run.launch("global_widths", {2, 1, 1}, {64, 1, 1}, args);
    CHECK(run.download<int>(dout, out.size()) == out);
    CHECK(run.download<unsigned char>(dout8, n) == out8);
    CHECK(run.download<short>(dout16, n) == out16);
    CHECK(run.download<int>(dout2, out2.size()) == out2);
    auto got3 = run.download<int>(dout3, out3.size());
    for (int t = 0; t < n; ++t)
      for (int k = 0; k < 3; ++k)
        CHECK(got3[4 * t + k] == out3[4 * t + k]);
    CHECK(run.download<int>(dout4, out4.size()) == out4);
    CHECK(run.stats().global_bytes_read > 0);
  }
}

TEST_CASE("emu core: buffer loads past num_records read 0 and stores are dropped") {
  const int n = 100, lanes = 128;
  std::vector<float> data(n);
  for (int i = 0; i < n; ++i)
    data[i] = 0.5f * float(i) - 3.0f;
  for (const auto& v : test::kernel_variants("core_memory")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    // Allocations larger than the buffer's bound: what lies past n must stay untouched
    // (stores) and must not be returned (loads).
    std::vector<float> padded(lanes + 4, 777.0f);
    std::copy(data.begin(), data.end(), padded.begin());
    auto ddata = run.upload(padded);
    auto dout = run.alloc<float>(lanes);
    auto dstore = run.upload(std::vector<int>(lanes, -1));
    auto dout4 = run.alloc<int>(size_t(lanes) * 4);
    KernelArgs args;
    args.ptr(ddata).add(n).ptr(dout).ptr(dstore).ptr(dout4);
    run.launch("buffer_oob", {2, 1, 1}, {64, 1, 1}, args);
    auto got = run.download<float>(dout, lanes);
    auto stored = run.download<int>(dstore, lanes);
    auto got4 = run.download<int>(dout4, size_t(lanes) * 4);
    for (int t = 0; t < lanes; ++t) {
      CAPTURE(t);
      CHECK(got[t] == (t < n ? data[t] : 0.0f));
      CHECK(stored[t] == (t < n ? t * 10 : -1));
      for (int k = 0; k < 4; ++k) {
        const int e = t + k;
        CHECK(got4[t * 4 + k] == (e < n ? std::bit_cast<int>(data[e]) : 0));
      }
    }
  }
}

TEST_CASE("emu core: global atomics from parallel workgroups") {
  const int n = 64 * 16;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = (i * 7919) % 1000;
  const int total = std::accumulate(in.begin(), in.end(), 0);
  unsigned mx = 0;
  for (int x : in)
    mx = std::max(mx, unsigned(x) * 7u);
  for (const auto& v : test::kernel_variants("core_memory")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    run.dev.set_threads(4);
    auto din = run.upload(in);
    auto dsum = run.alloc<int>(1), dmx = run.alloc<unsigned>(1), dold = run.alloc<int>(n);
    KernelArgs args;
    args.ptr(din).ptr(dsum).ptr(dmx).ptr(dold);
    run.launch("global_atomics", {16, 1, 1}, {64, 1, 1}, args);
    CHECK(run.download<int>(dsum, 1)[0] == total);
    CHECK(run.download<unsigned>(dmx, 1)[0] == mx);
    // The returned old values are distinct partial sums: sorted, each step adds one input.
    auto old = run.download<int>(dold, n);
    std::sort(old.begin(), old.end());
    CHECK(old.front() == 0);
    CHECK(std::adjacent_find(old.begin(), old.end(), [](int a, int b) { return a > b; }) ==
          old.end());
  }
}

TEST_CASE("emu core: compare-and-swap on LDS (ds_cmpstore) and global memory (cmpswap)") {
  const unsigned groups = 3;
  for (const auto& v : test::kernel_variants("core_lds")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto g = run.alloc<int>(1), l = run.alloc<int>(groups), r = run.alloc<int>(groups * 64);
    KernelArgs args;
    args.ptr(g).ptr(l).ptr(r);
    run.launch("cas_counters", {groups, 1, 1}, {64, 1, 1}, args);
    CHECK(run.download<int>(g, 1)[0] == int(2 * 64 * groups));
    CHECK(run.download<int>(l, groups) == std::vector<int>(groups, 64));
    for (int f : run.download<int>(r, groups * 64))
      CHECK(f < 1000);
  }
}

TEST_CASE("emu core: ds_swizzle, ds_permute and ds_bpermute (inactive sources read 0)") {
  std::vector<int> in(64);
  for (int i = 0; i < 64; ++i)
    in[i] = 1000 + i * 3;
  std::vector<int> expect(64 * 5);
  for (int t = 0; t < 64; ++t) {
    const int base = t & ~31, l = t % 32;
    expect[t * 5 + 0] = in[base + ((l & ~3) | (3 - (l & 3)))];
    expect[t * 5 + 1] = in[base + (l ^ 5)];
    expect[t * 5 + 2] = in[base + (31 - l)];
    const int src = (l + 3) % 32;
    expect[t * 5 + 3] = (t & 1) ? -1 : ((src & 1) ? 0 : in[base + src]);
    expect[t * 5 + 4] = in[base + (l + 40) % 32];
  }
  for (const auto& v : test::kernel_variants("core_lanes")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto din = run.upload(in);
    auto dout = run.alloc<int>(expect.size());
    KernelArgs args;
    args.ptr(din).ptr(dout);
    run.launch("lanes", {1, 1, 1}, {64, 1, 1}, args);
    CHECK(run.download<int>(dout, expect.size()) == expect);
  }
}

TEST_CASE("emu core: s_buffer_load through a resource argument, dwords past the end read 0") {
  const int n = 10;
  std::vector<int> data(16, -7); // allocation larger than the resource's bound
  for (int i = 0; i < n; ++i)
    data[i] = 100 + i;
  for (const auto& v : test::kernel_variants("core_smem")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto d = run.upload(data);
    auto out = run.alloc<int>(32 * 5);
    for (int off : {0, 16, 28}) {
      CAPTURE(off);
      const uint32_t rsrc[4] = {uint32_t(d), uint32_t(d >> 32) & 0xffff, uint32_t(n * 4),
                                0x31004000u};
      KernelArgs args;
      args.add(rsrc).add(off).ptr(out);
      run.launch("sbuf", {1, 1, 1}, {32, 1, 1}, args);
      auto got = run.download<int>(out, 32 * 5);
      auto at = [&](int byte) { return byte / 4 < n ? data[byte / 4] : 0; };
      for (int t = 0; t < 32; ++t) {
        CHECK(got[t * 5 + 0] == at(off));
        for (int k = 0; k < 4; ++k)
          CHECK(got[t * 5 + 1 + k] == at(off + 8 + 4 * k));
      }
    }
    CHECK(run.stats().count(emu::InstrClass::Smem) > 0);
  }
}

TEST_CASE("emu core: calls to non-inlined and recursive device functions with a scratch stack") {
  std::vector<int> in(64);
  for (int i = 0; i < 64; ++i)
    in[i] = i * 3 - 50;
  std::vector<int> expect(64);
  auto fib = [](int n) {
    int a = 0, b = 1;
    for (int i = 0; i < n; ++i) {
      const int c = a + b;
      a = b;
      b = c;
    }
    return a;
  };
  for (int t = 0; t < 32; ++t) {
    int local[16];
    for (int i = 0; i < 16; ++i)
      local[i] = in[t + i] * (i + t);
    int s = 0;
    for (int i = 0; i < t % 16 + 1; ++i)
      s += local[(i * 7) % 16];
    expect[t * 2] = s;
    expect[t * 2 + 1] = fib(t % 12);
  }
  for (const auto& v : test::kernel_variants("core_calls")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto din = run.upload(in);
    auto dout = run.alloc<int>(64);
    KernelArgs args;
    args.ptr(din).ptr(dout);
    run.launch("calls", {1, 1, 1}, {32, 1, 1}, args);
    CHECK(run.download<int>(dout, 64) == expect);
  }
}

TEST_CASE("emu core: d16 / d16_hi loads into halves of a VGPR, 16-bit LDS traffic") {
  std::vector<uint16_t> in16(128);
  std::vector<int8_t> in8(64);
  for (int i = 0; i < 128; ++i)
    in16[i] = uint16_t(0x1234 + i * 0x0101);
  for (int i = 0; i < 64; ++i)
    in8[i] = int8_t(i * 5 - 100);
  std::vector<uint16_t> expect(576, 0);
  for (int t = 0; t < 64; ++t) {
    expect[2 * t] = in16[t];
    expect[2 * t + 1] = in16[t + 64];
    expect[128 + 2 * t] = in16[63 - t];
    expect[128 + 2 * t + 1] = in16[127 - t];
    expect[256 + 2 * t] = in16[t];
    expect[256 + 2 * t + 1] = uint16_t(int16_t(in8[t]));
    expect[512 + t] = in16[t + 64];
  }
  for (const auto& v : test::kernel_variants("core_d16")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto d16 = run.upload(in16), d8 = run.upload(in8);
    auto out = run.alloc<uint16_t>(576);
    KernelArgs args;
    args.ptr(d16).ptr(d8).ptr(out);
    run.launch("d16", {1, 1, 1}, {64, 1, 1}, args);
    CHECK(run.download<uint16_t>(out, 576) == expect);
  }
}

TEST_CASE("emu core: a wave spinning on a flag set by another wave of its workgroup") {
  std::vector<int> expect(64, -1);
  std::fill(expect.begin(), expect.begin() + 32, 42);
  for (const auto& v : test::kernel_variants("core_lds")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto out = run.alloc<int>(64);
    KernelArgs args;
    args.ptr(out);
    run.launch("spin_flag", {1, 1, 1}, {64, 1, 1}, args);
    CHECK(run.download<int>(out, 64) == expect);
  }
}

TEST_CASE("emu trace: one chosen wave's instructions with the registers they wrote") {
  const auto v = test::kernel_variants("core_control")[3]; // gfx1201 -O3
  test::EmuRun run(v.path);
  std::vector<unsigned> in(200, 6);
  auto din = run.upload(in);
  auto dout = run.alloc<unsigned>(200), dflags = run.alloc<unsigned>(200);
  KernelArgs args;
  args.ptr(din).ptr(dout).ptr(dflags).add(200);
  std::ostringstream os;
  run.dev.set_trace({true, {2, 0, 0}, 1, &os});
  run.launch("collatz", {4, 1, 1}, {64, 1, 1}, args);
  const std::string t = os.str();
  CAPTURE(t);
  CHECK(t.find(": s_load_b") != std::string::npos);
  CHECK(t.find("s_endpgm") != std::string::npos);
  // Workgroup 2, wave 1 holds work-items 160..191: v0 becomes the global index.
  CHECK(t.find("0:000000a0") != std::string::npos);
  CHECK(t.rfind("s_endpgm") > t.find("global_store_b32"));
}

TEST_CASE("emu core: structured buffer loads (index bound) and buffer atomics in / out of range") {
  const int records = 40;
  std::vector<int> data(64 * 4);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = int(i) * 11 + 3;
  for (const auto& v : test::kernel_variants("core_buffer")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto d = run.upload(data);
    auto counter = run.upload(std::vector<int>{0, 77});
    auto out = run.alloc<int>(192);
    auto rsrc = [](runtime::DevicePtr base, uint32_t stride, uint32_t num, uint32_t word3) {
      return std::array<uint32_t, 4>{uint32_t(base),
                                     (uint32_t(base >> 32) & 0xffff) | (stride << 16), num, word3};
    };
    KernelArgs args;
    // OOB_SELECT 0 (structured: index < num_records), 16-byte records.
    args.add(rsrc(d, 16, records, 0x01004000u))
        .add(rsrc(counter, 0, 4, 0x31004000u))
        .add(rsrc(counter + 4, 0, 0, 0x31004000u))
        .ptr(out);
    run.launch("structured", {1, 1, 1}, {64, 1, 1}, args);
    auto got = run.download<int>(out, 192);
    std::vector<int> olds(got.begin() + 64, got.begin() + 128);
    std::sort(olds.begin(), olds.end());
    for (int t = 0; t < 64; ++t) {
      CAPTURE(t);
      CHECK(got[t] == (t < records ? data[t * 4 + 1] : 0));
      CHECK(olds[t] == t);
    }
    // Out-of-range atomic: no access, returns 0 (-O3 turns the uniform add into one atomic
    // by lane 0 plus per-lane prefix sums, so only lane 0 sees the raw return value).
    CHECK(got[128] == 0);
    CHECK(run.download<int>(counter, 2) == std::vector<int>{64, 77});
  }
}

TEST_CASE("emu core: device globals (.rodata / .data / .bss) of the code object image") {
  const int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  const int scaled[4] = {10, 20, 30, 40};
  std::vector<int> idx(32);
  for (int t = 0; t < 32; ++t)
    idx[t] = t * 5 + 1;
  std::vector<int> expect(68);
  for (int t = 0; t < 32; ++t) {
    expect[t] = table[idx[t] & 7] + scaled[t & 3];
    expect[36 + t] = scaled[(t & 1) ? 3 : 1];
  }
  for (int k = 0; k < 4; ++k)
    expect[32 + k] = 8;
  for (const auto& v : test::kernel_variants("core_globals")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path); // a fresh image per load: counters start at 0
    auto didx = run.upload(idx);
    auto out = run.alloc<int>(68);
    KernelArgs args;
    args.ptr(didx).ptr(out);
    run.launch("globals", {1, 1, 1}, {32, 1, 1}, args);
    CHECK(run.download<int>(out, 68) == expect);
  }
}
