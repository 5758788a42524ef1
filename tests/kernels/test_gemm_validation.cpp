// The GEMM entry points reject bad input with a sentence naming the argument and the rule,
// and touch the device not at all when they do. A RecordingDevice counts every Device call;
// tensors are placed at made-up device addresses (validation never dereferences them).
#include <kernels/gemm/gemm_api.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

using namespace tw;
using namespace tw::kernels;

namespace {

class RecordingDevice : public runtime::Device {
public:
  explicit RecordingDevice(std::string name) : name_(std::move(name)) {}
  int calls = 0; // every call of the Device interface

  std::string name() const override { return name_; }
  bool is_emulator() const override { return true; }
  runtime::DevicePtr allocate(size_t) override { return ++calls, 0; }
  void free(runtime::DevicePtr) override { ++calls; }
  void copy_to_device(runtime::DevicePtr, const void*, size_t) override { ++calls; }
  void copy_to_host(void*, runtime::DevicePtr, size_t) override { ++calls; }
  runtime::ModuleHandle load_code_object(std::span<const uint8_t>) override {
    return ++calls, runtime::ModuleHandle{};
  }
  runtime::KernelHandle get_kernel(runtime::ModuleHandle, std::string_view) override {
    return ++calls, runtime::KernelHandle{};
  }
  void launch(runtime::KernelHandle, runtime::Dim3, runtime::Dim3, std::span<const uint8_t>,
              uint32_t) override {
    ++calls;
  }
  void synchronize() override { ++calls; }

  // A view at a fresh address (1 MiB apart, so views never overlap unless a test says so).
  TensorView tensor(DType dtype, Extents shape, Extents strides = {}) {
    next_ += 1 << 20;
    return TensorView::on_device(*this, next_, dtype, std::move(shape), std::move(strides));
  }

private:
  std::string name_;
  runtime::DevicePtr next_ = 0x10000000;
};

// A valid problem passes validation. (What the launch then does is the kernel bodies' test:
// these tests must not depend on whether a body exists yet.)
template <class F>
void check_valid(F&& validate) {
  try {
    validate();
  } catch (const ArgumentError& e) {
    FAIL("valid arguments rejected: " << e.what());
  }
}

struct GemmCase {
  RecordingDevice dev{"device A"};
  int64_t m = 4, n = 8, k = 12;
  GemmArgs args;
  GemmCase() {
    args.a = dev.tensor(DType::f16, {m, k});
    args.b = dev.tensor(DType::f16, {k, n});
    args.out = dev.tensor(DType::f32, {m, n});
  }
};

ScaledMmArgs scaled_mm_args(RecordingDevice& dev, int64_t m = 4, int64_t n = 8, int64_t k = 12) {
  ScaledMmArgs a;
  a.a = dev.tensor(DType::e4m3, {m, k});
  a.b = dev.tensor(DType::e4m3, {k, n}, column_major_strides({k, n}));
  a.scale_a = dev.tensor(DType::f32, {1});
  a.scale_b = dev.tensor(DType::f32, {n});
  a.out = dev.tensor(DType::bf16, {m, n});
  return a;
}

} // namespace

TEST_CASE("gemm validation: dtypes") {
  GemmCase c;
  c.args.b.dtype = DType::bf16;
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'b' has dtype bf16; expected the dtype of 'a' (f16)",
                       ArgumentError);
  c.args.b.dtype = DType::f16;
  c.args.a.dtype = DType::f32;
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'a' has dtype f32; expected one of f16, bf16",
                       ArgumentError);
  c.args.a.dtype = DType::f16;
  c.args.out.dtype = DType::e4m3;
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'out' has dtype e4m3; expected one of bf16, f16, f32",
                       ArgumentError);
  CHECK(c.dev.calls == 0);
}

