// The split-KV combine kernel (split_kv_combine.hpp), written with the DSL: per query row,
// lanes stride over the splits for m and l (wave reductions), then over the Dv columns, each
// summing its column over the splits.
#include <kernels/attention/split_kv_combine.hpp>
#include <kernels/common/compile_traced.hpp>
#include <kernels/gemm/gemm_target.hpp>

#include <dsl/dsl.hpp>
#include <dsl/handles/convert.hpp>
#include <emit/compile.hpp>
#include <runtime/kernel_args.hpp>

#include <limits>
#include <map>
#include <mutex>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace tw::kernels {

namespace {

int64_t partial_rows(const FlashAttnProblem& p) {
  return p.batch * p.heads_q * p.seqlen_q;
}

} // namespace

SplitKvWorkspace::SplitKvWorkspace(runtime::Device& device, const FlashAttnProblem& p)
    : splits(p.num_splits), rows(partial_rows(p)), head_dim_v(p.head_dim_v), device_(device) {
  const size_t per_split = size_t(splits * rows);
  // allocate() zero-fills: o = 0, l = 0; m is set to -inf.
  o_part = device.allocate(std::max<size_t>(per_split * size_t(head_dim_v) * 4, 4));
  l_part = device.allocate(std::max<size_t>(per_split * 4, 4));
  m_part = device.allocate(std::max<size_t>(per_split * 4, 4));
  const std::vector<float> ninf(per_split, -std::numeric_limits<float>::infinity());
  if (!ninf.empty())
    device.copy_to_device(m_part, ninf.data(), ninf.size() * 4);
}

SplitKvWorkspace::~SplitKvWorkspace() {
  device_.free(o_part);
  device_.free(l_part);
  device_.free(m_part);
}

std::string SplitKvCombineSpec::name() const {
  return "split_kv_combine_" + std::string(dtype_name(out)) + (lse ? "_lse" : "") +
         (varlen ? "_varlen" : "");
}

namespace {

using namespace tw::dsl;

constexpr int waves = split_kv_combine_waves;

template <class OutE>
ir::Kernel build_body(const SplitKvCombineSpec& spec) {
  KernelBuilder kb(spec.name(), {32 * waves, 1, 1});
  auto [o_part, m_part, l_part, out, lse, cu_seqlens_q, num_splits, head_dim_v, batch, heads,
        seqlen_q, out_stride_b, out_stride_s, out_stride_h, lse_stride_b, lse_stride_h] =
      kb.args(gptr<f32>("o_part"), gptr<f32>("m_part"), gptr<f32>("l_part"), gptr<OutE>("out"),
              gptr<f32>("lse"), gptr<i32>("cu_seqlens_q"), scalar<i32>("num_splits"),
              scalar<i32>("head_dim_v"), scalar<i64>("batch"), scalar<i64>("heads"),
              scalar<i64>("seqlen_q"), scalar<i64>("out_stride_b"), scalar<i64>("out_stride_s"),
              scalar<i64>("out_stride_h"), scalar<i64>("lse_stride_b"),
              scalar<i64>("lse_stride_h"));
  const Int64 rows = batch * heads * seqlen_q;
  const Int64 row = cast<i64>(block_id()) * Int64(waves) + cast<i64>(wave_id());
  if_(row < rows, [&] {
    const Int64 i = row % seqlen_q, bh = row / seqlen_q;
    const Int64 h = bh % heads, b = bh / heads;
    // Where the row lands: dense (b, i, h), or varlen token cu_seqlens_q[b] + i when i is
    // inside the sequence.
    Bool inside(true);
    Int64 out_at, lse_at;
    if (spec.varlen) {
      const Int64 start = cast<i64>(cu_seqlens_q.load(b));
      inside = i < cast<i64>(cu_seqlens_q.load(b + Int64(1))) - start;
      out_at = (start + i) * out_stride_s + h * out_stride_h;
      lse_at = h * lse_stride_h + start + i;
    } else {
      out_at = b * out_stride_b + i * out_stride_s + h * out_stride_h;
      lse_at = b * lse_stride_b + h * lse_stride_h + i;
    }
    if_(inside, [&] {
      const Float32 ninf(-std::numeric_limits<float>::infinity());
      const auto at = [&](const Int32& s) { return cast<i64>(s) * rows + row; };
      auto [m_lane] =
          for_range(lane_id(), num_splits, Int32(32), carry(ninf),
                    [&](Int32 s, Float32 m) { return carry(max(m, m_part.load(at(s)))); });
      const Float32 m = lane_reduce(m_lane, Reduce::max);
      // exp(m_s - m), 0 for a split that saw no key (also when no split did: m = -inf)
      const auto weight = [&](const Float32& m_s) {
        return select(m_s == ninf, Float32(0.0f),
                      exp2((m_s - m) * Float32(std::numbers::log2e_v<float>)));
      };
      auto [l_lane] = for_range(lane_id(), num_splits, Int32(32), carry(Float32(0.0f)),
                                [&](Int32 s, Float32 l) {
                                  return carry(l + l_part.load(at(s)) * weight(m_part.load(at(s))));
                                });
      const Float32 l = lane_reduce(l_lane, Reduce::sum);
      const Bool seen = l > Float32(0.0f);
      const Float32 inv_l = select(seen, Float32(1.0f) / l, Float32(0.0f));
      for_range(lane_id(), head_dim_v, Int32(32), [&](Int32 e) {
        auto [acc] = for_range(Int32(0), num_splits, Int32(1), carry(Float32(0.0f)),
                               [&](Int32 s, Float32 acc) {
                                 const Int64 o_at = at(s) * cast<i64>(head_dim_v) + cast<i64>(e);
                                 return carry(acc + o_part.load(o_at) * weight(m_part.load(at(s))));
                               });
        out.store(out_at + cast<i64>(e), convert_rne<OutE>(acc * inv_l));
      });
      if (spec.lse)
        if_(lane_id() == 0, [&] {
          lse.store(lse_at, select(seen, m + log2(l) * Float32(std::numbers::ln2_v<float>), ninf));
        });
    });
  });
  return kb.finish();
}

} // namespace

