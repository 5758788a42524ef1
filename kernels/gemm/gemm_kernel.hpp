#pragma once
// The GEMM composition (issue 6): one kernel body, specialised by a GemmKernelSpec, for every
// GEMM-family kernel that runs on a dense WMMA atom (16x16x16; 16x16x32 for packed int4). CK-Tile
// style, in three parts:
//  - problem: operand storage dtypes and orders, the output dtype, which epilogue terms exist;
//  - policy: the block tile of the spec's GemmTile (kernels/gemm/gemm_config.hpp: 128 x 128 with
//    4 or 8 waves, 32 x 128 with 4 waves for small M), K tile 32 (16-bit operands), 64 (8-bit)
//    or 128 (packed int4: 64 bytes), 128-bit global loads when the operand is 16-byte aligned;
//    split-K as two launches of the body (SplitKPass);
//  - pipeline: LDS double buffering (dsl::pipeline<2>), WMMA on LDS stages in the K loop.
// Feature blocks instead of copies: the prologue (k-contiguous copy, transposing copy for
// m/n-contiguous operands, activation quantization, int8 -> f16 conversion), the main loop
// (MX block scales), the LoRA block (a second K loop over the rank on the same output tile)
// and the epilogue (scales, alpha/beta, bias, LoRA, output conversion), and the grouped mode
// (one launch over a table of problems). The larger blocks live in kernels/gemm/blocks/
// (act_quant, mx_scales, lora_block, grouped_problem); gemm_kernel.cpp composes them.
// Partial tiles are masked in the kernel (any M, N, K >= 0; K = 0 gives the epilogue of 0).
#include <dsl/ir/kernel.hpp>
#include <emit/code_object.hpp>
#include <kernels/common/arg_check.hpp>
#include <kernels/common/dtype.hpp>
#include <kernels/gemm/gemm_config.hpp>
#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tw::kernels::gemm_kernel {

enum class ScaleKind : std::uint8_t { none, tensorwise, rowwise };
// Activation quantization in the prologue (docs/kernels.md "Activation quantization"): `a` is
// then the quantized dtype (e4m3 / e5m2 / int8) and `x` the activation's (f16 / bf16).
enum class ActQuant : std::uint8_t { none, given_tensorwise, given_rowwise, dynamic_rowwise };
// Split-K (docs/kernels.md "GEMM tile configurations"): `partial` runs the K tiles of range
// block_id(z) (k_tiles_per_split each) and stores the raw accumulator (f32, or i32 for the
// integer atoms) into the workspace (per split and tile, the fragments' own layout);
// `reduce` runs no K loop: it sums the split_k partials of its tile in split order, then the
// usual epilogue.
enum class SplitKPass : std::uint8_t { none, partial, reduce };

struct GemmKernelSpec {
  DType a = DType::f16, b = DType::f16; // global storage dtypes (also the atom's operand types)
  DType out = DType::f32;
  MatrixOrder a_order = MatrixOrder::row_major, b_order = MatrixOrder::col_major;
  bool a_vec_aligned = false, b_vec_aligned = false; // base and leading stride 16-byte aligned
  // The operand's tiles, edges included, through clipped buffer loads (no masked path; needs the
  // operand's vec alignment and buffer copies): set by gemm_clip_edges for a problem whose
  // operand meets buffer_clipped_tile's requirements (gemm_operand_clips).
  bool a_clipped = false, b_clipped = false;
  // K is a multiple of the K tile (gemm_tile_config's k_storage), so every K tile of a clipped
  // k-contiguous operand lies wholly inside K or wholly past it: its loads skip the per-run
  // K-edge choice (dsl ClippedCols::whole_or_none). Set by gemm_clip_edges (gemm_k_whole); a
  // kernel built with it reads garbage in the last K tile of a K that is not such a multiple.
  // Packed int4: K (nibbles) is also even, so the commit has no odd-K nibble to clear.
  bool k_whole = false;
  // The output tile's stores through a clipped buffer descriptor (stores past M / N dropped by
  // the range check, no masks or branches): out's rows do not overlap (ldo >= N) and a tile's
  // offsets lie below 2^31 bytes (gemm_clip_edges).
  bool out_clipped = false;
  bool alpha_beta = false; // multiply by alpha (gemm)
  bool has_c = false, has_bias = false;
  ScaleKind scale_a = ScaleKind::none, scale_b = ScaleKind::none;
  // MX: scale_a [M, ceil(K/32)] and scale_b [N, ceil(K/32)] e8m0, applied per 32-element K
  // block in the main loop (then scale_a / scale_b above must be none).
  bool mx_block_scales = false;
  ActQuant act_quant = ActQuant::none; // the given scale comes in scale_a
  DType x = DType::f16;
  bool write_scale_out = false; // dynamic_rowwise: s_m into scale_out
  // LoRA (quantized activations only): out += lora_scale * t @ up^T, t = x @ down^T [M, R] and
  // up [N, R] in the activation dtype x, both row-major; a second K loop over R (WMMA in x's
  // dtype, f32 accumulate) on the same output tile, added before the single output rounding.
  bool lora = false;
  bool lora_vec_aligned = false; // t and up: base and leading stride 16-byte aligned
  // Grouped: the problems of one launch come from a table (GemmGroupRow, kernel arg `groups`);
  // the kernel args a .. ldo are unused. Every problem shares the spec (dtypes, alignment...).
  bool grouped = false;
  GemmTile tile = GemmTile::t128x128w4; // the block tile (gemm_config.hpp)
  SplitKPass split_k = SplitKPass::none;

