// validate_flash_attn rejects bad input with a sentence naming the argument and the rule,
// one test per rule (kernels/attention/flash_attn_validate.cpp, docs/kernels.md "Attention").
// Views sit at made-up device addresses of a MemoryDevice, which only backs what a test
// copies in (the varlen offsets, which validation reads back) and records every other call:
// validation must read and nothing else.
#include <kernels/attention/flash_attn_api.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace tw;
using namespace tw::kernels;

namespace {

class MemoryDevice : public runtime::Device {
public:
  explicit MemoryDevice(std::string name) : name_(std::move(name)) {}
  int other_calls = 0; // every call except copy_to_host / copy_to_device

  std::string name() const override { return name_; }
  bool is_emulator() const override { return true; }
  runtime::DevicePtr allocate(size_t) override { return ++other_calls, 0; }
  void free(runtime::DevicePtr) override { ++other_calls; }
  void copy_to_device(runtime::DevicePtr dst, const void* src, size_t bytes) override {
    std::vector<uint8_t>& b = memory_[dst];
    b.assign(static_cast<const uint8_t*>(src), static_cast<const uint8_t*>(src) + bytes);
  }
  void copy_to_host(void* dst, runtime::DevicePtr src, size_t bytes) override {
    const auto it = memory_.find(src);
    REQUIRE(it != memory_.end());
    REQUIRE(it->second.size() >= bytes);
    std::memcpy(dst, it->second.data(), bytes);
  }
  runtime::ModuleHandle load_code_object(std::span<const uint8_t>) override {
    return ++other_calls, runtime::ModuleHandle{};
  }
  runtime::KernelHandle get_kernel(runtime::ModuleHandle, std::string_view) override {
    return ++other_calls, runtime::KernelHandle{};
  }
  void launch(runtime::KernelHandle, runtime::Dim3, runtime::Dim3, std::span<const uint8_t>,
              uint32_t) override {
    ++other_calls;
  }
  void synchronize() override { ++other_calls; }

  // A view at a fresh address (1 MiB apart, more past a view above 1 MiB with packed strides,
  // so views never overlap unless a test says so).
  TensorView tensor(DType dtype, Extents shape, Extents strides = {}) {
    next_ += 1 << 20;
    const runtime::DevicePtr at = next_;
    int64_t elements = 1;
    for (int64_t e : shape)
      elements *= e;
    const int64_t mib = int64_t(1) << 20;
    const int64_t bytes = int64_t(dtype_storage_bytes(dtype, elements));
    next_ += uint64_t((bytes + mib - 1) / mib * mib - mib) * (bytes > mib);
    return TensorView::on_device(*this, at, dtype, std::move(shape), std::move(strides));
  }
  // An int32 vector holding `values` in this device's memory.
  TensorView offsets(std::vector<int32_t> values) {
    const TensorView t = tensor(DType::i32, {int64_t(values.size())});
    copy_to_device(t.device_address, values.data(), values.size() * sizeof(int32_t));
    return t;
  }

private:
  std::string name_;
  std::map<runtime::DevicePtr, std::vector<uint8_t>> memory_;
  runtime::DevicePtr next_ = 0x10000000;
};

// A valid dense problem: B 2, Sq 5, Sk 7, Hq 4, Hkv 2, D 64, Dv 40.
struct DenseCase {
  MemoryDevice dev{"device A"};
  int64_t b = 2, sq = 5, sk = 7, hq = 4, hkv = 2, d = 64, dv = 40;
  FlashAttnArgs args;
  DenseCase() {
    args.q = dev.tensor(DType::bf16, {b, sq, hq, d});
    args.k = dev.tensor(DType::bf16, {b, sk, hkv, d});
    args.v = dev.tensor(DType::bf16, {b, sk, hkv, dv});
    args.out = dev.tensor(DType::bf16, {b, sq, hq, dv});
  }
};

// A valid varlen problem: sequences (q, k) of lengths (3, 4) and (2, 6); Tq 5, Tk 10.
struct VarlenCase {
  MemoryDevice dev{"device A"};
  FlashAttnArgs args;
  VarlenCase() {
    args.q = dev.tensor(DType::f16, {5, 4, 32});
    args.k = dev.tensor(DType::f16, {10, 2, 32});
    args.v = dev.tensor(DType::f16, {10, 2, 32});
    args.out = dev.tensor(DType::f16, {5, 4, 32});
    args.cu_seqlens_q = dev.offsets({0, 3, 5});
    args.cu_seqlens_k = dev.offsets({0, 4, 10});
    args.max_seqlen_q = 3;
    args.max_seqlen_k = 6;
  }
};

std::string error_of(const runtime::Device& dev, const FlashAttnArgs& args) {
  try {
    validate_flash_attn(dev, args);
  } catch (const ArgumentError& e) {
    return e.what();
  }
  return "(accepted)";
}

// Validation fails with exactly `message` and does nothing on the device but read.
template <class Case>
void rejects(const Case& c, const std::string& message) {
  CHECK(error_of(c.dev, c.args) == message);
  CHECK(c.dev.other_calls == 0);
}

template <class Case>
FlashAttnProblem accepts(const Case& c) {
  FlashAttnProblem p;
  try {
    p = validate_flash_attn(c.dev, c.args);
  } catch (const ArgumentError& e) {
    FAIL("valid arguments rejected: " << e.what());
  }
  CHECK(c.dev.other_calls == 0);
  return p;
}

} // namespace