ir::Kernel build_split_kv_combine(const SplitKvCombineSpec& spec) {
  switch (spec.out) {
  case DType::bf16:
    return build_body<bf16>(spec);
  case DType::f16:
    return build_body<f16>(spec);
  default:
    throw std::invalid_argument("split_kv_combine: output dtype " +
                                std::string(dtype_name(spec.out)) + "; expected bf16 or f16");
  }
}

void launch_split_kv_combine(runtime::Device& device, const SplitKvWorkspace& ws,
                             const FlashAttnArgs& args, const FlashAttnProblem& p) {
  if (ws.splits != p.num_splits || ws.rows != partial_rows(p) || ws.head_dim_v != p.head_dim_v)
    throw std::logic_error("launch_split_kv_combine: the workspace was made for another problem");
  if (ws.rows == 0)
    return;
  const SplitKvCombineSpec spec{p.out_dtype, p.return_lse && args.lse.has_value(), p.varlen};
  const TensorView& out = args.out;
  runtime::KernelArgs ka;
  ka.ptr(ws.o_part).ptr(ws.m_part).ptr(ws.l_part).ptr(out.device_address);
  ka.ptr(spec.lse ? args.lse->device_address : 0);
  ka.ptr(p.varlen ? args.cu_seqlens_q->device_address : 0);
  ka.add<int32_t>(int32_t(p.num_splits)).add<int32_t>(int32_t(p.head_dim_v));
  // out [B, Sq, Hq, Dv] (dense) / [Tq, Hq, Dv] (varlen); lse [B, Hq, Sq] / [Hq, Tq]
  const int64_t o_sb = p.varlen ? 0 : out.strides[0];
  const int64_t o_ss = out.strides[p.varlen ? 0 : 1], o_sh = out.strides[p.varlen ? 1 : 2];
  int64_t l_sb = 0, l_sh = 0;
  if (spec.lse) {
    l_sb = p.varlen ? 0 : args.lse->strides[0];
    l_sh = args.lse->strides[p.varlen ? 0 : 1];
  }
  for (int64_t v : {p.batch, p.heads_q, p.seqlen_q, o_sb, o_ss, o_sh, l_sb, l_sh})
    ka.add<int64_t>(v);
  const int64_t groups = (ws.rows + waves - 1) / waves;
  if (groups > int64_t(std::numeric_limits<uint32_t>::max()))
    throw std::invalid_argument("split_kv_combine: " + std::to_string(ws.rows) +
                                " query rows need more workgroups than a grid holds");
  device.launch(traced_kernel(device, spec.name(), [&] { return build_split_kv_combine(spec); }),
                {uint32_t(groups)}, {32u * waves}, ka.span());
  device.synchronize();
}

} // namespace tw::kernels
