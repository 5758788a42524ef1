// The VALU engine's all-lanes path (VopSpec::batch) against the lane-by-lane path
// (VopSpec::fn) it replaces: every table-driven mnemonic, random sources salted with special
// values (NaN, Inf, denormals, signed zeros, integer extremes), full and partial EXEC masks,
// random carry-in / select bits and the clamp bit; every result bit and carry-out bit compared.
// Specs whose sources and result are all 32-bit also run their 32-bit path (VopSpec::batch32)
// on the same sources, compared the same way.
#include <runtime/emu/valu/vop.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>

using namespace tw::emu;
using namespace tw::emu::valu;

namespace {

uint64_t salted(std::mt19937_64& rng) {
  static constexpr uint64_t kSpecial[] = {
      0x0000000000000000ull, 0x0000000080000000ull, 0x000000007f800000ull, 0x00000000ff800000ull,
      0x000000007fc00000ull, 0x000000007f800001ull, 0x0000000000000001ull, 0x00000000807fffffull,
      0x000000007f7fffffull, 0x000000003f800000ull, 0x00000000ffffffffull, 0x000000007fffffffull,
      0x0000000000007c00ull, 0x000000000000fc00ull, 0x0000000000007e00ull, 0x0000000000000001ull,
      0x7ff0000000000000ull, 0xfff8000000000000ull, 0x8000000000000000ull, 0x000fffffffffffffull,
      0x3ff0000000000000ull, 0xffffffffffffffffull};
  const uint64_t r = rng();
  if (r % 4 == 0)
    return kSpecial[(r >> 8) % std::size(kSpecial)];
  return rng();
}

// The source value of a lane as the engine hands it to a lane function of type t.
uint64_t typed(uint64_t v, VT t) {
  if (is_16(t))
    return v & 0xffff;
  if (is_64(t))
    return v;
  return v & 0xffffffffull;
}

} // namespace

TEST_CASE("valu: the all-lanes path of every table-driven instruction equals its lane function") {
  std::mt19937_64 rng(15);
  WaveState wave;
  int specs = 0, narrow = 0; // narrow: specs with the 32-bit path
  for (const std::string& name : HandlerTable::instance().mnemonics()) {
    const VopSpec* spec = find_spec(name);
    if (!spec)
      continue;
    CAPTURE(name);
    REQUIRE(bool(spec->batch)); // every table entry is built by vop()
    ++specs;
    for (int round = 0; round < 24; ++round) {
      LaneBatch b;
      std::array<uint64_t, kWaveSize> batch_value{}, lane_value{};
      for (int i = 0; i < 4; ++i)
        for (int lane = 0; lane < kWaveSize; ++lane)
          b.s[i][lane] = i < spec->nsrc ? typed(salted(rng), spec->src[i]) : 0;
      b.exec = round % 3 == 0 ? ~0u : static_cast<uint32_t>(rng());
      b.mask_in = static_cast<uint32_t>(rng());
      b.clamp = round % 2 == 1;
      b.wave = &wave;
      b.value = batch_value.data();
      spec->batch(b);
      uint32_t mask_out = 0;
      for (int lane = 0; lane < kWaveSize; ++lane) {
        if (!((b.exec >> lane) & 1u))
          continue;
        Lane l;
        l.s = {b.s[0][lane], b.s[1][lane], b.s[2][lane], b.s[3][lane]};
        l.lane = lane;
        l.mask_in = (b.mask_in >> lane) & 1u;
        l.clamp = b.clamp;
        l.wave = &wave;
        lane_value[lane] = spec->fn(l);
        mask_out |= uint32_t(l.mask_out) << lane;
      }
      CHECK(batch_value == lane_value); // inactive lanes: untouched (0) in both
      CHECK(b.mask_out == mask_out);
      // The 32-bit path (all sources and the result 32-bit) reads the same sources as 32-bit
      // rows and gives the low 32 bits of the same results.
      CHECK(bool(spec->batch32) == narrow_types(spec->dst, spec->src, spec->nsrc));
      if (!spec->batch32)
        continue;
      narrow += round == 0 ? 1 : 0;
      std::array<std::array<uint32_t, kWaveSize>, 4> rows{};
      LaneBatch32 n;
      for (int i = 0; i < 4; ++i) {
        for (int lane = 0; lane < kWaveSize; ++lane)
          rows[size_t(i)][size_t(lane)] = static_cast<uint32_t>(b.s[size_t(i)][size_t(lane)]);
        n.s[size_t(i)] = rows[size_t(i)].data();
      }
      std::array<uint32_t, kWaveSize> narrow_value{}, lane_value32{};
      for (int lane = 0; lane < kWaveSize; ++lane)
        lane_value32[size_t(lane)] = static_cast<uint32_t>(lane_value[size_t(lane)]);
      n.exec = b.exec;
      n.mask_in = b.mask_in;
      n.clamp = b.clamp;
      n.wave = &wave;
      n.value = narrow_value.data();
      spec->batch32(n);
      CHECK(narrow_value == lane_value32);
      CHECK(n.mask_out == mask_out);
    }
  }
  CHECK(specs > 300);
  MESSAGE("specs: ", specs, ", with the 32-bit path: ", narrow);
  CHECK(narrow > 150);
}