  // A kernel name unique to the spec (the code object's symbol).
  std::string name() const;
};

// The block tile a spec runs with: m x n outputs per workgroup, k_storage storage units of K
// per K-loop iteration (elements; bytes for packed int4), `waves` wave32 waves.
struct GemmTileConfig {
  int m = 0, n = 0, k_storage = 0, waves = 0;
};
GemmTileConfig gemm_tile_config(const GemmKernelSpec& spec);

// Throws std::invalid_argument naming the unsupported combination.
// Whether `spec`'s kernel is offered in `tile` (MX block scales are not offered with 8 waves:
// that configuration spills). build_gemm_kernel refuses the others with a sentence.
bool gemm_tile_offered(const GemmKernelSpec& spec, GemmTile tile);
ir::Kernel build_gemm_kernel(const GemmKernelSpec& spec);

// One problem of a grouped launch: 16 int64 in device memory (addresses as integers). Its
// workgroups are tile_begin .. tile_begin + gemm_tiles(tile, m, n) - 1 of the grid's x.
struct GemmGroupRow {
  int64_t a = 0, b = 0, out = 0, bias = 0, scale_a = 0, scale_b = 0;
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldo = 0;
  int64_t tile_begin = 0;
  int64_t reserved[3] = {0, 0, 0};
};
static_assert(sizeof(GemmGroupRow) == 16 * sizeof(int64_t));

// The kernel's arguments (same order in the kernel): unused pointers are 0. Leading strides
// count storage elements (bytes for packed int4); m, n, k count elements (k: nibbles).
struct GemmLaunchArgs {
  runtime::DevicePtr a = 0, b = 0, out = 0, c = 0, bias = 0, scale_a = 0, scale_b = 0,
                     scale_out = 0;
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldo = 0, ldc = 0;
  int64_t ld_scale_a = 0, ld_scale_b = 0; // MX block scales
  float alpha = 1.0f, beta = 0.0f;
  runtime::DevicePtr lora_t = 0, lora_up = 0; // LoRA: t [M, R], up [N, R]
  int64_t lora_rank = 0, ld_lora_t = 0, ld_lora_up = 0;
  float lora_scale = 0.0f;
  runtime::DevicePtr groups = 0;                   // grouped: GemmGroupRow[group_count]
  int64_t group_count = 0, group_search_steps = 0; // steps: ceil(log2(group_count))
  runtime::DevicePtr workspace = 0;                // split-K partials
  int64_t split_k = 1, k_tiles_per_split = 0;      // split-K: ranges and K tiles per range
};

