// global_load_tr_b128 / global_load_tr_b64 (RDNA4 ISA 11.6) on clang-built code objects
// (kernels/vmem_load_tr.hip), every variant. The expected values come from the documented lane
// layout, written here independently of the emulator:
//  - WMMA operand form (ISA 11.6.2: one lane reads contiguous N (or M) values of one K): with
//    the per-lane addresses of docs/copy_atoms.md, lane L element j holds tile[8 * (L / 16) + j]
//    [L % 16], i.e. column L % 16 and k = 8 * (L / 16) + j: the 16-bit (8-bit) WMMA operand.
//  - raw permutation with lane L addressing src + L * width, as measured on gfx1201 hardware by
//    third parties (sources in docs/copy_atoms.md), checked against literal rows of the probes.
// Memcheck covers every byte a lane reads, and a partial EXEC is rejected (ISA: undefined).
#include "runtime/emu/emu_test_util.hpp"

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

using namespace tw;
using runtime::KernelArgs;

namespace {

struct TrRun {
  std::vector<std::uint32_t> out; // 4 dwords per lane
  std::string error;
};

TrRun run_tr(test::EmuRun& run, const std::string& kernel, const std::vector<std::uint8_t>& src,
             const std::vector<std::uint32_t>& offs, std::size_t src_alloc) {
  std::vector<std::uint8_t> padded = src;
  padded.resize(src_alloc);
  const runtime::DevicePtr ds = run.upload(padded), doffs = run.upload(offs),
                           dout = run.alloc<std::uint32_t>(128);
  run.dev.copy_to_device(dout, std::vector<std::uint32_t>(128, 0xdeadbeef).data(), 512);
  TrRun r;
  try {
    run.launch(kernel, {1, 1, 1}, {32, 1, 1}, KernelArgs().ptr(ds).ptr(doffs).ptr(dout));
    r.out = run.download<std::uint32_t>(dout, 128);
  } catch (const runtime::DeviceError& e) {
    r.error = e.what();
  }
  return r;
}

std::uint16_t elem16(const std::vector<std::uint32_t>& out, int lane, int j) {
  return static_cast<std::uint16_t>(out[lane * 4 + j / 2] >> (16 * (j % 2)));
}
std::uint8_t elem8(const std::vector<std::uint32_t>& out, int lane, int j) {
  return static_cast<std::uint8_t>(out[lane * 4 + j / 4] >> (8 * (j % 4)));
}

} // namespace

TEST_CASE("global_load_tr_b128: a row-major 16x16 f16 tile lands as the WMMA B operand") {
  // tile[k][n] = 0x100 * k + n, rows 40 elements apart (80 bytes: not a power of two).
  constexpr int ld = 40;
  std::vector<std::uint8_t> src(16 * ld * 2);
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < ld; ++n) {
      const std::uint16_t v = static_cast<std::uint16_t>(0x100 * k + n);
      src[2 * (k * ld + n)] = static_cast<std::uint8_t>(v);
      src[2 * (k * ld + n) + 1] = static_cast<std::uint8_t>(v >> 8);
    }
  // docs/copy_atoms.md: lane S reads row 8 * (S / 16) + S % 8, columns 8 * (S / 8 % 2) + 0..7.
  std::vector<std::uint32_t> offs(32);
  for (int s = 0; s < 32; ++s)
    offs[s] = 2 * ((8 * (s / 16) + s % 8) * ld + 8 * (s / 8 % 2));
  for (const test::KernelVariant& v : test::kernel_variants("vmem_load_tr")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    const TrRun r = run_tr(run, "load_tr_b128", src, offs, src.size());
    REQUIRE(r.error == "");
    for (int lane = 0; lane < 32; ++lane)
      for (int j = 0; j < 8; ++j) {
        CAPTURE(lane);
        CAPTURE(j);
        CHECK(elem16(r.out, lane, j) == 0x100 * (8 * (lane / 16) + j) + lane % 16);
      }
  }
}

TEST_CASE("global_load_tr_b128: lane L at src + 16 L is an 8x8 transpose per 8 lanes") {
  // src holds the 16-bit values 0..255; lane L reads elements 8L .. 8L + 7.
  std::vector<std::uint8_t> src(512);
  for (int i = 0; i < 256; ++i) {
    src[2 * i] = static_cast<std::uint8_t>(i);
    src[2 * i + 1] = static_cast<std::uint8_t>(i >> 8);
  }
  std::vector<std::uint32_t> offs(32);
  for (int s = 0; s < 32; ++s)
    offs[s] = 16 * s;
  // Rows printed by the hardware probe (received element indices of lanes 0, 1, 7, 8).
  const int probe[4][9] = {{0, 0, 8, 16, 24, 32, 40, 48, 56},
                           {1, 1, 9, 17, 25, 33, 41, 49, 57},
                           {7, 7, 15, 23, 31, 39, 47, 55, 63},
                           {8, 64, 72, 80, 88, 96, 104, 112, 120}};
  for (const test::KernelVariant& v : test::kernel_variants("vmem_load_tr")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    const TrRun r = run_tr(run, "load_tr_b128", src, offs, src.size());
    REQUIRE(r.error == "");
    for (const auto& row : probe)
      for (int j = 0; j < 8; ++j)
        CHECK(elem16(r.out, row[0], j) == row[1 + j]);
    for (int lane = 0; lane < 32; ++lane)
      for (int j = 0; j < 8; ++j) // received(L, j) = R(8 (L / 8) + j)[L % 8]
        CHECK(elem16(r.out, lane, j) == 8 * (8 * (lane / 8) + j) + lane % 8);
  }
}