TEST_CASE("gemm validation: rank and shapes name both shapes") {
  GemmCase c;
  c.args.a = c.dev.tensor(DType::f16, {2, 3, 4});
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'a' has rank 3 (shape [2, 3, 4]); expected rank 2",
                       ArgumentError);
  c.args.a = c.dev.tensor(DType::f16, {4, 12});
  c.args.b = c.dev.tensor(DType::f16, {5, 8});
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'b' has shape [5, 8]; expected dimension 0 (K) to equal "
                       "dimension 1 of 'a' (shape [4, 12]), 12",
                       ArgumentError);
  c.args.b = c.dev.tensor(DType::f16, {12, 8});
  c.args.out = c.dev.tensor(DType::f32, {4, 7});
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'out' has shape [4, 7]; expected [4, 8] ([M, N] = "
                       "[dimension 0 of 'a' [4, 12], dimension 1 of 'b' [12, 8]])",
                       ArgumentError);
  CHECK(c.dev.calls == 0);
}

TEST_CASE("gemm validation: memory orders say what was given") {
  GemmCase c;
  c.args.a.strides = {1, 1};
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'a' has shape [4, 12] with strides [1, 1], which is neither "
                       "row- nor column-major; expected row-major (strides [ld, 1] with ld >= 12) "
                       "or column-major (strides [1, ld] with ld >= 4)",
                       ArgumentError);
  c.args.a.strides = {1, 4};  // column-major is accepted for a and b
  c.args.b.strides = {1, 16}; // column-major with a padded leading dimension
  c.args.out.strides = {1, 4};
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'out' has shape [4, 8] with strides [1, 4], which is "
                       "column-major; expected row-major (strides [ld, 1] with ld >= 8)",
                       ArgumentError);
  c.args.out.strides = {8, -1};
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'out' has strides [8, -1]; expected no negative stride",
                       ArgumentError);
  c.args.out.strides = {8};
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'out' has 1 strides for shape [4, 8]; expected one stride "
                       "per dimension",
                       ArgumentError);
  CHECK(c.dev.calls == 0);
  c.args.out.strides = {8, 1};
  check_valid([&] { (void)validate_gemm(c.dev, c.args); });
  CHECK(c.dev.calls == 0);
}

TEST_CASE("gemm validation: alignment, device and null addresses") {
  GemmCase c;
  c.args.a.device_address += 1;
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'a' starts at address 0x10100001, which is not a multiple "
                       "of 2 bytes; expected an address aligned to 2 bytes",
                       ArgumentError);
  c.args.a.device_address -= 1;
  RecordingDevice other("device B");
  c.args.b = other.tensor(DType::f16, {12, 8});
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'b' is in memory of another device (device B); expected "
                       "memory of the launch device (device A)",
                       ArgumentError);
  std::vector<uint16_t> host(96);
  c.args.b = TensorView::on_host(host.data(), DType::f16, {12, 8});
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'b' is in host memory; expected memory of the launch "
                       "device (device A)",
                       ArgumentError);
  c.args.b = TensorView::on_device(c.dev, 0, DType::f16, {12, 8});
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'b' has a null address and 96 elements; expected the "
                       "address of its data",
                       ArgumentError);
  CHECK(c.dev.calls == 0);
  CHECK(other.calls == 0);
}