TEST_CASE("attention validation: a valid dense problem and what it records") {
  DenseCase c;
  const FlashAttnProblem p = accepts(c);
  CHECK(p.dtype == DType::bf16);
  CHECK(p.out_dtype == DType::bf16);
  CHECK(p.batch == 2);
  CHECK(p.seqlen_q == 5);
  CHECK(p.seqlen_k == 7);
  CHECK(p.heads_q == 4);
  CHECK(p.heads_kv == 2);
  CHECK(p.head_dim == 64);
  CHECK(p.head_dim_v == 40);
  CHECK(!p.varlen);
  CHECK(p.sm_scale == 0.125f); // 1 / sqrt(64)
  CHECK(!p.return_lse);
  CHECK(!p.empty());
}

TEST_CASE("attention validation: a valid varlen problem") {
  VarlenCase c;
  const FlashAttnProblem p = accepts(c);
  CHECK(p.varlen);
  CHECK(p.batch == 2);
  CHECK(p.seqlen_q == 3);
  CHECK(p.seqlen_k == 6);
}

TEST_CASE("attention validation: dtypes") {
  DenseCase c;
  c.args.q.dtype = c.args.k.dtype = c.args.v.dtype = DType::f32;
  rejects(c, "flash_attn: argument 'q' has dtype f32; expected one of bf16, f16, e4m3, e5m2, "
             "int8");
  c.args.q.dtype = c.args.v.dtype = DType::bf16;
  c.args.k.dtype = DType::f16;
  rejects(c, "flash_attn: argument 'k' has dtype f16; expected the dtype of 'q' (bf16)");
  c.args.k.dtype = DType::bf16;
  c.args.v.dtype = DType::e4m3;
  rejects(c, "flash_attn: argument 'v' has dtype e4m3; expected the dtype of 'q' (bf16)");
  c.args.v.dtype = DType::bf16;
  c.args.out.dtype = DType::f32;
  rejects(c, "flash_attn: argument 'out' has dtype f32; expected one of bf16, f16");
  // every accepted input dtype with either output dtype
  for (DType in : {DType::bf16, DType::f16, DType::e4m3, DType::e5m2, DType::int8})
    for (DType out : {DType::bf16, DType::f16}) {
      DenseCase ok;
      ok.args.q.dtype = ok.args.k.dtype = ok.args.v.dtype = in;
      ok.args.out.dtype = out;
      CHECK(accepts(ok).dtype == in);
    }
}

TEST_CASE("attention validation: ranks, dense and varlen") {
  DenseCase c;
  c.args.k = c.dev.tensor(DType::bf16, {14, 2, 64});
  rejects(c, "flash_attn: argument 'k' has rank 3 (shape [14, 2, 64]); expected rank 4");
  VarlenCase v;
  v.args.out = v.dev.tensor(DType::f16, {1, 5, 4, 32});
  rejects(v, "flash_attn: argument 'out' has rank 4 (shape [1, 5, 4, 32]); expected rank 3");
}

