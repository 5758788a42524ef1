// The DSL pieces attention is made of, traced with the DSL, compiled by BOTH emitters and run on
// the gfx12 emulator against host references written here:
//  - accumulator_as_operand (B of the next product, and A of the transposed one),
//  - map over an accumulator with (row, col) coordinates,
//  - reduce_cols / broadcast_cols (the column orientation of the C layout) and reduce_rows /
//    broadcast_rows,
//  - pipeline<N> carrying several states, with 1, 2 and 3 LDS stages,
//  - scale_cols_unless_one (O's rescale, skipped by a wave whose factors are all 1).
#include <dsl/dsl.hpp>
#include <dsl/mma/scale_cols.hpp>
#include <emit/compile.hpp>
#include <runtime/emu_device.hpp>

#include <atoms/formats/f16.hpp>
#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include "f16_test_values.hpp"
#include "shared_emulator.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

using namespace tw;
using namespace tw::dsl;

using namespace tw::test;

namespace {

double f16_round(double x) {
  return num::f16_to_f32(num::f32_to_f16(static_cast<float>(x)));
}

// One wave, 32 keys x 16 queries x 16 dims:
//   S^T = K Q^T (keys x queries),  T = map(S^T, v + (r == c ? 1 : 0) - 0.01 r),
//   cm = max over each column (query) of T,  P^T = T - cm (broadcast_cols),
//   O^T = V^T P^T (P^T as B from registers),  O = P V (P as A from registers, transposed),
//   rm = max over each row (key) of T (reduce_rows), R = T - rm (broadcast_rows).
constexpr int n_keys = 32, n_q = 16, n_d = 16;
constexpr auto s_mma =
    make_tiled_mma(atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>, repeat<2, 1>);
constexpr auto ot_mma = make_tiled_mma(atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>);
constexpr auto o_mma = make_tiled_mma(atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>);

ir::Kernel build_two_products() {
  KernelBuilder kb("attn_pieces_two_products", {32, 1, 1});
  // `pad`: the clang build of this kernel reads its last pointers with one s_load_b256 that
  // runs 8 bytes past a 56-byte kernarg segment; the emulator's memcheck (rightly strict)
  // stops on that, so the segment gets one more (unused) argument.
  auto [K, Q, Vt, OT, O, CM, R, pad] =
      kb.args(gtensor<f16>(row_major, "k", 16), gtensor<f16>(row_major, "q", 16),
              gtensor<f16>(row_major, "vt", 16), gtensor<f32>(row_major, "ot"),
              gtensor<f32>(row_major, "o"), gptr<f32>("cm"), gtensor<f32>(row_major, "r"),
              scalar<i64>("pad"));
  (void)pad;
  const auto gK = local_tile<n_keys, n_d>(K.shape(n_keys, n_d), 0, 0);
  const auto gQ = local_tile<n_q, n_d>(Q.shape(n_q, n_d), 0, 0);
  const auto gVt = local_tile<n_d, n_keys>(Vt.shape(n_d, n_keys), 0, 0); // dv x keys
  auto st = s_mma.make_accumulator(0.0f);
  gemm(s_mma, s_mma.load_a(gK, 0), s_mma.load_b(gQ, 0), st);
  const auto t = map(s_mma, st, [](const Float32& v, const Int32& r, const Int32& c) {
    return v + select(r == c, Float32(1.0f), Float32(0.0f)) - Float32(0.01f) * cast<f32>(r);
  });
  const auto cm = reduce_cols(t, Reduce::max);
  const auto p = broadcast_cols(t, cm, [](const Float32& v, const Float32& m) { return v - m; });
  auto ot = ot_mma.make_accumulator(0.0f);
  auto o = o_mma.make_accumulator(0.0f);
  for (int ks = 0; ks < n_keys / 16; ++ks) {
    // O^T += V^T[:, ks] P^T[ks, :]
    gemm(ot_mma, ot_mma.load_a(gVt, ks),
         accumulator_as_operand<MmaOperand::B>(s_mma, p, ot_mma, ks), ot);
    // O += P[:, ks] V[ks, :]  (V n-major = V^T rows)
    gemm(o_mma, accumulator_as_operand<MmaOperand::A>(s_mma, p, o_mma, ks),
         o_mma.load_b(local_tile<n_d, 16>(Vt.shape(n_d, n_keys), 0, ks), 0), o);
  }
  ot_mma.store(ot, local_tile<16, 16>(OT.shape(16, 16), 0, 0));
  o_mma.store(o, local_tile<16, 16>(O.shape(16, 16), 0, 0));
  if_(lane_id() < 16, [&] { CM.store(lane_id(), cm(0, 0)); });
  const auto rm = reduce_rows(t, Reduce::max);
  const auto rr = broadcast_rows(t, rm, [](const Float32& v, const Float32& m) { return v - m; });
  s_mma.store(rr, local_tile<n_keys, n_q>(R.shape(n_keys, n_q), 0, 0));
  return kb.finish();
}

} // namespace