TEST_CASE("gemm validation: alpha, beta, c and bias") {
  GemmCase c;
  c.args.beta = 0.5f;
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: parameter 'beta' is 0.500000 but no 'c' was given; expected a 'c' "
                       "tensor when beta != 0",
                       ArgumentError);
  c.args.c = c.dev.tensor(DType::f16, {4, 8});
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'c' has dtype f16; expected the dtype of 'out' (f32)",
                       ArgumentError);
  c.args.c = c.args.out; // in place: allowed
  check_valid([&] { (void)validate_gemm(c.dev, c.args); });
  c.args.c->strides = {4, 1}; // overlapping but not the same view
  c.args.c->shape = {4, 8};
  CHECK_THROWS_AS(gemm(c.dev, c.args), ArgumentError); // not row-major with ld 4 < 8
  c.args.c = c.args.out;
  c.args.c->device_address += 4 * 8; // shares bytes with out, and is a different view
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'out' overlaps the memory of input 'c'; expected either the "
                       "very same view (in place) or disjoint memory",
                       ArgumentError);
  c.args.c.reset();
  c.args.beta = 0.0f;
  c.args.alpha = INFINITY;
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: parameter 'alpha' is inf; expected a finite value", ArgumentError);
  c.args.alpha = 1.0f;
  c.args.bias = c.dev.tensor(DType::f32, {4});
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'bias' has shape [4]; expected [8] ([N], one per output "
                       "column)",
                       ArgumentError);
  c.args.bias = c.dev.tensor(DType::bf16, {8});
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'bias' has dtype bf16; expected the dtype of 'out' (f32)",
                       ArgumentError);
  c.args.bias = c.dev.tensor(DType::f32, {8}, {2});
  CHECK_THROWS_WITH_AS(
      gemm(c.dev, c.args),
      "gemm: argument 'bias' has stride 2; expected a contiguous vector (stride 1)", ArgumentError);
  c.args.bias = TensorView::on_device(c.dev, c.args.a.device_address, DType::f32, {8});
  c.args.out = TensorView::on_device(c.dev, c.args.a.device_address + 8, DType::f32, {4, 8});
  CHECK_THROWS_WITH_AS(gemm(c.dev, c.args),
                       "gemm: argument 'out' overlaps the memory of input 'a'; expected disjoint "
                       "memory",
                       ArgumentError);
  CHECK(c.dev.calls == 0);
}

TEST_CASE("gemm validation: empty problems validate and launch nothing, and K = 0 launches") {
  GemmCase c;
  c.args.a = c.dev.tensor(DType::bf16, {0, 12});
  c.args.b = c.dev.tensor(DType::bf16, {12, 8});
  c.args.out = c.dev.tensor(DType::bf16, {0, 8});
  CHECK_NOTHROW(gemm(c.dev, c.args));
  // An empty problem still validates its arguments.
  c.args.bias = c.dev.tensor(DType::bf16, {7});
  CHECK_THROWS_AS(gemm(c.dev, c.args), ArgumentError);
  c.args.bias.reset();
  // K = 0 with M, N > 0 must write zeros (plus bias): that is the kernel's job.
  c.args.a = c.dev.tensor(DType::bf16, {4, 0});
  c.args.b = c.dev.tensor(DType::bf16, {0, 8});
  c.args.out = c.dev.tensor(DType::f32, {4, 8});
  const GemmProblem p = validate_gemm(c.dev, c.args);
  CHECK(p.k == 0);
  CHECK(p.a_dtype == DType::bf16);
  check_valid([&] { (void)validate_gemm(c.dev, c.args); });
  CHECK(c.dev.calls == 0);
}