TEST_CASE("attention validation: shapes against each other") {
  {
    DenseCase c; // batch
    c.args.k = c.dev.tensor(DType::bf16, {3, 7, 2, 64});
    rejects(c, "flash_attn: argument 'k' has shape [3, 7, 2, 64]; expected dimension 0 (B) to "
               "equal dimension 0 of 'q' (shape [2, 5, 4, 64]), 2");
  }
  {
    DenseCase c; // head dim
    c.args.k = c.dev.tensor(DType::bf16, {2, 7, 2, 32});
    rejects(c, "flash_attn: argument 'k' has shape [2, 7, 2, 32]; expected dimension 3 (D) to "
               "equal dimension 3 of 'q' (shape [2, 5, 4, 64]), 64");
  }
  {
    DenseCase c; // Sk of v
    c.args.v = c.dev.tensor(DType::bf16, {2, 6, 2, 40});
    rejects(c, "flash_attn: argument 'v' has shape [2, 6, 2, 40]; expected dimension 1 (Sk) to "
               "equal dimension 1 of 'k' (shape [2, 7, 2, 64]), 7");
  }
  {
    DenseCase c; // kv heads of v
    c.args.v = c.dev.tensor(DType::bf16, {2, 7, 1, 40});
    rejects(c, "flash_attn: argument 'v' has shape [2, 7, 1, 40]; expected dimension 2 (Hkv) to "
               "equal dimension 2 of 'k' (shape [2, 7, 2, 64]), 2");
  }
  {
    DenseCase c; // out
    c.args.out = c.dev.tensor(DType::bf16, {2, 5, 4, 64});
    rejects(c, "flash_attn: argument 'out' has shape [2, 5, 4, 64]; expected [2, 5, 4, 40] "
               "([B, Sq, Hq, Dv] from 'q' and 'v')");
  }
  {
    VarlenCase c; // varlen out
    c.args.out = c.dev.tensor(DType::f16, {6, 4, 32});
    rejects(c, "flash_attn: argument 'out' has shape [6, 4, 32]; expected [5, 4, 32] ([Tq, Hq, "
               "Dv] from 'q' and 'v')");
  }
}

TEST_CASE("attention validation: head dims 1 .. 256") {
  DenseCase c;
  c.args.q = c.dev.tensor(DType::bf16, {2, 5, 4, 257});
  c.args.k = c.dev.tensor(DType::bf16, {2, 7, 2, 257});
  rejects(c, "flash_attn: argument 'q' has head dim D = 257; expected 1 <= D <= 256");
  c.args.q = c.dev.tensor(DType::bf16, {2, 5, 4, 0});
  c.args.k = c.dev.tensor(DType::bf16, {2, 7, 2, 0});
  rejects(c, "flash_attn: argument 'q' has head dim D = 0; expected 1 <= D <= 256");
  DenseCase v;
  v.args.v = v.dev.tensor(DType::bf16, {2, 7, 2, 300});
  v.args.out = v.dev.tensor(DType::bf16, {2, 5, 4, 300});
  rejects(v, "flash_attn: argument 'v' has value head dim Dv = 300; expected 1 <= Dv <= 256");
  DenseCase odd; // any head dim in range, D != Dv
  odd.args.q = odd.dev.tensor(DType::bf16, {2, 5, 4, 1});
  odd.args.k = odd.dev.tensor(DType::bf16, {2, 7, 2, 1});
  odd.args.v = odd.dev.tensor(DType::bf16, {2, 7, 2, 256});
  odd.args.out = odd.dev.tensor(DType::bf16, {2, 5, 4, 256});
  CHECK(accepts(odd).head_dim_v == 256);
}

TEST_CASE("attention validation: GQA needs kv heads dividing the query heads") {
  DenseCase c;
  c.args.k = c.dev.tensor(DType::bf16, {2, 7, 3, 64});
  c.args.v = c.dev.tensor(DType::bf16, {2, 7, 3, 40});
  rejects(c, "flash_attn: argument 'k' has 3 kv heads and 'q' 4 heads; expected a kv head count "
             ">= 1 that divides the query heads (GQA)");
  c.args.k = c.dev.tensor(DType::bf16, {2, 7, 0, 64});
  c.args.v = c.dev.tensor(DType::bf16, {2, 7, 0, 40});
  rejects(c, "flash_attn: argument 'k' has 0 kv heads and 'q' 4 heads; expected a kv head count "
             ">= 1 that divides the query heads (GQA)");
  DenseCase mqa;
  mqa.args.k = mqa.dev.tensor(DType::bf16, {2, 7, 1, 64});
  mqa.args.v = mqa.dev.tensor(DType::bf16, {2, 7, 1, 40});
  CHECK(accepts(mqa).heads_kv == 1);
}

