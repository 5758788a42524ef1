#pragma once
// The epilogue block of the GEMM composition: from the main loop's accumulator to the output
// tile. Per value: dequantization by the activation scale (quantizing kernels), the tensor- or
// row-wise scales of a and b, alpha, beta * C, then (fused kernels) the LoRA block, the bias
// and the conversion to the output dtype; integer outputs (i32) take the exact sums.
#include <kernels/common/elem_dispatch.hpp>
#include <kernels/gemm/blocks/body_layout.hpp>
#include <kernels/gemm/blocks/lora_block.hpp>
#include <kernels/gemm/gemm_kernel.hpp>

#include <dsl/copy/buffer_clipped_tile.hpp>
#include <dsl/dsl.hpp>
#include <dsl/mma/accumulator_convert.hpp>
#include <dsl/mma/accumulator_visit.hpp>
#include <dsl/tensor/clamped_load.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tw::kernels::gemm_kernel {

// Calls fn(Tag<E>{}) with the DSL element type of a dtype the composition can hold.
template <class F>
void gemm_with_elem(DType t, const char* what, F&& fn) {
  using namespace tw::dsl;
  with_elem_among<f16, bf16, f32, i32>(t, std::forward<F>(fn), [what](DType d) {
    return std::string("gemm kernel: ") + what + " dtype " + std::string(dtype_name(d)) +
           " is not supported here";
  });
}

