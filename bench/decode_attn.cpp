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
// follow each row. The page pool is small and the block table wraps around it (the instruction
// stream and the bytes read do not depend on which page a slot names); inputs are zeros. All
// times are modeled (docs/timing.md), not measured.
//   bench_decode_attn [batch [context]]
#include <kernels/attention/flash_attn_kernel.hpp>
#include <kernels/attention/flash_attn_splits.hpp>
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
  std::vector<int32_t> table(static_cast<size_t>(batch * blocks));
  const std::vector<int32_t> lens(static_cast<size_t>(batch), static_cast<int32_t>(context));
  for (size_t n = 0; n < table.size(); ++n)
    table[n] = int32_t(n % size_t(pool_pages));
  const runtime::DevicePtr k = dev.allocate(pool_bytes), v = dev.allocate(pool_bytes);
  const runtime::DevicePtr q = dev.allocate(size_t(batch * Hq * D) * 2);
  const runtime::DevicePtr out = dev.allocate(size_t(batch * Hq * D) * 2);
  const runtime::DevicePtr tab = dev.allocate(table.size() * 4),
                           len = dev.allocate(lens.size() * 4);
  const size_t rows = size_t(splits * batch * Hq);
  const runtime::DevicePtr o_part = dev.allocate(rows * size_t(D) * 4);
  const runtime::DevicePtr ml_part = dev.allocate(rows * 8);
  dev.copy_to_device(tab, table.data(), table.size() * 4);
  dev.copy_to_device(len, lens.data(), lens.size() * 4);

  FlashAttnLaunchArgs g;
  g.q = q;
  g.k = k;
  g.v = v;
  g.out = out;
  g.o_part = o_part;
  g.m_part = ml_part;
  g.l_part = ml_part + rows * 4;
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
  g.block_table = tab;
  g.seqlens_k = len;
  g.block_table_stride = blocks;
  g.page_size = int32_t(page);

  const double min_kv = double(batch * context * Hkv * 2 * D) * 2; // K and V rows once
  emu::timing::TimingOptions o;
  o.model_only = true;
  o.work_bytes = min_kv;
  dev.set_timing_model(o);
  const runtime::ModuleHandle mod = dev.load_code_object(co.elf);
  dev.launch(dev.get_kernel(mod, co.kernel_name), flash_attn_grid(g, packed), {uint32_t(threads)},
             flash_attn_kernel_args(g).span());
  const emu::LaunchStats st = dev.last_stats();
  const emu::timing::TimingReport t = dev.last_timing().value();
  dev.set_timing_model(std::nullopt);
  for (runtime::DevicePtr ptr : {k, v, q, out, tab, len, o_part, ml_part})
    dev.free(ptr);

  Figures f;
  f.splits = splits;
  f.workgroups = t.workgroups;
  // one workgroup's minimum: the keys of its split, K and V of one kv head
  const double keys = double((context + splits - 1) / splits);
  const double per_wg = double(st.global_bytes_read) / double(st.workgroups);
  // the KV part of a workgroup's reads: everything but q, the table and lengths (small)
  const double q_bytes = double((packed ? Hq / Hkv : 1) * D * 2);
  f.kv_per_key = (per_wg - q_bytes) / keys;
  // the launch's global reads (the sampled workgroups' mean times the grid) against the minimum
  f.global_per_min = per_wg * double(t.workgroups) / min_kv;
  f.instr_per_wmma = double(st.total_instructions()) / double(st.wmma_instructions);
  f.ms = t.seconds * 1e3;
  f.gbs = t.gbs;
  return f;
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
  std::printf("%5s %7s %-8s %6s %6s %14s %16s %12s %12s %10s\n", "batch", "context", "kernel",
              "splits", "wgs", "B/key/wg", "reads/minimum", "instr/WMMA", "modeled ms",
              "mod. GB/s");
  for (int64_t b : {1, 8, 64})
    for (int64_t ctx : {1024, 4096, 32768}) {
      if ((only_b && b != only_b) || (only_ctx && ctx != only_ctx))
        continue;
      for (bool packed : {true, false}) {
        const Figures f = run(dev, b, ctx, packed);
        std::printf("%5lld %7lld %-8s %6d %6llu %14.1f %16.3f %12.2f %12.4f %10.0f\n", (long long)b,
                    (long long)ctx, packed ? "packed" : "per-head", f.splits,
                    (unsigned long long)f.workgroups, f.kv_per_key, f.global_per_min,
                    f.instr_per_wmma, f.ms, f.gbs);
      }
    }
  return 0;
}
