#pragma once
// The linear attention composition behind linear_attn_api.hpp: what changes the code (the
// spec and its name, the cache key) and the traced kernel.
//
// One wave per workgroup; workgroup (x, y, z) = (value-column tile, query head, batch). The
// tile holds 16 value columns, or 15 and a column of ones when normalizing (its output row
// is the denominator). Per chunk c of 16 positions, with S the D x 16 state in registers
// (sum over earlier positions j of lambda^(16c - 1 - j) k_j v_j^T):
//   P^T = K_c Q_c^T, scaled by scale * lambda^(i - j) and masked to j <= i      (WMMA)
//   O^T = S^T Q_c^T * scale * lambda^(i + 1)  +  V_c^T P^T                       (WMMA)
//   S   = lambda^16 S + K_c^T (lambda^(15 - j) V_c)                              (WMMA)
// where S^T and V_c^T reach the WMMA straight from accumulators (accumulator_as_operand).
// The two products with Q_c^T share each k step's Q^T fragment (one loop over the head), and
// K_c^T, whose A operand wants the keys of one head dim in a lane, comes from gfx12 transpose
// loads (one global_load_tr_b128 per 16 x 16 tile) when the spec is `clipped`; element-wise
// loads otherwise. No VGPR spills at any head dim (docs/kernels.md "Linear attention").
#include <dsl/ir/kernel.hpp>
#include <kernels/common/dtype.hpp>

#include <cstdint>
#include <string>

namespace tw::kernels::linear_attn_kernel {

inline constexpr int chunk = 16; // positions per chunk (one WMMA tile)

struct LinearAttnKernelSpec {
  DType dtype = DType::bf16; // q, k, v
  DType out = DType::bf16;
  int head_dim_pad = 32; // D rounded up to a multiple of 32 (32 .. 256)
  bool decay = false;
  bool normalize = false;
  bool varlen = false; // packed sequences: cu_seqlens [B + 1] (the token strides in *_ss)
  // q, k and v: base and every row start 16-byte aligned, rows not overlapping, the head dim a
  // multiple of 8 and a chunk's byte offsets below 2^31 (dsl::buffer_clipped_tile_fits): Q and
  // K through clipped buffer descriptors (no mask, no branch, no 64-bit VALU address), V's
  // elements by buffer loads, K^T by transpose loads (the edge chunk masked). Otherwise
  // masked global loads.
  bool clipped = false;

  // Value columns per workgroup: 16, or 15 next to the normalizer's column of ones.
  int value_tile() const { return normalize ? 15 : 16; }
  std::string name() const; // names every field: the kernel's cache key
};

int padded_head_dim(int64_t d);
ir::Kernel build_linear_attn_kernel(const LinearAttnKernelSpec& spec);

} // namespace tw::kernels::linear_attn_kernel
