// The split-KV combine kernel on the emulator (memcheck on) through both emitters, against a
// float64 combine of random partials written here: splits that saw no key (m = -inf, l = 0),
// a row no split saw, more splits than lanes, Dv not a multiple of 32, strided out (the
// padding columns must stay untouched) and varlen rows past their sequence (not written).
#include "gemm_harness.hpp"

#include <kernels/attention/split_kv_combine.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

using namespace tw;
using namespace tw::kernels;
using namespace tw::oracle;

namespace {

constexpr double sentinel = 3.0; // what the output holds before the combine

struct Partials {
  int64_t splits, rows, dv;
  std::vector<float> o, m, l; // [S, rows, Dv], [S, rows], [S, rows]
};

// Random partials: m in [-4, 4], l in [1, 6] (a split's largest term contributes 1), o in
// [-2, 2] * l; about one split in four saw no key (m = -inf, l = 0, o = 0) and row
// `empty_row` (if >= 0) was seen by no split.
Partials random_partials(int64_t splits, int64_t rows, int64_t dv, uint64_t seed,
                         int64_t empty_row) {
  Partials p{splits, rows, dv, {}, {}, {}};
  Rng rng(seed);
  for (int64_t s = 0; s < splits; ++s)
    for (int64_t r = 0; r < rows; ++r) {
      const bool unseen = r == empty_row || rng.integer(0, 3) == 0;
      const float l = unseen ? 0.0f : float(rng.uniform(1, 6));
      p.m.push_back(unseen ? -std::numeric_limits<float>::infinity() : float(rng.uniform(-4, 4)));
      p.l.push_back(l);
      for (int64_t e = 0; e < dv; ++e)
        p.o.push_back(unseen ? 0.0f : float(rng.uniform(-2, 2)) * l);
    }
  return p;
}

// The float64 combine of one row: out (Dv values), sum of |terms| / l per column, and lse.
struct RowWant {
  std::vector<double> out, magnitude;
  double lse;
};
RowWant combine_row(const Partials& p, int64_t r) {
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t s = 0; s < p.splits; ++s)
    m = std::max(m, double(p.m[size_t(s * p.rows + r)]));
  RowWant w{std::vector<double>(size_t(p.dv), 0.0), std::vector<double>(size_t(p.dv), 0.0),
            -std::numeric_limits<double>::infinity()};
  if (m == -std::numeric_limits<double>::infinity())
    return w;
  double l = 0;
  std::vector<double> scale(size_t(p.splits), 0.0);
  for (int64_t s = 0; s < p.splits; ++s) {
    const double ms = p.m[size_t(s * p.rows + r)];
    scale[size_t(s)] = ms == -std::numeric_limits<double>::infinity() ? 0.0 : std::exp(ms - m);
    l += double(p.l[size_t(s * p.rows + r)]) * scale[size_t(s)];
  }
  for (int64_t e = 0; e < p.dv; ++e)
    for (int64_t s = 0; s < p.splits; ++s) {
      const double term = double(p.o[size_t((s * p.rows + r) * p.dv + e)]) * scale[size_t(s)] / l;
      w.out[size_t(e)] += term;
      w.magnitude[size_t(e)] += std::abs(term);
    }
  w.lse = m + std::log(l);
  return w;
}

// out within one ulp of its dtype plus an f32 bound on the sum (exp2 / log2 / the sum over
// the splits: a few 2^-23 relative each); lse within 2^-20 relative (plus as much absolute).
void check_value(DType dtype, double got, double want, double magnitude, const char* what) {
  CAPTURE(what);
  CAPTURE(want);
  CHECK(std::abs(got - want) <= ulp(dtype, want) + 0x1p-19 * magnitude);
}
void check_lse(double got, double want) {
  if (std::isinf(want)) {
    CHECK(got == want);
    return;
  }
  CHECK(std::abs(got - want) <= 0x1p-20 * (1 + std::abs(want)));
}

struct CombineCase {
  FlashAttnProblem problem;
  HostTensor out, lse, cu;
  Partials partials;
};

