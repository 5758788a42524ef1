// Quant QK-norm through the host API on the emulator (memcheck on, both emitters) against the
// float64 oracle: every code must be the oracle's rounding of y / s (either neighbour only where
// y / s is within 1e-5 of a rounding boundary), every scale within f32 error of amax / qmax.
// e4m3, e5m2 and int8 codes; neox and interleaved tails; whole-head and partial RoPE; position
// ids or an offset; cos / sin cached or computed; odd head dims, 1 and 512 heads, strided rows,
// an all-zero head and no tokens.
#include "elementwise_harness.hpp"

#include <kernels/attention/qk_norm_quant_api.hpp>
#include <kernels/attention/qk_norm_quant_kernel.hpp>

#include <emit/compile.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;
using kernels::RopeStyle;

namespace {

struct QkCase {
  DType dtype = DType::f16;
  DType codes = DType::e4m3;
  int64_t tokens = 5, heads_q = 4, heads_k = 2, head_dim = 64, rope_dim = 0;
  RopeStyle style = RopeStyle::neox;
  bool ids = false, cache = false, zero_head = false;
  int64_t ld_pad = 0; // extra elements between the rows of q / q_out
  int block_size = 64;
};

// Checks the codes and scales one side (q or k) produced.
void check_side(const std::string& side, const HostTensor& codes, const HostTensor& scale,
                const QkNormQuantReference& want) {
  CAPTURE(side);
  const TensorView cv = codes.view();
  int64_t wrong = 0, near_boundary = 0, elements = 0;
  std::string first;
  for (int64_t t = 0; t < cv.shape[0]; ++t)
    for (int64_t j = 0; j < cv.shape[1]; ++j) {
      const uint32_t got = codes.bytes()[size_t(t * cv.strides[0] + j)];
      const std::vector<uint32_t>& ok = want.codes[size_t(t * cv.shape[1] + j)];
      near_boundary += ok.size() > 1;
      ++elements;
      if (std::find(ok.begin(), ok.end(), got) == ok.end()) {
        if (!wrong++)
          first = "token " + std::to_string(t) + " col " + std::to_string(j) + ": code " +
                  std::to_string(got) + ", expected " + std::to_string(ok[0]) +
                  " (y = " + std::to_string(want.y.at(t, j)) + ")";
      }
    }
  CHECK_MESSAGE(wrong == 0, wrong << " of " << elements << " codes differ (" << near_boundary
                                  << " near a rounding boundary); first " << first);
  // A band that accepted most codes would make the check vacuous.
  CHECK(near_boundary * 50 <= elements);
  const std::vector<double> s = decode_flat(scale.view());
  REQUIRE(s.size() == want.scale.size());
  int64_t bad_scales = 0;
  for (size_t i = 0; i < s.size(); ++i)
    bad_scales += !(std::abs(s[i] - want.scale[i]) <= 4e-6 * want.scale[i]);
  CHECK_MESSAGE(bad_scales == 0, bad_scales << " of " << s.size() << " scales off");
}

void run_qk(const QkCase& c, uint64_t seed) {
  CAPTURE(c.head_dim);
  CAPTURE(c.rope_dim);
  CAPTURE(dtype_name(c.codes));
  CAPTURE(int(c.style));
  const int64_t r = c.rope_dim ? c.rope_dim : c.head_dim, max_pos = 40;
  const int64_t wq = c.heads_q * c.head_dim, wk = c.heads_k * c.head_dim;
  KernelRun k;
  HostTensor q =
      rows_tensor(c.dtype, c.tokens, wq, seed, ValueRange{-2, 2}, c.ld_pad ? wq + c.ld_pad : 0);
  if (c.zero_head && c.tokens > 0)
    for (int64_t j = 0; j < c.head_dim; ++j)
      q.set({c.tokens - 1, j}, 0.0); // token tokens-1, head 0: all zero
  k.in["q"] = q;
  k.in["k"] = rows_tensor(c.dtype, c.tokens, wk, seed + 1, ValueRange{-3, 3});
  k.in["q_weight"] = random_tensor(c.dtype, {c.head_dim}, seed + 2, ValueRange{0.5, 1.5});
  k.in["k_weight"] = random_tensor(c.dtype, {c.head_dim}, seed + 3, ValueRange{0.5, 1.5});
  k.out["q_out"] =
      rows_tensor(c.codes, c.tokens, wq, seed + 4, std::nullopt, c.ld_pad ? wq + c.ld_pad : 0);
  k.out["k_out"] = rows_tensor(c.codes, c.tokens, wk, seed + 5);
  k.out["q_scale"] = HostTensor(DType::f32, {c.tokens, c.heads_q});
  k.out["k_scale"] = HostTensor(DType::f32, {c.tokens, c.heads_k});
  if (c.ids) {
    HostTensor ids(DType::i32, {c.tokens});
    for (int64_t t = 0; t < c.tokens; ++t)
      ids.set({t}, double((t * 7 + 3) % max_pos));
    k.in["positions"] = ids;
  }
  if (c.cache) {
    HostTensor cs(DType::f32, {max_pos, r / 2}), sn(DType::f32, {max_pos, r / 2});
    for (int64_t p = 0; p < max_pos; ++p)
      for (int64_t i = 0; i < r / 2; ++i) {
        const double th = double(p) * std::pow(10000.0, -2.0 * double(i) / double(r));
        cs.set({p, i}, std::cos(th));
        sn.set({p, i}, std::sin(th));
      }
    k.in["cos"] = cs;
    k.in["sin"] = sn;
  }
  const auto rope = [&](std::map<std::string, TensorView>& v) {
    kernels::RopeParams p;
    p.head_dim = c.rope_dim;
    p.style = c.style;
    p.position_offset = 3;
    if (c.ids)
      p.positions = v["positions"];
    if (c.cache) {
      p.cos = v["cos"];
      p.sin = v["sin"];
    }
    return p;
  };
  std::map<std::string, TensorView> host;
  for (auto& [n, t] : k.in)
    host[n] = t.view();
  // Computed angles carry the f32 angle's error (about 1e-7 * theta): a wider boundary band.
  const double boundary = c.cache ? 2e-6 : 2e-5;
  const QkNormQuantReference want_q = oracle::qk_norm_quant(host["q"], host["q_weight"], c.head_dim,
                                                            rope(host), 1e-6, c.codes, boundary);
  const QkNormQuantReference want_k = oracle::qk_norm_quant(host["k"], host["k_weight"], c.head_dim,
                                                            rope(host), 1e-6, c.codes, boundary);
  const HostTensor q_out_before = k.out["q_out"];
  k.run(
      [&](runtime::Device& d, auto& v) {
        kernels::QkNormQuantArgs a{v["q"],     v["k"],     v["q_weight"], v["k_weight"],
                                   v["q_out"], v["k_out"], v["q_scale"],  v["k_scale"]};
        a.head_dim = c.head_dim;
        a.rope = rope(v);
        a.block_size = c.block_size;
        kernels::qk_norm_quant(d, a);
      },
      [&](auto& got) {
        check_side("q", got["q_out"], got["q_scale"], want_q);
        check_side("k", got["k_out"], got["k_scale"], want_k);
        if (c.ld_pad)
          check_untouched_gaps(got["q_out"], q_out_before);
        if (c.zero_head && c.tokens > 0) {
          CHECK(decode_flat(got["q_scale"].view())[size_t((c.tokens - 1) * c.heads_q)] == 1.0);
          const Matrix codes = decode_matrix(got["q_out"].view()); // +0 or -0
          for (int64_t j = 0; j < c.head_dim; ++j)
            CHECK(codes.at(c.tokens - 1, j) == 0.0);
        }
      });
}

} // namespace

