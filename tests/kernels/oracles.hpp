#pragma once
// Numeric references of the kernel library (GEMM family, issue 6; attention, issue 10, in
// oracles/attention.hpp), plus the accuracy contract of shared/KERNELS.md and fixed-seed
// input generators.
//
// Every reference reads its inputs from host TensorViews, decodes each element exactly with
// tw::num (through tw::kernels::load_element) and computes in float64. It takes the same
// argument struct as the kernel's entry point (kernels/gemm/gemm_api.hpp) with host views,
// so a test fills HostTensors once, runs the oracle on them and copies the same bytes to
// the device for the kernel. The result is the exact value before output rounding, plus
// the magnitudes that bound the error a correct f32-accumulating kernel may make.
#include <kernels/common/host_tensor.hpp>
#include <kernels/gemm/gemm_api.hpp>

#include <atoms/formats.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tw::oracle {

using kernels::DType;
using kernels::Extents;
using kernels::HostTensor;
using kernels::TensorView;

// A dense row-major matrix of doubles.
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<double> v;
  Matrix() = default;
  Matrix(int64_t r, int64_t c, double fill = 0.0) : rows(r), cols(c), v(size_t(r * c), fill) {}
  double& at(int64_t i, int64_t j) { return v[size_t(i * cols + j)]; }
  double at(int64_t i, int64_t j) const { return v[size_t(i * cols + j)]; }
};

// What a reference returns. `value` is exact (float64 on the decoded inputs, before output
// rounding). `accum_magnitude` is the sum of |terms| of each element (main product, LoRA and
// epilogue terms alike), which bounds the f32 accumulation error. `lora_magnitude` is the
// part of it that flows through the LoRA intermediate t = x @ down^T, which a kernel may
// hold in the activation dtype (its rounding is a separate tolerance term).
struct Reference {
  Matrix value;
  Matrix accum_magnitude;
  Matrix lora_magnitude;
};

// ---- decoding -----------------------------------------------------------------------------

inline Matrix decode_matrix(const TensorView& t) {
  if (t.rank() != 2)
    throw std::invalid_argument("decode_matrix: rank " + std::to_string(t.rank()) + " view");
  Matrix m(t.shape[0], t.shape[1]);
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t j = 0; j < m.cols; ++j) {
      const int64_t idx[2] = {i, j};
      m.at(i, j) = kernels::load_element(t, idx);
    }
  return m;
}

// All elements in row-major order of the logical index (any rank, scalars included).
inline std::vector<double> decode_flat(const TensorView& t) {
  std::vector<double> out;
  out.reserve(size_t(std::max<int64_t>(t.numel(), 0)));
  Extents idx(t.shape.size(), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    out.push_back(kernels::load_element(t, idx));
    for (int d = t.rank() - 1; d >= 0; --d) {
      if (++idx[size_t(d)] < t.shape[size_t(d)])
        break;
      idx[size_t(d)] = 0;
    }
  }
  return out;
}

// Scale of row/column i of a tensorwise (one element) or rowwise scale tensor.
inline double scale_at(const std::vector<double>& s, int64_t i) {
  return s.size() == 1 ? s[0] : s[size_t(i)];
}

// ---- building blocks ----------------------------------------------------------------------

// value[i, j] = sum_k a[i, k] * b[k, j] and |terms| for the error bound.
inline Reference matmul(const Matrix& a, const Matrix& b) {
  Reference r{Matrix(a.rows, b.cols), Matrix(a.rows, b.cols), Matrix(a.rows, b.cols)};
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < b.cols; ++j) {
      double s = 0, m = 0;
      for (int64_t k = 0; k < a.cols; ++k) {
        s += a.at(i, k) * b.at(k, j);
        m += std::abs(a.at(i, k) * b.at(k, j));
      }
      r.value.at(i, j) = s;
      r.accum_magnitude.at(i, j) = m;
    }
  return r;
}

inline Matrix transpose(const Matrix& a) {
  Matrix t(a.cols, a.rows);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j)
      t.at(j, i) = a.at(i, j);
  return t;
}

