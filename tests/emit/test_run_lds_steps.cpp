// LdsTile's constant steps (dsl/tensor/lds_tile.hpp: load_run_at / store_run_at) end to end on
// the gfx12 emulator through both backends: a loop over two LDS stages (a run-time stage, as
// in a pipelined K loop) copies a 16 x 32 bf16 tile of A into a padded LDS tile (TiledCopy's
// store), reads it back as the A operand of two k steps (load_operand) and multiplies it with
// B. Every access is the lane's address plus a constant, so each LDS instruction of the loop
// addresses one of a few VGPRs with an immediate offset (not one VGPR per access), and the
// product is exact (small integers). memcheck (on in DslEmuRun) checks every access.
#include "dsl_emu_run.hpp"

#include <atoms/formats/bf16.hpp>
#include <atoms/mma/gfx12.hpp>
#include <dsl/dsl.hpp>

#include "f16_test_values.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <regex>
#include <set>
#include <string>
#include <vector>

using namespace tw;
using namespace tw::dsl;

TEST_CASE("LdsTile constant steps: LDS copies and operand loads use immediate offsets") {
  using Atom = atoms::wmma_f32_16x16x16_bf16;
  constexpr int blocks = 3;
  KernelBuilder kb("lds_steps", {32, 1, 1});
  constexpr auto mma = make_tiled_mma(Atom{}, wave_layout<1, 1>);
  constexpr auto plan = lds_plan(lds_buffer<bf16>("sA", 16, 32, stages(2), pad(8)));
  auto lds = use_lds<plan>(kb);
  constexpr auto copy = make_tiled_copy<bf16>(atoms::global_load_b128{}, thread_layout<8, 4>);
  // A: blocks x (16 x 32), B^T: 16 x 32 (n x k), O: blocks x (16 x 16) as O^T rows
  auto [A, Bt, O] = kb.args(gtensor<bf16>(row_major, "a", 16), gtensor<bf16>(row_major, "bt", 16),
                            gtensor<f32>(row_major, "o"));
  const GlobalTensor<bf16> a = A.shape(16 * blocks, 32), bt = Bt.shape(16, 32);
  const GlobalTensor<f32> o = O.shape(16 * blocks, 16);
  for_range(Int32(0), Int32(blocks), [&](const Int32& t) {
    const Int32 stage = t % Int32(2);
    const auto sA = lds.tile<"sA">(stage);
    copy.store(copy.load(local_tile<16, 32>(a, t, 0)), sA);
    lds_barrier();
    auto acc = mma.make_accumulator(0.0f);
    for (int ks = 0; ks < 2; ++ks)
      gemm(mma, mma.load_a(sA, ks), mma.load_b(local_tile<16, 32>(bt, 0, 0), ks), acc);
    mma.store_transposed(acc, local_tile<16, 16>(o, t, 0));
  });
  const ir::Kernel k = kb.finish();

  std::vector<std::uint16_t> ha(16 * blocks * 32), hb(16 * 32);
  for (int i = 0; i < 16 * blocks; ++i)
    for (int j = 0; j < 32; ++j)
      ha[i * 32 + j] = static_cast<std::uint16_t>(num::f64_to_bf16(test::small_int_value(i, j, 1)));
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 32; ++j)
      hb[i * 32 + j] = static_cast<std::uint16_t>(num::f64_to_bf16(test::small_int_value(i, j, 2)));
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    // The LDS accesses address few VGPRs (the lane's address per stage), with offsets.
    const std::regex ds(
        "ds_(load|store)_b128 [^\\n]*?(v[0-9]+)(, v\\[[0-9:]+\\])?( offset:[0-9]+)?\\n");
    std::set<std::string> addresses;
    int accesses = 0, with_offset = 0;
    for (std::sregex_iterator it(run.art.assembly.begin(), run.art.assembly.end(), ds), end;
         it != end; ++it) {
      ++accesses;
      with_offset += (*it)[4].matched ? 1 : 0;
    }
    const std::regex addr("ds_load_b128 v\\[[0-9:]+\\], (v[0-9]+)");
    for (std::sregex_iterator it(run.art.assembly.begin(), run.art.assembly.end(), addr), end;
         it != end; ++it)
      addresses.insert((*it)[1].str());
    CAPTURE(run.art.assembly);
    CHECK(accesses >= 6);    // 4 ds_load_b128 (2 k steps x 2 runs) + 2 ds_store_b128
    CHECK(with_offset >= 3); // the constant steps became immediate offsets
    CHECK(addresses.size() <= 2);
    const runtime::DevicePtr da = run.upload(ha), db = run.upload(hb),
                             dout = run.upload(std::vector<float>(16 * blocks * 16, -1.0f));
    run.launch({1, 1, 1}, {32, 1, 1}, runtime::KernelArgs().ptr(da).ptr(db).ptr(dout));
    const std::vector<float> out = run.download<float>(dout, 16 * blocks * 16);
    for (int t = 0; t < blocks; ++t)
      for (int n = 0; n < 16; ++n)
        for (int m = 0; m < 16; ++m) {
          CAPTURE(t);
          CAPTURE(n);
          CAPTURE(m);
          double c = 0; // C(m, n) = sum_k A(16 t + m, k) B^T(n, k); stored transposed
          for (int kk = 0; kk < 32; ++kk)
            c += test::small_int_value(16 * t + m, kk, 1) * test::small_int_value(n, kk, 2);
          CHECK(out[(16 * t + n) * 16 + m] == c);
        }
  }
}