TEST_CASE("qk_norm_quant e4m3: whole-head neox RoPE with computed angles, an all-zero head") {
  run_qk({.zero_head = true}, 1);
}

TEST_CASE("qk_norm_quant e5m2: bf16, a 64-dim interleaved tail of a 128-dim head, ids + cache") {
  run_qk({.dtype = DType::bf16,
          .codes = DType::e5m2,
          .head_dim = 128,
          .rope_dim = 64,
          .style = RopeStyle::interleaved,
          .ids = true,
          .cache = true},
         10);
}

TEST_CASE("qk_norm_quant int8: f32, a neox tail, 256 threads, strided q rows") {
  run_qk({.dtype = DType::f32,
          .codes = DType::int8,
          .head_dim = 80,
          .rope_dim = 32,
          .cache = true,
          .ld_pad = 24,
          .block_size = 0},
         20);
  run_qk({.codes = DType::int8, .tokens = 3, .head_dim = 96, .rope_dim = 96, .zero_head = true},
         21);
}

TEST_CASE("qk_norm_quant: odd shapes (head dim 10 with a 4-dim tail, 3 and 1 heads, 7 tokens)") {
  run_qk({.codes = DType::e4m3,
          .tokens = 7,
          .heads_q = 3,
          .heads_k = 1,
          .head_dim = 10,
          .rope_dim = 4,
          .style = RopeStyle::interleaved,
          .ld_pad = 3,
          .block_size = 32},
         30);
  run_qk({.codes = DType::int8,
          .tokens = 2,
          .heads_q = 1,
          .heads_k = 1,
          .head_dim = 6,
          .rope_dim = 2,
          .block_size = 32},
         31);
}

TEST_CASE("qk_norm_quant: 512 query heads and 1 key head") {
  run_qk({.codes = DType::e4m3,
          .tokens = 2,
          .heads_q = 512,
          .heads_k = 1,
          .head_dim = 8,
          .cache = true,
          .block_size = 32},
         40);
}

TEST_CASE("qk_norm_quant: 1 query head and 512 key heads, int8, interleaved tail") {
  run_qk({.codes = DType::int8,
          .tokens = 2,
          .heads_q = 1,
          .heads_k = 512,
          .head_dim = 12,
          .rope_dim = 8,
          .style = RopeStyle::interleaved,
          .block_size = 32},
         41);
}