// r = r * scale_a(i) * scale_b(j) (both magnitudes scale too).
inline void apply_scales(Reference& r, const std::vector<double>& sa,
                         const std::vector<double>& sb) {
  for (int64_t i = 0; i < r.value.rows; ++i)
    for (int64_t j = 0; j < r.value.cols; ++j) {
      const double s = scale_at(sa, i) * scale_at(sb, j);
      r.value.at(i, j) *= s;
      r.accum_magnitude.at(i, j) *= std::abs(s);
      r.lora_magnitude.at(i, j) *= std::abs(s);
    }
}

inline void add_bias(Reference& r, const std::optional<TensorView>& bias) {
  if (!bias)
    return;
  const std::vector<double> b = decode_flat(*bias);
  for (int64_t i = 0; i < r.value.rows; ++i)
    for (int64_t j = 0; j < r.value.cols; ++j) {
      r.value.at(i, j) += b[size_t(j)];
      r.accum_magnitude.at(i, j) += std::abs(b[size_t(j)]);
    }
}

// out += lora.scale * (x @ down^T) @ up^T, with x the unquantized activation.
inline void add_lora(Reference& r, const Matrix& x, const std::optional<kernels::LoraArgs>& lora) {
  if (!lora)
    return;
  const Matrix down = decode_matrix(lora->down);  // [R, K]
  const Matrix up = decode_matrix(lora->up);      // [N, R]
  const Reference t = matmul(x, transpose(down)); // [M, R]
  const double s = lora->scale;
  for (int64_t i = 0; i < r.value.rows; ++i)
    for (int64_t j = 0; j < r.value.cols; ++j) {
      double v = 0, mag = 0, through_t = 0;
      for (int64_t q = 0; q < t.value.cols; ++q) {
        v += t.value.at(i, q) * up.at(j, q);
        mag += t.accum_magnitude.at(i, q) * std::abs(up.at(j, q));
        through_t += std::abs(t.value.at(i, q) * up.at(j, q));
      }
      r.value.at(i, j) += s * v;
      r.accum_magnitude.at(i, j) += std::abs(s) * mag;
      r.lora_magnitude.at(i, j) += std::abs(s) * through_t;
    }
}

// ---- activation quantization (the fused kernels' prologue; docs/kernels.md) ----------------

struct QuantizedActivation {
  Matrix q;                    // decoded codes (exact values of the quantized dtype)
  std::vector<double> scale;   // s_m per row (one element when tensorwise)
  std::vector<uint32_t> codes; // row-major codes of q
};

// Largest magnitude the quantized dtype saturates to: 448 (e4m3), 57344 (e5m2), 127 (int8).
inline float quant_max(DType t) {
  switch (t) {
  case DType::e4m3:
    return 448.0f;
  case DType::e5m2:
    return 57344.0f;
  case DType::int8:
    return 127.0f;
  default:
    throw std::invalid_argument("quant_max: activation quantization targets e4m3, e5m2 or int8");
  }
}

// The rule, in f32 exactly as the kernel computes it:
//   s_m   = given scale, or (dynamic_rowwise) amax_m / qmax in f32, or 1 when amax_m = 0
//   inv_m = 1.0f / s_m (f32), y = float(x) * inv_m (f32)
//   q     = round to nearest even, saturate to the dtype's finite range (int8: clamp
//           [-128, 127]).
inline QuantizedActivation quantize_activation(const TensorView& x,
                                               const kernels::ActivationQuant& quant) {
  const Matrix xv = decode_matrix(x);
  QuantizedActivation out{Matrix(xv.rows, xv.cols), {}, {}};
  const float qmax = quant_max(quant.dtype);
  if (quant.mode == kernels::ActQuantMode::given_scale) {
    for (double s : decode_flat(*quant.scale))
      out.scale.push_back(s);
  } else {
    for (int64_t i = 0; i < xv.rows; ++i) {
      float amax = 0.0f;
      for (int64_t k = 0; k < xv.cols; ++k)
        amax = std::max(amax, std::abs(float(xv.at(i, k))));
      out.scale.push_back(amax == 0.0f ? 1.0 : double(amax / qmax));
    }
  }
  for (int64_t i = 0; i < xv.rows; ++i) {
    const float inv = 1.0f / float(scale_at(out.scale, i));
    for (int64_t k = 0; k < xv.cols; ++k) {
      const float y = float(xv.at(i, k)) * inv;
      uint32_t code = 0;
      if (quant.dtype == DType::e4m3)
        code = num::f32_to_e4m3(y, num::Saturate::yes);
      else if (quant.dtype == DType::e5m2)
        code = num::f32_to_e5m2(y, num::Saturate::yes);
      else
        code = uint8_t(num::f32_to_int8(y));
      out.codes.push_back(code);
      out.q.at(i, k) = double(num::decode(*kernels::num_format(quant.dtype), code));
    }
  }
  return out;
}

