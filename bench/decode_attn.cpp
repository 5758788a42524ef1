// bench_decode_attn: paged decode (decode_attn's kernel) per batch and context length, on the
// emulator with the timing model sampling 3 workgroups of the real grid (--model-only): bf16,
// Sq = 1, Hq = 32, Hkv = 8 (G = 4), D = Dv = 128, pages of 64 tokens, the split count the host
// picks (choose_num_splits on the packed grid). It prints the bytes a sampled workgroup read
// per key of its range (the minimum is one K and one V row of its kv head: (D + Dv) x 2 = 512
// bytes), the launch's global reads (the sampled workgroups' mean times the grid) against the
// minimum of the whole decode step (every page of every sequence read once), and the executed
// wave instructions per WMMA; then the modeled time of the attention launch (the split-KV combine
// launch is not included) and the modeled rate of the minimum KV bytes. The same figures for
// the unpacked kernel (one query head per workgroup, what decode_attn ran before GQA packing)
// follow each row. The last column is what limits the modeled launch. The page pool is small and
// the block table wraps around it (the instruction stream and the bytes read do not depend on which
// page a slot names); inputs are zeros. All times are modeled (docs/timing.md), not measured. A
// second table does the same for MLA decode (mla_decode's kernel: bf16, Sq = 1, one latent kv head
// of 576 dims, value 512, Hq = 16 and 128, pages of 64, the host's split count): its minimum per
// key is one cache row (576 x 2 = 1152 bytes) per sequence, read once for the whole decode step.
//   bench_decode_attn [batch [context]]
#include <kernels/attention/flash_attn_kernel.hpp>
#include <kernels/attention/flash_attn_splits.hpp>
#include <kernels/attention/mla_decode_kernel.hpp>
#include <kernels/gemm/gemm_target.hpp>

#include <emit/compile.hpp>
#include <runtime/emu/stats.hpp>
#include <runtime/emu_device.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tw;
using namespace tw::kernels;
using namespace tw::kernels::flash_attn_kernel;

namespace {

constexpr int64_t Hq = 32, Hkv = 8, D = 128, page = 64, pool_pages = 128;

struct Figures {
  int splits = 1;
  uint64_t workgroups = 0;
  double kv_per_key = 0, global_per_min = 0, instr_per_wmma = 0, ms = 0, gbs = 0;
  std::string bound; // what limits the modeled launch (docs/timing.md)
};

// One launch of `co` on the emulator with the timing model sampling 3 workgroups of the real grid:
// the sampled workgroups' reads per key of their range (less their q rows), the launch's reads
// (their mean times the grid) against `min_bytes`, instructions per WMMA, the modeled time and
// the modeled rate of `min_bytes`.
Figures measure(runtime::EmuDevice& dev, const emit::CodeObject& co, runtime::Dim3 grid,
                uint32_t block, const runtime::KernelArgs& args, double min_bytes,
                int64_t keys_per_wg, double q_bytes) {
  emu::timing::TimingOptions o;
  o.model_only = true;
  o.work_bytes = min_bytes;
  dev.set_timing_model(o);
  const runtime::ModuleHandle mod = dev.load_code_object(co.elf);
  dev.launch(dev.get_kernel(mod, co.kernel_name), grid, {block}, args.span());
  const emu::LaunchStats st = dev.last_stats();
  const emu::timing::TimingReport t = dev.last_timing().value();
  dev.set_timing_model(std::nullopt);
  Figures f;
  f.workgroups = t.workgroups;
  const double per_wg = double(st.global_bytes_read) / double(st.workgroups);
  f.kv_per_key = (per_wg - q_bytes) / double(keys_per_wg);
  f.global_per_min = per_wg * double(t.workgroups) / min_bytes;
  f.instr_per_wmma = double(st.total_instructions()) / double(st.wmma_instructions);
  f.ms = t.seconds * 1e3;
  f.gbs = t.gbs;
  f.bound = t.bound;
  return f;
}

// The paging and split-KV buffers both decode kernels read: a block table of `batch` rows of
// `blocks` slots that wraps around the pool (slot n names page n mod pool_pages), every sequence
// `context` keys long, and the f32 partials of `rows` split rows of `dv` values (o, then m and l).
struct PagedDecodeBuffers {
  runtime::EmuDevice& dev;
  runtime::DevicePtr table = 0, lengths = 0, o_part = 0, ml_part = 0;
  size_t rows = 0;