TEST_CASE("attention validation: the head dimension is contiguous, other strides are free") {
  DenseCase c;
  c.args.q = c.dev.tensor(DType::bf16, {2, 5, 4, 64}, {5 * 4 * 128, 4 * 128, 128, 2});
  rejects(c, "flash_attn: argument 'q' has layout [2, 5, 4, 64] with strides [2560, 512, 128, 2]; "
             "expected the head dim (last dimension) to be contiguous (stride 1)");
  DenseCase o;
  o.args.out = o.dev.tensor(DType::bf16, {2, 5, 4, 40}, {1, 2, 10, 80});
  rejects(o, "flash_attn: argument 'out' has layout [2, 5, 4, 40] with strides [1, 2, 10, 80]; "
             "expected the value head dim (last dimension) to be contiguous (stride 1)");
  // heads-first storage of k ([B, Hkv, Sk, D] in memory) and a padded out row are fine
  DenseCase s;
  s.args.k = s.dev.tensor(DType::bf16, {2, 7, 2, 64}, {2 * 7 * 64, 64, 7 * 64, 1});
  s.args.out = s.dev.tensor(DType::bf16, {2, 5, 4, 40}, {5 * 4 * 48, 4 * 48, 48, 1});
  accepts(s);
}

TEST_CASE("attention validation: memory, device and alignment") {
  {
    DenseCase c;
    c.args.v = c.dev.tensor(DType::bf16, {2, 7, 2, 40}, {-1, 80, 40, 1});
    rejects(c, "flash_attn: argument 'v' has strides [-1, 80, 40, 1]; expected no negative "
               "stride");
  }
  {
    DenseCase c;
    MemoryDevice other("device B");
    c.args.k = other.tensor(DType::bf16, {2, 7, 2, 64});
    rejects(c, "flash_attn: argument 'k' is in memory of another device (device B); expected "
               "memory of the launch device (device A)");
  }
  {
    DenseCase c;
    std::vector<uint16_t> host(size_t(2 * 5 * 4 * 64));
    c.args.q = TensorView::on_host(host.data(), DType::bf16, {2, 5, 4, 64});
    rejects(c, "flash_attn: argument 'q' is in host memory; expected memory of the launch device "
               "(device A)");
  }
  {
    DenseCase c;
    c.args.out.device_address += 1;
    rejects(c, "flash_attn: argument 'out' starts at address 0x10400001, which is not a multiple "
               "of 2 bytes; expected an address aligned to 2 bytes");
  }
}

TEST_CASE("attention validation: varlen offsets come in pairs, int32 [B + 1]") {
  {
    VarlenCase c;
    c.args.cu_seqlens_k.reset();
    rejects(c, "flash_attn: argument 'cu_seqlens_k' is missing; expected both cu_seqlens_q and "
               "cu_seqlens_k (varlen) or neither (dense)");
  }
  {
    VarlenCase c;
    c.args.cu_seqlens_q = c.dev.tensor(DType::int8, {3});
    rejects(c, "flash_attn: argument 'cu_seqlens_q' has dtype int8; expected i32");
  }
  {
    VarlenCase c;
    c.args.cu_seqlens_k = c.dev.offsets({0, 4, 10, 10});
    rejects(c, "flash_attn: argument 'cu_seqlens_k' has shape [4]; expected dimension 0 (B + 1) "
               "to equal dimension 0 of 'cu_seqlens_q' (shape [3]), 3");
  }
  {
    VarlenCase c;
    c.args.cu_seqlens_q = c.dev.tensor(DType::i32, {0});
    rejects(c, "flash_attn: argument 'cu_seqlens_q' has shape [0]; expected [B + 1] offsets (at "
               "least the leading 0)");
  }
  {
    VarlenCase c;
    c.args.cu_seqlens_q = c.dev.tensor(DType::i32, {3}, {2});
    rejects(c, "flash_attn: argument 'cu_seqlens_q' has stride 2; expected a contiguous vector "
               "(stride 1)");
  }
}

