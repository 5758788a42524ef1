// The GEMM composition's host side (see gemm_kernel.hpp): kernel names, the dispatch to the
// body of each block tile (gemm_body.hpp, one translation unit per tile), kernel arguments,
// grids and the launches (split-K as two launches).
#include <dsl/copy/buffer_clipped_tile.hpp>
#include <kernels/common/compile_traced.hpp>
#include <kernels/gemm/gemm_kernel.hpp>
#include <kernels/gemm/gemm_target.hpp>

#include <emit/compile.hpp>
#include <runtime/kernel_args.hpp>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace tw::kernels {

namespace {
GemmTarget& target_storage() {
  static GemmTarget t = [] {
    GemmTarget d;
    if (const char* env = std::getenv("TILEWAVE_BACKEND"); env && std::string_view(env) == "hip")
      d.backend = emit::Backend::hip;
    return d;
  }();
  return t;
}
} // namespace
GemmTarget gemm_target() {
  return target_storage();
}
void set_gemm_target(GemmTarget target) {
  target_storage() = target;
}

namespace gemm_kernel {

// Defined in gemm_body_<tile>.cpp.
template <GemmTile T>
ir::Kernel build_gemm_for_tile(const GemmKernelSpec& spec);

namespace {
std::string_view scale_code(ScaleKind s) {
  return s == ScaleKind::none ? "n" : s == ScaleKind::tensorwise ? "t" : "r";
}
char order_code(MatrixOrder o) {
  return o == MatrixOrder::row_major ? 'r' : 'c';
}

// K in storage units of a `t` operand: packed int4 holds two nibbles a byte.
int64_t k_storage_of(DType t, int64_t k) {
  return is_packed_int4(t) ? (k + 1) / 2 : k;
}

} // namespace

std::string GemmKernelSpec::name() const {
  std::string n = "tw_gemm_";
  n += dtype_name(a);
  n += "_";
  n += dtype_name(b);
  n += "_";
  n += dtype_name(out);
  n += "_";
  n += order_code(a_order);
  n += order_code(b_order);
  n += a_vec_aligned ? "v" : "s";
  n += b_vec_aligned ? "v" : "s";
  if (a_clipped || b_clipped) {
    n += "_clip";
    n += a_clipped ? "a" : "";
    n += b_clipped ? "b" : "";
  }
  if (k_whole)
    n += "_kw";
  if (out_clipped)
    n += "_clipo";
  n += "_sa";
  n += scale_code(scale_a);
  n += "_sb";
  n += scale_code(scale_b);
  if (alpha_beta)
    n += "_alpha";
  if (has_c)
    n += "_beta";
  if (has_bias)
    n += "_bias";
  if (mx_block_scales)
    n += "_mx";
  if (act_quant != ActQuant::none) {
    n += "_q";
    n += dtype_name(x);
    n += act_quant == ActQuant::given_tensorwise ? "t"
         : act_quant == ActQuant::given_rowwise  ? "r"
                                                 : "d";
    if (write_scale_out)
      n += "o";
  }
  if (lora)
    n += lora_vec_aligned ? "_lorav" : "_loras";
  if (grouped)
    n += "_grouped";
  n += "_";
  n += gemm_tile_name(tile);
  if (split_k != SplitKPass::none)
    n += split_k == SplitKPass::partial ? "_skpart" : "_skred";
  return n;
}

bool gemm_tile_offered(const GemmKernelSpec& s, GemmTile tile) {
  // MX block scales with 8 waves: both compilers hoist a stage's WMMA chains above the block
  // folds, so two blocks of partials, the accumulators and the scale products are live at
  // once and the kernel spills (128-136 B of scratch, docs/kernels.md "Scratch").
  return !(s.mx_block_scales && tile == GemmTile::t128x128w8);
}

ir::Kernel build_gemm_kernel(const GemmKernelSpec& s) {
  if (!gemm_tile_offered(s, s.tile))
    throw std::invalid_argument("gemm: tile " + std::string(gemm_tile_name(s.tile)) +
                                " is not offered with MX block scales (it spills); use "
                                "t128x128w4, t32x128w4 or t128x32w4");
  switch (s.tile) {
  case GemmTile::t128x128w8:
    return build_gemm_for_tile<GemmTile::t128x128w8>(s);
  case GemmTile::t32x128w4:
    return build_gemm_for_tile<GemmTile::t32x128w4>(s);
  case GemmTile::t128x32w4:
    return build_gemm_for_tile<GemmTile::t128x32w4>(s);
  case GemmTile::t128x128w4:
    break;
  }
  return build_gemm_for_tile<GemmTile::t128x128w4>(s);
}

GemmTileConfig gemm_tile_config(const GemmKernelSpec& s) {
  // K tile: 32 for 16-bit operands, 64 storage units (bytes) for 8-bit and packed int4 ones.
  const bool wide = (s.a == DType::f16 || s.a == DType::bf16);
  const GemmTileShape shape = gemm_tile_shape(s.tile);
  return {shape.m, shape.n, wide ? 32 : 64, shape.waves()};
}

GemmClipSupport gemm_clip_support(const GemmKernelSpec& s) {
  const bool operands = s.split_k != SplitKPass::reduce;
  const bool w8a16 = s.b == DType::int8 && (s.a == DType::f16 || s.a == DType::bf16);
  return {operands && s.a_vec_aligned && !w8a16, operands && s.b_vec_aligned && !w8a16,
          !w8a16 && s.split_k != SplitKPass::partial};
}

bool gemm_operand_clips(const GemmKernelSpec& s, bool a_operand, int64_t m_or_n, int64_t k,
                        int64_t ld) {
  // a in global memory: the activation x (its own dtype) when the kernel quantizes it.
  const DType t = a_operand ? (s.act_quant != ActQuant::none ? s.x : s.a) : s.b;
  const bool k_contig =
      a_operand ? s.a_order == MatrixOrder::row_major : s.b_order == MatrixOrder::col_major;
  const GemmClipSupport support = gemm_clip_support(s);
  if (!(a_operand ? support.a : support.b))
    return false;
  const int bytes = static_cast<int>(dtype_storage_bytes(t, 1));
  const GemmTileConfig c = gemm_tile_config(s);
  const int block = a_operand ? c.m : c.n, run = 16 / bytes; // 128-bit runs
  const int64_t k_storage = k_storage_of(t, k);
  // k-contiguous: rows M (N) of K; else the transposed tensor: rows K of M (N).
  return k_contig ? dsl::buffer_clipped_tile_fits(m_or_n, k_storage, ld, bytes, block, c.k_storage,
                                                  run, true)
                  : dsl::buffer_clipped_tile_fits(k_storage, m_or_n, ld, bytes, c.k_storage, block,
                                                  run, true);
}

bool gemm_out_clips(const GemmKernelSpec& s, int64_t m, int64_t n, int64_t ldo) {
  const GemmTileConfig c = gemm_tile_config(s); // element stores: no run alignment
  return gemm_clip_support(s).out &&
         dsl::buffer_clipped_tile_fits(m, n, ldo, static_cast<int>(dtype_storage_bytes(s.out, 1)),
                                       c.m, c.n, 1, true);
}

bool gemm_k_whole(const GemmKernelSpec& s, int64_t k) {
  const bool k_contig_clipped = (s.a_clipped && s.a_order == MatrixOrder::row_major) ||
                                (s.b_clipped && s.b_order == MatrixOrder::col_major);
  // Packed int4: K even as well, so no K tile holds a high nibble past K to clear.
  return k_contig_clipped && k_storage_of(s.a, k) % gemm_tile_config(s).k_storage == 0 &&
         (!is_packed_int4(s.a) || k % 2 == 0);
}

void gemm_clip_edges(GemmKernelSpec& s, const GemmLaunchArgs& g) {
  s.a_clipped = gemm_operand_clips(s, true, g.m, g.k, g.lda);
  s.b_clipped = gemm_operand_clips(s, false, g.n, g.k, g.ldb);
  s.out_clipped = gemm_out_clips(s, g.m, g.n, g.ldo);
  s.k_whole = gemm_k_whole(s, g.k);
}

emit::CodeObject compile_gemm_kernel(const GemmKernelSpec& spec) {
  return compile_traced(spec.name(), [&] { return build_gemm_kernel(spec); });
}

runtime::KernelArgs gemm_kernel_args(const GemmLaunchArgs& g) {
  runtime::KernelArgs args;
  for (runtime::DevicePtr p : {g.a, g.b, g.out, g.c, g.bias, g.scale_a, g.scale_b, g.scale_out})
    args.ptr(p);
  for (int64_t v : {g.m, g.n, g.k, g.lda, g.ldb, g.ldo, g.ldc, g.ld_scale_a, g.ld_scale_b})
    args.add<int64_t>(v);
  for (float v : {g.alpha, g.beta})
    args.add<float>(v);
  for (runtime::DevicePtr p : {g.lora_t, g.lora_up})
    args.ptr(p);
  for (int64_t v : {g.lora_rank, g.ld_lora_t, g.ld_lora_up})
    args.add<int64_t>(v);
  args.add<float>(g.lora_scale);
  args.ptr(g.groups);
  for (int64_t v : {g.group_count, g.group_search_steps})
    args.add<int64_t>(v);
  args.ptr(g.workspace);
  for (int64_t v : {g.split_k, g.k_tiles_per_split})
    args.add<int64_t>(v);
  return args;
}

namespace {
int64_t tiles_along(int64_t extent, int tile) {
  return (extent + tile - 1) / tile;
}
} // namespace

runtime::Dim3 gemm_grid(const GemmKernelSpec& spec, const GemmLaunchArgs& g) {
  const GemmTileShape shape = gemm_tile_shape(spec.tile);
  const int64_t z = spec.split_k == SplitKPass::partial ? g.split_k : 1;
  return {static_cast<uint32_t>(tiles_along(g.m, shape.m)),
          static_cast<uint32_t>(tiles_along(g.n, shape.n)), static_cast<uint32_t>(z)};
}

int64_t gemm_tiles(GemmTile tile, int64_t m, int64_t n) {
  const GemmTileShape shape = gemm_tile_shape(tile);
  return tiles_along(m, shape.m) * tiles_along(n, shape.n);
}

int64_t gemm_k_tiles(const GemmKernelSpec& spec, int64_t k) {
  return tiles_along(k_storage_of(spec.a, k), gemm_tile_config(spec).k_storage);
}

GemmConfig gemm_config_for(const GemmKernelSpec& spec, int64_t m, int64_t n, int64_t k) {
  if (const std::optional<GemmConfig> forced = gemm_config_override())
    return *forced;
  GemmConfigQuery q;
  q.m = m;
  q.n = n;
  q.k_tiles = gemm_k_tiles(spec, k);
  q.compute_units = gemm_compute_units(gemm_target().arch);
  // Not the grouped launch (one grid over many problems), nor a dynamic activation quantization:
  // each of its passes reads the whole rows of x for s_m (bench_gemm: split-K modeled 0.87 -
  // 0.94x as fast as unsplit for scaled_mm_fused_quant).
  q.allow_split_k = !spec.grouped && spec.act_quant != ActQuant::dynamic_rowwise;
  q.grouped = spec.grouped;
  q.eight_wave_tile = gemm_tile_offered(spec, GemmTile::t128x128w8);
  return choose_gemm_config(q);
}

namespace {
void launch_compiled(runtime::Device& device, const GemmKernelSpec& spec, runtime::Dim3 grid,
                     const GemmLaunchArgs& g) {
  const runtime::KernelHandle kernel =
      traced_kernel(device, spec.name(), [&] { return build_gemm_kernel(spec); });
  const runtime::KernelArgs args = gemm_kernel_args(g);
  device.launch(kernel, grid, {static_cast<uint32_t>(gemm_tile_shape(spec.tile).threads())},
                args.span());
  device.synchronize();
}

} // namespace

GemmKernelSpec gemm_partial_pass(const GemmKernelSpec& spec) {
  GemmKernelSpec s = spec;
  const bool integer = s.a == DType::int8 || is_packed_int4(s.a);
  s.split_k = SplitKPass::partial;
  s.out = integer ? DType::i32 : DType::f32;
  s.alpha_beta = s.has_c = s.has_bias = false;
  s.scale_a = s.scale_b = ScaleKind::none;
  s.write_scale_out = false;
  s.lora = s.lora_vec_aligned = false;
  s.out_clipped = false; // stores the workspace, not out
  return s;
}

GemmKernelSpec gemm_reduce_pass(const GemmKernelSpec& spec) {
  GemmKernelSpec s = spec;
  s.split_k = SplitKPass::reduce;
  s.mx_block_scales = false;
  s.a_clipped = s.b_clipped = s.k_whole = false; // no operand copies
  return s;
}

int64_t gemm_workspace_bytes(GemmTile tile, int64_t m, int64_t n, int splits) {
  const GemmTileShape t = gemm_tile_shape(tile); // f32 / i32 partials of whole tiles
  return int64_t{splits} * tiles_along(m, t.m) * t.m * tiles_along(n, t.n) * t.n * 4;
}

void run_gemm_kernel(runtime::Device& device, const GemmKernelSpec& spec_in,
                     const GemmLaunchArgs& g_in) {
  if (spec_in.grouped)
    throw std::logic_error("run_gemm_kernel: a grouped spec launches with run_grouped_gemm_kernel");
  const GemmConfig config = gemm_config_for(spec_in, g_in.m, g_in.n, g_in.k);
  GemmKernelSpec spec = spec_in;
  spec.tile = config.tile;
  spec.split_k = SplitKPass::none;
  GemmLaunchArgs g = g_in;
  const GemmKSplit split = gemm_k_split(gemm_k_tiles(spec, g.k), config.split_k);
  if (split.splits <= 1) {
    gemm_clip_edges(spec, g);
    launch_compiled(device, spec, gemm_grid(spec, g), g);
    return;
  }
  // Split-K: f32 / i32 partials of every tile per split, summed by the reduce pass.
  g.workspace = device.allocate(size_t(gemm_workspace_bytes(spec.tile, g.m, g.n, split.splits)));
  g.split_k = split.splits;
  g.k_tiles_per_split = split.tiles_per_split;
  try {
    GemmKernelSpec partial = gemm_partial_pass(spec);
    gemm_clip_edges(partial, g);
    launch_compiled(device, partial, gemm_grid(partial, g), g);
    GemmKernelSpec reduce = gemm_reduce_pass(spec);
    gemm_clip_edges(reduce, g);
    launch_compiled(device, reduce, gemm_grid(reduce, g), g);
  } catch (...) {
    device.free(g.workspace);
    throw;
  }
  device.free(g.workspace);
}

void run_grouped_gemm_kernel(runtime::Device& device, const GemmKernelSpec& spec_in,
                             std::vector<GemmGroupRow> rows) {
  if (!spec_in.grouped)
    throw std::logic_error("run_grouped_gemm_kernel: the spec is not grouped");
  // The tile of the largest problem (no split-K: one grid over every problem's tiles).
  GemmKernelSpec spec = spec_in;
  spec.split_k = SplitKPass::none;
  int64_t max_m = 0, max_n = 0, max_k = 0;
  for (const GemmGroupRow& r : rows) {
    max_m = std::max(max_m, r.m);
    max_n = std::max(max_n, r.n);
    max_k = std::max(max_k, r.k);
  }
  spec.tile = gemm_config_for(spec, max_m, max_n, max_k).tile;
  // Problems without tiles get no row: the kernel's search sees only rows that own workgroups.
  std::erase_if(rows, [&](const GemmGroupRow& r) { return gemm_tiles(spec.tile, r.m, r.n) == 0; });
  int64_t tiles = 0;
  for (GemmGroupRow& r : rows) {
    r.tile_begin = tiles;
    tiles += gemm_tiles(spec.tile, r.m, r.n);
  }
  if (tiles == 0)
    return;
  // Clipped operand copies and output stores when every problem allows them.
  spec.a_clipped = spec.b_clipped = spec.out_clipped = true;
  for (const GemmGroupRow& r : rows) {
    spec.a_clipped = spec.a_clipped && gemm_operand_clips(spec, true, r.m, r.k, r.lda);
    spec.b_clipped = spec.b_clipped && gemm_operand_clips(spec, false, r.n, r.k, r.ldb);
    spec.out_clipped = spec.out_clipped && gemm_out_clips(spec, r.m, r.n, r.ldo);
  }
  spec.k_whole = std::all_of(rows.begin(), rows.end(),
                             [&](const GemmGroupRow& r) { return gemm_k_whole(spec, r.k); });
  if (tiles > int64_t{0x7fffffff})
    throw std::invalid_argument("grouped gemm: " + std::to_string(tiles) +
                                " workgroups exceed the grid's x limit (2^31 - 1)");
  const size_t bytes = rows.size() * sizeof(GemmGroupRow);
  const runtime::DevicePtr table = device.allocate(bytes);
  try {
    device.copy_to_device(table, rows.data(), bytes);
    GemmLaunchArgs g;
    g.groups = table;
    g.group_count = static_cast<int64_t>(rows.size());
    while ((int64_t{1} << g.group_search_steps) < g.group_count)
      ++g.group_search_steps; // ceil(log2(rows))
    launch_compiled(device, spec, {static_cast<uint32_t>(tiles)}, g);
  } catch (...) {
    device.free(table);
    throw;
  }
  device.free(table);
}

} // namespace gemm_kernel
} // namespace tw::kernels