TEST_CASE("attention pieces: accumulator -> A / B operand, coordinate map, column and row "
          "reductions with broadcasts") {
  std::vector<double> k, q, vt;
  const auto k16 = f16_values(n_keys * n_d, 3, k), q16 = f16_values(n_q * n_d, 5, q),
             vt16 = f16_values(n_d * n_keys, 7, vt);
  // Host reference in double (P rounded to f16 as the operand conversion does).
  std::vector<double> tt(n_keys * n_q), cm(n_q, -1e300), rm(n_keys, -1e300);
  for (int r = 0; r < n_keys; ++r)
    for (int c = 0; c < n_q; ++c) {
      double s = 0;
      for (int x = 0; x < n_d; ++x)
        s += k[size_t(r * n_d + x)] * q[size_t(c * n_d + x)];
      tt[size_t(r * n_q + c)] = s + (r == c ? 1.0 : 0.0) - 0.01 * r;
      cm[size_t(c)] = std::max(cm[size_t(c)], tt[size_t(r * n_q + c)]);
      rm[size_t(r)] = std::max(rm[size_t(r)], tt[size_t(r * n_q + c)]);
    }
  std::vector<double> ot(16 * 16, 0.0), o(16 * 16, 0.0);
  for (int dv = 0; dv < 16; ++dv)
    for (int c = 0; c < n_q; ++c)
      for (int r = 0; r < n_keys; ++r) {
        const double p = f16_round(tt[size_t(r * n_q + c)] - cm[size_t(c)]);
        ot[size_t(dv * 16 + c)] += vt[size_t(dv * n_keys + r)] * p;
        o[size_t(c * 16 + dv)] += p * vt[size_t(dv * n_keys + r)];
      }
  const ir::Kernel kernel = build_two_products();
  for_both_backends(kernel, [&](const emit::CodeObject& co) {
    const auto dk = upload(k16), dq = upload(q16), dvt = upload(vt16);
    const auto dot = upload(std::vector<float>(256)), dO = upload(std::vector<float>(256));
    const auto dcm = upload(std::vector<float>(n_q)), dr = upload(std::vector<float>(n_keys * n_q));
    run(co, 1, 32,
        runtime::KernelArgs()
            .ptr(dk)
            .ptr(dq)
            .ptr(dvt)
            .ptr(dot)
            .ptr(dO)
            .ptr(dcm)
            .ptr(dr)
            .add<std::int64_t>(0));
    const auto got_ot = download<float>(dot, 256), got_o = download<float>(dO, 256);
    const auto got_cm = download<float>(dcm, n_q);
    const auto got_r = download<float>(dr, n_keys * n_q);
    for (int c = 0; c < n_q; ++c) {
      CAPTURE(c);
      CHECK(std::fabs(got_cm[size_t(c)] - cm[size_t(c)]) <= 1e-5);
    }
    for (int n = 0; n < 256; ++n) {
      CAPTURE(n);
      CHECK(std::fabs(got_ot[size_t(n)] - ot[size_t(n)]) <= 1e-4);
      CHECK(std::fabs(got_o[size_t(n)] - o[size_t(n)]) <= 1e-4);
    }
    for (int n = 0; n < n_keys * n_q; ++n) {
      CAPTURE(n);
      CHECK(std::fabs(got_r[size_t(n)] - (tt[size_t(n)] - rm[size_t(n / n_q)])) <= 1e-5);
    }
  });
}