TEST_CASE("scaled_mm validation") {
  RecordingDevice dev("device A");
  ScaledMmArgs a = scaled_mm_args(dev);
  for (DType ta : {DType::e4m3, DType::e5m2})
    for (DType tb : {DType::e4m3, DType::e5m2}) {
      a.a.dtype = ta;
      a.b.dtype = tb;
      check_valid([&] { (void)validate_scaled_mm(dev, a); });
    }
  const GemmProblem p = validate_scaled_mm(dev, a);
  CHECK(p.scale_a == ScaleGranularity::tensorwise);
  CHECK(p.scale_b == ScaleGranularity::rowwise);
  a.a.dtype = DType::f16;
  CHECK_THROWS_WITH_AS(scaled_mm(dev, a),
                       "scaled_mm: argument 'a' has dtype f16; expected one of e4m3, e5m2",
                       ArgumentError);
  a.a.dtype = DType::e4m3;
  a.b.strides = {8, 1};
  CHECK_THROWS_WITH_AS(scaled_mm(dev, a),
                       "scaled_mm: argument 'b' has shape [12, 8] with strides [8, 1], which is "
                       "row-major; expected column-major (strides [1, ld] with ld >= 12)",
                       ArgumentError);
  a.b.strides = {1, 12};
  a.scale_a = dev.tensor(DType::f32, {3});
  CHECK_THROWS_WITH_AS(scaled_mm(dev, a),
                       "scaled_mm: argument 'scale_a' has shape [3]; expected a tensorwise scale "
                       "(shape [], [1] or [1, 1]) or one scale per row of 'a' (M) = 4 (shape [4], "
                       "[4, 1] or [1, 4])",
                       ArgumentError);
  a.scale_a = dev.tensor(DType::f32, {4, 1}); // rowwise as torch._scaled_mm passes it
  CHECK(validate_scaled_mm(dev, a).scale_a == ScaleGranularity::rowwise);
  a.scale_a = dev.tensor(DType::f32, {4, 1}, {2, 1});
  CHECK_THROWS_WITH_AS(scaled_mm(dev, a),
                       "scaled_mm: argument 'scale_a' has shape [4, 1] with strides [2, 1]; "
                       "expected the scales to be contiguous (stride 1 along the dimension of 4)",
                       ArgumentError);
  a.scale_a = dev.tensor(DType::f32, {});
  a.scale_b = dev.tensor(DType::bf16, {8});
  CHECK_THROWS_WITH_AS(scaled_mm(dev, a),
                       "scaled_mm: argument 'scale_b' has dtype bf16; expected f32", ArgumentError);
  a.scale_b = dev.tensor(DType::f32, {1, 8});
  a.out = dev.tensor(DType::e4m3, {4, 8});
  CHECK_THROWS_WITH_AS(scaled_mm(dev, a),
                       "scaled_mm: argument 'out' has dtype e4m3; expected one of bf16, f16, f32",
                       ArgumentError);
  a.out = dev.tensor(DType::f16, {4, 8});
  a.bias = dev.tensor(DType::f16, {8});
  check_valid([&] { (void)validate_scaled_mm(dev, a); });
  CHECK(dev.calls == 0);
}

