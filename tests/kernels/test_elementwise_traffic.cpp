// The global bytes the row kernels, RoPE, dequant_fp8 and dequant_awq read (the emulator's counts,
// kernel arguments apart), through both emitters: each input element once, and a tensor the rows
// share once per workgroup (the norms' weight and bias), per wave (rms_norm_rope's [head_dim]
// weight, dequant_fp8's row scale) or per token (RoPE's cache row). The expected counts are written
// out from the shapes and the grid rule (64 compute units x 32 wave slots: 256 workgroups of 256
// threads, 64 of 1024, 2048 of 32; gfx1200: 32 compute units) and the dequant_awq block rule, not
// taken from the kernels.
#include "elementwise_cases.hpp"

#include <kernels/elementwise/elementwise_api.hpp>
#include <kernels/quant/quant_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;
using kernels::RopeStyle;

namespace {

struct Traffic {
  uint64_t read = 0, written = 0; // tensor bytes: the kernel-argument loads left out
};

Traffic last_traffic() {
  const emu::LaunchStats& s = emu_device().last_stats();
  REQUIRE(s.kernarg_bytes_read > 0);
  return {s.global_bytes_read - s.kernarg_bytes_read, s.global_bytes_written};
}

// Runs `call` through both emitters and checks the bytes of its launch.
void check_traffic(
    KernelRun& k,
    const std::function<void(runtime::Device&, std::map<std::string, TensorView>&)>& call,
    uint64_t want_read, uint64_t want_written) {
  k.run(
      [&](runtime::Device& d, auto& v) {
        call(d, v);
        const Traffic t = last_traffic();
        CHECK(t.read == want_read);
        CHECK(t.written == want_written);
      },
      [](auto&) {});
}

} // namespace

TEST_CASE("traffic: rms_norm reads x once and the weight once per workgroup (256 of 256)") {
  KernelRun k; // 300 rows: more rows than workgroups, each takes 2 or 3
  k.in["x"] = rows_tensor(DType::bf16, 300, 64, 1);
  k.in["weight"] = random_tensor(DType::bf16, {64}, 2);
  k.out["out"] = rows_tensor(DType::bf16, 300, 64, 3);
  check_traffic(
      k,
      [](runtime::Device& d, auto& v) {
        kernels::rms_norm(d, {v["x"], v["weight"], std::nullopt, v["out"]});
      },
      300 * 64 * 2 + 256 * 64 * 2, 300 * 64 * 2);
}

TEST_CASE("traffic: layer_norm reads weight and bias once per workgroup (64 of 1024 threads)") {
  KernelRun k;
  k.in["x"] = rows_tensor(DType::f16, 150, 40, 4);
  k.in["weight"] = random_tensor(DType::f16, {40}, 5);
  k.in["bias"] = random_tensor(DType::f16, {40}, 6);
  k.out["out"] = rows_tensor(DType::f16, 150, 40, 7);
  check_traffic(
      k,
      [](runtime::Device& d, auto& v) {
        kernels::layer_norm(d, {v["x"], v["weight"], v["bias"], v["out"], 1e-5f, 1024});
      },
      150 * 40 * 2 + 64 * 2 * 40 * 2, 150 * 40 * 2);
}

TEST_CASE("traffic: rms_norm_rope reads the [head_dim] weight once per wave of a workgroup") {
  // 260 tokens x 32 heads of 128 (f16, neox: runs of 8 pairs, 8 lanes per head): 4 heads per
  // 32-thread workgroup, 2080 head groups over 2048 workgroups; the first head slot of the wave
  // loads the weight and the other 3 take it by lane shuffles.
  KernelRun k;
  k.in["x"] = rows_tensor(DType::f16, 260, 32 * 128, 8);
  k.in["weight"] = random_tensor(DType::f16, {128}, 9);
  k.out["out"] = rows_tensor(DType::f16, 260, 32 * 128, 10);
  check_traffic(
      k,
      [](runtime::Device& d, auto& v) {
        kernels::RopeParams p;
        p.head_dim = 128;
        kernels::rms_norm_rope(d, {v["x"], v["weight"], v["out"], p, 1e-6f, 32});
      },
      260 * 4096 * 2 + 2048 * 128 * 2, 260 * 4096 * 2);
}

TEST_CASE("traffic: rope with a cache reads each token's cos / sin row once for all heads") {
  const int64_t tokens = 5, heads = 12, half = 32;
  KernelRun k;
  k.in["x"] = rows_tensor(DType::f16, tokens, heads * 2 * half, 11);
  k.in["cos"] = random_tensor(DType::f32, {40, half}, 12);
  k.in["sin"] = random_tensor(DType::f32, {40, half}, 13);
  k.out["out"] = rows_tensor(DType::f16, tokens, heads * 2 * half, 14);
  const uint64_t x_bytes = uint64_t(tokens * heads * 2 * half * 2);
  check_traffic(
      k,
      [](runtime::Device& d, auto& v) {
        kernels::RopeParams p;
        p.head_dim = 2 * half;
        p.style = RopeStyle::interleaved;
        p.cos = v["cos"];
        p.sin = v["sin"];
        kernels::rope(d, {v["x"], v["out"], p});
      },
      x_bytes + uint64_t(2 * tokens * half * 4), x_bytes);
}