// ---- the GEMM family references -----------------------------------------------------------

// out = alpha * (a @ b) + beta * c + bias
inline Reference gemm(const kernels::GemmArgs& args) {
  Reference r = matmul(decode_matrix(args.a), decode_matrix(args.b));
  const Matrix c = args.c ? decode_matrix(*args.c) : Matrix(r.value.rows, r.value.cols);
  for (int64_t i = 0; i < r.value.rows; ++i)
    for (int64_t j = 0; j < r.value.cols; ++j) {
      const double cv = args.beta != 0.0f ? double(args.beta) * c.at(i, j) : 0.0;
      r.value.at(i, j) = double(args.alpha) * r.value.at(i, j) + cv;
      r.accum_magnitude.at(i, j) =
          std::abs(double(args.alpha)) * r.accum_magnitude.at(i, j) + std::abs(cv);
    }
  add_bias(r, args.bias);
  return r;
}

// out = (a @ b) * scale_a(m) * scale_b(n) + bias
inline Reference scaled_mm(const kernels::ScaledMmArgs& args) {
  Reference r = matmul(decode_matrix(args.a), decode_matrix(args.b));
  apply_scales(r, decode_flat(args.scale_a), decode_flat(args.scale_b));
  add_bias(r, args.bias);
  return r;
}

inline std::vector<Reference> scaled_mm_multi(const kernels::ScaledMmMultiArgs& args) {
  std::vector<Reference> out;
  for (const kernels::ScaledMmArgs& p : args.problems)
    out.push_back(scaled_mm(p));
  return out;
}

// out = (q(x) @ b) * s_m * scale_b(n) + bias + LoRA
inline Reference scaled_mm_fused_quant(const kernels::ScaledMmFusedQuantArgs& args) {
  const QuantizedActivation qa = quantize_activation(args.x, args.quant);
  Reference r = matmul(qa.q, decode_matrix(args.b));
  apply_scales(r, qa.scale, decode_flat(args.scale_b));
  add_bias(r, args.bias);
  add_lora(r, decode_matrix(args.x), args.lora);
  return r;
}

// out = scale[n] * sum_k x[m, k] * weight[n, k] + bias
inline Reference w8a16(const kernels::W8A16Args& args) {
  Reference r = matmul(decode_matrix(args.x), transpose(decode_matrix(args.weight)));
  apply_scales(r, {1.0}, decode_flat(args.scale));
  add_bias(r, args.bias);
  return r;
}

// The exact integer accumulator sum_k x[m, k] * weight[n, k] (i32 in the kernel).
inline Matrix int8_accumulator(const Matrix& x, const Matrix& weight) {
  Matrix acc(x.rows, weight.rows);
  for (int64_t i = 0; i < x.rows; ++i)
    for (int64_t j = 0; j < weight.rows; ++j) {
      int64_t s = 0;
      for (int64_t k = 0; k < x.cols; ++k)
        s += int64_t(x.at(i, k)) * int64_t(weight.at(j, k));
      acc.at(i, j) = double(s);
    }
  return acc;
}