TEST_CASE("scaled_mm_fused_quant validation: quantization and LoRA") {
  RecordingDevice dev("device A");
  const int64_t m = 4, n = 8, k = 12, r = 2;
  ScaledMmFusedQuantArgs a;
  a.x = dev.tensor(DType::bf16, {m, k});
  a.quant.dtype = DType::e5m2;
  a.b = dev.tensor(DType::e4m3, {k, n}, column_major_strides({k, n}));
  a.scale_b = dev.tensor(DType::f32, {1});
  a.out = dev.tensor(DType::bf16, {m, n});
  check_valid([&] { (void)validate_scaled_mm_fused_quant(dev, a); });
  a.quant.dtype = DType::int8;
  CHECK_THROWS_WITH_AS(scaled_mm_fused_quant(dev, a),
                       "scaled_mm_fused_quant: parameter 'quant.dtype' is int8; expected one of "
                       "e4m3, e5m2",
                       ArgumentError);
  a.quant.dtype = DType::e4m3;
  a.quant.mode = ActQuantMode::given_scale;
  CHECK_THROWS_WITH_AS(scaled_mm_fused_quant(dev, a),
                       "scaled_mm_fused_quant: argument 'quant.scale' is missing; expected a "
                       "scale when quant.mode is given_scale",
                       ArgumentError);
  a.quant.scale = dev.tensor(DType::f32, {m});
  check_valid([&] { (void)validate_scaled_mm_fused_quant(dev, a); });
  a.quant.scale_out = dev.tensor(DType::f32, {m});
  CHECK_THROWS_WITH_AS(scaled_mm_fused_quant(dev, a),
                       "scaled_mm_fused_quant: argument 'quant.scale_out' was given; expected it "
                       "only when quant.mode is dynamic_rowwise",
                       ArgumentError);
  a.quant.mode = ActQuantMode::dynamic_rowwise;
  CHECK_THROWS_WITH_AS(scaled_mm_fused_quant(dev, a),
                       "scaled_mm_fused_quant: argument 'quant.scale' was given; expected no "
                       "scale when quant.mode is dynamic_rowwise (the kernel computes one per row)",
                       ArgumentError);
  a.quant.scale.reset();
  a.quant.scale_out = dev.tensor(DType::f32, {m + 1});
  CHECK_THROWS_WITH_AS(scaled_mm_fused_quant(dev, a),
                       "scaled_mm_fused_quant: argument 'quant.scale_out' has shape [5]; expected "
                       "[4] ([M], one per row of 'x')",
                       ArgumentError);
  a.quant.scale_out = dev.tensor(DType::f32, {m});
  a.lora = LoraArgs{dev.tensor(DType::bf16, {r, k}), dev.tensor(DType::bf16, {n, r + 1}), 0.5f};
  CHECK_THROWS_WITH_AS(scaled_mm_fused_quant(dev, a),
                       "scaled_mm_fused_quant: argument 'lora.up' has shape [8, 3]; expected "
                       "dimension 1 (R) to equal dimension 0 of 'lora.down' (shape [2, 12]), 2",
                       ArgumentError);
  a.lora->up = dev.tensor(DType::f16, {n, r});
  CHECK_THROWS_WITH_AS(scaled_mm_fused_quant(dev, a),
                       "scaled_mm_fused_quant: argument 'lora.up' has dtype f16; expected the "
                       "dtype of 'x' (bf16)",
                       ArgumentError);
  a.lora->up = dev.tensor(DType::bf16, {n, r});
  a.lora->scale = 1e-20f; // below 2^-64: the fused epilogue divides by it
  CHECK_THROWS_WITH_AS(scaled_mm_fused_quant(dev, a),
                       doctest::Contains("scaled_mm_fused_quant: parameter 'lora.scale' is "),
                       ArgumentError);
  CHECK_THROWS_WITH_AS(scaled_mm_fused_quant(dev, a),
                       doctest::Contains("expected 0 or a magnitude in [2^-64, 2^64]"),
                       ArgumentError);
  a.lora->scale = -1e20f;
  CHECK_THROWS_WITH_AS(scaled_mm_fused_quant(dev, a),
                       doctest::Contains("expected 0 or a magnitude in [2^-64, 2^64]"),
                       ArgumentError);
  a.lora->scale = 0.0f; // no LoRA term: allowed
  CHECK(validate_scaled_mm_fused_quant(dev, a).lora_rank == r);
  a.lora->scale = -1e-3f;
  CHECK(validate_scaled_mm_fused_quant(dev, a).lora_rank == r);
  a.lora->scale = 0.5f;
  a.quant.scale_out = a.out; // the scales would overwrite the output
  a.quant.scale_out->shape = {m};
  a.quant.scale_out->strides = {1};
  a.quant.scale_out->dtype = DType::f32;
  CHECK_THROWS_WITH_AS(scaled_mm_fused_quant(dev, a),
                       "scaled_mm_fused_quant: argument 'quant.scale_out' overlaps the memory of "
                       "input 'out'; expected disjoint memory",
                       ArgumentError);
  CHECK(dev.calls == 0);
}

TEST_CASE("scaled_mm_multi validation: a one-element scale of a one-row problem fits either "
          "granularity") {
  RecordingDevice dev("device A");
  ScaledMmMultiArgs multi;
  // scale_b: problem 0 has N = 1 (its one-element scale reads alike either way), problem 1 is
  // tensorwise with N = 3 and decides; problem 2 (N = 1, shape [1]) fits too.
  multi.problems = {scaled_mm_args(dev, 4, 1, 12), scaled_mm_args(dev, 7, 3, 33),
                    scaled_mm_args(dev, 5, 1, 7)};
  multi.problems[1].scale_b = dev.tensor(DType::f32, {1});
  const std::vector<GemmProblem> ps = validate_scaled_mm_multi(dev, multi);
  for (const GemmProblem& p : ps) // one kernel: every problem reports the deciding granularity
    CHECK(p.scale_b == ScaleGranularity::tensorwise);
  // A real disagreement names the problem that decided.
  multi.problems.push_back(scaled_mm_args(dev, 2, 6, 5)); // rowwise scale_b of 6
  CHECK_THROWS_WITH_AS(scaled_mm_multi(dev, multi),
                       "scaled_mm_multi: problem 3: argument 'scale_b' is rowwise; expected "
                       "tensorwise like problem 1: one launch runs one kernel",
                       ArgumentError);
  CHECK(dev.calls == 0);
}

