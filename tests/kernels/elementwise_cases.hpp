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

inline void run_adaln(DType dt, DType out, int64_t rows, int64_t width, uint64_t seed,
                      int64_t ld = 0) {
  CAPTURE(width);
  KernelRun k;
  k.in["x"] = rows_tensor(dt, rows, width, seed, ValueRange{-2, 4});
  k.in["scale"] = rows_tensor(dt, rows, width, seed + 1, ValueRange{-0.5, 0.5}, ld);
  k.in["shift"] = rows_tensor(dt, rows, width, seed + 2, ValueRange{-1, 1});
  k.out["out"] = rows_tensor(out, rows, width, seed + 3);
  const Reference want = oracle::adaln(
      {k.in["x"].view(), k.in["scale"].view(), k.in["shift"].view(), k.out["out"].view(), 1e-6f});
  k.run(
      [&](runtime::Device& d, auto& v) {
        kernels::adaln(d, {v["x"], v["scale"], v["shift"], v["out"], 1e-6f});
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
  int block = 0; // block_size (0: the default)
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
          kernels::rms_norm_rope(d, {v["x"], v["weight"], v["out"], params(v), 1e-6f, c.block});
        else
          kernels::rope(d, {v["x"], v["out"], params(v), c.block});
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
  // Rows start on a byte: an odd N leaves a pad nibble (the library's 4-bit packing).
  const Extents packed_strides{std::max<int64_t>(n + n % 2, 2), 1};
  run.in["qweight"] = random_tensor(DType::uint4, {k, n}, seed, std::nullopt, packed_strides);
  run.in["zeros"] =
      random_tensor(DType::uint4, {groups, n}, seed + 1, std::nullopt, packed_strides);
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

// ---- from test_quant_int4.cpp ----

// Matrices equal element by element (codes, zero points, stored scales: exact).
inline void check_exact(const char* what, const Matrix& got, const Matrix& want) {
  REQUIRE(got.rows == want.rows);
  REQUIRE(got.cols == want.cols);
  int64_t wrong = 0;
  for (int64_t i = 0; i < got.rows; ++i)
    for (int64_t j = 0; j < got.cols; ++j)
      if (got.at(i, j) != want.at(i, j) && !(std::isnan(got.at(i, j)) && std::isnan(want.at(i, j))))
        if (wrong++ < 3)
          MESSAGE(what << " [" << i << ", " << j << "]: got " << got.at(i, j) << ", want "
                       << want.at(i, j));
  CHECK_MESSAGE(wrong == 0, wrong << " elements of " << what << " differ");
}

// Packed 4-bit codes [rows, K] with row stride ld (even; 0: K rounded up to even).
inline HostTensor packed_codes(DType dtype, int64_t rows, int64_t k, int64_t ld = 0) {
  return HostTensor(dtype, {rows, k}, {ld ? ld : std::max<int64_t>(k + k % 2, 2), 1});
}

// The contract on packed codes: equal to the oracle's, within half a code of x / s' - z where
// not clamped, the pad nibble of an odd row written 0 and the bytes between rows untouched.
inline void check_int4_codes(const HostTensor& got, const HostTensor& before, const Matrix& x,
                             const Int4Quantized& want, int64_t group) {
  check_exact("q", decode_matrix(got.view()), want.codes);
  const bool asymmetric = got.dtype() == DType::uint4;
  const int64_t g = group == 0 ? std::max<int64_t>(x.cols, 1) : group;
  const int64_t ld_bytes = got.strides()[0] / 2, row_bytes = (x.cols + 1) / 2;
  int64_t outside = 0, pad = 0, gaps = 0;
  for (int64_t i = 0; i < x.rows; ++i) {
    for (int64_t j = 0; j < x.cols; ++j) {
      const double s = want.used.at(i, j / g), z = want.zeros.at(i, j / g);
      const double exact = s == 0 ? 0 : x.at(i, j) / s + z;
      const double lo = asymmetric ? 0 : -8, hi = asymmetric ? 15 : 7;
      if (exact > lo - 0.5 && exact < hi + 0.5)
        outside += std::abs(want.codes.at(i, j) - exact) > 0.5 + 1e-5;
    }
    if (x.cols % 2 == 1)
      pad += (got.bytes()[size_t(i * ld_bytes + row_bytes - 1)] >> 4) != 0;
    if (i + 1 < x.rows)
      for (int64_t b = row_bytes; b < ld_bytes; ++b)
        gaps += got.bytes()[size_t(i * ld_bytes + b)] != before.bytes()[size_t(i * ld_bytes + b)];
  }
  CHECK_MESSAGE(outside == 0, outside << " codes are more than half a code from x / s' + z");
  CHECK_MESSAGE(pad == 0, pad << " rows have a non-zero pad nibble past an odd K");
  CHECK_MESSAGE(gaps == 0, gaps << " bytes between the rows of q were written");
}

inline void check_svdquant(const HostTensor& x, int64_t group, int64_t ld_q = 0, int block = 0) {
  const int64_t rows = x.shape()[0], k = x.shape()[1], groups = (k + group - 1) / group;
  CAPTURE(k);
  CAPTURE(group);
  KernelRun run;
  run.in["x"] = x;
  run.out["q"] = packed_codes(DType::int4, rows, k, ld_q);
  for (uint8_t& b : run.out["q"].bytes())
    b = 0xA5; // so that untouched bytes are told from written ones
  run.out["scale"] = HostTensor(x.dtype(), {rows, groups});
  const HostTensor before = run.out["q"];
  const Int4Quantized want = oracle::quant_svdquant(
      {x.view(), run.out["q"].view(), run.out["scale"].view(), group, block});
  run.run(
      [&](runtime::Device& d, auto& v) {
        kernels::quant_svdquant(d, {v["x"], v["q"], v["scale"], group, block});
      },
      [&](auto& got) {
        check_exact("scale", decode_matrix(got["scale"].view()), want.group_scale);
        check_int4_codes(got["q"], before, decode_matrix(x.view()), want, group);
      });
}

inline void check_w4a8(const HostTensor& x, int mode, int64_t group,
                       DType group_scale = DType::e4m3, bool correction = true, int block = 0) {
  const int64_t rows = x.shape()[0], k = x.shape()[1];
  const int64_t groups = mode == 0 ? 1 : (k + group - 1) / group;
  CAPTURE(k);
  CAPTURE(mode);
  CAPTURE(group);
  KernelRun run;
  run.in["x"] = x;
  run.out["q"] = packed_codes(mode == 2 ? DType::uint4 : DType::int4, rows, k);
  for (uint8_t& b : run.out["q"].bytes())
    b = 0x5A;
  run.out["scale"] = HostTensor(DType::f32, {rows});
  if (mode != 0)
    run.out["group_scale"] = HostTensor(group_scale, {rows, groups});
  if (mode == 2) {
    run.out["zeros"] = HostTensor(DType::uint8, {rows, groups});
    if (correction)
      run.out["correction"] = HostTensor(DType::f32, {rows, groups});
  }
  const HostTensor before = run.out["q"];
  const auto args = [&](std::map<std::string, TensorView>& v) {
    kernels::QuantW4a8Args a{v["x"], v["q"], v["scale"]};
    if (mode != 0)
      a.group_scale = v["group_scale"];
    if (mode == 2) {
      a.zeros = v["zeros"];
      if (correction)
        a.correction = v["correction"];
    }
    a.mode = mode;
    a.group_size = group;
    a.block_size = block;
    return a;
  };
  std::map<std::string, TensorView> host;
  for (auto& [n, t] : run.in)
    host[n] = t.view();
  for (auto& [n, t] : run.out)
    host[n] = t.view();
  const Int4Quantized want = oracle::quant_w4a8(args(host));
  run.run(
      [&](runtime::Device& d, auto& v) { kernels::quant_w4a8(d, args(v)); },
      [&](auto& got) {
        const std::vector<double> s = decode_flat(got["scale"].view());
        Matrix sm(rows, 1), wm(rows, 1);
        for (int64_t i = 0; i < rows; ++i) {
          sm.at(i, 0) = s[size_t(i)];
          wm.at(i, 0) = want.row_scale[size_t(i)];
        }
        check_exact("scale", sm, wm);
        if (mode != 0)
          check_exact("group_scale", decode_matrix(got["group_scale"].view()), want.group_scale);
        if (mode == 2) {
          check_exact("zeros", decode_matrix(got["zeros"].view()), want.zeros);
          if (correction)
            check_exact("correction", decode_matrix(got["correction"].view()), want.correction);
        }
        check_int4_codes(got["q"], before, decode_matrix(x.view()), want, mode == 0 ? 0 : group);
      });
}

// ---- from test_quant_convrot.cpp ----

// quant_convrot against the float64 rotation: the scale within the f32 error of the exact
// amax / 127, every code within half a code of y / s (s: the scale returned) plus the f32
// error of the butterfly, and the bytes between rows untouched.
inline void check_convrot(const HostTensor& x, int64_t group, int64_t ld_q = 0, int block = 0) {
  const int64_t rows = x.shape()[0], k = x.shape()[1];
  const int64_t width = kernels::convrot_width(k, group);
  CAPTURE(k);
  CAPTURE(group);
  KernelRun run;
  run.in["x"] = x;
  run.out["q"] = rows_tensor(DType::int8, rows, width, 99, ValueRange{-100, 100}, ld_q);
  run.out["scale"] = HostTensor(DType::f32, {rows});
  const HostTensor before = run.out["q"];
  const ConvrotReference want =
      oracle::quant_convrot({x.view(), run.out["q"].view(), run.out["scale"].view(), group, block});
  run.run(
      [&](runtime::Device& d, auto& v) {
        kernels::quant_convrot(d, {v["x"], v["q"], v["scale"], group, block});
      },
      [&](auto& got) {
        const Matrix q = decode_matrix(got["q"].view());
        const std::vector<double> s = decode_flat(got["scale"].view());
        int64_t bad_scale = 0, outside = 0;
        for (int64_t i = 0; i < rows; ++i) {
          const double err = want.f32_error[size_t(i)];
          bad_scale += std::abs(s[size_t(i)] - want.scale[size_t(i)]) >
                       err / 127 + 0x1p-22 * want.scale[size_t(i)];
          for (int64_t j = 0; j < width; ++j)
            if (std::abs(q.at(i, j) - want.rotated.at(i, j) / s[size_t(i)]) >
                0.5 + err / s[size_t(i)] + 1e-5) {
              if (outside++ < 3)
                MESSAGE("q [" << i << ", " << j << "] = " << q.at(i, j)
                              << ", y / s = " << want.rotated.at(i, j) / s[size_t(i)]);
            }
        }
        CHECK_MESSAGE(bad_scale == 0, bad_scale << " row scales are off amax / 127");
        CHECK_MESSAGE(outside == 0, outside << " codes are more than half a code from y / s");
        check_untouched_gaps(got["q"], before);
      });
}

} // namespace tw::oracle