  PagedDecodeBuffers(runtime::EmuDevice& d, int64_t batch, int64_t blocks, int64_t context,
                     size_t split_rows, int64_t dv)
      : dev(d), rows(split_rows) {
    std::vector<int32_t> slots(static_cast<size_t>(batch * blocks));
    const std::vector<int32_t> lens(static_cast<size_t>(batch), static_cast<int32_t>(context));
    for (size_t n = 0; n < slots.size(); ++n)
      slots[n] = int32_t(n % size_t(pool_pages));
    table = dev.allocate(slots.size() * 4);
    lengths = dev.allocate(lens.size() * 4);
    o_part = dev.allocate(rows * size_t(dv) * 4);
    ml_part = dev.allocate(rows * 8);
    dev.copy_to_device(table, slots.data(), slots.size() * 4);
    dev.copy_to_device(lengths, lens.data(), lens.size() * 4);
  }
  PagedDecodeBuffers(const PagedDecodeBuffers&) = delete;
  PagedDecodeBuffers& operator=(const PagedDecodeBuffers&) = delete;
  ~PagedDecodeBuffers() {
    for (runtime::DevicePtr ptr : {table, lengths, o_part, ml_part})
      dev.free(ptr);
  }
  runtime::DevicePtr m_part() const { return ml_part; }
  runtime::DevicePtr l_part() const { return ml_part + rows * 4; }
};

Figures run(runtime::EmuDevice& dev, int64_t batch, int64_t context, bool packed) {
  const int64_t blocks = context / page;
  // the problem the split heuristic sees: the packed grid has G * Sq rows per kv head
  FlashAttnProblem p;
  p.batch = batch;
  p.seqlen_q = packed ? Hq / Hkv : 1;
  p.heads_q = packed ? Hkv : Hq;
  p.seqlen_k = context;
  p.num_splits = 0;
  const int splits = choose_num_splits(p);

  FlashAttnKernelSpec s;
  s.dtype = s.out = DType::bf16;
  s.head_dim_pad = s.head_dim_v_pad = int(D);
  s.vec_aligned = s.v_transpose_loads = true;
  s.paging = FlashAttnKernelSpec::KvPaging::table;
  s.split = splits > 1;
  s.gqa_packed = packed;
  set_gemm_target({emit::Backend::llvm, Arch::gfx1201});
  const emit::CodeObject co = compile_flash_attn_kernel(s);

  const size_t pool_bytes = size_t(pool_pages * page * Hkv * D) * 2;
  const runtime::DevicePtr k = dev.allocate(pool_bytes), v = dev.allocate(pool_bytes);
  const runtime::DevicePtr q = dev.allocate(size_t(batch * Hq * D) * 2);
  const runtime::DevicePtr out = dev.allocate(size_t(batch * Hq * D) * 2);
  const PagedDecodeBuffers paging(dev, batch, blocks, context, size_t(splits * batch * Hq), D);

  FlashAttnLaunchArgs g;
  g.q = q;
  g.k = k;
  g.v = v;
  g.out = out;
  g.o_part = paging.o_part;
  g.m_part = paging.m_part();
  g.l_part = paging.l_part();
  g.batch = batch;
  g.seqlen_q = 1;
  g.seqlen_k = context;
  g.heads_q = Hq;
  g.heads_kv = Hkv;
  g.head_dim = g.head_dim_v = D;
  g.q_ss = g.o_ss = Hq * D; // q / out [B, 1, Hq, D]
  g.q_sh = g.o_sh = D;
  g.q_sb = g.o_sb = Hq * D;
  g.k_sb = g.v_sb = page * Hkv * D; // pools [pages, page, Hkv, D]
  g.k_ss = g.v_ss = Hkv * D;
  g.k_sh = g.v_sh = D;
  g.num_splits = splits;
  g.sm_scale = 0.0883883f;
  g.block_table = paging.table;
  g.seqlens_k = paging.lengths;
  g.block_table_stride = blocks;
  g.page_size = int32_t(page);

  const double min_kv = double(batch * context * Hkv * 2 * D) * 2; // K and V rows once
  // one workgroup's q: its G query heads' rows (packed) or one head's
  const double q_bytes = double((packed ? Hq / Hkv : 1) * D * 2);
  Figures f = measure(dev, co, flash_attn_grid(g, packed), uint32_t(threads),
                      flash_attn_kernel_args(g), min_kv, (context + splits - 1) / splits, q_bytes);
  for (runtime::DevicePtr ptr : {k, v, q, out})
    dev.free(ptr);
  f.splits = splits;
  return f;
}

// MLA decode (mla_decode_kernel.hpp) as mla_decode launches it: Sq 1, Hq query heads packed 16
// rows per workgroup, one latent cache [pages, page, 576].
constexpr int64_t mla_row = mla_qk_dim, mla_v = mla_v_dim;

Figures run_mla(runtime::EmuDevice& dev, int64_t batch, int64_t context, int64_t heads_q) {
  using namespace mla_decode_kernel;
  const int64_t blocks = context / page;
  // the split choice of mla_decode: ceil(Hq * Sq / 16) x B workgroups of 16 packed rows
  FlashAttnProblem p;
  p.batch = batch;
  p.seqlen_q = heads_q;
  p.heads_q = p.heads_kv = 1;
  p.seqlen_k = context;
  p.num_splits = 0;
  SplitHeuristic h;
  h.query_tile = block_rows;
  const int splits = choose_num_splits(p, h);

  MlaDecodeKernelSpec s;
  s.split = splits > 1;
  s.vec_aligned = true;
  set_gemm_target({emit::Backend::llvm, Arch::gfx1201});
  const emit::CodeObject co = compile_mla_decode_kernel(s);

  const size_t pool_bytes = size_t(pool_pages * page * mla_row) * 2;
  const runtime::DevicePtr kv = dev.allocate(pool_bytes);
  const runtime::DevicePtr q = dev.allocate(size_t(batch * heads_q * mla_row) * 2);
  const runtime::DevicePtr out = dev.allocate(size_t(batch * heads_q * mla_v) * 2);
  const PagedDecodeBuffers paging(dev, batch, blocks, context, size_t(splits * batch * heads_q),
                                  mla_v);

  MlaDecodeLaunchArgs g;
  g.q = q;
  g.kv = kv;
  g.out = out;
  g.o_part = paging.o_part;
  g.m_part = paging.m_part();
  g.l_part = paging.l_part();
  g.block_table = paging.table;
  g.seqlens_k = paging.lengths;
  g.batch = batch;
  g.seqlen_q = 1;
  g.heads_q = heads_q;
  g.q_sb = g.q_ss = heads_q * mla_row; // q [B, 1, Hq, 576]
  g.q_sh = mla_row;
  g.o_sb = g.o_ss = heads_q * mla_v; // out [B, 1, Hq, 512]
  g.o_sh = mla_v;
  g.kv_sp = page * mla_row; // cache [pages, page, 576]
  g.kv_ss = mla_row;
  g.block_table_stride = blocks;
  g.num_splits = splits;
  g.page_size = int32_t(page);
  g.sm_scale = 0.0416667f;

  const double min_kv = double(batch * context * mla_row) * 2; // each cache row once
  const double q_bytes = double(block_rows * mla_row * 2);     // a workgroup's 16 query rows
  Figures f = measure(dev, co, mla_decode_grid(g), uint32_t(mla_decode_kernel::threads),
                      mla_decode_kernel_args(g), min_kv, (context + splits - 1) / splits, q_bytes);
  for (runtime::DevicePtr ptr : {kv, q, out})
    dev.free(ptr);
  f.splits = splits;
  return f;
}

void print_header() {
  std::printf("%5s %7s %-9s %6s %6s %14s %16s %12s %12s %10s  %s\n", "batch", "context", "kernel",
              "splits", "wgs", "B/key/wg", "reads/minimum", "instr/WMMA", "modeled ms", "mod. GB/s",
              "bound");
}

void print_row(int64_t batch, int64_t context, const char* kernel, const Figures& f) {
  std::printf("%5lld %7lld %-9s %6d %6llu %14.1f %16.3f %12.2f %12.4f %10.0f  %s\n",
              (long long)batch, (long long)context, kernel, f.splits,
              (unsigned long long)f.workgroups, f.kv_per_key, f.global_per_min, f.instr_per_wmma,
              f.ms, f.gbs, f.bound.c_str());
}

} // namespace