// An exact integer sum scaled in the epilogue: its only f32 errors are the conversion of the
// accumulator and the epilogue products, so the magnitude is |value| (not sum |terms|).
inline Reference scaled_integer_product(const Matrix& acc, const std::vector<double>& sa,
                                        const std::vector<double>& sb) {
  Reference r{acc, Matrix(acc.rows, acc.cols), Matrix(acc.rows, acc.cols)};
  for (size_t e = 0; e < acc.v.size(); ++e)
    r.accum_magnitude.v[e] = std::abs(acc.v[e]);
  apply_scales(r, sa, sb);
  return r;
}

// out = float(sum_k x * weight) * x_scale(m) * w_scale(n) + bias
inline Reference int8_linear(const kernels::Int8LinearArgs& args) {
  Reference r =
      scaled_integer_product(int8_accumulator(decode_matrix(args.x), decode_matrix(args.weight)),
                             decode_flat(args.x_scale), decode_flat(args.w_scale));
  add_bias(r, args.bias);
  return r;
}

inline Reference int8_linear_fused(const kernels::Int8LinearFusedArgs& args) {
  const QuantizedActivation qa = quantize_activation(args.x, args.quant);
  Reference r = scaled_integer_product(int8_accumulator(qa.q, decode_matrix(args.weight)), qa.scale,
                                       decode_flat(args.w_scale));
  add_bias(r, args.bias);
  add_lora(r, decode_matrix(args.x), args.lora);
  return r;
}

// Exact: sum_k a[m, k] * b[k, n] with each nibble signed (int4) or unsigned (uint4).
inline Reference iu4_gemm(const kernels::Iu4GemmArgs& args) {
  const Matrix acc = int8_accumulator(decode_matrix(args.a), transpose(decode_matrix(args.b)));
  return Reference{acc, Matrix(acc.rows, acc.cols), Matrix(acc.rows, acc.cols)};
}

// sum over 32-element K blocks of 2^ea[m, blk] * 2^eb[n, blk] * (block partial product).
inline Reference mxfp8_gemm(const kernels::Mxfp8GemmArgs& args) {
  const Matrix a = decode_matrix(args.a), b = decode_matrix(args.b);
  const Matrix sa = decode_matrix(args.scale_a), sb = decode_matrix(args.scale_b);
  Reference r{Matrix(a.rows, b.cols), Matrix(a.rows, b.cols), Matrix(a.rows, b.cols)};
  const int64_t bs = kernels::mx_block_size;
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < b.cols; ++j) {
      double v = 0, mag = 0;
      for (int64_t k0 = 0; k0 < a.cols; k0 += bs) {
        double part = 0, part_mag = 0;
        for (int64_t k = k0; k < std::min(a.cols, k0 + bs); ++k) {
          part += a.at(i, k) * b.at(k, j);
          part_mag += std::abs(a.at(i, k) * b.at(k, j));
        }
        const double s = sa.at(i, k0 / bs) * sb.at(j, k0 / bs);
        v += s * part;
        mag += std::abs(s) * part_mag;
      }
      r.value.at(i, j) = v;
      r.accum_magnitude.at(i, j) = mag;
    }
  add_bias(r, args.bias);
  return r;
}

// ---- output rounding ----------------------------------------------------------------------

// The value `x` has once stored in `out` (rounded once from float64, nearest even; i32 and
// the integer types round half to even and clamp).
inline double round_to(DType out, double x) {
  HostTensor one(out, {1});
  one.set({0}, x);
  return one.at({0});
}

inline Matrix round_to(DType out, const Matrix& m) {
  Matrix r = m;
  for (double& x : r.v)
    x = round_to(out, x);
  return r;
}

// ---- the accuracy contract (shared/KERNELS.md "Shared rules") ------------------------------

// Mantissa bits and smallest normal exponent of a float dtype.
struct FloatShape {
  int mantissa_bits;
  int min_normal_exponent;
};
inline FloatShape float_shape(DType t) {
  switch (t) {
  case DType::f32:
    return {23, -126};
  case DType::f16:
    return {10, -14};
  case DType::bf16:
    return {7, -126};
  case DType::e4m3:
    return {3, -6};
  case DType::e5m2:
    return {2, -14};
  default:
    throw std::invalid_argument("ulp: " + std::string(kernels::dtype_name(t)) +
                                " is not a float format with a fixed ulp");
  }
}

