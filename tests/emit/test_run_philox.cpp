// Philox4x32-10 (dsl/ops/philox.hpp) and mul_hi on the gfx12 emulator through both backends,
// against the published known-answer vectors of Random123, and the dropout helpers.
#include "dsl_emu_run.hpp"

#include <dsl/dsl.hpp>
#include <dsl/ops/philox.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

using namespace tw;
using namespace tw::dsl;

namespace {

struct Kat {
  std::array<std::uint32_t, 4> counter;
  std::array<std::uint32_t, 2> key;
  std::array<std::uint32_t, 4> expected;
};

// Random123 (github.com/DEShawResearch/random123), tests/kat_vectors, the three
// "philox4x32 10" lines: counter (4 words), key (2 words), expected output (4 words).
constexpr Kat kKats[] = {
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
     {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

// out[4 t + w] = philox4x32_10(ctr[4 t .. 4 t + 3], key[2 t], key[2 t + 1])[w] for 32 threads.
ir::Kernel philox_kernel() {
  KernelBuilder kb("philox_kat", {32, 1, 1});
  auto [ctr, key, out] = kb.args(gptr<u32>("ctr"), gptr<u32>("key"), gptr<u32>("out"));
  const Int64 t = cast<i64>(thread_id());
  const PhiloxCounter c = {ctr.load(4 * t), ctr.load(4 * t + 1), ctr.load(4 * t + 2),
                           ctr.load(4 * t + 3)};
  const PhiloxKey k = {key.load(2 * t), key.load(2 * t + 1)};
  const std::array<UInt32, 4> r = philox4x32_10(c, k);
  for (int w = 0; w < 4; ++w)
    out.store(4 * t + w, r[w]);
  return kb.finish();
}

} // namespace

TEST_CASE("philox4x32_10 matches Random123's known answers on the emulator, both backends") {
  // 32 lanes: the three vectors, repeated (each lane computes its own).
  std::vector<std::uint32_t> ctr, key, want;
  for (int t = 0; t < 32; ++t) {
    const Kat& kat = kKats[t % 3];
    ctr.insert(ctr.end(), kat.counter.begin(), kat.counter.end());
    key.insert(key.end(), kat.key.begin(), kat.key.end());
    want.insert(want.end(), kat.expected.begin(), kat.expected.end());
  }
  const ir::Kernel k = philox_kernel();
  for (emit::Backend b : test::kBothBackends) {
    CAPTURE(emit::backend_name(b));
    test::DslEmuRun run(k, b);
    CHECK(run.uses("v_mul_hi_u32"));
    const runtime::DevicePtr dc = run.upload(ctr), dk = run.upload(key),
                             dout = run.alloc<std::uint32_t>(want.size());
    run.launch({1, 1, 1}, {32, 1, 1}, runtime::KernelArgs().ptr(dc).ptr(dk).ptr(dout));
    const std::vector<std::uint32_t> got = run.download<std::uint32_t>(dout, want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      CAPTURE(i);
      CHECK(got[i] == want[i]);
    }
  }
}

TEST_CASE("philox4x32_10 on constants folds on the host to the same known answers") {
  KernelBuilder kb("philox_fold", {32, 1, 1}); // handles need a current builder
  for (const Kat& kat : kKats) {
    const PhiloxCounter c = {UInt32(kat.counter[0]), UInt32(kat.counter[1]), UInt32(kat.counter[2]),
                             UInt32(kat.counter[3])};
    const std::array<UInt32, 4> r = philox4x32_10(c, {UInt32(kat.key[0]), UInt32(kat.key[1])});
    for (int w = 0; w < 4; ++w) {
      REQUIRE(r[w].is_constant());
      CHECK(static_cast<std::uint32_t>(r[w].constant_value()) == kat.expected[w]);
    }
  }
}

TEST_CASE("mul_hi gives the high word of the 64-bit product, both backends") {
  // out[t] = mul_hi(a[t], b[t]); host reference: the 64-bit product's high word.
  KernelBuilder kb("mul_hi_test", {32, 1, 1});
  auto [a, bb, out] = kb.args(gptr<u32>("a"), gptr<u32>("b"), gptr<u32>("out"));
  const Int32 t = thread_id();
  out.store(t, mul_hi(a.load(t), bb.load(t)));
  const ir::Kernel k = kb.finish();
  std::vector<std::uint32_t> av, bv;
  std::uint32_t s = 12345;
  for (int i = 0; i < 32; ++i) {
    s = s * 1664525u + 1013904223u;
    av.push_back(i < 4 ? std::array<std::uint32_t, 4>{0u, 1u, 0xffffffffu, 0x80000000u}[i] : s);
    s = s * 1664525u + 1013904223u;
    bv.push_back(i < 4 ? 0xffffffffu : s);
  }
  for (emit::Backend b : test::kBothBackends) {
    CAPTURE(emit::backend_name(b));
    test::DslEmuRun run(k, b);
    CHECK(run.uses("v_mul_hi_u32"));
    const runtime::DevicePtr da = run.upload(av), db = run.upload(bv),
                             dout = run.alloc<std::uint32_t>(32);
    run.launch({1, 1, 1}, {32, 1, 1}, runtime::KernelArgs().ptr(da).ptr(db).ptr(dout));
    const std::vector<std::uint32_t> got = run.download<std::uint32_t>(dout, 32);
    for (int i = 0; i < 32; ++i) {
      CAPTURE(i);
      CHECK(got[i] == static_cast<std::uint32_t>((std::uint64_t{av[i]} * bv[i]) >> 32));
    }
  }
}

TEST_CASE("dropout helpers: threshold = floor(p * 2^32), keep iff r >= threshold") {
  CHECK(dropout_threshold(0.0) == 0u);
  CHECK(dropout_threshold(0.5) == 0x80000000u);
  CHECK(dropout_threshold(0.1) == 429496729u); // floor(0.1 * 4294967296) = 429496729.6 -> down
  CHECK(dropout_threshold(0.999999999999) == 4294967295u);
  CHECK_THROWS_WITH_AS(dropout_threshold(1.0), doctest::Contains("must be in [0, 1)"),
                       std::invalid_argument);
  CHECK_THROWS_AS(dropout_threshold(-0.1), std::invalid_argument);
  KernelBuilder kb("dropout_fold", {32, 1, 1});
  CHECK(dropout_keep(UInt32(0x80000000u), UInt32(0x80000000u)).constant_value() == 1);
  CHECK(dropout_keep(UInt32(0x7fffffffu), UInt32(0x80000000u)).constant_value() == 0);
  CHECK(dropout_keep(UInt32(0u), UInt32(0u)).constant_value() == 1); // p = 0 keeps all
  CHECK(uniform01(UInt32(0xffffffffu)).constant_value() == 1.0 - 0x1p-24);
  CHECK(uniform01(UInt32(0x000000ffu)).constant_value() == 0.0);
  CHECK(uniform01(UInt32(0x80000000u)).constant_value() == 0.5);
}

TEST_CASE("philox_counter / philox_key split 64-bit words low word first") {
  KernelBuilder kb("philox_words", {32, 1, 1});
  const PhiloxCounter c =
      philox_counter(UInt64(0x1122334455667788ull), UInt64(0x99aabbccddeeff00ull));
  CHECK(c[0].constant_value() == 0x55667788);
  CHECK(c[1].constant_value() == 0x11223344);
  CHECK(c[2].constant_value() == 0xddeeff00);
  CHECK(c[3].constant_value() == 0x99aabbcc);
  const PhiloxKey k = philox_key(UInt64(0x0123456789abcdefull));
  CHECK(k[0].constant_value() == 0x89abcdef);
  CHECK(k[1].constant_value() == 0x01234567);
}
