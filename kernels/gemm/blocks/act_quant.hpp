#pragma once
// The activation-quantization prologue of the fused GEMM kernels (docs/kernels.md "Activation
// quantization"): s_m per row of x (a given tensorwise / rowwise scale, or amax_k |x| / qmax),
// and the rule q = quantize(x * (1 / s_m)) applied on x's way into LDS.
#include <dsl/dsl.hpp>
#include <dsl/handles/convert.hpp>
#include <dsl/handles/nan.hpp>
#include <kernels/gemm/gemm_kernel.hpp>

#include <stdexcept>

namespace tw::kernels::gemm_kernel {

// The largest code magnitude of Q: int8 127, e4m3 448, e5m2 57344.
template <class Q>
constexpr double activation_qmax() {
  if constexpr (std::same_as<Q, dsl::i8>)
    return 127.0;
  else if constexpr (std::same_as<Q, dsl::e4m3>)
    return 448.0;
  else {
    static_assert(std::same_as<Q, dsl::e5m2>, "activation quantization: int8, e4m3 or e5m2");
    return 57344.0;
  }
}

// y (already x * (1 / s_m)) to Q: int8 rounds to nearest even, then clamps to [-128, 127];
// fp8 rounds to nearest even and saturates.
template <class Q>
dsl::Scalar<Q> quantize_activation(const dsl::Float32& y) {
  using namespace tw::dsl;
  if constexpr (std::same_as<Q, i8>)
    return cast<i8>(cast<i32>(round_half_even(min(max(y, Float32(-128.0)), Float32(127.0)))));
  else
    return convert_rne<Q>(y, /*saturate=*/true);
}

// Thread t < rows computes s_m of row tile_m * rows + t of x [m, k] (leading stride ldx, m >= 1)
// and stores s_m in row 0 and 1 / s_m in row 1 of `sq` (2 x rows f32 in LDS), then all `threads`
// (>= rows) meet at a barrier. `given` is the caller's scale (given modes), `scale_out` receives
// s_m (dynamic mode, when asked; written by the workgroups of the first column of tiles only). The
// dynamic amax reads 128 bits at a time when x's rows are 16-byte aligned (`x_vec_aligned`); a
// thread past the last row reads row m - 1 instead (no per-load masks; its scale is never used).
template <class Q, class X, class Tile>
void activation_scales(ActQuant mode, bool write_scale_out, const Tile& sq,
                       const dsl::GlobalPtr<X>& x, const dsl::GlobalPtr<dsl::f32>& given,
                       const dsl::GlobalPtr<dsl::f32>& scale_out, const dsl::Int64& m,
                       const dsl::Int64& k, const dsl::Int64& ldx, const dsl::Int32& tile_m,
                       const dsl::Int32& tile_n, bool x_vec_aligned, int threads) {
  using namespace tw::dsl;
  if (threads < Tile::cols)
    throw std::logic_error("activation_scales: fewer threads than the block tile's rows");
  const Int32 t = thread_id();
  const auto row_scale = [&] {
    const Int64 row = cast<i64>(tile_m) * Int64(Tile::cols) + cast<i64>(t);
    const Bool valid = row < m;
    Float32 s;
    if (mode == ActQuant::given_tensorwise) {
      s = given.load(Int64(0));
    } else if (mode == ActQuant::given_rowwise) {
      s = select(valid, given.load(row, valid), Float32(1.0));
    } else {
      const Int64 base = min(row, m - Int64(1)) * ldx;
      const auto abs_max = [](const Float32& acc, const Scalar<X>& v) { // a NaN row stays NaN
        return max_propagating_nan(acc, abs(cast<f32>(v)));
      };
      constexpr int vec = 128 / X::bits;
      const Int64 k_vec = x_vec_aligned ? k / Int64(vec) * Int64(vec) : Int64(0);
      const auto [vec_max] =
          for_range(Int64(0), k_vec, Int64(vec), carry(Float32(0.0)), [&](Int64 i, Float32 mx) {
            const Vec<X, vec> v = x.template load_vec<vec>(base + i, 16);
            for (int j = 0; j < vec; ++j)
              mx = abs_max(mx, v[j]);
            return carry(mx);
          });
      const auto [amax] = for_range(k_vec, k, Int64(1), carry(vec_max), [&](Int64 i, Float32 mx) {
        return carry(abs_max(mx, x.load(base + i)));
      });
      s = select(amax == Float32(0.0), Float32(1.0), amax / Float32(activation_qmax<Q>()));
      if (write_scale_out)
        if_(valid && tile_n == 0, [&] { scale_out.store(row, s); });
    }
    sq.store(Int32(0), t, s);
    sq.store(Int32(1), t, Float32(1.0) / s);
  };
  if (threads == Tile::cols)
    row_scale();
  else
    if_(t < Int32(Tile::cols), row_scale);
  lds_barrier();
}

} // namespace tw::kernels::gemm_kernel
