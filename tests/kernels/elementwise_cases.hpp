#pragma once
// The runners of the element-wise, normalization, RoPE and quantization tests, shared by the
// fast suite (tests/kernels/test_*.cpp) and the width sweep (tests/kernels/slow/): each builds
// fixed-seed inputs, runs the oracle and the kernel through both emitters, and compares.
#include "elementwise_harness.hpp"

#include <kernels/elementwise/elementwise_api.hpp>
#include <kernels/quant/quant_api.hpp>

namespace tw::oracle {

using kernels::QuantGranularity;
using kernels::RopeStyle;

// ---- from test_elementwise.cpp ----

// f32 math inside the kernel: exp2 and a few roundings, error ~ |x| * 2^-24 relative.
inline Tolerance activation_tolerance(DType out) {
  Tolerance t;
  t.out = out;
  t.accumulation = 32 * 0x1p-24;
  return t;
}

inline void run_silu(DType in, DType out, int64_t rows, int64_t width, uint64_t seed,
                     int64_t ld_out = 0) {
  CAPTURE(width);
  KernelRun k;
  k.in["x"] = rows_tensor(in, rows, width, seed, ValueRange{-8, 8});
  k.out["out"] = rows_tensor(out, rows, width, seed + 1, ValueRange{-1, 1}, ld_out);
  const HostTensor before = k.out["out"];
  const Reference want = oracle::silu({k.in["x"].view(), k.out["out"].view()});
  k.run(
      [&](runtime::Device& d, auto& v) {
        kernels::silu(d, {v["x"], v["out"]});
      },
      [&](auto& got) {
        check_close(got["out"], want, activation_tolerance(out));
        check_untouched_gaps(got["out"], before);
      });
}

inline void run_swiglu(DType in, DType out, int64_t rows, int64_t width, uint64_t seed,
                       int64_t ld_out = 0, int block = 0) {
  CAPTURE(width);
  KernelRun k;
  k.in["gate"] = rows_tensor(in, rows, width, seed, ValueRange{-6, 6});
  k.in["up"] = rows_tensor(in, rows, width, seed + 1, ValueRange{-2, 2});
  k.out["out"] = rows_tensor(out, rows, width, seed + 2, ValueRange{-1, 1}, ld_out);
  const HostTensor before = k.out["out"];
  const Reference want =
      oracle::swiglu({k.in["gate"].view(), k.in["up"].view(), k.out["out"].view()});
  k.run(
      [&](runtime::Device& d, auto& v) {
        kernels::swiglu(d, {v["gate"], v["up"], v["out"], block});
      },
      [&](auto& got) {
        check_close(got["out"], want, activation_tolerance(out));
        check_untouched_gaps(got["out"], before);
      });
}

// ---- from test_norm.cpp ----

enum class Norm { rms, layer };

inline void run_norm(Norm which, DType dt, DType out, int64_t rows, int64_t width, uint64_t seed,
                     bool bias, int64_t ld_x = 0, int block = 0, float eps = 1e-5f) {
  CAPTURE(width);
  CAPTURE(bias);
  KernelRun k;
  k.in["x"] = rows_tensor(dt, rows, width, seed, ValueRange{-3, 5}, ld_x);
  k.in["weight"] = random_tensor(dt, {width}, seed + 1, ValueRange{0.5, 1.5});
  if (bias)
    k.in["bias"] = random_tensor(dt, {width}, seed + 2, ValueRange{-1, 1});
  k.out["out"] = rows_tensor(out, rows, width, seed + 3);
  kernels::NormArgs host{k.in["x"].view(), k.in["weight"].view(), std::nullopt, k.out["out"].view(),
                         eps};
  if (bias)
    host.bias = k.in["bias"].view();
  const Reference want = which == Norm::rms ? oracle::rms_norm(host) : oracle::layer_norm(host);
  k.run(
      [&](runtime::Device& d, auto& v) {
        kernels::NormArgs a{v["x"], v["weight"], std::nullopt, v["out"], eps, block};
        if (bias)
          a.bias = v["bias"];
        which == Norm::rms ? kernels::rms_norm(d, a) : kernels::layer_norm(d, a);
      },
      [&](auto& got) { check_close(got["out"], want, Tolerance::for_output(out, width)); });
}

// ---- from test_rope.cpp ----

struct RopeCase {
  DType dtype = DType::f16;
  int64_t tokens = 3, heads = 2, head_dim = 64;
  RopeStyle style = RopeStyle::neox;
  bool ids = false, cache = false, norm = false;
  int64_t ld = 0; // row stride of x (0: contiguous)
  int64_t offset = 5;
};

// f32 angle and sincos: a few 2^-24 relative to theta (see the oracle's error scale).
inline Tolerance rope_tolerance(DType out, bool norm, int64_t head_dim) {
  Tolerance t;
  t.out = out;
  t.accumulation = 64 * 0x1p-24 + (norm ? f32_accumulation(head_dim) : 0.0);
  return t;
}

inline void run_rope(const RopeCase& c, uint64_t seed) {
  CAPTURE(c.head_dim);
  CAPTURE(int(c.style));
  CAPTURE(c.ids);
  CAPTURE(c.cache);
  const int64_t width = c.heads * c.head_dim, half = c.head_dim / 2, max_pos = 40;
  KernelRun k;
  k.in["x"] = rows_tensor(c.dtype, c.tokens, width, seed, ValueRange{-2, 2}, c.ld);
  k.out["out"] = rows_tensor(c.dtype, c.tokens, width, seed + 1);
  if (c.ids) {
    HostTensor ids(DType::i32, {c.tokens});
    for (int64_t t = 0; t < c.tokens; ++t)
      ids.set({t}, double((t * 7 + 3) % max_pos));
    k.in["positions"] = ids;
  }
  if (c.cache) {
    HostTensor cs(DType::f32, {max_pos, half}), sn(DType::f32, {max_pos, half});
    for (int64_t p = 0; p < max_pos; ++p)
      for (int64_t i = 0; i < half; ++i) {
        const double th = double(p) * std::pow(10000.0, -2.0 * double(i) / double(c.head_dim));
        cs.set({p, i}, std::cos(th));
        sn.set({p, i}, std::sin(th));
      }
    k.in["cos"] = cs;
    k.in["sin"] = sn;
  }
  if (c.norm)
    k.in["weight"] = random_tensor(c.dtype, {c.head_dim}, seed + 2, ValueRange{0.5, 1.5});
  const auto params = [&](std::map<std::string, TensorView>& v) {
    kernels::RopeParams p;
    p.head_dim = c.head_dim;
    p.style = c.style;
    p.position_offset = c.offset;
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
  const TensorView out_host = k.out["out"].view();
  const Reference want =
      c.norm ? oracle::rms_norm_rope({host["x"], host["weight"], out_host, params(host), 1e-6f})
             : oracle::rope({host["x"], out_host, params(host)});
  k.run(
      [&](runtime::Device& d, auto& v) {
        if (c.norm)
          kernels::rms_norm_rope(d, {v["x"], v["weight"], v["out"], params(v), 1e-6f});
        else
          kernels::rope(d, {v["x"], v["out"], params(v)});
      },
      [&](auto& got) {
        check_close(got["out"], want, rope_tolerance(c.dtype, c.norm, c.head_dim));
      });
}

// ---- from test_quant_int8.cpp ----

// Runs quant_int8 on `x` and checks codes and scales against the oracle, and the contract.
inline void check_quant_int8(const HostTensor& x, QuantGranularity g,
                             std::optional<float> given = {}, int64_t ld_q = 0) {
  const int64_t rows = x.shape()[0], k = x.shape()[1];
  CAPTURE(k);
  KernelRun run;
  run.in["x"] = x;
  run.out["q"] = HostTensor(DType::int8, {rows, k}, {ld_q ? ld_q : std::max<int64_t>(k, 1), 1});
  const Extents scale_shape = g == QuantGranularity::rowwise ? Extents{rows} : Extents{1};
  run.out["scale"] = HostTensor(DType::f32, scale_shape);
  const Int8Quantized want =
      oracle::quant_int8({x.view(), run.out["q"].view(), run.out["scale"].view(), g, given});
  run.run(
      [&](runtime::Device& d, auto& v) {
        kernels::quant_int8(d, {v["x"], v["q"], v["scale"], g, given});
      },
      [&](auto& got) {
        const Matrix q = decode_matrix(got["q"].view());
        const std::vector<double> s = decode_flat(got["scale"].view());
        REQUIRE(s.size() == want.scale.size());
        for (size_t i = 0; i < s.size(); ++i)
          CHECK_MESSAGE(s[i] == want.scale[i],
                        "scale " << i << ": got " << s[i] << ", want " << want.scale[i]);
        int64_t wrong = 0, outside = 0;
        const Matrix xv = decode_matrix(x.view());
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < k; ++j) {
            wrong += q.at(i, j) != want.codes.at(i, j);
            const double exact = xv.at(i, j) / scale_at(want.scale, i);
            if (exact > -128.5 && exact < 127.5) // not clamped: within half a code (+ f32 slack)
              outside += std::abs(q.at(i, j) - exact) > 0.5 + 1e-5;
          }
        CHECK_MESSAGE(wrong == 0, wrong << " codes differ from round_half_even(x / s)");
        CHECK_MESSAGE(outside == 0, outside << " codes are more than half a code from x / s");
      });
}

inline void run_dequant(DType in, DType out, int64_t rows, int64_t k, bool rowwise, uint64_t seed) {
  CAPTURE(k);
  KernelRun run;
  run.in["x"] = rows_tensor(in, rows, k, seed);
  run.in["scale"] = random_tensor(DType::f32, {rowwise ? rows : 1}, seed + 1, ValueRange{0.1, 4});
  run.out["out"] = rows_tensor(out, rows, k, seed + 2);
  const Reference want =
      oracle::dequant_fp8({run.in["x"].view(), run.in["scale"].view(), run.out["out"].view()});
  Tolerance tol;
  tol.out = out;
  tol.accumulation = 2 * 0x1p-24; // the f32 product
  run.run(
      [&](runtime::Device& d, auto& v) {
        kernels::dequant_fp8(d, {v["x"], v["scale"], v["out"]});
      },
      [&](auto& got) { check_close(got["out"], want, tol); });
}

// dequant_awq of a [k, n] packed uint4 weight with groups of `group` rows.
inline void run_dequant_awq(DType scale_dtype, DType out, int64_t k, int64_t n, int64_t group,
                            uint64_t seed, int64_t ld_out = 0) {
  CAPTURE(k);
  CAPTURE(n);
  const int64_t groups = (k + group - 1) / group;
  KernelRun run;
  run.in["qweight"] = random_tensor(DType::uint4, {k, n}, seed);
  run.in["zeros"] = random_tensor(DType::uint4, {groups, n}, seed + 1);
  run.in["scales"] = random_tensor(scale_dtype, {groups, n}, seed + 2, ValueRange{0.01, 0.1});
  run.out["out"] = rows_tensor(out, k, n, seed + 3, std::nullopt, ld_out);
  const Reference want =
      oracle::dequant_awq({run.in["qweight"].view(), run.in["zeros"].view(),
                           run.in["scales"].view(), run.out["out"].view(), group});
  Tolerance tol;
  tol.out = out;
  tol.accumulation = 2 * 0x1p-24;
  run.run(
      [&](runtime::Device& d, auto& v) {
        kernels::dequant_awq(d, {v["qweight"], v["zeros"], v["scales"], v["out"], group});
      },
      [&](auto& got) { check_close(got["out"], want, tol); });
}

// quant_fp8_stochastic on x: every code against the oracle (both emitters).
inline void check_fp8_stochastic(const HostTensor& x, DType q_type, uint64_t seed, uint64_t offset,
                                 int block_size = 0) {
  CAPTURE(kernels::dtype_name(q_type));
  CAPTURE(seed);
  CAPTURE(offset);
  const std::vector<uint8_t> want =
      quant_fp8_stochastic(decode_matrix(x.view()), q_type == DType::e5m2, seed, offset);
  KernelRun run;
  run.in["x"] = x;
  run.out["q"] = HostTensor(q_type, x.shape());
  run.run(
      [&](runtime::Device& d, auto& v) {
        kernels::quant_fp8_stochastic(d, {v["x"], v["q"], seed, offset, block_size});
      },
      [&](auto& got) {
        const HostTensor& q = got["q"];
        const int64_t rows = x.shape()[0], cols = x.shape()[1];
        int64_t mismatches = 0;
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j)
            if (q.code({i, j}) != want[size_t(i * cols + j)] && ++mismatches <= 5) {
              CAPTURE(i);
              CAPTURE(j);
              CAPTURE(x.at({i, j}));
              CHECK(q.code({i, j}) == want[size_t(i * cols + j)]);
            }
        CHECK(mismatches == 0);
      });
}

} // namespace tw::oracle