// One step of `t` at magnitude |x|: 2^(floor(log2|x|) - mantissa bits), constant below the
// smallest normal. Near 1.0: 2^-10 f16, 2^-7 bf16, 2^-3 e4m3, 2^-2 e5m2, 2^-23 f32; it doubles
// each time the value doubles. Integer dtypes: 1.
inline double ulp(DType t, double x) {
  if (kernels::dtype_info(t).is_integer)
    return 1.0;
  const FloatShape f = float_shape(t);
  int e = f.min_normal_exponent;
  if (std::isfinite(x) && x != 0.0) {
    int exp2 = 0;
    std::frexp(std::abs(x), &exp2); // |x| = m * 2^exp2, m in [0.5, 1)
    e = std::max(exp2 - 1, f.min_normal_exponent);
  }
  return std::ldexp(1.0, e - f.mantissa_bits);
}

// int8 quantization outputs are within half a code: max|x| / 254 (in the dequantized units).
inline double int8_half_code(double amax) {
  return amax / 254.0;
}

// Relative error bound of an f32 sum of k terms in any order (k * 2^-24 of sum |terms|), plus
// a few roundings of the epilogue (scales, bias, alpha / beta).
inline double f32_accumulation(int64_t k) {
  return double(k + 4) * 0x1p-24;
}

// tolerance(i, j) = ulps * ulp(out, |want|) + accumulation * accum_magnitude
//                   + intermediate * lora_magnitude + absolute
struct Tolerance {
  DType out = DType::f32;
  double ulps = 1.0;
  double accumulation = 0.0; // e.g. f32_accumulation(K); 0 for exact integer results
  double intermediate = 0.0; // e.g. 2^-11 (f16) / 2^-8 (bf16) when LoRA's t is rounded
  double absolute = 0.0;

  // The contract for a float output: one ulp of the output format plus the f32 sum bound.
  static Tolerance for_output(DType out, int64_t k) {
    Tolerance t;
    t.out = out;
    t.accumulation = f32_accumulation(k);
    return t;
  }
  // Integer results are exact.
  static Tolerance exact(DType out = DType::i32) {
    Tolerance t;
    t.out = out;
    t.ulps = 0.0;
    return t;
  }
};

struct CompareResult {
  bool ok = true;
  int64_t mismatches = 0;
  int64_t elements = 0;
  // The element with the largest error / tolerance (the first when tied).
  int64_t worst_row = -1, worst_col = -1;
  double worst_got = 0, worst_want = 0, worst_tolerance = 0, worst_error = 0;

  std::string summary() const {
    if (elements == 0)
      return "no elements compared";
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "%s: %lld of %lld elements outside tolerance; worst at (%lld, %lld): got %.9g, "
                  "want %.9g, |error| %.3g, tolerance %.3g",
                  ok ? "ok" : "MISMATCH", static_cast<long long>(mismatches),
                  static_cast<long long>(elements), static_cast<long long>(worst_row),
                  static_cast<long long>(worst_col), worst_got, worst_want, worst_error,
                  worst_tolerance);
    return buf;
  }
};

