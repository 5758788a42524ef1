// accumulator_as_operand_exchanged (the register transpose of dsl/mma/accumulator_exchange.hpp)
// and its LDS fallback accumulator_via_lds, traced with the DSL, compiled by BOTH emitters and
// run on the gfx12 emulator against a host reference written here. One wave:
//   S = Q K^T (32 queries x 32 keys),  P = map(S, v + (r == c) - 0.01 c),
//   O = P V      (P as A, exchanged in registers)     O2  = P V      (P as A through LDS)
//   O^T = V^T P^T (P^T as B, exchanged in registers)  O2^T = V^T P^T (P^T as B through LDS)
#include <dsl/dsl.hpp>
#include <dsl/mma/accumulator_exchange.hpp>
#include <emit/compile.hpp>

#include <atoms/formats/f16.hpp>
#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include "f16_test_values.hpp"
#include "shared_emulator.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace tw;
using namespace tw::dsl;
using namespace tw::test;

namespace {

constexpr int n_q = 32, n_keys = 32, n_d = 16;
constexpr auto s_mma =
    make_tiled_mma(atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>, repeat<2, 2>);
constexpr auto o_mma =
    make_tiled_mma(atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>, repeat<2, 1>);
constexpr auto ot_mma =
    make_tiled_mma(atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>, repeat<1, 2>);

ir::Kernel build_exchange() {
  KernelBuilder kb("accumulator_exchange", {32, 1, 1});
  // `pad`: keeps a backend's wide scalar load of the last pointers inside the kernarg segment.
  auto [Q, K, Vt, O, OT, O2, OT2, pad] =
      kb.args(gtensor<f16>(row_major, "q", 16), gtensor<f16>(row_major, "k", 16),
              gtensor<f16>(row_major, "vt", 16), gtensor<f32>(row_major, "o"),
              gtensor<f32>(row_major, "ot"), gtensor<f32>(row_major, "o2"),
              gtensor<f32>(row_major, "ot2"), scalar<i64>("pad"));
  (void)pad;
  constexpr auto plan = lds_plan(lds_buffer<f16>("p", n_q, n_keys));
  auto lds = use_lds<plan>(kb);
  const auto gQ = local_tile<n_q, n_d>(Q.shape(n_q, n_d), 0, 0);
  const auto gK = local_tile<n_keys, n_d>(K.shape(n_keys, n_d), 0, 0);
  auto s = s_mma.make_accumulator(0.0f);
  gemm(s_mma, s_mma.load_a(gQ, 0), s_mma.load_b(gK, 0), s);
  const auto p = map(s_mma, s, [](const Float32& v, const Int32& r, const Int32& c) {
    return v + select(r == c, Float32(1.0f), Float32(0.0f)) - Float32(0.01f) * cast<f32>(c);
  });
  auto o = o_mma.make_accumulator(0.0f), o2 = o_mma.make_accumulator(0.0f);
  auto ot = ot_mma.make_accumulator(0.0f), ot2 = ot_mma.make_accumulator(0.0f);
  const auto via_lds_a = accumulator_via_lds<MmaOperand::A>(s_mma, p, o_mma, lds.tile<"p">());
  for (int ks = 0; ks < n_keys / 16; ++ks) {
    // V n-major (V^T rows: dims x keys) for O = P V; V^T as A for O^T = V^T P^T.
    const auto gVt = local_tile<n_d, 16>(Vt.shape(n_d, n_keys), 0, ks);
    gemm(o_mma, accumulator_as_operand_exchanged<MmaOperand::A>(s_mma, p, o_mma, ks),
         o_mma.load_b(gVt, 0), o);
    gemm(o_mma, via_lds_a[size_t(ks)], o_mma.load_b(gVt, 0), o2);
    gemm(ot_mma, ot_mma.load_a(gVt, 0),
         accumulator_as_operand_exchanged<MmaOperand::B>(s_mma, p, ot_mma, ks), ot);
  }
  // The B fallback reuses the scratch (same wave, in order: no barrier).
  const auto via_lds_b = accumulator_via_lds<MmaOperand::B>(s_mma, p, ot_mma, lds.tile<"p">());
  for (int ks = 0; ks < n_keys / 16; ++ks)
    gemm(ot_mma, ot_mma.load_a(local_tile<n_d, 16>(Vt.shape(n_d, n_keys), 0, ks), 0),
         via_lds_b[size_t(ks)], ot2);
  o_mma.store(o, local_tile<n_q, n_d>(O.shape(n_q, n_d), 0, 0));
  o_mma.store(o2, local_tile<n_q, n_d>(O2.shape(n_q, n_d), 0, 0));
  ot_mma.store(ot, local_tile<n_d, n_q>(OT.shape(n_d, n_q), 0, 0));
  ot_mma.store(ot2, local_tile<n_d, n_q>(OT2.shape(n_d, n_q), 0, 0));
  return kb.finish();
}

} // namespace

