// Linear attention through the host API on the emulator (memcheck on, both emitters) against
// the quadratic float64 oracle: sequence lengths 1, 17, 97, 129 (partial chunks), head dims
// 32, 64, 100, 128, 256 and value dims not a multiple of 16, with and without a per-head decay
// and the normalizer, GQA, bf16 and f16 inputs. Tolerance from the dtype: one ulp of the output
// plus, per term, the input dtype's rounding (the WMMA operands P, the state and the decayed V
// are rounded to it) twice: 2 * 2^-(mantissa + 1) of sum |terms|.
#include "gemm_harness.hpp"

#include <kernels/attention/linear_attn_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;

namespace {

struct LinCase {
  DType dtype = DType::bf16;
  DType out = DType::bf16;
  int64_t batch = 1, seqlen = 17, heads_q = 2, heads_kv = 2, head_dim = 32, head_dim_v = 32;
  bool decay = false, normalize = false;
};

void run_linear(const LinCase& c, uint64_t seed) {
  CAPTURE(dtype_name(c.dtype));
  CAPTURE(c.seqlen);
  CAPTURE(c.head_dim);
  CAPTURE(c.head_dim_v);
  CAPTURE(c.decay);
  CAPTURE(c.normalize);
  // Positive features for the normalized form (a denominator far from 0), signed otherwise.
  const ValueRange qk = c.normalize ? ValueRange{0, 1} : ValueRange{-1, 1};
  const HostTensor q = random_tensor(c.dtype, {c.batch, c.seqlen, c.heads_q, c.head_dim}, seed, qk);
  const HostTensor k =
      random_tensor(c.dtype, {c.batch, c.seqlen, c.heads_kv, c.head_dim}, seed + 1, qk);
  const HostTensor v = random_tensor(c.dtype, {c.batch, c.seqlen, c.heads_kv, c.head_dim_v},
                                     seed + 2, ValueRange{-1, 1});
  HostTensor decay(DType::f32, {c.heads_q});
  for (int64_t h = 0; h < c.heads_q; ++h)
    decay.set({h}, 0.97 - 0.1 * double(h)); // 0.97, 0.87, ...
  const HostTensor out0 =
      random_tensor(c.out, {c.batch, c.seqlen, c.heads_q, c.head_dim_v}, seed + 3);
  kernels::LinearAttnArgs host{q.view(), k.view(), v.view(), out0.view()};
  if (c.decay)
    host.decay = decay.view();
  host.normalize = c.normalize;
  const Reference want = oracle::linear_attn(host);
  Tolerance tol;
  tol.out = c.out;
  tol.ulps = 1.0;
  tol.accumulation = 2.0 * std::ldexp(1.0, -(float_shape(c.dtype).mantissa_bits + 1)) +
                     f32_accumulation(c.seqlen + c.head_dim);
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& d = emu_device();
    DeviceTensors dev(d);
    kernels::LinearAttnArgs a{dev.upload(q), dev.upload(k), dev.upload(v), dev.upload(out0)};
    if (c.decay)
      a.decay = dev.upload(decay);
    a.normalize = c.normalize;
    kernels::linear_attn(d, a);
    HostTensor got = out0;
    if (!got.bytes().empty())
      d.copy_to_host(got.bytes().data(), a.out.device_address, got.bytes().size());
    const CompareResult r = compare(decode_attention_rows(got.view()), want, tol);
    CHECK_MESSAGE(r.ok, r.summary());
  });
}

} // namespace

TEST_CASE("linear_attn: sequence lengths 1, 17, 97, 129 (partial and several chunks)") {
  uint64_t seed = 1;
  for (int64_t s : {1, 17, 97, 129})
    run_linear({.seqlen = s}, seed++);
}

TEST_CASE("linear_attn: head dims 32, 64, 100, 128, 256 and value dims 8, 40, 100, 256") {
  run_linear({.dtype = DType::f16, .out = DType::f16, .head_dim = 64, .head_dim_v = 40}, 10);
  run_linear({.seqlen = 33, .heads_q = 1, .heads_kv = 1, .head_dim = 100, .head_dim_v = 100}, 11);
  run_linear({.dtype = DType::f16, .out = DType::f32, .head_dim = 128, .head_dim_v = 8}, 12);
  run_linear({.seqlen = 20, .heads_q = 1, .heads_kv = 1, .head_dim = 256, .head_dim_v = 256}, 13);
}