TEST_CASE("traffic: dequant_fp8 rowwise reads x once and the row scale at most once per wave") {
  // 625 runs of 8 per row: 3 passes of 256 threads, the last partial. (8-byte runs: LLVM once
  // sank a byte load of the run into the block shared with the masked tail path, reading 9.)
  const int64_t rows = 3, width = 5000;
  KernelRun k;
  k.in["x"] = rows_tensor(DType::e4m3, rows, width, 15);
  k.in["scale"] = random_tensor(DType::f32, {rows}, 16, ValueRange{0.1, 4});
  k.out["out"] = rows_tensor(DType::bf16, rows, width, 17);
  k.run(
      [&](runtime::Device& d, auto& v) {
        kernels::dequant_fp8(d, {v["x"], v["scale"], v["out"]});
        const Traffic t = last_traffic();
        const uint64_t scale_bytes = t.read - uint64_t(rows * width);
        CHECK(scale_bytes >= uint64_t(rows * 4));     // each row's scale at least once
        CHECK(scale_bytes <= uint64_t(rows * 8 * 4)); // at most once per wave (8 per row)
        CHECK(t.written == uint64_t(rows * width * 2));
      },
      [](auto&) {});
}

TEST_CASE("traffic: dequant_awq reads a group's zero points and scales once per block of rows") {
  // K = 8195 rows in groups of 8 (1025 groups, the last of 3 rows), N = 64 (32 bytes a row),
  // f16 scales, f32 out: runs of 2 byte columns, 16 per row. The block rule (the largest power
  // of two up to 8 whose blocks give the 65536 resident threads of gfx1201 a run each): 2 rows
  // (1025 x 4 blocks x 16 runs = 65600 threads; 4 rows would give 32800). Every block loads
  // its group's zero-point row (32 bytes) and scale row (128 bytes) once (the two blocks of the
  // last group past K too), every row of qweight once.
  const int64_t k = 8195, n = 64, group = 8, groups = 1025, blocks = groups * 4;
  KernelRun run;
  run.in["qweight"] = random_tensor(DType::uint4, {k, n}, 18);
  run.in["zeros"] = random_tensor(DType::uint4, {groups, n}, 19);
  run.in["scales"] = random_tensor(DType::f16, {groups, n}, 20, ValueRange{0.01, 0.1});
  run.out["out"] = rows_tensor(DType::f32, k, n, 21);
  const Reference want =
      oracle::dequant_awq({run.in["qweight"].view(), run.in["zeros"].view(),
                           run.in["scales"].view(), run.out["out"].view(), group});
  Tolerance tol;
  tol.out = DType::f32;
  tol.accumulation = 2 * 0x1p-24;
  run.run(
      [&](runtime::Device& d, auto& v) {
        kernels::dequant_awq(d, {v["qweight"], v["zeros"], v["scales"], v["out"], group});
        const Traffic t = last_traffic();
        CHECK(t.read == uint64_t(k * n / 2 + blocks * (n / 2 + n * 2)));
        CHECK(t.written == uint64_t(k * n * 4));
      },
      [&](auto& got) { check_close(got["out"], want, tol); });
}

TEST_CASE("traffic: the strided row grid of a gfx1200 target is its 32 CUs x 4 workgroups") {
  // 300 rows of 64 bf16 with 256 threads: 32 CUs x 32 wave slots / 8 waves = 128 workgroups,
  // each reading the weight once (gfx1201: 256).
  struct Restore {
    kernels::GemmTarget saved = kernels::gemm_target();
    ~Restore() { kernels::set_gemm_target(saved); }
  } restore;
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const HostTensor x = rows_tensor(DType::bf16, 300, 64, 22);
  const HostTensor w = random_tensor(DType::bf16, {64}, 23, ValueRange{0.5, 1.5});
  HostTensor out = rows_tensor(DType::bf16, 300, 64, 24);
  const Reference want = oracle::rms_norm({x.view(), w.view(), std::nullopt, out.view(), 1e-5f});
  for (emit::Backend b : both_backends) {
    CAPTURE(emit::backend_name(b));
    kernels::set_gemm_target({b, Arch::gfx1200});
    const TensorView xv = dev.upload(x), wv = dev.upload(w), ov = dev.upload(out);
    kernels::rms_norm(d, {xv, wv, std::nullopt, ov});
    const Traffic t = last_traffic();
    CHECK(t.read == uint64_t(300 * 64 * 2 + 128 * 64 * 2));
    CHECK(t.written == uint64_t(300 * 64 * 2));
    d.copy_to_host(out.bytes().data(), ov.device_address, out.bytes().size());
    check_close(out, want, Tolerance::for_output(DType::bf16, 64));
  }
}