TEST_CASE("qk_norm_quant: no tokens launches nothing") {
  run_qk({.tokens = 0}, 50);
}

TEST_CASE("qk_norm_quant keeps each normalized pair in registers: no scratch, LDS only for the "
          "two block reductions, both backends") {
  namespace qk = kernels::qk_norm_quant_kernel;
  // head 128 with a 64-dim tail at 256 threads (vec 8), head 256 whole-head at 64 threads
  const qk::QkNormQuantKernelSpec specs[] = {
      qk::make_spec(DType::bf16, DType::e4m3, RopeStyle::neox, false, std::nullopt, 128, 64, 8,
                    256),
      qk::make_spec(DType::f32, DType::int8, RopeStyle::interleaved, true, DType::f32, 256, 256, 4,
                    64)};
  for (const qk::QkNormQuantKernelSpec& spec : specs)
    for (emit::Backend backend : {emit::Backend::hip, emit::Backend::llvm}) {
      CAPTURE(spec.name());
      CAPTURE(emit::backend_name(backend));
      const emit::CodeObject co =
          emit::compile_with_artifacts(qk::build_qk_norm_quant_kernel(spec), backend, Arch::gfx1201)
              .code_object;
      CHECK(co.resources.scratch_bytes == 0);
      CHECK(co.resources.vgpr_spills == 0);
      // the row skeleton's reduction scratch alone (one f32 partial per wave of up to 32
      // waves, reused by the sum of squares and the abs-max), under the 512 and 1024 bytes of
      // one f32 head of 128 / 256 dims: nothing of the head is staged in LDS
      CHECK(co.resources.lds_bytes <= 32 * 4);
    }
}

TEST_CASE("qk_norm_quant validation: each bad argument is named with its rule") {
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const auto t = [&](DType dt, Extents e) { return dev.upload(HostTensor(dt, e)); };
  kernels::QkNormQuantArgs a{t(DType::f16, {4, 128}),  t(DType::f16, {4, 64}),
                             t(DType::f16, {64}),      t(DType::f16, {64}),
                             t(DType::e4m3, {4, 128}), t(DType::e4m3, {4, 64}),
                             t(DType::f32, {4, 2}),    t(DType::f32, {4, 1})};
  a.head_dim = 64;
  a.rope.head_dim = 24;
  kernels::qk_norm_quant(d, a); // valid
  auto bad = a;
  bad.rope.head_dim = 66;
  CHECK_THROWS_WITH(
      kernels::qk_norm_quant(d, bad),
      doctest::Contains("qk_norm_quant: parameter 'rope.head_dim' is 66; expected 0 "
                        "(the whole head) or an even tail width from 2 to head_dim 64"));
  bad = a;
  bad.k_out = t(DType::int8, {4, 64});
  CHECK_THROWS_WITH(kernels::qk_norm_quant(d, bad), doctest::Contains("argument 'k_out'"));
  bad = a;
  bad.q_out = t(DType::bf16, {4, 128});
  CHECK_THROWS_WITH(kernels::qk_norm_quant(d, bad),
                    doctest::Contains("argument 'q_out' has dtype bf16"));
  bad = a;
  bad.q_scale = t(DType::f32, {4, 3});
  CHECK_THROWS_WITH(kernels::qk_norm_quant(d, bad),
                    doctest::Contains("argument 'q_scale' has shape [4, 3]; expected [4, 2]"));
  bad = a;
  bad.k = t(DType::f16, {3, 64});
  CHECK_THROWS_WITH(kernels::qk_norm_quant(d, bad),
                    doctest::Contains("argument 'k' has 3 tokens; expected 4"));
  bad = a;
  bad.q = t(DType::f16, {4, 100});
  CHECK_THROWS_WITH(kernels::qk_norm_quant(d, bad),
                    doctest::Contains("expected a multiple of head_dim 64"));
  bad = a;
  bad.q = t(DType::f16, {1, 64 * 513});
  bad.q_out = t(DType::e4m3, {1, 64 * 513});
  CHECK_THROWS_WITH(kernels::qk_norm_quant(d, bad),
                    doctest::Contains("argument 'q' has 513 heads; expected 1 to 512"));
  bad = a;
  bad.q_weight = t(DType::bf16, {64});
  CHECK_THROWS_WITH(kernels::qk_norm_quant(d, bad), doctest::Contains("argument 'q_weight'"));
  bad = a;
  bad.rope.cos = t(DType::f32, {8, 12});
  CHECK_THROWS_WITH(kernels::qk_norm_quant(d, bad), doctest::Contains("argument 'sin' is missing"));
  bad.rope.sin = t(DType::f32, {8, 32});
  CHECK_THROWS_WITH(kernels::qk_norm_quant(d, bad),
                    doctest::Contains("argument 'sin' has shape [8, 32]; expected [max_pos, 12]"));
}