TEST_CASE("scaled_mm_multi validation: per-problem messages and one kernel for all") {
  RecordingDevice dev("device A");
  ScaledMmMultiArgs multi;
  multi.problems = {scaled_mm_args(dev, 4, 8, 12), scaled_mm_args(dev, 7, 3, 33),
                    scaled_mm_args(dev, 0, 5, 2)};
  check_valid([&] { (void)validate_scaled_mm_multi(dev, multi); });
  CHECK(validate_scaled_mm_multi(dev, multi).size() == 3);
  multi.problems[1].b = dev.tensor(DType::e4m3, {32, 3}, {1, 32});
  CHECK_THROWS_WITH_AS(scaled_mm_multi(dev, multi),
                       "scaled_mm_multi: problem 1: argument 'b' has shape [32, 3]; expected "
                       "dimension 0 (K) to equal dimension 1 of 'a' (shape [7, 33]), 33",
                       ArgumentError);
  multi.problems[1] = scaled_mm_args(dev, 7, 3, 33);
  multi.problems[2].a.dtype = DType::e5m2;
  CHECK_THROWS_WITH_AS(scaled_mm_multi(dev, multi),
                       "scaled_mm_multi: problem 2: argument 'a' has dtype e5m2; expected the "
                       "dtype of 'a' in problem 0 (e4m3): one launch runs one kernel",
                       ArgumentError);
  multi.problems[2].a.dtype = DType::e4m3;
  multi.problems[1].scale_b = dev.tensor(DType::f32, {1});
  CHECK_THROWS_WITH_AS(scaled_mm_multi(dev, multi),
                       "scaled_mm_multi: problem 1: argument 'scale_b' is tensorwise; expected "
                       "rowwise like problem 0: one launch runs one kernel",
                       ArgumentError);
  multi.problems[1].scale_b = dev.tensor(DType::f32, {3});
  multi.problems[0].bias = dev.tensor(DType::bf16, {8});
  CHECK_THROWS_WITH_AS(scaled_mm_multi(dev, multi),
                       "scaled_mm_multi: problem 1: argument 'bias' is missing; expected a bias "
                       "in every problem, as problem 0 has one: one launch runs one kernel",
                       ArgumentError);
  multi.problems[0].bias.reset();
  multi.problems[1].out = multi.problems[0].out;
  multi.problems[1].out.shape = {7, 3};
  multi.problems[1].out.strides = {3, 1};
  CHECK_THROWS_WITH_AS(scaled_mm_multi(dev, multi),
                       "scaled_mm_multi: problem 1: argument 'out' overlaps the memory of input "
                       "'out of problem 0'; expected disjoint memory",
                       ArgumentError);
  // An empty list is valid and does nothing.
  CHECK_NOTHROW(scaled_mm_multi(dev, ScaledMmMultiArgs{}));
  CHECK(dev.calls == 0);
}