// Which of a, b and out the spec's kernel takes clipped when the problem allows it: the
// operands with 16-byte alignment (not the reduce pass, which copies none; not W8A16's: with
// both operands clipped that kernel needed 256 VGPRs and 8 B of scratch, with a alone a second
// branch for b's loads, 90.6 -> 64.1 TFLOP/s modeled at 4096^3), out in every kernel but W8A16
// (90.6 -> 89.5 with clipped stores alone) and the split-K partial pass. The MX, quantizing
// (fused, LoRA) and packed int4 kernels need their clipped operands to stay out of scratch: with
// masked copies (64-bit addresses per row) they spilled 8-208 B (docs/kernels.md).
struct GemmClipSupport {
  bool a = false, b = false, out = false;
};
GemmClipSupport gemm_clip_support(const GemmKernelSpec& spec);
// Whether operand a (`a_operand`) or b of a problem can be read clipped with the spec's tile:
// 16-byte aligned (the spec's vec flag), 128-bit runs wholly inside or outside the operand
// (its contiguous extent, K or M / N, a multiple of 16 bytes), columns that do not overlap
// (leading stride >= that extent) and a tile's offsets below 2^31 bytes; m_or_n is M for a, N
// for b, ld the operand's leading stride (storage elements), k counts elements (nibbles).
bool gemm_operand_clips(const GemmKernelSpec& spec, bool a_operand, int64_t m_or_n, int64_t k,
                        int64_t ld);
// Whether out (m x n, leading stride ldo) can be stored clipped with the spec's tile.
bool gemm_out_clips(const GemmKernelSpec& spec, int64_t m, int64_t n, int64_t ldo);
// Whether a problem with K = k (elements; nibbles for packed int4) lets the spec (its clipped
// flags set) take k_whole: a k-contiguous operand read clipped and k a multiple of the K tile
// (packed int4: and k even).
bool gemm_k_whole(const GemmKernelSpec& spec, int64_t k);
struct GemmLaunchArgs;
// Sets spec.a_clipped / b_clipped / out_clipped and k_whole for one problem (spec.tile and
// split_k chosen; the operands' false where the kernel has no buffer copies, out's for a split-K
// partial pass).
void gemm_clip_edges(GemmKernelSpec& spec, const GemmLaunchArgs& args);

// The spec's code object for gemm_target() (traced once per process, compile-cached).
emit::CodeObject compile_gemm_kernel(const GemmKernelSpec& spec);
// The kernel argument bytes and the full grid of a launch (not grouped): tiles of spec.tile
// along x and y, args.split_k along z for the partial pass.
runtime::KernelArgs gemm_kernel_args(const GemmLaunchArgs& args);
runtime::Dim3 gemm_grid(const GemmKernelSpec& spec, const GemmLaunchArgs& args);
// Workgroups (output tiles) of one problem with a tile.
int64_t gemm_tiles(GemmTile tile, int64_t m, int64_t n);
// K tiles of a problem with K = k (elements; nibbles for packed int4) for the spec's dtypes.
int64_t gemm_k_tiles(const GemmKernelSpec& spec, int64_t k);

// The two launches of a split-K GEMM of `spec`: the partial pass keeps only what the main loop
// needs (operands, MX block scales, the quantizing prologue) and outputs the raw accumulator
// (f32, i32 for the integer atoms); the reduce pass is the spec's epilogue on the summed
// partials (the MX scales are in the partials already). The workspace of `splits` partials.
GemmKernelSpec gemm_partial_pass(const GemmKernelSpec& spec);
GemmKernelSpec gemm_reduce_pass(const GemmKernelSpec& spec);
int64_t gemm_workspace_bytes(GemmTile tile, int64_t m, int64_t n, int splits);

// The configuration a launch runs with: gemm_config_override() if set, else
// choose_gemm_config for the problem and gemm_target()'s CU count (no split-K for the grouped
// launch and for dynamic activation quantization).
GemmConfig gemm_config_for(const GemmKernelSpec& spec, int64_t m, int64_t n, int64_t k);

// Picks the configuration (gemm_config_for; spec.tile and spec.split_k are set here), builds
// (through the compile cache, for gemm_target()) and launches one GEMM: split-K as the partial
// launch into a device workspace, then the reduce launch (docs/kernels.md).
void run_gemm_kernel(runtime::Device& device, const GemmKernelSpec& spec,
                     const GemmLaunchArgs& args);
// A grouped launch (spec.grouped): uploads the rows (tile_begin filled in here), launches one
// grid over every problem's tiles, frees the table. Rows with m or n = 0 get no workgroup.
// The tile: the override's if set, else the heuristic's for the largest M and the largest N of
// the problems (never split-K).
void run_grouped_gemm_kernel(runtime::Device& device, const GemmKernelSpec& spec,
                             std::vector<GemmGroupRow> rows);

} // namespace tw::kernels::gemm_kernel
