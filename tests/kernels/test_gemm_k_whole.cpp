// GemmKernelSpec::k_whole (kernels/gemm/gemm_kernel.hpp): with K a multiple of the K tile, a
// clipped k-contiguous operand's tiles skip the per-run K-edge choice and the tile past K reads 0
// through num_records 0. Both values of the flag run the same problems (K multiples: 1, 2, 3 and
// 5 K tiles, the odd counts computing one tile past K in the two-tile loop) at odd M and N, with
// k-contiguous and m/n-contiguous operands, on both emitters with memcheck on; odd K runs without
// it (the host's choice). Launched directly with the spec, so the flag is not the host's pick.
#include "gemm_harness.hpp"

#include <kernels/common/compile_traced.hpp>
#include <kernels/gemm/gemm_api.hpp>
#include <kernels/gemm/gemm_kernel.hpp>

using namespace tw;
using namespace tw::oracle;
using namespace tw::kernels::gemm_kernel;
using kernels::DType;

namespace {

struct KCase {
  int64_t m, n, k;
  DType in = DType::f16;
  bool a_col = false; // a column-major (m-contiguous): only b is k-contiguous
};

// Runs the f16 / bf16 -> f32 GEMM of `c` with the spec the host picks (gemm_clip_edges), then
// with k_whole set to `k_whole` (the other operand flags as picked), against the oracle.
void run_k_whole(const KCase& c, bool k_whole, uint64_t seed) {
  CAPTURE(c.m);
  CAPTURE(c.n);
  CAPTURE(c.k);
  CAPTURE(c.a_col);
  CAPTURE(k_whole);
  const HostTensor a =
      random_tensor(c.in, {c.m, c.k}, seed, std::nullopt, c.a_col ? Extents{1, c.m} : Extents{});
  const HostTensor b = random_tensor(c.in, {c.k, c.n}, seed + 1, std::nullopt, Extents{1, c.k});
  const HostTensor host_out(DType::f32, {c.m, c.n});
  const Reference want = gemm(kernels::GemmArgs{a.view(), b.view(), host_out.view()});
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& dev = emu_device();
    DeviceTensors d(dev);
    HostTensor out(DType::f32, {c.m, c.n});
    const TensorView da = d.upload(a), db = d.upload(b), dout = d.upload(out);
    GemmLaunchArgs g;
    g.a = da.device_address;
    g.b = db.device_address;
    g.out = dout.device_address;
    g.m = c.m;
    g.n = c.n;
    g.k = c.k;
    g.lda = c.a_col ? c.m : c.k;
    g.ldb = c.k;
    g.ldo = c.n;
    GemmKernelSpec s;
    s.a = s.b = c.in;
    s.a_order = c.a_col ? kernels::MatrixOrder::col_major : kernels::MatrixOrder::row_major;
    s.a_vec_aligned = s.b_vec_aligned = true; // every case's strides are multiples of 8
    gemm_clip_edges(s, g);
    REQUIRE(s.b_clipped);                // the flag applies: b is clipped and k-contiguous
    CHECK(s.k_whole == (c.k % 32 == 0)); // the host's pick: K tile 32 for 16-bit operands
    s.k_whole = k_whole;
    CAPTURE(s.name());
    const runtime::KernelHandle kernel =
        kernels::traced_kernel(dev, s.name(), [&] { return build_gemm_kernel(s); });
    dev.launch(kernel, gemm_grid(s, g), {uint32_t(gemm_tile_shape(s.tile).threads())},
               gemm_kernel_args(g).span());
    dev.synchronize();
    const Matrix got = DeviceTensors::download(dev, dout, out);
    const CompareResult r = compare(got, want, Tolerance::for_output(DType::f32, c.k));
    INFO(r.summary());
    CHECK(r.ok);
  });
}

} // namespace

TEST_CASE("gemm k_whole: both values at K multiples, odd M and N, 1 to 5 K tiles") {
  for (bool k_whole : {true, false}) {
    run_k_whole({37, 51, 32}, k_whole, 1);                    // 1 K tile (+1 past K)
    run_k_whole({129, 27, 64}, k_whole, 3);                   // 2 K tiles, M past one tile
    run_k_whole({13, 136, 96, DType::bf16}, k_whole, 5);      // 3 K tiles (+1 past K)
    run_k_whole({40, 33, 160, DType::f16, true}, k_whole, 7); // a m-contiguous, 5 K tiles
  }
}

TEST_CASE("gemm k_whole: odd K runs without it, as the host picks") {
  run_k_whole({37, 51, 40}, false, 11);   // K edge of 8
  run_k_whole({24, 136, 104}, false, 13); // 3 whole K tiles and an edge of 8
}