// L: the body's BodyLayout; lds: its LDS (the LoRA block reuses the operand stages); args: its
// GemmArgs; acc: the main product.
template <class L, class Lds, class Args>
void gemm_epilogue(const GemmKernelSpec& s, const Lds& lds, const Args& args,
                   const typename L::CFrag& acc) {
  using namespace tw::dsl;
  constexpr auto mma = L::mma;
  constexpr int block_m = L::block_m, block_n = L::block_n;
  const Int32 &bm = args.tile_m, &bn = args.tile_n;
  const Int64 &M = args.m, &N = args.n;
  using LE = std::conditional_t<L::quant, typename L::AGlobalElem, f16>; // the activation dtype
  constexpr auto lora_mma = lora_tiled_mma<LE, L::tile>();
  if (s.lora && !L::quant)
    throw std::invalid_argument("gemm kernel: LoRA is a block of the quantized-activation "
                                "kernels (scaled_mm_fused_quant, int8_linear_fused)");
  const auto tensorwise = [](const GlobalPtr<f32>& p) { return p.load(Int64(0)); };
  std::optional<Float32> sa_t, sb_t;
  if (s.scale_a == ScaleKind::tensorwise)
    sa_t = tensorwise(args.scale_a);
  if (s.scale_b == ScaleKind::tensorwise)
    sb_t = tensorwise(args.scale_b);
  const auto sa_rows =
      local_tile<block_m, 1>(make_tensor(args.scale_a, Major::row, M, Int64(1)), bm, 0);
  const auto sb_cols =
      local_tile<1, block_n>(make_tensor(args.scale_b, Major::row, Int64(1), N), 0, bn);
  gemm_with_elem(s.out, "out", [&]<class O>(Tag<O>) {
    const auto typed = [](const GlobalPtr<u8>& p) { return GlobalPtr<O>(p.ir(), elem_bytes<O>()); };
    // The output tile: clipped (s.out_clipped, gemm_out_clips: stores past M / N dropped by the
    // buffer range check, no branch per value) or masked.
    const auto out_tensor = make_tensor(typed(args.out), Major::row, M, N, args.ldo);
    std::optional<GlobalTile<O, block_m, block_n>> out_masked;
    std::optional<BufferClippedTile<O, block_m, block_n>> out_clipped;
    if (s.out_clipped)
      out_clipped.emplace(buffer_clipped_tile<block_m, block_n>(out_tensor, bm, bn));
    else
      out_masked.emplace(local_tile<block_m, block_n>(out_tensor, bm, bn));
    const auto store_out = [&](const Int32& r, const Int32& c, const Scalar<O>& v) {
      if (out_clipped)
        out_clipped->store(r, c, v);
      else
        out_masked->store(r, c, v);
    };
    const auto c_in = local_tile<block_m, block_n>(
        make_tensor(typed(args.c), Major::row, M, N, args.ldc), bm, bn);
    const auto bias =
        local_tile<1, block_n>(make_tensor(typed(args.bias), Major::row, Int64(1), N), 0, bn);
    if constexpr (std::same_as<O, i32>) {
      for_each_accumulator(mma, acc, [&](const auto& v, const Int32& r, const Int32& c) {
        store_out(r, c, cast<i32>(v)); // exact integer results
      });
    } else {
      // The main product's f32 value before LoRA and bias: dequantized and scaled. With LoRA it
      // feeds the LoRA loop's accumulator, so LLVM sinks its arithmetic below the loads: masked
      // per-value scale loads (a branch each) then keep every loaded value live (600 B of
      // scratch); load_clamped gives one unmasked load per distinct row / column. Without LoRA
      // the masked loads stay (load_clamped there moved scaled_mm_fused_quant from 0 to 8 B).
      const auto main_term = [&](const auto& v, const Int32& r, const Int32& c) {
        Float32 x = cast<f32>(v);
        if constexpr (L::quant)
          x = x * lds.template tile<"sQ">().load(Int32(0), r); // dequantize with s_m
        if (sa_t)
          x = x * *sa_t;
        else if (s.scale_a == ScaleKind::rowwise)
          x = x * (s.lora ? load_clamped(sa_rows, r, Int32(0)) : sa_rows.load(r, Int32(0)));
        if (sb_t)
          x = x * *sb_t;
        else if (s.scale_b == ScaleKind::rowwise)
          x = x * (s.lora ? load_clamped(sb_cols, Int32(0), c) : sb_cols.load(Int32(0), c));
        if (s.alpha_beta)
          x = x * args.alpha;
        if (s.has_c)
          x = fma(args.beta, cast<f32>(c_in.load(r, c)), x);
        return x;
      };
      const auto store = [&](Float32 x, const Int32& r, const Int32& c) {
        if (s.has_bias)
          x = x + cast<f32>(bias.load(Int32(0), c));
        store_out(r, c, cast<O>(x));
      };
      if (s.lora) {
        // ---- LoRA block (blocks/lora_block.hpp) on the operand stages of the finished main
        // loop. x + lora_scale * t @ up^T = d * (x / d + t @ up^T), d = lora_scale: the LoRA
        // product accumulates onto x / d in the registers of the main accumulator (dead once
        // converted), so the two 128-value accumulators are never live together (they were:
        // 764-804 B of scratch). lora_scale = 0 runs no rank step and d = 1 (out = x). The
        // division and the product by d round twice in f32 (2^-24 relative each). A nonzero
        // |lora_scale| below about |x| * 2^-128 overflows x / d (docs/kernels.md).
        const Bool no_lora = args.lora_scale == Float32(0.0f);
        const Float32 d = select(no_lora, Float32(1.0f), args.lora_scale);
        auto x_over_d = convert_accumulator(
            mma, acc, lora_mma,
            [&](const auto& v, const Int32& r, const Int32& c) { return main_term(v, r, c) / d; });
        const int align = s.lora_vec_aligned ? 16 : elem_bytes<LE>();
        const auto sum = lora_block<L::tile>(
            make_tensor(GlobalPtr<LE>(args.lora_t.ir(), align), Major::row, M, args.lora_rank,
                        args.ld_lora_t),
            make_tensor(GlobalPtr<LE>(args.lora_up.ir(), align), Major::row, N, args.lora_rank,
                        args.ld_lora_up),
            select(no_lora, Int64(0), args.lora_rank), bm, bn,
            [&](const Int32& st) {
              return lds_view<LE, block_m, lora_k_tile>(lds.template tile<"sA">(st));
            },
            [&](const Int32& st) {
              return lds_view<LE, block_n, lora_k_tile>(lds.template tile<"sB">(st));
            },
            std::move(x_over_d));
        for_each_accumulator(lora_mma, sum, [&](const Float32& v, const Int32& r, const Int32& c) {
          store(v * d, r, c);
        });
      } else {
        for_each_accumulator(mma, acc, [&](const auto& v, const Int32& r, const Int32& c) {
          store(main_term(v, r, c), r, c);
        });
      }
    }
  });
}

} // namespace tw::kernels::gemm_kernel