TEST_CASE("attention validation: varlen offset contents") {
  {
    VarlenCase c;
    c.args.cu_seqlens_q = c.dev.offsets({1, 3, 5});
    rejects(c, "flash_attn: argument 'cu_seqlens_q' starts at 1; expected offsets starting at 0");
  }
  {
    VarlenCase c;
    c.args.cu_seqlens_k = c.dev.offsets({0, 4, 3});
    rejects(c, "flash_attn: argument 'cu_seqlens_k' has 3 at index 2 after 4; expected "
               "non-decreasing offsets");
  }
  {
    VarlenCase c;
    c.args.cu_seqlens_k = c.dev.offsets({0, 4, 11});
    c.args.max_seqlen_k = 7;
    rejects(c, "flash_attn: argument 'cu_seqlens_k' ends at 11; expected at most the 10 tokens of "
               "'k'");
  }
  {
    VarlenCase c;
    c.args.max_seqlen_q = 2;
    rejects(c, "flash_attn: argument 'cu_seqlens_q' has 3 at index 1 after 0 (a sequence of 3); "
               "expected lengths <= max_seqlen_q = 2");
  }
  {
    VarlenCase c;
    c.args.max_seqlen_k = -1;
    rejects(c, "flash_attn: parameter 'max_seqlen_k' is -1; expected the longest key sequence "
               "(>= 0)");
  }
  {
    VarlenCase c; // trailing packed tokens in no sequence and an empty sequence are fine
    c.args.cu_seqlens_q = c.dev.offsets({0, 0, 4});
    c.args.max_seqlen_q = 4;
    accepts(c);
  }
  {
    DenseCase c; // max lengths belong to varlen
    c.args.max_seqlen_q = 5;
    rejects(c, "flash_attn: parameter 'max_seqlen_q' is 5 for a dense problem; expected 0 (a "
               "varlen parameter, used with cu_seqlens_q / cu_seqlens_k)");
  }
}

TEST_CASE("attention validation: sm_scale, window and causal") {
  {
    DenseCase c;
    c.args.sm_scale = -0.5f;
    rejects(c, "flash_attn: parameter 'sm_scale' is -0.5; expected a scale > 0, or 0 for 1 / "
               "sqrt(D)");
    c.args.sm_scale = std::numeric_limits<float>::infinity();
    rejects(c, "flash_attn: parameter 'sm_scale' is inf; expected a finite value");
    c.args.sm_scale = 0.25f;
    CHECK(accepts(c).sm_scale == 0.25f);
  }
  {
    DenseCase c;
    c.args.window_left = -2;
    rejects(c, "flash_attn: parameter 'window_left' is -2; expected a key count >= 0, or -1 for "
               "no bound on that side");
    c.args.window_left = 3;
    c.args.window_right = -5;
    rejects(c, "flash_attn: parameter 'window_right' is -5; expected a key count >= 0, or -1 for "
               "no bound on that side");
  }
  {
    DenseCase c;
    c.args.causal = true;
    c.args.window_right = 2;
    rejects(c, "flash_attn: parameter 'window_right' is 2 with causal; expected -1 or 0 (causal "
               "bounds the right side at 0)");
    c.args.window_right = 0;
    c.args.window_left = 4;
    const FlashAttnProblem p = accepts(c);
    CHECK(p.causal);
    CHECK(p.window_left == 4);
  }
}

TEST_CASE("attention validation: softcap, dropout and descales") {
  {
    DenseCase c;
    c.args.softcap = -1.0f;
    rejects(c, "flash_attn: parameter 'softcap' is -1; expected a cap > 0, or 0 for no softcap");
    c.args.softcap = std::nanf("");
    rejects(c, "flash_attn: parameter 'softcap' is nan; expected a finite value");
    c.args.softcap = 30.0f;
    CHECK(accepts(c).softcap == 30.0f);
  }
  {
    DenseCase c;
    c.args.dropout_p = 1.0f;
    rejects(c, "flash_attn: parameter 'dropout_p' is 1; expected a probability in [0, 1) (0 = no "
               "dropout)");
    c.args.dropout_p = -0.1f;
    rejects(c, "flash_attn: parameter 'dropout_p' is -0.1; expected a probability in [0, 1) (0 = "
               "no dropout)");
    c.args.dropout_p = 0.1f;
    CHECK(accepts(c).dropout_p == 0.1f);
  }
  {
    DenseCase c; // bf16: descales must stay 1
    c.args.k_descale = 0.5f;
    rejects(c, "flash_attn: parameter 'k_descale' is 0.5 with bf16 inputs; expected 1 (descales "
               "apply to fp8 / int8 inputs)");
  }
  {
    DenseCase c; // fp8 / int8: any finite descale > 0
    c.args.q.dtype = c.args.k.dtype = c.args.v.dtype = DType::e4m3;
    c.args.q_descale = 0.25f;
    c.args.v_descale = 3.0f;
    accepts(c);
    c.args.v_descale = 0.0f;
    rejects(c, "flash_attn: parameter 'v_descale' is 0; expected a descale > 0");
    c.args.q.dtype = c.args.k.dtype = c.args.v.dtype = DType::int8;
    c.args.v_descale = std::numeric_limits<float>::infinity();
    rejects(c, "flash_attn: parameter 'v_descale' is inf; expected a finite value");
  }
}