TEST_CASE("global_load_tr_b64: a row-major 16x16 byte tile lands as the 8-bit WMMA B operand") {
  constexpr int ld = 24; // bytes per row
  std::vector<std::uint8_t> src(16 * ld);
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < ld; ++n)
      src[k * ld + n] = static_cast<std::uint8_t>(16 * k + n % 16);
  // docs/copy_atoms.md: lane S reads row 8 * (S / 16) + 4 * (S / 8 % 2) + S % 4,
  // columns 8 * (S / 4 % 2) + 0..7.
  std::vector<std::uint32_t> offs(32);
  for (int s = 0; s < 32; ++s)
    offs[s] = (8 * (s / 16) + 4 * (s / 8 % 2) + s % 4) * ld + 8 * (s / 4 % 2);
  for (const test::KernelVariant& v : test::kernel_variants("vmem_load_tr")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    const TrRun r = run_tr(run, "load_tr_b64", src, offs, src.size());
    REQUIRE(r.error == "");
    for (int lane = 0; lane < 32; ++lane)
      for (int j = 0; j < 8; ++j) {
        CAPTURE(lane);
        CAPTURE(j);
        CHECK(elem8(r.out, lane, j) == 16 * (8 * (lane / 16) + j) + lane % 16);
      }
  }
}

TEST_CASE("global_load_tr_b64: lane L at src + 8 L follows the measured byte permutation") {
  // The published hardware contract: with lane L at src + 8 L, byte s of lane L is
  // src[(L & 7) + 32 ((L >> 3) & 1) + 128 ((L >> 4) & 1) + 8 (s & 3) + 64 ((s >> 2) & 1)].
  std::vector<std::uint8_t> src(256);
  std::iota(src.begin(), src.end(), std::uint8_t{0});
  std::vector<std::uint32_t> offs(32);
  for (int s = 0; s < 32; ++s)
    offs[s] = 8 * s;
  for (const test::KernelVariant& v : test::kernel_variants("vmem_load_tr")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    const TrRun r = run_tr(run, "load_tr_b64", src, offs, src.size());
    REQUIRE(r.error == "");
    for (int lane = 0; lane < 32; ++lane)
      for (int s = 0; s < 8; ++s)
        CHECK(elem8(r.out, lane, s) == (lane & 7) + 32 * ((lane >> 3) & 1) +
                                           128 * ((lane >> 4) & 1) + 8 * (s & 3) +
                                           64 * ((s >> 2) & 1));
  }
}

TEST_CASE("global_load_tr: memcheck covers every byte of every lane's read") {
  // 520 bytes: the emulator rounds allocations up to 256 bytes, so bytes 520.. belong to no
  // allocation (no neighbouring buffer can hide the overrun).
  std::vector<std::uint8_t> src(520, 1);
  std::vector<std::uint32_t> offs(32);
  for (int s = 0; s < 32; ++s)
    offs[s] = 16 * s;
  for (const test::KernelVariant& v : test::kernel_variants("vmem_load_tr")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    offs[13] = 512; // lane 13 reads bytes 512 .. 527: the last two dwords are past the end
    const TrRun r = run_tr(run, "load_tr_b128", src, offs, src.size());
    CAPTURE(r.error);
    CHECK(r.error.find("memcheck: global read of 4 bytes") != std::string::npos);
    CHECK(r.error.find("lane 13") != std::string::npos);
    CHECK(r.error.find("global_load_tr_b128") != std::string::npos);
    offs[13] = 504; // exactly the last 16 bytes: silent
    CHECK(run_tr(run, "load_tr_b128", src, offs, src.size()).error == "");
    offs[13] = 516; // b64: bytes 516 .. 523, the second dword past the end
    const TrRun r64 = run_tr(run, "load_tr_b64", src, offs, src.size());
    CAPTURE(r64.error);
    CHECK(r64.error.find("memcheck: global read of 4 bytes") != std::string::npos);
    CHECK(r64.error.find("lane 13") != std::string::npos);
    CHECK(r64.error.find("global_load_tr_b64") != std::string::npos);
    offs[13] = 512; // b64: exactly the last 8 bytes
    CHECK(run_tr(run, "load_tr_b64", src, offs, src.size()).error == "");
    offs[13] = 16 * 13;
  }
}

TEST_CASE("global_load_tr with some lanes off stops with the ISA's EXEC rule") {
  std::vector<std::uint8_t> src(256, 3);
  std::vector<std::uint32_t> offs(32);
  for (int s = 0; s < 32; ++s)
    offs[s] = 8 * s;
  for (const test::KernelVariant& v : test::kernel_variants("vmem_load_tr")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    const runtime::DevicePtr ds = run.upload(src), doffs = run.upload(offs),
                             dout = run.alloc<std::uint32_t>(128);
    std::string err;
    try {
      run.launch("load_tr_b64_partial", {1, 1, 1}, {32, 1, 1},
                 KernelArgs().ptr(ds).ptr(doffs).ptr(dout).add<std::uint32_t>(20));
    } catch (const runtime::DeviceError& e) {
      err = e.what();
    }
    CAPTURE(err);
    CHECK(err.find("EXEC = 0x000fffff") != std::string::npos);
    CHECK(err.find("requires all 32 lanes") != std::string::npos);
    // All lanes on: runs.
    CHECK_NOTHROW(run.launch("load_tr_b64_partial", {1, 1, 1}, {32, 1, 1},
                             KernelArgs().ptr(ds).ptr(doffs).ptr(dout).add<std::uint32_t>(32)));
  }
}