TEST_CASE("linear_attn: head dims 1, 72, 150, 190, 220 (the other register paddings 32, 96, 160, "
          "192, 224), decay and the normalizer") {
  run_linear({.seqlen = 19, .heads_q = 1, .heads_kv = 1, .head_dim = 1, .head_dim_v = 3}, 60);
  run_linear({.seqlen = 33, .head_dim = 72, .head_dim_v = 20, .decay = true}, 61);
  run_linear({.seqlen = 17,
              .heads_q = 1,
              .heads_kv = 1,
              .head_dim = 150,
              .head_dim_v = 16,
              .decay = true,
              .normalize = true},
             62);
  run_linear({.dtype = DType::f16,
              .out = DType::f32,
              .seqlen = 18,
              .heads_q = 1,
              .heads_kv = 1,
              .head_dim = 190,
              .head_dim_v = 33},
             63);
  run_linear({.seqlen = 16,
              .heads_q = 1,
              .heads_kv = 1,
              .head_dim = 220,
              .head_dim_v = 15,
              .normalize = true},
             64);
}

TEST_CASE("linear_attn: per-head decay, with and without the normalizer") {
  run_linear({.seqlen = 97, .decay = true}, 20);
  run_linear({.dtype = DType::f16,
              .out = DType::f16,
              .seqlen = 40,
              .head_dim = 64,
              .head_dim_v = 31,
              .decay = true,
              .normalize = true},
             21);
  run_linear({.seqlen = 129, .head_dim_v = 17, .normalize = true}, 22);
}

TEST_CASE("linear_attn: batch 2 with GQA (4 query heads over 2 kv heads)") {
  run_linear({.batch = 2, .seqlen = 19, .heads_q = 4, .heads_kv = 2, .decay = true}, 30);
}

TEST_CASE("linear_attn: an empty sequence launches nothing") {
  run_linear({.seqlen = 0}, 40);
}

TEST_CASE("linear_attn validation: each bad argument is named with its rule") {
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const auto t = [&](DType dt, Extents e) { return dev.upload(HostTensor(dt, e)); };
  const kernels::LinearAttnArgs ok{t(DType::bf16, {1, 4, 2, 32}), t(DType::bf16, {1, 4, 2, 32}),
                                   t(DType::bf16, {1, 4, 2, 16}), t(DType::bf16, {1, 4, 2, 16})};
  kernels::linear_attn(d, ok);
  auto a = ok;
  a.k = t(DType::f16, {1, 4, 2, 32});
  CHECK_THROWS_WITH(kernels::linear_attn(d, a), doctest::Contains("linear_attn: argument 'k'"));
  a = ok;
  a.q = t(DType::bf16, {1, 4, 2, 300});
  a.k = t(DType::bf16, {1, 4, 2, 300});
  CHECK_THROWS_WITH(kernels::linear_attn(d, a),
                    doctest::Contains("argument 'q' has head_dim 300; expected 1 to 256"));
  a = ok;
  a.k = t(DType::bf16, {1, 4, 3, 32});
  a.v = t(DType::bf16, {1, 4, 3, 16});
  CHECK_THROWS_WITH(kernels::linear_attn(d, a),
                    doctest::Contains("argument 'k' has 3 heads; expected a divisor of the 2"));
  a = ok;
  a.out = t(DType::bf16, {1, 4, 2, 32});
  CHECK_THROWS_WITH(kernels::linear_attn(d, a), doctest::Contains("argument 'out' has shape"));
  a = ok;
  a.decay = t(DType::f32, {3});
  CHECK_THROWS_WITH(kernels::linear_attn(d, a), doctest::Contains("argument 'decay' has shape"));
  a = ok;
  a.eps = -1.0f;
  CHECK_THROWS_WITH(kernels::linear_attn(d, a), doctest::Contains("parameter 'eps' is"));
}