TEST_CASE("attention validation: bias kind, dtype and shape") {
  {
    DenseCase c;
    c.args.bias = c.dev.tensor(DType::f32, {5, 7});
    rejects(c, "flash_attn: argument 'bias_kind' is none while 'bias' is given; expected additive "
               "or bool_mask");
    c.args.bias.reset();
    c.args.bias_kind = AttnBiasKind::additive;
    rejects(c, "flash_attn: argument 'bias' is missing while bias_kind is not none; expected a "
               "bias or mask tensor");
  }
  {
    DenseCase c;
    c.args.bias_kind = AttnBiasKind::additive;
    c.args.bias = c.dev.tensor(DType::uint8, {5, 7});
    rejects(c, "flash_attn: argument 'bias' has dtype uint8; expected one of f32, f16, bf16");
    c.args.bias_kind = AttnBiasKind::bool_mask;
    c.args.bias = c.dev.tensor(DType::f32, {5, 7});
    rejects(c, "flash_attn: argument 'bias' has dtype f32; expected one of uint8, int8");
    c.args.bias = c.dev.tensor(DType::uint8, {5, 7});
    const FlashAttnProblem p = accepts(c);
    CHECK(p.bias_kind == AttnBiasKind::bool_mask);
    CHECK(!p.bias_per_head);
  }
  {
    DenseCase c;
    c.args.bias_kind = AttnBiasKind::additive;
    c.args.bias = c.dev.tensor(DType::bf16, {2, 5, 7});
    rejects(c, "flash_attn: argument 'bias' has shape [2, 5, 7]; expected [Sq, Sk] = [5, 7] "
               "(shared by the heads) or [Hq, Sq, Sk] = [4, 5, 7] (per head)");
    c.args.bias = c.dev.tensor(DType::bf16, {4, 5, 7});
    CHECK(accepts(c).bias_per_head);
    c.args.bias = c.dev.tensor(DType::bf16, {4, 5, 7}, {1, 4, 20});
    rejects(c, "flash_attn: argument 'bias' has layout [4, 5, 7] with strides [1, 4, 20]; "
               "expected the key (last dimension) to be contiguous (stride 1)");
  }
  {
    VarlenCase c;
    c.args.bias_kind = AttnBiasKind::additive;
    c.args.bias = c.dev.tensor(DType::f16, {3, 6});
    rejects(c, "flash_attn: argument 'bias' is given with cu_seqlens; expected no bias or mask in "
               "varlen (dense only)");
  }
}

TEST_CASE("attention validation: ALiBi is a scalar slope xor per-head slopes") {
  {
    DenseCase c;
    c.args.alibi_slope = 0.5f;
    c.args.alibi_slopes = c.dev.tensor(DType::f32, {4});
    rejects(c, "flash_attn: argument 'alibi_slopes' is given together with alibi_slope; expected "
               "one scalar slope or per-head slopes, not both");
    c.args.alibi_slopes.reset();
    CHECK(accepts(c).alibi == FlashAttnProblem::Alibi::scalar);
    c.args.alibi_slope = std::numeric_limits<float>::quiet_NaN();
    rejects(c, "flash_attn: parameter 'alibi_slope' is nan; expected a finite value");
  }
  {
    DenseCase c;
    c.args.alibi_slopes = c.dev.tensor(DType::f32, {2});
    rejects(c, "flash_attn: argument 'alibi_slopes' has shape [2]; expected [4] ([Hq], one slope "
               "per query head)");
    c.args.alibi_slopes = c.dev.tensor(DType::bf16, {4});
    rejects(c, "flash_attn: argument 'alibi_slopes' has dtype bf16; expected f32");
    c.args.alibi_slopes = c.dev.tensor(DType::f32, {4}, {2});
    rejects(c, "flash_attn: argument 'alibi_slopes' has stride 2; expected a contiguous vector "
               "(stride 1)");
    c.args.alibi_slopes = c.dev.tensor(DType::f32, {4});
    CHECK(accepts(c).alibi == FlashAttnProblem::Alibi::per_head);
  }
}