namespace {
// One wave: tiles of 32 floats go through an LDS ring of `Stages` stages; the loop carries
// (sum, max, count) in one tuple. sum += x * (t + 1), max over all x, count of tiles.
template <int Stages>
ir::Kernel build_pipeline_states() {
  KernelBuilder kb("attn_pieces_pipeline_" + std::to_string(Stages), {32, 1, 1});
  auto [X, Out, tiles] = kb.args(gptr<f32>("x"), gptr<f32>("out"), scalar<i32>("tiles"));
  constexpr auto plan = lds_plan(lds_buffer<f32>("ring", 1, 32, stages(Stages)));
  auto lds = use_lds<plan>(kb);
  const Int32 lane = lane_id();
  const auto [sum, mx, count] = pipeline<Stages>(
      tiles, carry(Float32(0.0f), Float32(-1e30f), Int32(0)),
      [&](const Int32& t) { return X.load(cast<i64>(t) * Int64(32) + cast<i64>(lane)); },
      [&](const Float32& x, const Int32& stage) {
        lds.template tile<"ring">(stage).store(Int32(0), lane, x);
      },
      [&](const Int32& stage, Float32 s, Float32 m, Int32 n) {
        // A neighbour's value: the stage must be complete (the barrier orders it).
        const Float32 x = lds.template tile<"ring">(stage).load(Int32(0), (lane + 1) & 31);
        return carry(s + x * cast<f32>(n + 1), max(m, x), n + 1);
      });
  Out.store(cast<i64>(lane) * Int64(3), sum);
  Out.store(cast<i64>(lane) * Int64(3) + Int64(1), mx);
  Out.store(cast<i64>(lane) * Int64(3) + Int64(2), cast<f32>(count));
  return kb.finish();
}

template <int Stages>
void check_pipeline_states() {
  CAPTURE(Stages);
  const int tiles = 5;
  // tiles + Stages extra values: the fetches past the last tile read real memory (harmless).
  std::vector<float> x(size_t(32 * (tiles + Stages)));
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float((i * 37) % 101) / 16.0f - 3.0f;
  for_both_backends(build_pipeline_states<Stages>(), [&](const emit::CodeObject& co) {
    const auto dx = upload(x), dout = upload(std::vector<float>(96));
    run(co, 1, 32, runtime::KernelArgs().ptr(dx).ptr(dout).add<std::int32_t>(tiles));
    const auto got = download<float>(dout, 96);
    for (int l = 0; l < 32; ++l) {
      double s = 0, m = -1e30;
      for (int t = 0; t < tiles; ++t) {
        const double v = x[size_t(t * 32 + (l + 1) % 32)];
        s += v * (t + 1);
        m = std::max(m, v);
      }
      CAPTURE(l);
      CHECK(got[size_t(l * 3)] == doctest::Approx(s).epsilon(1e-6));
      CHECK(got[size_t(l * 3 + 1)] == float(m));
      CHECK(got[size_t(l * 3 + 2)] == float(tiles));
    }
  });
}
} // namespace

TEST_CASE("pipeline<1>, <2> and <3> carry a tuple of states through an LDS ring") {
  check_pipeline_states<1>();
  check_pipeline_states<2>();
  check_pipeline_states<3>();
}

namespace {
// One wave: a 16 x 32 f32 accumulator (two atom columns) holding x[r][c] from memory, each
// column multiplied by f[c] with scale_cols_unless_one, stored back.
ir::Kernel build_scale_cols() {
  KernelBuilder kb("attn_pieces_scale_cols", {32, 1, 1});
  auto [X, F, Out] = kb.args(gptr<f32>("x"), gptr<f32>("f"), gtensor<f32>(row_major, "out"));
  constexpr auto mma =
      make_tiled_mma(atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>, repeat<1, 2>);
  const auto acc =
      map(mma, mma.make_accumulator(0.0f), [&](const Float32&, const Int32& r, const Int32& c) {
        return X.load(cast<i64>(r) * Int64(32) + cast<i64>(c));
      });
  // Column c of atom column j is lane c % 16 (both half-waves) of entry j.
  RegTensor<f32, 1, 2> f;
  for (int j = 0; j < 2; ++j)
    f(0, j) = F.load(Int32(16 * j) + (lane_id() & 15));
  const auto out = scale_cols_unless_one(acc, f);
  mma.store(out, local_tile<16, 32>(Out.shape(16, 32), 0, 0));
  return kb.finish();
}
} // namespace

TEST_CASE("scale_cols_unless_one: columns times their factor, the multiplies skipped when every "
          "factor is 1") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  std::vector<float> x(16 * 32);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(int(i * 7 % 23) - 11) * 0.375f;
  x[3] = -0.0f; // special values stay bit-identical when not scaled
  x[40] = inf;
  x[77] = -inf;
  x[100] = nan;
  const std::vector<float> ones(32, 1.0f);
  std::vector<float> mixed = ones;
  mixed[5] = 0.5f;
  mixed[20] = 0.0f;
  mixed[31] = 2.0f;
  auto* emu = dynamic_cast<runtime::EmuDevice*>(&emulator());
  REQUIRE(emu != nullptr);
  for_both_backends(build_scale_cols(), [&](const emit::CodeObject& co) {
    std::uint64_t executed[2] = {0, 0};
    for (int c = 0; c < 2; ++c) {
      const std::vector<float>& f = c == 0 ? ones : mixed;
      CAPTURE(c);
      const auto dx = upload(x), df = upload(f), dout = upload(std::vector<float>(x.size()));
      run(co, 1, 32, runtime::KernelArgs().ptr(dx).ptr(df).ptr(dout));
      executed[c] = emu->last_stats().total_instructions();
      const auto got = download<float>(dout, x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        CAPTURE(i);
        const float want = x[i] * f[i % 32];
        if (std::isnan(want))
          CHECK(std::isnan(got[i]));
        else
          CHECK(std::bit_cast<std::uint32_t>(got[i]) == std::bit_cast<std::uint32_t>(want));
      }
    }
    // All factors 1: the wave jumps over its lane's 16 multiplies (8 instructions or more:
    // v_dual_mul_f32 issues two).
    CHECK(executed[0] + 8 <= executed[1]);
  });
}