TEST_CASE("w8a16 validation") {
  RecordingDevice dev("device A");
  const int64_t m = 3, n = 8, k = 12;
  W8A16Args a{dev.tensor(DType::f16, {m, k}), dev.tensor(DType::int8, {n, k}),
              dev.tensor(DType::f32, {n}), dev.tensor(DType::f16, {m, n})};
  check_valid([&] { (void)validate_w8a16(dev, a); });
  a.weight.dtype = DType::int4;
  CHECK_THROWS_WITH_AS(w8a16(dev, a), "w8a16: argument 'weight' has dtype int4; expected int8",
                       ArgumentError);
  a.weight.dtype = DType::int8;
  a.weight.shape = {n, k + 1};
  a.weight.strides = {k + 1, 1};
  CHECK_THROWS_WITH_AS(w8a16(dev, a),
                       "w8a16: argument 'weight' has shape [8, 13]; expected dimension 1 (K) to "
                       "equal dimension 1 of 'x' (shape [3, 12]), 12",
                       ArgumentError);
  a.weight = dev.tensor(DType::int8, {n, k});
  a.scale = dev.tensor(DType::f32, {1});
  CHECK_THROWS_WITH_AS(w8a16(dev, a),
                       "w8a16: argument 'scale' has shape [1]; expected one scale per output "
                       "channel (shape [8]): w8a16 scales are per channel",
                       ArgumentError);
  a.scale = dev.tensor(DType::f32, {n});
  a.out.dtype = DType::f32;
  CHECK_THROWS_WITH_AS(w8a16(dev, a), "w8a16: argument 'out' has dtype f32; expected f16",
                       ArgumentError);
  a.out.dtype = DType::f16;
  a.x.strides = {1, m};
  CHECK_THROWS_WITH_AS(w8a16(dev, a),
                       "w8a16: argument 'x' has shape [3, 12] with strides [1, 3], which is "
                       "column-major; expected row-major (strides [ld, 1] with ld >= 12)",
                       ArgumentError);
  CHECK(dev.calls == 0);
}

TEST_CASE("int8_linear and int8_linear_fused validation") {
  RecordingDevice dev("device A");
  const int64_t m = 5, n = 6, k = 40;
  Int8LinearArgs a{dev.tensor(DType::int8, {m, k}), dev.tensor(DType::int8, {n, k}),
                   dev.tensor(DType::f32, {m}), dev.tensor(DType::f32, {n, 1}),
                   dev.tensor(DType::bf16, {m, n})};
  check_valid([&] { (void)validate_int8_linear(dev, a); });
  a.x.dtype = DType::uint8;
  CHECK_THROWS_WITH_AS(int8_linear(dev, a),
                       "int8_linear: argument 'x' has dtype uint8; expected int8", ArgumentError);
  a.x.dtype = DType::int8;
  a.w_scale = dev.tensor(DType::f32, {m});
  CHECK_THROWS_WITH_AS(int8_linear(dev, a),
                       "int8_linear: argument 'w_scale' has shape [5]; expected a tensorwise "
                       "scale (shape [], [1] or [1, 1]) or one scale per row of 'weight' (N) = 6 "
                       "(shape [6], [6, 1] or [1, 6])",
                       ArgumentError);
  CHECK(dev.calls == 0);

  Int8LinearFusedArgs f;
  f.x = dev.tensor(DType::f16, {m, k});
  f.quant.dtype = DType::int8;
  f.weight = dev.tensor(DType::int8, {n, k});
  f.w_scale = dev.tensor(DType::f32, {1});
  f.out = dev.tensor(DType::f32, {m, n});
  f.quant.scale_out = dev.tensor(DType::f32, {m});
  f.lora = LoraArgs{dev.tensor(DType::f16, {4, k}), dev.tensor(DType::f16, {n, 4}), 1.0f};
  check_valid([&] { (void)validate_int8_linear_fused(dev, f); });
  f.quant.dtype = DType::e4m3;
  CHECK_THROWS_WITH_AS(int8_linear_fused(dev, f),
                       "int8_linear_fused: parameter 'quant.dtype' is e4m3; expected int8",
                       ArgumentError);
  f.quant.dtype = DType::int8;
  f.x.dtype = DType::int8;
  CHECK_THROWS_WITH_AS(int8_linear_fused(dev, f),
                       "int8_linear_fused: argument 'x' has dtype int8; expected one of f16, bf16",
                       ArgumentError);
  f.x.dtype = DType::f16;
  f.lora->down = dev.tensor(DType::f16, {0, k});
  f.lora->up = dev.tensor(DType::f16, {n, 0});
  CHECK_THROWS_WITH_AS(int8_linear_fused(dev, f),
                       "int8_linear_fused: argument 'lora.down' has shape [0, 40]; expected a LoRA "
                       "rank R >= 1 (dimension 0)",
                       ArgumentError);
  CHECK(dev.calls == 0);
}