TEST_CASE("attention validation: lse dtype and shape") {
  {
    DenseCase c;
    c.args.lse = c.dev.tensor(DType::bf16, {2, 4, 5});
    rejects(c, "flash_attn: argument 'lse' has dtype bf16; expected f32");
    c.args.lse = c.dev.tensor(DType::f32, {2, 5, 4});
    rejects(c, "flash_attn: argument 'lse' has shape [2, 5, 4]; expected [2, 4, 5] ([B, Hq, Sq] "
               "from 'q')");
    c.args.lse = c.dev.tensor(DType::f32, {2, 4, 5}, {40, 10, 2});
    rejects(c, "flash_attn: argument 'lse' has layout [2, 4, 5] with strides [40, 10, 2]; "
               "expected the query (last dimension) to be contiguous (stride 1)");
    c.args.lse = c.dev.tensor(DType::f32, {2, 4, 5});
    CHECK(accepts(c).return_lse);
  }
  {
    VarlenCase c;
    c.args.lse = c.dev.tensor(DType::f32, {2, 4, 3});
    rejects(c, "flash_attn: argument 'lse' has shape [2, 4, 3]; expected [4, 5] ([Hq, Tq] from "
               "'q')");
    c.args.lse = c.dev.tensor(DType::f32, {4, 5});
    CHECK(accepts(c).return_lse);
  }
}

TEST_CASE("attention validation: num_splits") {
  DenseCase c;
  c.args.num_splits = -1;
  rejects(c, "flash_attn: parameter 'num_splits' is -1; expected 0 (the host picks), 1 (no "
             "split) or a split count > 1");
  c.args.num_splits = 3;
  CHECK(accepts(c).num_splits == 3);
}

TEST_CASE("attention validation: query_tile") {
  DenseCase c;
  CHECK(accepts(c).query_tile == 64); // 0: the host picks (D 64, Sq 5: 64 rows)
  for (int bad : {-1, 32, 96, 256}) {
    c.args.query_tile = bad;
    rejects(c, "flash_attn: parameter 'query_tile' is " + std::to_string(bad) +
                   "; expected 0 (the host picks: 128 when D > 128 and Sq > 64, else 64), 64 or "
                   "128 query rows per workgroup");
  }
  c.args.query_tile = 128;
  CHECK(accepts(c).query_tile == 128);
  c.args.query_tile = 64;
  CHECK(accepts(c).query_tile == 64);
}

namespace {

// A dense bf16 problem B 1, Hq = Hkv = 1, Sk 8: q [1, Sq, 1, D], v / out head dim Dv.
FlashAttnArgs dense_args(MemoryDevice& dev, int64_t sq, int64_t d, int64_t dv, int query_tile) {
  FlashAttnArgs a;
  a.q = dev.tensor(DType::bf16, {1, sq, 1, d});
  a.k = dev.tensor(DType::bf16, {1, 8, 1, d});
  a.v = dev.tensor(DType::bf16, {1, 8, 1, dv});
  a.out = dev.tensor(DType::bf16, {1, sq, 1, dv});
  a.query_tile = query_tile;
  return a;
}

int tile_of(MemoryDevice& dev, const FlashAttnArgs& a) {
  const FlashAttnProblem p = validate_flash_attn(dev, a);
  CHECK(dev.other_calls == 0);
  return p.query_tile;
}

} // namespace

// The host's pick for query_tile 0 (docs/kernels.md "Query tile"): 128 rows when the head dim
// pads above 128 (D 160 and 192 pad to 192, 224 and 256 to 256) and Sq is above 64; 64 rows for
// narrower heads and for decode-like Sq <= 64. Explicit 64 / 128 are kept as given.
TEST_CASE("attention validation: the default query_tile by head dim and Sq, explicit kept") {
  struct Pick {
    int64_t d, sq;
    int tile;
  };
  for (const Pick& e :
       {Pick{64, 1, 64}, Pick{64, 64, 64}, Pick{64, 65, 64}, Pick{64, 4096, 64}, Pick{128, 1, 64},
        Pick{128, 64, 64}, Pick{128, 65, 64}, Pick{128, 4096, 64}, Pick{256, 1, 64},
        Pick{256, 64, 64}, Pick{256, 65, 128}, Pick{256, 4096, 128}, Pick{160, 65, 128},
        Pick{192, 4096, 128}, Pick{136, 65, 128}}) {
    CAPTURE(e.d);
    CAPTURE(e.sq);
    MemoryDevice dev("device A");
    CHECK(tile_of(dev, dense_args(dev, e.sq, e.d, e.d, 0)) == e.tile);
    for (int explicit_tile : {64, 128})
      CHECK(tile_of(dev, dense_args(dev, e.sq, e.d, e.d, explicit_tile)) == explicit_tile);
  }
  // the wider of D and Dv counts (one padded width for both heads)
  MemoryDevice dev("device A");
  CHECK(tile_of(dev, dense_args(dev, 4096, 64, 256, 0)) == 128);
  CHECK(tile_of(dev, dense_args(dev, 4096, 256, 64, 0)) == 128);
  CHECK(tile_of(dev, dense_args(dev, 4096, 128, 96, 0)) == 64);
}

