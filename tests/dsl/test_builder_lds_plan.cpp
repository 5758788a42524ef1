// LDS planner: placement, alignment, padding, swizzle, multi-buffering, chunking, budget.
// Every expected number below is derived by hand in the comment next to it.
#include <doctest/doctest.h>

#include <dsl/lds/lds_plan.hpp>

using namespace tw::dsl;

TEST_CASE("lds plan places a padded and a swizzled double buffer") {
  constexpr auto plan = lds_plan(lds_buffer<f16>("sA", 128, 32, stages(2), pad(8)),
                                 lds_buffer<f16>("sB", 128, 32, stages(2), swizzle(3, 3, 3)));
  // sA: row pitch (32 + 8) * 2 B = 80 B; one stage 80 * 128 = 10240 B; two stages 20480 B.
  static_assert(plan["sA"].row_pitch_bytes == 80);
  static_assert(plan["sA"].stage_bytes == 10240);
  static_assert(plan["sA"].offset == 0);
  // sB: pitch 64 B, stage 8192 B (a multiple of the 2^9-element = 1024 B swizzle block).
  static_assert(plan["sB"].stage_bytes == 8192);
  static_assert(plan["sB"].offset == 20480);
  static_assert(plan.bytes() == 20480 + 16384);
  static_assert(plan.fits() && plan.num_chunks == 1);
  // Element (row 1, col 3) of sA stage 1: 10240 + (1 * 40 + 3) * 2 = 10326.
  CHECK(plan["sA"].element_address(1, 1, 3) == 10326);
  // sB (row 2, col 0) = element 64 = 0b1'000'000: bits [6,9) = 1 XOR into bits [3,6) -> 72.
  CHECK(plan["sB"].element_address(0, 2, 0) == 20480 + 72 * 2);
  CHECK(plan["sB"].element_address(1, 2, 0) == 20480 + 8192 + 72 * 2);
  // Row 0 is unchanged by the swizzle (its high bits are 0).
  CHECK(plan["sB"].element_address(0, 0, 5) == 20480 + 10);
}

TEST_CASE("lds plan aligns each buffer and each stage") {
  constexpr auto plan = lds_plan(lds_buffer<u8>("flags", 1, 5, align(4)),
                                 lds_buffer<f32>("scalar", 1, 1, align(256), stages(2)));
  // flags: 5 B rounded to 8; scalar: starts at 256, each stage 4 B rounded to 256.
  static_assert(plan["flags"].stage_bytes == 8);
  static_assert(plan["scalar"].offset == 256);
  static_assert(plan["scalar"].stage_offset(1) == 512);
  static_assert(plan.bytes() == 768);
}

TEST_CASE("lds plan splits chunked K and V buffers into the same number of chunks") {
  // q: 32 x 256 f16 = 16384 B. k: 256 x 64 f16 = 32768 B per stage, 2 stages. v: 32768 B.
  // Whole: 16384 + 65536 + 32768 = 114688 > 65536. Two chunks of 128 rows (a multiple of 16):
  // k 2 * 16384, v 16384 -> 16384 + 32768 + 16384 = 65536, exactly the budget.
  constexpr auto plan =
      lds_plan(lds_buffer<f16>("q", 32, 256), lds_buffer<f16>("k", 256, 64, stages(2), chunked(16)),
               lds_buffer<f16>("v", 256, 64, chunked(16)));
  static_assert(plan.fits());
  static_assert(plan.num_chunks == 2);
  static_assert(plan["k"].chunk_rows == 128 && plan["k"].num_chunks == 2);
  static_assert(plan["v"].chunk_rows == 128 && plan["v"].num_chunks == 2);
  static_assert(plan["q"].num_chunks == 1 && !plan["q"].is_chunked());
  static_assert(plan.bytes() == 65536);
  static_assert(plan["v"].offset == 16384 + 32768);
}

TEST_CASE("lds plan chunk rows round up to the granule, the last chunk is partial") {
  // fixed: 8000 f32 = 32000 B. rows: 100 x 256 f32 = 1024 B per row, chunked(32).
  // 2 chunks: ceil(100/2) = 50 -> 64 rows = 65536 B (+32000: too big); 3 chunks: 34 -> 64,
  // too big; 4 chunks: 25 -> 32 rows = 32768 B, total 64768 B fits. ceil(100/32) = 4 chunks.
  constexpr auto plan =
      lds_plan(lds_buffer<f32>("fixed", 1, 8000), lds_buffer<f32>("rows", 100, 256, chunked(32)));
  static_assert(plan.fits());
  static_assert(plan["rows"].chunk_rows == 32);
  static_assert(plan["rows"].num_chunks == 4);
  static_assert(plan.bytes() == 32000 + 32768);
}

TEST_CASE("lds plan over budget even with the smallest chunks reports it") {
  // fixed 40000 B + 32-row chunk of 1024 B rows = 72768 B > 65536 B.
  constexpr auto plan =
      lds_plan(lds_buffer<f32>("fixed", 1, 10000), lds_buffer<f32>("rows", 100, 256, chunked(32)));
  static_assert(!plan.fits());
  static_assert(plan["rows"].chunk_rows == 32);
  static_assert(plan.bytes() == 72768);
  CHECK_THROWS_WITH_AS(plan.require_fits(),
                       doctest::Contains("LDS plan needs 72768 bytes but a gfx12 workgroup has "
                                         "65536"),
                       std::length_error);
}

TEST_CASE("lds plan built at run time checks names, specs and the budget") {
  const int rows = 300; // a run-time shape: 300 x 128 f16 = 76800 B
  const auto plan = lds_plan(lds_buffer<f16>("big", rows, 128));
  CHECK(plan.bytes() == 76800);
  CHECK_FALSE(plan.fits());
  CHECK_THROWS_AS(plan.require_fits(), std::length_error);
  CHECK_THROWS_WITH(plan["nope"], doctest::Contains("no buffer named 'nope'"));
  CHECK_THROWS_WITH(lds_buffer<f16>("bad", 0, 4), doctest::Contains("rows > 0"));
  CHECK_THROWS_WITH(lds_buffer<f16>("bad", 4, 4, stages(0)), doctest::Contains("stages >= 1"));
  CHECK_THROWS_WITH(lds_buffer<f16>("bad", 4, 4, align(12)), doctest::Contains("power of two"));
  CHECK_THROWS_WITH(lds_plan(lds_buffer<f16>("x", 1, 1), lds_buffer<f16>("x", 1, 1)),
                    doctest::Contains("share a name"));
}

TEST_CASE("checked_lds_plan passes a plan that fits through unchanged") {
  constexpr auto plan = lds_plan(lds_buffer<f16>("s", 64, 64, stages(2)));
  constexpr const auto& checked = checked_lds_plan<plan>;
  static_assert(checked.bytes() == 2 * 64 * 64 * 2);
}