int main(int argc, char** argv) {
  const int64_t only_b = argc > 1 ? std::atoll(argv[1]) : 0;
  const int64_t only_ctx = argc > 2 ? std::atoll(argv[2]) : 0;
  runtime::EmuDevice dev;
  dev.set_memcheck(false);
  std::printf("decode bf16, Sq 1, Hq %lld, Hkv %lld, D = Dv = %lld, page %lld (llvm, gfx1201; "
              "minimum KV bytes per key %lld)\n",
              (long long)Hq, (long long)Hkv, (long long)D, (long long)page, (long long)(2 * D * 2));
  print_header();
  for (int64_t b : {1, 8, 64})
    for (int64_t ctx : {1024, 4096, 32768}) {
      if ((only_b && b != only_b) || (only_ctx && ctx != only_ctx))
        continue;
      for (bool packed : {true, false})
        print_row(b, ctx, packed ? "packed" : "per-head", run(dev, b, ctx, packed));
    }
  std::printf("\nMLA decode bf16, Sq 1, cache row %lld (value %lld), page %lld (llvm, gfx1201; "
              "minimum cache bytes per key %lld)\n",
              (long long)mla_row, (long long)mla_v, (long long)page, (long long)(mla_row * 2));
  print_header();
  for (int64_t b : {1, 8, 64})
    for (int64_t ctx : {1024, 4096, 32768}) {
      if ((only_b && b != only_b) || (only_ctx && ctx != only_ctx))
        continue;
      for (int64_t hq : {16, 128})
        print_row(b, ctx, hq == 16 ? "mla Hq16" : "mla Hq128", run_mla(dev, b, ctx, hq));
    }
  return 0;
}