// varlen: the longest sequence's query rows (max_seqlen_q) stand for Sq.
TEST_CASE("attention validation: the default query_tile of varlen problems") {
  for (const auto& [lengths, d, tile] :
       {std::tuple{std::vector<int32_t>{1, 1, 1}, int64_t(256), 64},    // decode-like
        std::tuple{std::vector<int32_t>{64, 30, 64}, int64_t(256), 64}, // longest 64
        std::tuple{std::vector<int32_t>{3, 65, 2}, int64_t(256), 128},  // longest 65
        std::tuple{std::vector<int32_t>{4096, 100}, int64_t(256), 128},
        std::tuple{std::vector<int32_t>{4096, 100}, int64_t(128), 64}}) {
    CAPTURE(d);
    CAPTURE(lengths.size());
    MemoryDevice dev("device A");
    std::vector<int32_t> cu{0};
    for (int32_t n : lengths)
      cu.push_back(cu.back() + n);
    const int64_t tq = cu.back(), hkv = 2;
    FlashAttnArgs a;
    a.q = dev.tensor(DType::bf16, {tq, 4, d});
    a.k = dev.tensor(DType::bf16, {32, hkv, d});
    a.v = dev.tensor(DType::bf16, {32, hkv, d});
    a.out = dev.tensor(DType::bf16, {tq, 4, d});
    a.cu_seqlens_q = dev.offsets(cu);
    std::vector<int32_t> cu_k(cu.size());
    for (size_t i = 0; i < cu.size(); ++i)
      cu_k[i] = int32_t(i) * 8;
    a.cu_seqlens_k = dev.offsets(cu_k);
    a.max_seqlen_q = *std::max_element(lengths.begin(), lengths.end());
    a.max_seqlen_k = 8;
    CHECK(tile_of(dev, a) == tile);
    a.query_tile = 64;
    CHECK(tile_of(dev, a) == 64);
  }
}

TEST_CASE("attention validation: outputs overlap no input and not each other") {
  {
    DenseCase c;
    c.args.out =
        TensorView::on_device(c.dev, c.args.v.device_address + 64, DType::bf16, {2, 5, 4, 40});
    rejects(c, "flash_attn: argument 'out' overlaps the memory of input 'v'; expected disjoint "
               "memory");
  }
  {
    DenseCase c;
    c.args.alibi_slopes = c.dev.tensor(DType::f32, {4});
    c.args.lse =
        TensorView::on_device(c.dev, c.args.alibi_slopes->device_address, DType::f32, {2, 4, 5});
    rejects(c, "flash_attn: argument 'lse' overlaps the memory of input 'alibi_slopes'; expected "
               "disjoint memory");
  }
  {
    DenseCase c;
    c.args.lse = TensorView::on_device(c.dev, c.args.out.device_address, DType::f32, {2, 4, 5});
    rejects(c, "flash_attn: argument 'lse' overlaps the memory of input 'out'; expected disjoint "
               "memory");
  }
  {
    VarlenCase c;
    c.args.out =
        TensorView::on_device(c.dev, c.args.cu_seqlens_k->device_address, DType::f16, {5, 4, 32});
    rejects(c, "flash_attn: argument 'out' overlaps the memory of input 'cu_seqlens_k'; expected "
               "disjoint memory");
  }
}

TEST_CASE("attention validation: empty problems are validated, then empty") {
  DenseCase c;
  c.args.q = c.dev.tensor(DType::bf16, {2, 0, 4, 64});
  c.args.out = c.dev.tensor(DType::bf16, {2, 0, 4, 40});
  CHECK(accepts(c).empty());
  c.args.k = c.dev.tensor(DType::bf16, {2, 7, 3, 64}); // still checked when empty
  rejects(c, "flash_attn: argument 'v' has shape [2, 7, 2, 40]; expected dimension 2 (Hkv) to "
             "equal dimension 2 of 'k' (shape [2, 7, 3, 64]), 3");
  VarlenCase v; // no sequences at all
  v.args.cu_seqlens_q = v.dev.offsets({0});
  v.args.cu_seqlens_k = v.dev.offsets({0});
  CHECK(accepts(v).empty());
}