// Runs the combine of `c` on the emulator; returns the downloaded out and lse.
std::pair<HostTensor, HostTensor> run(CombineCase& c) {
  runtime::EmuDevice& dev = emu_device();
  DeviceTensors mem(dev);
  FlashAttnArgs args;
  args.out = mem.upload(c.out);
  if (c.problem.return_lse)
    args.lse = mem.upload(c.lse);
  if (c.problem.varlen)
    args.cu_seqlens_q = mem.upload(c.cu);
  SplitKvWorkspace ws(dev, c.problem);
  REQUIRE(ws.rows == c.partials.rows);
  dev.copy_to_device(ws.o_part, c.partials.o.data(), c.partials.o.size() * 4);
  dev.copy_to_device(ws.m_part, c.partials.m.data(), c.partials.m.size() * 4);
  dev.copy_to_device(ws.l_part, c.partials.l.data(), c.partials.l.size() * 4);
  launch_split_kv_combine(dev, ws, args, c.problem);
  HostTensor out = c.out, lse = c.lse;
  dev.copy_to_host(out.bytes().data(), args.out.device_address, out.bytes().size());
  if (args.lse)
    dev.copy_to_host(lse.bytes().data(), args.lse->device_address, lse.bytes().size());
  return {std::move(out), std::move(lse)};
}

HostTensor filled_with(DType dtype, kernels::Extents shape, kernels::Extents strides,
                       double value) {
  HostTensor t(dtype, shape, strides);
  // every byte of the storage, padding included, holds the sentinel's code
  HostTensor one(dtype, {1});
  one.set({0}, value);
  const size_t es = one.bytes().size();
  for (size_t at = 0; at + es <= t.bytes().size(); at += es)
    std::copy(one.bytes().begin(), one.bytes().end(), t.bytes().begin() + long(at));
  return t;
}

CombineCase dense_case(DType out_dtype, int64_t splits, int64_t dv, uint64_t seed) {
  CombineCase c;
  FlashAttnProblem& p = c.problem;
  p.out_dtype = out_dtype;
  p.batch = 2;
  p.heads_q = 3;
  p.seqlen_q = 5;
  p.head_dim_v = dv;
  p.num_splits = int(splits);
  p.return_lse = true;
  const int64_t ld = dv + 8; // padded rows: columns dv .. dv + 7 must stay untouched
  c.out = filled_with(out_dtype, {2, 5, 3, dv}, {5 * 3 * ld, 3 * ld, ld, 1}, sentinel);
  c.lse = filled_with(DType::f32, {2, 3, 5}, {}, sentinel);
  c.partials = random_partials(splits, 2 * 3 * 5, dv, seed, /*empty_row=*/7);
  return c;
}

void check_dense(const CombineCase& c, const HostTensor& out, const HostTensor& lse) {
  const FlashAttnProblem& p = c.problem;
  const int64_t ld = out.strides()[2];
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.heads_q; ++h)
      for (int64_t i = 0; i < p.seqlen_q; ++i) {
        const int64_t r = (b * p.heads_q + h) * p.seqlen_q + i;
        CAPTURE(r);
        const RowWant w = combine_row(c.partials, r);
        for (int64_t e = 0; e < p.head_dim_v; ++e)
          check_value(p.out_dtype, out.at({b, i, h, e}), w.out[size_t(e)], w.magnitude[size_t(e)],
                      "out");
        check_lse(lse.at({b, h, i}), w.lse);
      }
  // padding columns: element offsets (b, i, h) * strides + dv .. ld - 1 hold the sentinel
  const kernels::TensorView all = kernels::TensorView::on_host(
      const_cast<uint8_t*>(out.bytes().data()), p.out_dtype,
      {int64_t(out.bytes().size()) / int64_t(kernels::dtype_storage_bytes(p.out_dtype, 1))});
  int64_t padding_checked = 0;
  for (int64_t at = 0; at < all.shape[0]; ++at)
    if (at % ld >= p.head_dim_v) {
      const int64_t idx[1] = {at};
      CHECK(kernels::load_element(all, idx) == sentinel);
      ++padding_checked;
    }
  // (the storage ends with the last real element: every row but the last has its padding)
  CHECK(padding_checked == (p.batch * p.seqlen_q * p.heads_q - 1) * (ld - p.head_dim_v));
}

} // namespace