TEST_CASE("accumulator exchange: P as A of P V and P^T as B of V^T P^T, in registers and "
          "through LDS") {
  std::vector<double> q, k, vt;
  const auto q16 = f16_values(n_q * n_d, 11, q), k16 = f16_values(n_keys * n_d, 13, k),
             vt16 = f16_values(n_d * n_keys, 17, vt);
  // Host reference in double, P rounded to f16 as the operand conversion does.
  std::vector<double> o(n_q * n_d, 0.0);
  for (int r = 0; r < n_q; ++r)
    for (int c = 0; c < n_keys; ++c) {
      double sv = 0;
      for (int x = 0; x < n_d; ++x)
        sv += q[size_t(r * n_d + x)] * k[size_t(c * n_d + x)];
      const float t = static_cast<float>(sv) + (r == c ? 1.0f : 0.0f) - 0.01f * float(c);
      const double pv = num::f16_to_f32(num::f32_to_f16(t));
      for (int dv = 0; dv < n_d; ++dv)
        o[size_t(r * n_d + dv)] += pv * vt[size_t(dv * n_keys + c)];
    }
  const ir::Kernel kernel = build_exchange();
  for_both_backends(kernel, [&](const emit::CodeObject& co) {
    const auto dq = upload(q16), dk = upload(k16), dvt = upload(vt16);
    const auto dO = upload(std::vector<float>(n_q * n_d)),
               dOT = upload(std::vector<float>(n_q * n_d));
    const auto dO2 = upload(std::vector<float>(n_q * n_d)),
               dOT2 = upload(std::vector<float>(n_q * n_d));
    run(co, 1, 32,
        runtime::KernelArgs()
            .ptr(dq)
            .ptr(dk)
            .ptr(dvt)
            .ptr(dO)
            .ptr(dOT)
            .ptr(dO2)
            .ptr(dOT2)
            .add<std::int64_t>(0));
    const auto got_o = download<float>(dO, n_q * n_d), got_ot = download<float>(dOT, n_q * n_d);
    const auto got_o2 = download<float>(dO2, n_q * n_d), got_ot2 = download<float>(dOT2, n_q * n_d);
    // f16 products summed in f32 over 32 keys: |error| well under 1e-4 at these magnitudes
    // (|p| <= ~5, |v| < 1); a misplaced value is off by O(1).
    for (int r = 0; r < n_q; ++r)
      for (int dv = 0; dv < n_d; ++dv) {
        CAPTURE(r);
        CAPTURE(dv);
        const double want = o[size_t(r * n_d + dv)];
        CHECK(std::fabs(got_o[size_t(r * n_d + dv)] - want) <= 1e-4);
        CHECK(std::fabs(got_o2[size_t(r * n_d + dv)] - want) <= 1e-4);
        CHECK(std::fabs(got_ot[size_t(dv * n_q + r)] - want) <= 1e-4);
        CHECK(std::fabs(got_ot2[size_t(dv * n_q + r)] - want) <= 1e-4);
      }
  });
}