// Compares a kernel's output (decoded) against a reference. NaN must meet NaN and an
// infinity the same infinity; a shape mismatch is an error, not a mismatch.
inline CompareResult compare(const Matrix& got, const Reference& want, const Tolerance& tol) {
  if (got.rows != want.value.rows || got.cols != want.value.cols)
    throw std::invalid_argument("compare: got [" + std::to_string(got.rows) + ", " +
                                std::to_string(got.cols) + "], reference [" +
                                std::to_string(want.value.rows) + ", " +
                                std::to_string(want.value.cols) + "]");
  CompareResult r;
  double worst_ratio = -1.0;
  for (int64_t i = 0; i < got.rows; ++i)
    for (int64_t j = 0; j < got.cols; ++j) {
      const double g = got.at(i, j), w = want.value.at(i, j);
      const double limit = tol.ulps * ulp(tol.out, w) +
                           tol.accumulation * want.accum_magnitude.at(i, j) +
                           tol.intermediate * want.lora_magnitude.at(i, j) + tol.absolute;
      double err = 0, ratio = 0;
      bool bad = false;
      if (std::isnan(w) || std::isnan(g)) {
        bad = std::isnan(w) != std::isnan(g);
        err = bad ? std::numeric_limits<double>::infinity() : 0.0;
      } else if (std::isinf(w) || std::isinf(g)) {
        bad = g != w;
        err = bad ? std::numeric_limits<double>::infinity() : 0.0;
      } else {
        err = std::abs(g - w);
        bad = err > limit;
      }
      ratio = limit > 0 ? err / limit : (err > 0 ? std::numeric_limits<double>::infinity() : 0.0);
      ++r.elements;
      if (bad) {
        r.ok = false;
        ++r.mismatches;
      }
      if (ratio > worst_ratio) {
        worst_ratio = ratio;
        r.worst_row = i;
        r.worst_col = j;
        r.worst_got = g;
        r.worst_want = w;
        r.worst_tolerance = limit;
        r.worst_error = err;
      }
    }
  return r;
}

// ---- fixed-seed inputs that are exactly representable -------------------------------------

// splitmix64: a tiny generator whose output is fully specified (std distributions are not
// the same across standard libraries, so they would not give fixed inputs everywhere).
class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform(double lo, double hi) { // [lo, hi)
    return lo + (hi - lo) * (double(next() >> 11) * 0x1p-53);
  }
  int64_t integer(int64_t lo, int64_t hi) { // [lo, hi]
    return lo + int64_t(next() % uint64_t(hi - lo + 1));
  }

private:
  uint64_t state_;
};

struct ValueRange {
  double lo, hi;
};

// Default ranges: floats in [-1, 1] (fp8 [-2, 2]), the full range of the small integer types,
// i32 in [-1000, 1000], e8m0 scales 2^-3 .. 2^3.
inline ValueRange default_range(DType t) {
  switch (t) {
  case DType::e4m3:
  case DType::e5m2:
    return {-2.0, 2.0};
  case DType::e8m0:
    return {0.125, 8.0};
  case DType::int8:
    return {-128, 127};
  case DType::uint8:
    return {0, 255};
  case DType::int4:
    return {-8, 7};
  case DType::uint4:
    return {0, 15};
  case DType::i32:
    return {-1000, 1000};
  default:
    return {-1.0, 1.0};
  }
}

// A tensor of `dtype` whose every element is drawn from `range` and stored exactly: floats
// are rounded once to the dtype (so the decoded value is what the kernel sees), integers and
// e8m0 exponents are drawn directly. Empty `strides` = row-major contiguous.
inline HostTensor random_tensor(DType dtype, Extents shape, uint64_t seed,
                                std::optional<ValueRange> range = std::nullopt,
                                Extents strides = {}) {
  HostTensor t(dtype, std::move(shape), std::move(strides));
  const ValueRange r = range.value_or(default_range(dtype));
  Rng rng(seed);
  const TensorView v = t.view();
  Extents idx(v.shape.size(), 0);
  for (int64_t n = 0; n < v.numel(); ++n) {
    double x;
    if (dtype == DType::e8m0)
      x = std::ldexp(1.0, int(rng.integer(std::ilogb(r.lo), std::ilogb(r.hi))));
    else if (kernels::dtype_info(dtype).is_integer)
      x = double(rng.integer(int64_t(std::ceil(r.lo)), int64_t(std::floor(r.hi))));
    else
      x = rng.uniform(r.lo, r.hi);
    kernels::store_element(v, idx, x);
    for (int d = v.rank() - 1; d >= 0; --d) {
      if (++idx[size_t(d)] < v.shape[size_t(d)])
        break;
      idx[size_t(d)] = 0;
    }
  }
  return t;
}

} // namespace tw::oracle

// The attention family (one file per family, so the families do not collide).
#include "oracles/attention.hpp"
#include "oracles/elementwise.hpp"
#include "oracles/linear_attn.hpp"
#include "oracles/qk_norm_quant.hpp"
#include "oracles/paged_attention.hpp"
#include "oracles/quant.hpp"