TEST_CASE("split_kv_combine: dense bf16, 3 splits, Dv 40, strided out, lse") {
  CombineCase c = dense_case(DType::bf16, 3, 40, 1);
  for_each_backend([&](emit::Backend) {
    const auto [out, lse] = run(c);
    check_dense(c, out, lse);
  });
}

TEST_CASE("split_kv_combine: dense f16, 37 splits (more than a wave's lanes), Dv 72") {
  CombineCase c = dense_case(DType::f16, 37, 72, 2);
  for_each_backend([&](emit::Backend) {
    const auto [out, lse] = run(c);
    check_dense(c, out, lse);
  });
}

TEST_CASE("split_kv_combine: one split is the normalized partial; no lse asked") {
  CombineCase c = dense_case(DType::bf16, 1, 16, 3);
  c.problem.return_lse = false;
  for_each_backend([&](emit::Backend) {
    const auto [out, lse] = run(c);
    // out = o / l for a seen row, 0 for an unseen one; lse untouched
    for (int64_t r : {0, 7, 29}) {
      const int64_t i = r % 5, h = r / 5 % 3, b = r / 15;
      const float l = c.partials.l[size_t(r)];
      for (int64_t e = 0; e < 16; ++e) {
        const double want = l == 0 ? 0.0 : double(c.partials.o[size_t(r * 16 + e)]) / l;
        check_value(DType::bf16, out.at({b, i, h, e}), want, std::abs(want), "out");
      }
      CHECK(lse.at({b, h, i}) == sentinel);
    }
  });
}

TEST_CASE("split_kv_combine: varlen rows land on their tokens; rows past a sequence are not "
          "written") {
  // cu_seqlens_q [0, 3, 3, 7] with max_seqlen_q 5: sequences of 3, 0 and 4 rows; packed
  // tokens 7 and 8 belong to no sequence.
  CombineCase c;
  FlashAttnProblem& p = c.problem;
  p.out_dtype = DType::bf16;
  p.varlen = true;
  p.batch = 3;
  p.heads_q = 2;
  p.seqlen_q = 5;
  p.head_dim_v = 33;
  p.num_splits = 4;
  p.return_lse = true;
  c.out = filled_with(DType::bf16, {9, 2, 33}, {}, sentinel);
  c.lse = filled_with(DType::f32, {2, 9}, {}, sentinel);
  c.cu = HostTensor(DType::i32, {4});
  const int32_t offsets[4] = {0, 3, 3, 7};
  for (int64_t k = 0; k < 4; ++k)
    c.cu.set({k}, offsets[k]);
  c.partials = random_partials(4, 3 * 2 * 5, 33, 4, /*empty_row=*/21);
  for_each_backend([&](emit::Backend) {
    const auto [out, lse] = run(c);
    std::vector<bool> written(9, false);
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t i = 0; i < offsets[b + 1] - offsets[b]; ++i) {
        const int64_t t = offsets[b] + i;
        written[size_t(t)] = true;
        for (int64_t h = 0; h < 2; ++h) {
          const int64_t r = (b * 2 + h) * 5 + i;
          CAPTURE(r);
          const RowWant w = combine_row(c.partials, r);
          for (int64_t e = 0; e < 33; ++e)
            check_value(DType::bf16, out.at({t, h, e}), w.out[size_t(e)], w.magnitude[size_t(e)],
                        "out");
          check_lse(lse.at({h, t}), w.lse);
        }
      }
    for (int64_t t = 0; t < 9; ++t)
      if (!written[size_t(t)])
        for (int64_t h = 0; h < 2; ++h) {
          CHECK(lse.at({h, t}) == sentinel);
          for (int64_t e = 0; e < 33; ++e)
            CHECK(out.at({t, h, e}) == sentinel);
        }
  });
}