namespace {

// Varlen: packed [T, H, D] sequences of the given lengths (cu_seqlens), each its own recurrence.
void run_linear_varlen(const LinCase& c, const std::vector<int32_t>& lengths, uint64_t seed) {
  CAPTURE(c.head_dim);
  CAPTURE(c.decay);
  CAPTURE(c.normalize);
  HostTensor cu(DType::i32, {int64_t(lengths.size()) + 1});
  int64_t tokens = 0;
  for (size_t b = 0; b < lengths.size(); ++b) {
    cu.set({int64_t(b)}, double(tokens));
    tokens += lengths[b];
  }
  cu.set({int64_t(lengths.size())}, double(tokens));
  const ValueRange qk = c.normalize ? ValueRange{0, 1} : ValueRange{-1, 1};
  const HostTensor q = random_tensor(c.dtype, {tokens, c.heads_q, c.head_dim}, seed, qk);
  const HostTensor k = random_tensor(c.dtype, {tokens, c.heads_kv, c.head_dim}, seed + 1, qk);
  const HostTensor v =
      random_tensor(c.dtype, {tokens, c.heads_kv, c.head_dim_v}, seed + 2, ValueRange{-1, 1});
  HostTensor decay(DType::f32, {c.heads_q});
  for (int64_t h = 0; h < c.heads_q; ++h)
    decay.set({h}, 0.95 - 0.1 * double(h));
  const HostTensor out0 = random_tensor(c.out, {tokens, c.heads_q, c.head_dim_v}, seed + 3);
  kernels::LinearAttnArgs host{q.view(), k.view(), v.view(), out0.view()};
  host.cu_seqlens = cu.view();
  if (c.decay)
    host.decay = decay.view();
  host.normalize = c.normalize;
  const Reference want = oracle::linear_attn(host);
  int64_t longest = 0;
  for (int32_t l : lengths)
    longest = std::max<int64_t>(longest, l);
  Tolerance tol;
  tol.out = c.out;
  tol.ulps = 1.0;
  tol.accumulation = 2.0 * std::ldexp(1.0, -(float_shape(c.dtype).mantissa_bits + 1)) +
                     f32_accumulation(longest + c.head_dim);
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& d = emu_device();
    DeviceTensors dev(d);
    kernels::LinearAttnArgs a{dev.upload(q), dev.upload(k), dev.upload(v), dev.upload(out0)};
    a.cu_seqlens = dev.upload(cu);
    if (c.decay)
      a.decay = dev.upload(decay);
    a.normalize = c.normalize;
    kernels::linear_attn(d, a);
    HostTensor got = out0;
    d.copy_to_host(got.bytes().data(), a.out.device_address, got.bytes().size());
    const CompareResult r = compare(decode_attention_rows(got.view()), want, tol);
    CHECK_MESSAGE(r.ok, r.summary());
  });
}

} // namespace

TEST_CASE("linear_attn varlen: packed sequences of lengths 17, 0, 1, 40, 33 (each restarts the "
          "recurrence), GQA, with and without decay and the normalizer") {
  const std::vector<int32_t> lengths = {17, 0, 1, 40, 33};
  run_linear_varlen({.heads_q = 4, .heads_kv = 2, .head_dim = 64, .head_dim_v = 40}, lengths, 50);
  run_linear_varlen({.dtype = DType::f16,
                     .out = DType::f32,
                     .heads_q = 2,
                     .heads_kv = 1,
                     .head_dim = 100,
                     .head_dim_v = 17,
                     .decay = true,
                     .normalize = true},
                    lengths, 51);
}

TEST_CASE("linear_attn varlen validation: offsets and shapes are named with their rule") {
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const auto t = [&](DType dt, Extents e) { return dev.upload(HostTensor(dt, e)); };
  HostTensor cu(DType::i32, {3});
  cu.set({0}, 0);
  cu.set({1}, 3);
  cu.set({2}, 6);
  kernels::LinearAttnArgs a{t(DType::bf16, {6, 2, 32}), t(DType::bf16, {6, 2, 32}),
                            t(DType::bf16, {6, 2, 16}), t(DType::bf16, {6, 2, 16})};
  a.cu_seqlens = dev.upload(cu);
  kernels::linear_attn(d, a); // valid
  cu.set({2}, 7);
  a.cu_seqlens = dev.upload(cu);
  CHECK_THROWS_WITH(kernels::linear_attn(d, a),
                    "linear_attn: argument 'cu_seqlens' ends at 7; expected at most the 6 tokens "
                    "of 'q'");
  cu.set({1}, 5);
  cu.set({2}, 4);
  a.cu_seqlens = dev.upload(cu);
  CHECK_THROWS_WITH(kernels::linear_attn(d, a),
                    "linear_attn: argument 'cu_seqlens' has 4 at index 2 after 5; expected "
                    "non-decreasing offsets");
  a.cu_seqlens = dev.upload(HostTensor(DType::f32, {3}));
  CHECK_THROWS_WITH(kernels::linear_attn(d, a), doctest::Contains("argument 'cu_seqlens'"));
  a.cu_seqlens = dev.upload(cu);
  a.q = t(DType::bf16, {1, 6, 2, 32});
  CHECK_THROWS_WITH(kernels::linear_attn(d, a), doctest::Contains("argument 'q'"));
}