TEST_CASE("iu4_gemm validation: packed operands") {
  RecordingDevice dev("device A");
  const int64_t m = 4, n = 6, k = 32;
  Iu4GemmArgs a{dev.tensor(DType::int4, {m, k}),
                dev.tensor(DType::uint4, {k, n}, column_major_strides({k, n})),
                dev.tensor(DType::i32, {m, n})};
  check_valid([&] { (void)validate_iu4_gemm(dev, a); });
  a.a = dev.tensor(DType::int4, {m, 7}); // K = 7: rows of 7 nibbles would start mid-byte
  a.b = dev.tensor(DType::uint4, {7, n}, {1, 8});
  CHECK_THROWS_WITH_AS(iu4_gemm(dev, a),
                       "iu4_gemm: argument 'a' is packed int4 with leading stride 7 (odd); "
                       "expected an even leading stride so every row starts on a byte",
                       ArgumentError);
  a.a = dev.tensor(DType::int4, {m, 7}, {8, 1}); // padded to a byte per row: fine
  check_valid([&] { (void)validate_iu4_gemm(dev, a); });
  a.out.dtype = DType::f32;
  CHECK_THROWS_WITH_AS(iu4_gemm(dev, a), "iu4_gemm: argument 'out' has dtype f32; expected i32",
                       ArgumentError);
  a.out.dtype = DType::i32;
  a.a.dtype = DType::int8;
  CHECK_THROWS_WITH_AS(iu4_gemm(dev, a),
                       "iu4_gemm: argument 'a' has dtype int8; expected one of int4, uint4",
                       ArgumentError);
  CHECK(dev.calls == 0);
}

TEST_CASE("mxfp8_gemm validation: e8m0 block scales") {
  RecordingDevice dev("device A");
  const int64_t m = 4, n = 6, k = 40; // two K blocks, the last one partial
  Mxfp8GemmArgs a{dev.tensor(DType::e4m3, {m, k}),
                  dev.tensor(DType::e5m2, {k, n}, column_major_strides({k, n})),
                  dev.tensor(DType::e8m0, {m, 2}), dev.tensor(DType::e8m0, {n, 2}),
                  dev.tensor(DType::f32, {m, n})};
  check_valid([&] { (void)validate_mxfp8_gemm(dev, a); });
  a.scale_a = dev.tensor(DType::e8m0, {m, 1});
  CHECK_THROWS_WITH_AS(mxfp8_gemm(dev, a),
                       "mxfp8_gemm: argument 'scale_a' has shape [4, 1]; expected [4, 2] ([M, "
                       "ceil(K / 32) = 2]: one scale per row and 32-element K block)",
                       ArgumentError);
  a.scale_a = dev.tensor(DType::e8m0, {m, 2});
  a.scale_b = dev.tensor(DType::f32, {n, 2});
  CHECK_THROWS_WITH_AS(mxfp8_gemm(dev, a),
                       "mxfp8_gemm: argument 'scale_b' has dtype f32; expected e8m0",
                       ArgumentError);
  a.scale_b = dev.tensor(DType::e8m0, {n, 2}, {1, n});
  CHECK_THROWS_WITH_AS(mxfp8_gemm(dev, a),
                       "mxfp8_gemm: argument 'scale_b' has shape [6, 2] with strides [1, 6], "
                       "which is column-major; expected row-major (strides [ld, 1] with ld >= 2)",
                       ArgumentError);
  CHECK(dev.calls == 0);
}
