#pragma once
// The GEMM composition's kernel body (gemm_kernel.hpp), written only with the DSL, as a template
// of the block tile: build_gemm_for_tile<T>(spec) is instantiated once per GemmTile, each in its
// own translation unit (gemm_body_<tile>.cpp), so the configurations compile in parallel. The
// body reads as the algorithm; each step is a block of its own (kernels/gemm/blocks/).
#include <kernels/gemm/blocks/act_quant.hpp>
#include <kernels/gemm/blocks/body_layout.hpp>
#include <kernels/gemm/blocks/epilogue.hpp>
#include <kernels/gemm/blocks/k_range.hpp>
#include <kernels/gemm/blocks/kernel_args.hpp>
#include <kernels/gemm/blocks/main_loop.hpp>
#include <kernels/gemm/blocks/operand_fetch.hpp>
#include <kernels/gemm/blocks/split_k.hpp>
#include <kernels/gemm/gemm_kernel.hpp>

#include <dsl/dsl.hpp>

#include <stdexcept>
#include <string>

namespace tw::kernels::gemm_kernel {

namespace body_detail {

using namespace tw::dsl;

// The kernel of `s` for one combination of atom, operand orders and element types
// (blocks/body_layout.hpp says what BGlobal, AGlobal and MX select).
template <GemmTile T, class Atom, bool AKContig, bool BKContig, class BGlobal = void,
          class AGlobal = void, bool MX = false>
ir::Kernel build_body(const GemmKernelSpec& s) {
  using L = BodyLayout<T, Atom, AKContig, BKContig, BGlobal, AGlobal, MX>;
  using AS = typename L::AS;
  using BS = typename L::BS;
  if (gemm_tile_config(s).k_storage != L::bk)
    throw std::logic_error("gemm kernel: gemm_tile_config disagrees with the body's K tile");
  KernelBuilder kb(s.name(), {L::threads, 1, 1});
  // ---- set up: the arguments, the workgroup's output tile (grouped: its problem's), the
  // operands as tensors (b as N x K: the MMA wants it n-major) and the LDS plan.
  const GemmArgs<AS, BS> g = gemm_args<AS, BS>(kb, s, L::block_n);
  const Int64 k_storage = L::packed ? (g.k + Int64(1)) / Int64(2) : g.k; // bytes of a k run
  const GlobalTensor<AS> a =
      make_tensor(g.a, AKContig ? Major::row : Major::col, g.m, k_storage, g.lda);
  const GlobalTensor<BS> bt =
      make_tensor(g.b, BKContig ? Major::col : Major::row, k_storage, g.n, g.ldb).transposed();
  auto lds = use_lds<L::plan>(kb);

  // ---- prologue blocks: the operand copies into LDS (blocks/operand_fetch.hpp) and, when the
  // activation is quantized, the scale of each of the block's rows (blocks/act_quant.hpp).
  const OperandFetch<L, decltype(lds)> operands(s, lds, a, bt, g.tile_m, g.tile_n, g.k);
  if constexpr (L::quant)
    activation_scales<typename L::AE>(s.act_quant, s.write_scale_out, lds.template tile<"sQ">(),
                                      g.a, g.scale_a, g.scale_out, g.m, g.k, g.lda, g.tile_m,
                                      g.tile_n, s.a_vec_aligned, L::threads);
  const KTileRange k_tiles = k_tile_range(s, k_storage, L::bk, g.k_tiles_per_split);

  // ---- main-loop block (blocks/main_loop.hpp), or the split-K reduce pass's sum of the
  // partials (blocks/split_k.hpp).
  const SplitKWorkspace<L> split_k(g.workspace, g.m, g.n, g.tile_m, g.tile_n);
  const typename L::CFrag acc = s.split_k == SplitKPass::reduce
                                    ? split_k.sum(g.split_count)
                                    : gemm_main_loop<L>(s, lds, operands, k_tiles, g);

  // ---- epilogue block (blocks/epilogue.hpp); the split-K partial pass stores the raw
  // accumulator instead and the reduce pass does the rest.
  if (s.split_k == SplitKPass::partial)
    split_k.store(acc);
  else
    gemm_epilogue<L>(s, lds, g, acc);
  return kb.finish();
}

template <GemmTile T, class Atom, class BGlobal = void>
ir::Kernel build_ordered(const GemmKernelSpec& s) {
  if (s.mx_block_scales && (s.act_quant != ActQuant::none || s.scale_a != ScaleKind::none ||
                            s.scale_b != ScaleKind::none || s.lora))
    throw std::invalid_argument("gemm kernel: MX block scales do not combine with activation "
                                "quantization, tensor/row scales or LoRA");
  if (s.act_quant != ActQuant::none) {
    if constexpr (std::is_void_v<BGlobal> && MmaAtomLanes<Atom>::a_elem::bits == 8 &&
                  !MmaAtomLanes<Atom>::packed_int4) {
      if (s.a_order != MatrixOrder::row_major || s.b_order != MatrixOrder::col_major)
        throw std::invalid_argument("gemm kernel: quantized activations must be k-contiguous");
      if (s.x == DType::bf16)
        return build_body<T, Atom, true, true, void, bf16>(s);
      return build_body<T, Atom, true, true, void, f16>(s);
    } else {
      throw std::invalid_argument("gemm kernel: activation quantization needs an 8-bit atom");
    }
  }
  if constexpr (!std::is_void_v<BGlobal>) {
    if (s.a_order != MatrixOrder::row_major || s.b_order != MatrixOrder::col_major)
      throw std::invalid_argument("gemm kernel: converted b operands must be k-contiguous");
    return build_body<T, Atom, true, true, BGlobal>(s);
  }
  const bool ak = s.a_order == MatrixOrder::row_major, bk = s.b_order == MatrixOrder::col_major;
  using AE = typename MmaAtomLanes<Atom>::a_elem;
  if (s.mx_block_scales) {
    if constexpr (std::is_void_v<BGlobal> && AE::bits == 8 && !MmaAtomLanes<Atom>::packed_int4 &&
                  !std::same_as<AE, i8>) {
      if (!ak || !bk)
        throw std::invalid_argument("gemm kernel: MX operands must be k-contiguous");
      return build_body<T, Atom, true, true, void, void, true>(s);
    } else {
      throw std::invalid_argument("gemm kernel: MX block scales need fp8 operands");
    }
  }
  if (ak && bk)
    return build_body<T, Atom, true, true>(s);
  if constexpr (AE::bits == 16) { // m/n-contiguous operands: f16 / bf16 GEMM only
    if (ak)
      return build_body<T, Atom, true, false>(s);
    if (bk)
      return build_body<T, Atom, false, true>(s);
    return build_body<T, Atom, false, false>(s);
  } else {
    throw std::invalid_argument("gemm kernel: 8-bit operands must be k-contiguous (a row-major, "
                                "b column-major)");
  }
}

} // namespace body_detail

// The kernel of `spec` with block tile T (spec.tile must be T).
template <GemmTile T>
ir::Kernel build_gemm_for_tile(const GemmKernelSpec& s) {
  using namespace body_detail;
  using enum DType;
  if (s.tile != T)
    throw std::logic_error("gemm kernel: build_gemm_for_tile called for another tile");
  if (s.a == f16 && s.b == f16)
    return build_ordered<T, atoms::wmma_f32_16x16x16_f16>(s);
  if (s.a == bf16 && s.b == bf16)
    return build_ordered<T, atoms::wmma_f32_16x16x16_bf16>(s);
  if (s.a == e4m3 && s.b == e4m3)
    return build_ordered<T, atoms::wmma_f32_16x16x16_fp8_fp8>(s);
  if (s.a == e4m3 && s.b == e5m2)
    return build_ordered<T, atoms::wmma_f32_16x16x16_fp8_bf8>(s);
  if (s.a == e5m2 && s.b == e4m3)
    return build_ordered<T, atoms::wmma_f32_16x16x16_bf8_fp8>(s);
  if (s.a == e5m2 && s.b == e5m2)
    return build_ordered<T, atoms::wmma_f32_16x16x16_bf8_bf8>(s);
  if (s.a == f16 && s.b == int8) // W8A16
    return build_ordered<T, atoms::wmma_f32_16x16x16_f16, i8>(s);
  if (s.a == bf16 && s.b == int8)
    return build_ordered<T, atoms::wmma_f32_16x16x16_bf16, i8>(s);
  if (s.a == int8 && s.b == int8)
    return build_ordered<T, atoms::wmma_i32_16x16x16_iu8>(s);
  if (is_packed_int4(s.a) && is_packed_int4(s.b)) // signedness per operand (WMMA modifiers)
    return build_ordered<T, atoms::wmma_i32_16x16x32_iu4>(s);
  throw std::invalid_argument("gemm kernel: no WMMA atom for a = " + std::string(dtype_name(s.a)) +
                              ", b = " + std::string(dtype_name(s.b)));
}

} // namespace tw::kernels::gemm_kernel
