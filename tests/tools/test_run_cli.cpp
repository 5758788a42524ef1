// Black-box tests of `tilewave run`: .npy inputs reach the GEMM and attention entry points
// with the documented conventions (docs/kernels.md), and bad input ends in a sentence. A valid call
// writes an output file of the right dtype and shape holding the right values: the first tests
// fill every input with one value (so each output is a hand-checkable K * a * b, and the odd-K
// iu4 case proves the nibble past K is ignored); the tests of the fused kernels and
// scaled_mm_multi feed random inputs and compare against the float64 references of
// tests/kernels/oracles.hpp, computed here from the very arrays written to the .npy files.
#include "kernels/oracles.hpp"
#include "kernels/oracles/mla_decode.hpp"
#include "tools/run_tool.hpp"

#include <kernels/attention/flash_attn_kernel.hpp>
#include <tools/npy/npy.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using tw::test::run_tool;

namespace {

// The .npy files of this test process, removed when it exits.
const fs::path& dir() {
  struct Dir {
    fs::path path = fs::temp_directory_path() / ("tilewave_run_cli_" + std::to_string(::getpid()));
    Dir() { fs::create_directories(path); }
    ~Dir() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  };
  static const Dir d;
  return d.path;
}

// Writes an array whose every element has the bytes `element` (little-endian; zeros when empty)
// and returns its path.
std::string npy_file(const std::string& name, const std::string& descr, std::vector<size_t> shape,
                     const std::vector<uint8_t>& element = {}) {
  tw::npy::Array a;
  a.dtype = descr;
  a.shape = std::move(shape);
  a.data.assign(a.count() * a.element_size(), 0);
  if (!element.empty()) {
    REQUIRE(element.size() == a.element_size());
    for (size_t i = 0; i < a.data.size(); ++i)
      a.data[i] = element[i % element.size()];
  }
  const std::string path = (dir() / name).string();
  tw::npy::write(path, a);
  return path;
}

std::string out_arg() {
  return " --out out=" + (dir() / "out.npy").string();
}

// A valid call ran and wrote `descr` elements of `shape`, each of whose bytes are `element`.
void check_valid_run(const tw::test::ToolResult& r, const std::string& descr,
                     std::vector<size_t> shape, const std::vector<uint8_t>& element) {
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  const tw::npy::Array out = tw::npy::read((dir() / "out.npy").string());
  CHECK(out.dtype == descr);
  CHECK(out.shape == shape);
  REQUIRE(out.element_size() == element.size());
  for (size_t i = 0; i < out.data.size(); ++i) {
    CAPTURE(i);
    CHECK(out.data[i] == element[i % element.size()]);
  }
}

} // namespace

TEST_CASE("tilewave run gemm: f16 inputs, alpha, f32 output") {
  const std::string a = npy_file("a1.npy", "<f2", {4, 12}, {0x00, 0x3C}); // 1.0
  const std::string b = npy_file("b1.npy", "<f2", {12, 8}, {0x00, 0x38}); // 0.5
  const auto r = run_tool("run gemm --in a=" + a + " --in b=" + b + out_arg() +
                          " --param alpha=2 --param out_dtype=f32");
  check_valid_run(r, "<f4", {4, 8}, {0x00, 0x00, 0x40, 0x41}); // 2 * 12 * 0.5 = 12.0f
}

TEST_CASE("tilewave run gemm: argument errors are the entry point's sentences") {
  const std::string a = npy_file("a.npy", "<f2", {4, 12});
  const std::string b5 = npy_file("b5.npy", "<f2", {5, 8});
  const std::string bb = npy_file("bb.npy", "<u2", {12, 8});
  auto r = run_tool("run gemm --in a=" + a + " --in b=" + b5 + out_arg());
  CHECK(r.status == 1);
  CHECK(r.output.find("gemm: argument 'b' has shape [5, 8]; expected dimension 0 (K) to equal "
                      "dimension 1 of 'a' (shape [4, 12]), 12") != std::string::npos);
  r = run_tool("run gemm --in a=" + a + " --in b=" + bb + " --param b_dtype=bf16" + out_arg());
  CHECK(r.output.find("gemm: argument 'b' has dtype bf16; expected the dtype of 'a' (f16)") !=
        std::string::npos);
  r = run_tool("run gemm --in a=" + a + " --in b=" + bb + out_arg());
  CHECK(r.output.find("run: input 'b' (" + bb +
                      ") has NumPy dtype <u2, which needs --param b_dtype=... to say what it "
                      "holds") != std::string::npos);
  r = run_tool("run gemm --in a=" + a + " --in b=" + bb + " --param b_dtype=e4m3" + out_arg());
  CHECK(r.output.find("has NumPy dtype <u2; e4m3 is stored as |u1") != std::string::npos);
}

TEST_CASE("tilewave run: command-line errors") {
  const std::string a = npy_file("a.npy", "<f2", {4, 12});
  const std::string b = npy_file("b.npy", "<f2", {12, 8});
  auto r = run_tool("run gemm --in a=" + a + out_arg());
  CHECK(r.status == 1);
  CHECK(r.output.find("run: gemm needs --in b=FILE.npy (inputs: a, b)") != std::string::npos);
  r = run_tool("run gemm --in a=" + a + " --in b=" + b + " --in x=" + a + out_arg());
  CHECK(r.output.find("run: gemm has no input 'x' (inputs: a, b; optional: c, bias)") !=
        std::string::npos);
  r = run_tool("run gemm --in a=" + a + " --in b=" + b + " --param gamma=1" + out_arg());
  CHECK(r.output.find("run: --param 'gamma' is not a parameter of gemm") != std::string::npos);
  r = run_tool("run w8a16 --in x=" + a + " --in weight=" + b + " --in scale=" + b +
               " --param alpha=2" + out_arg());
  CHECK(r.output.find("run: --param 'alpha' is not a parameter of w8a16") != std::string::npos);
  r = run_tool("run nope --in a=" + a + out_arg());
  CHECK(r.output.find(
            "run: unknown kernel 'nope': expected one of adaln, decode_attn, dequant_awq, "
            "dequant_fp8, flash_attn, gemm, int8_linear, int8_linear_fused, iu4_gemm, layer_norm, "
            "linear_attn, mla_decode, mxfp8_gemm, paged_attn, qk_norm_quant, quant_convrot, "
            "quant_fp8_stochastic, quant_int8, quant_svdquant, quant_w4a8, rms_norm, "
            "rms_norm_rope, rope, scaled_mm, "
            "scaled_mm_fused_quant, scaled_mm_multi, silu, swiglu, w8a16") != std::string::npos);
  const std::string v = npy_file("v.npy", "<f2", {12});
  r = run_tool("run gemm --in a=" + v + " --in b=" + b + out_arg());
  CHECK(r.output.find("run: input 'a' (" + v + ") has shape [12]; expected a matrix (rank 2)") !=
        std::string::npos);
}

TEST_CASE("tilewave run scaled_mm: fp8 codes as uint8, b stored as [N, K]") {
  const std::string a = npy_file("a8.npy", "|u1", {4, 12}, {0x38});   // e4m3 1.0
  const std::string bt = npy_file("bt8.npy", "|u1", {8, 12}, {0x3C}); // e5m2 1.0; b^T [N, K]
  const std::string s = npy_file("s.npy", "<f4", {1}, {0x00, 0x00, 0x00, 0x3F}); // 0.5
  const std::string base = "run scaled_mm --in a=" + a + " --in b=" + bt + " --in scale_a=" + s +
                           " --in scale_b=" + s + out_arg();
  auto r = run_tool(base + " --param a_dtype=e4m3 --param b_dtype=e5m2");
  check_valid_run(r, "<u2", {4, 8}, {0x40, 0x40}); // 12 * 0.5 * 0.5 = 3.0 as bf16 bits
  // Without the dtype parameters the codes are plain uint8, which scaled_mm rejects.
  r = run_tool(base);
  CHECK(r.output.find("scaled_mm: argument 'a' has dtype uint8; expected one of e4m3, e5m2") !=
        std::string::npos);
}

TEST_CASE("tilewave run mxfp8_gemm: the e8m0 scales need no dtype parameter") {
  const std::string a = npy_file("mx_a.npy", "|u1", {4, 40}, {0x38});   // e4m3 1.0
  const std::string bt = npy_file("mx_bt.npy", "|u1", {8, 40}, {0x3C}); // e5m2 1.0
  // ceil(40 / 32) blocks; e8m0 127 = 1, 128 = 2.
  const std::string sa = npy_file("mx_sa.npy", "|u1", {4, 2}, {127});
  const std::string sb = npy_file("mx_sb.npy", "|u1", {8, 2}, {128});
  const auto r = run_tool("run mxfp8_gemm --in a=" + a + " --in b=" + bt + " --in scale_a=" + sa +
                          " --in scale_b=" + sb + out_arg() +
                          " --param a_dtype=e4m3 --param b_dtype=e5m2 --param out_dtype=f32");
  check_valid_run(r, "<f4", {4, 8}, {0x00, 0x00, 0xA0, 0x42}); // 40 * 1 * 2 = 80.0f
}

TEST_CASE("tilewave run iu4_gemm: packed nibbles with an odd K") {
  // M = 4 rows of ceil(7 / 2) bytes, every nibble 3 (int4) and, for b (N = 6), 2 (uint4): the
  // high nibble of each row's last byte lies past K = 7 and must not count.
  const std::string a = npy_file("a4.npy", "|u1", {4, 4}, {0x33});
  const std::string bt = npy_file("bt4.npy", "|u1", {6, 4}, {0x22});
  const std::string base = "run iu4_gemm --in a=" + a + " --in b=" + bt + out_arg() +
                           " --param a_dtype=int4 --param b_dtype=uint4";
  auto r = run_tool(base + " --param k=7");
  check_valid_run(r, "<i4", {4, 6}, {42, 0, 0, 0}); // 7 * 3 * 2
  r = run_tool(base + " --param k=9");
  CHECK(r.output.find("run: --param k=9 does not fit input 'a'") != std::string::npos);
}

// ---- the fused kernels and scaled_mm_multi: non-zero inputs against the references ---------

namespace {

namespace to = tw::oracle;
using tw::kernels::DType;
using tw::kernels::HostTensor;
using tw::kernels::TensorView;

// Writes a row-major host tensor as it sits in memory (fp8 codes as |u1) and returns its path.
std::string save(const std::string& name, const HostTensor& t) {
  tw::npy::Array a;
  const bool fp8 = t.dtype() == DType::e4m3 || t.dtype() == DType::e5m2;
  a.dtype = fp8 ? "|u1" : tw::npy::dtype_from_name(tw::kernels::dtype_name(t.dtype()));
  a.shape.assign(t.shape().begin(), t.shape().end());
  a.data = t.bytes();
  const std::string path = (dir() / name).string();
  tw::npy::write(path, a);
  return path;
}

// The logical [K, N] column-major view of b^T, a row-major [N, K] host tensor.
TensorView transposed(const HostTensor& bt) {
  TensorView v = bt.view();
  std::swap(v.shape[0], v.shape[1]);
  std::swap(v.strides[0], v.strides[1]);
  return v;
}

// An output path with no file behind it yet (so a stale file cannot pass a check).
std::string fresh(const std::string& name) {
  const fs::path p = dir() / name;
  fs::remove(p);
  return p.string();
}

// Reads an f32 output file of `shape` as a host tensor.
HostTensor load_f32(const std::string& path, tw::kernels::Extents shape) {
  const tw::npy::Array a = tw::npy::read(path);
  CHECK(a.dtype == "<f4");
  CHECK(a.shape == std::vector<size_t>(shape.begin(), shape.end()));
  HostTensor t(DType::f32, shape);
  REQUIRE(a.data.size() == t.bytes().size());
  t.bytes() = a.data;
  return t;
}

// The f32 [rows, cols] output in `path` meets the reference within `tol`.
void check_output(const std::string& path, const to::Reference& want, const to::Tolerance& tol) {
  const HostTensor got = load_f32(path, {want.value.rows, want.value.cols});
  const to::CompareResult r = to::compare(to::decode_matrix(got.view()), want, tol);
  INFO(path << ": " << r.summary());
  CHECK(r.ok);
  CHECK(r.elements == want.value.rows * want.value.cols);
  if (!want.value.v.empty()) // the inputs are not degenerate
    CHECK(std::any_of(want.value.v.begin(), want.value.v.end(), [](double v) { return v != 0; }));
}

tw::kernels::ActivationQuant quant_of(DType dtype, const HostTensor* given = nullptr) {
  tw::kernels::ActivationQuant q;
  q.dtype = dtype;
  if (given) {
    q.mode = tw::kernels::ActQuantMode::given_scale;
    q.scale = given->view();
  }
  return q;
}

constexpr int64_t M = 5, N = 7, K = 13;

HostTensor scales(tw::kernels::Extents shape, uint64_t seed,
                  to::ValueRange range = to::ValueRange{0.01, 0.05}) {
  return to::random_tensor(DType::f32, std::move(shape), seed, range);
}

// The inputs of a fused-kernel test, x [M, K] with values in [-3, 3] and a zero row (row 2,
// whose dynamic scale is 1), and their --in arguments (the files are <tag>_NAME.npy).
struct FusedInputs {
  HostTensor x, weight, w_scale, given, bias, down, up;
  std::string required, bias_arg, given_arg, lora_arg;

  // `weight` is b^T [N, K] (named `weight_name`, its scale `scale_name`); `given` is the
  // shape of x_scale, `rank` the rank of the LoRA factors.
  FusedInputs(const std::string& tag, DType x_dtype, HostTensor w, const std::string& weight_name,
              const std::string& scale_name, tw::kernels::Extents given_shape, int64_t rank,
              uint64_t seed)
      : x(to::random_tensor(x_dtype, {M, K}, seed, to::ValueRange{-3.0, 3.0})),
        weight(std::move(w)), w_scale(scales({N}, seed + 1)),
        given(scales(std::move(given_shape), seed + 2)),
        bias(to::random_tensor(DType::f32, {N}, seed + 3)),
        down(to::random_tensor(x_dtype, {rank, K}, seed + 4)),
        up(to::random_tensor(x_dtype, {N, rank}, seed + 5)) {
    for (int64_t k = 0; k < K; ++k)
      x.set({2, k}, 0.0);
    const auto arg = [&](const std::string& name, const HostTensor& t) {
      return " --in " + name + "=" + save(tag + "_" + name + ".npy", t);
    };
    required = arg("x", x) + arg(weight_name, weight) + arg(scale_name, w_scale);
    bias_arg = arg("bias", bias);
    given_arg = arg("x_scale", given);
    lora_arg = arg("lora_down", down) + arg("lora_up", up);
  }
};

// Runs `command` with --out out=<tag>_out.npy and checks out against `want` within `tol`;
// with `dynamic` (the quantization of `x` in dynamic_rowwise mode) also asks for scale_out
// and checks that it holds s_m exactly as the documented rule computes it.
void check_run(const std::string& command, const std::string& tag, const to::Reference& want,
               const to::Tolerance& tol, const HostTensor* x = nullptr,
               const tw::kernels::ActivationQuant* dynamic = nullptr) {
  const std::string out = fresh(tag + "_out.npy"), scale_out = fresh(tag + "_scale_out.npy");
  const auto r =
      run_tool(command + " --out out=" + out + (dynamic ? " --out scale_out=" + scale_out : ""));
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  check_output(out, want, tol);
  if (!dynamic)
    return;
  const std::vector<double> got = to::decode_flat(load_f32(scale_out, {M}).view());
  const std::vector<double> rule = to::quantize_activation(x->view(), *dynamic).scale;
  REQUIRE(got.size() == rule.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == rule[i]);
  }
  CHECK(got[2] == 1.0); // the zero row
}

// The tolerance with a LoRA of rank `r`: f32 sums over K and R, and the intermediate
// x @ down^T may be held in the activation dtype.
to::Tolerance with_lora(int64_t r, DType x_dtype) {
  to::Tolerance tol = to::Tolerance::for_output(DType::f32, K);
  tol.accumulation = to::f32_accumulation(K + r);
  tol.intermediate = x_dtype == DType::bf16 ? 0x1p-8 : 0x1p-11;
  return tol;
}

} // namespace

TEST_CASE("tilewave run scaled_mm_fused_quant: non-zero inputs match the float64 reference") {
  const FusedInputs in("fq", DType::f16, to::random_tensor(DType::e5m2, {N, K}, 102), "b",
                       "scale_b", {1}, 3, 101);
  const std::string base =
      "run scaled_mm_fused_quant" + in.required + " --param b_dtype=e5m2 --param out_dtype=f32";
  tw::kernels::ScaledMmFusedQuantArgs args{in.x.view(), quant_of(DType::e4m3),
                                           transposed(in.weight), in.w_scale.view(), TensorView{}};

  // dynamic_rowwise to e4m3 (the default), bias, and the per-row scale as a second output
  args.bias = in.bias.view();
  check_run(base + in.bias_arg, "fq", to::scaled_mm_fused_quant(args),
            to::Tolerance::for_output(DType::f32, K), &in.x, &args.quant);

  // a given tensorwise scale, e5m2, and a rank-3 LoRA with lora_scale, no bias
  args.quant = quant_of(DType::e5m2, &in.given);
  args.bias.reset();
  args.lora = tw::kernels::LoraArgs{in.down.view(), in.up.view(), 0.5f};
  check_run(base + in.given_arg + in.lora_arg + " --param quant_dtype=e5m2 --param lora_scale=0.5",
            "fq", to::scaled_mm_fused_quant(args), with_lora(3, DType::f16));
}

TEST_CASE("tilewave run int8_linear_fused: non-zero inputs match the float64 reference") {
  const FusedInputs in("i8", DType::bf16, to::random_tensor(DType::int8, {N, K}, 202), "weight",
                       "w_scale", {M}, 2, 201);
  const std::string base = "run int8_linear_fused" + in.required + in.bias_arg +
                           " --param x_dtype=bf16 --param out_dtype=f32";
  tw::kernels::Int8LinearFusedArgs args{in.x.view(), quant_of(DType::int8), in.weight.view(),
                                        in.w_scale.view(), TensorView{}};
  args.bias = in.bias.view();

  // dynamic_rowwise (int8 is the default), scale_out; the i32 sum is exact
  check_run(base, "i8", to::int8_linear_fused(args), to::Tolerance::for_output(DType::f32, 0),
            &in.x, &args.quant);

  // a given rowwise scale (small enough that some codes clamp) and a rank-2 LoRA
  args.quant = quant_of(DType::int8, &in.given);
  args.lora = tw::kernels::LoraArgs{in.down.view(), in.up.view(), -0.75f};
  check_run(base + in.given_arg + in.lora_arg +
                " --param lora_down_dtype=bf16 --param lora_up_dtype=bf16 --param quant_dtype=int8"
                " --param lora_scale=-0.75",
            "i8", to::int8_linear_fused(args), with_lora(2, DType::bf16));
}

namespace {
// ".i=" of an indexed NAME.i=FILE.npy (built by appending: GCC 12 warns about
// `"." + std::to_string(i)` with -Wrestrict, a known false positive).
std::string index_suffix(size_t i) {
  std::string s = ".";
  s += std::to_string(i);
  s += '=';
  return s;
}

struct Mnk {
  int64_t m, n, k;
};

// One scaled_mm_multi run (a e4m3, b e5m2, rowwise scale_a, tensorwise scale_b, bias, f32
// out) over problems of the given shapes; every out.i against the scaled_mm reference.
void check_multi(const std::vector<Mnk>& shapes, uint64_t seed) {
  std::string cmd = "run scaled_mm_multi --param a_dtype=e4m3 --param b_dtype=e5m2 "
                    "--param out_dtype=f32";
  std::vector<to::Reference> want;
  std::vector<std::string> outs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const auto [m, n, k] = shapes[i];
    const uint64_t s = seed + 10 * i;
    const std::string tag = "mm" + std::to_string(seed) + "_" + std::to_string(i);
    const std::string idx = index_suffix(i);
    const HostTensor a = to::random_tensor(DType::e4m3, {m, k}, s);
    const HostTensor bt = to::random_tensor(DType::e5m2, {n, k}, s + 1);
    // scales near 1, so that the product, not the bias, dominates out
    const HostTensor sa = scales({m}, s + 2, {0.5, 2.0}), sb = scales({1}, s + 3, {0.5, 2.0});
    const HostTensor bias = to::random_tensor(DType::f32, {n}, s + 4);
    outs.push_back(fresh(tag + "_out.npy"));
    cmd += " --in a" + idx + save(tag + "_a.npy", a) + " --in b" + idx + save(tag + "_bt.npy", bt) +
           " --in scale_a" + idx + save(tag + "_sa.npy", sa) + " --in scale_b" + idx +
           save(tag + "_sb.npy", sb) + " --in bias" + idx + save(tag + "_bias.npy", bias) +
           " --out out" + idx + outs.back();
    want.push_back(
        to::scaled_mm({a.view(), transposed(bt), sa.view(), sb.view(), TensorView{}, bias.view()}));
  }
  const auto r = run_tool(cmd);
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  for (size_t i = 0; i < shapes.size(); ++i) {
    CAPTURE(i);
    check_output(outs[i], want[i], to::Tolerance::for_output(DType::f32, shapes[i].k));
  }
}
} // namespace

TEST_CASE("tilewave run scaled_mm_multi: problems of different shapes, K = 0 and M = 0") {
  check_multi({{M, N, K}, {3, 9, 70}, {4, 6, 0}}, 301); // K = 0: out = bias
  check_multi({{2, 3, 5}, {0, 4, 8}}, 401);             // M = 0: an empty [0, 4] out
}

namespace {
// A run that must fail with `sentence` and write no output file at `out`.
void check_refused(const std::string& args, const std::string& sentence, const std::string& out) {
  fs::remove(out);
  const auto r = run_tool(args);
  CAPTURE(args);
  CAPTURE(r.output);
  CHECK(r.status == 1);
  CHECK(r.output.find(sentence) != std::string::npos);
  CHECK(!fs::exists(out));
}
} // namespace

TEST_CASE("tilewave run scaled_mm_multi: indexed names and problem numbering errors") {
  const std::string a = npy_file("ma.npy", "|u1", {4, 12});
  const std::string bt = npy_file("mbt.npy", "|u1", {8, 12});
  const std::string s = npy_file("ms.npy", "<f4", {1});
  const std::string bias = npy_file("mbias.npy", "<f4", {8});
  const std::string out = (dir() / "m_out.npy").string();
  const auto problem = [&](int i) {
    const std::string n = index_suffix(size_t(i));
    return " --in a" + n + a + " --in b" + n + bt + " --in scale_a" + n + s + " --in scale_b" + n +
           s;
  };
  const auto out_of = [&](int i) { return " --out out." + std::to_string(i) + "=" + out; };
  const std::string run = "run scaled_mm_multi --param a_dtype=e4m3 --param b_dtype=e4m3";
  const std::string inputs = "(inputs of each problem i: a.i, b.i, scale_a.i, scale_b.i; "
                             "optional: bias.i)";
  check_refused(run + problem(0) + " --in a=" + a + out_of(0),
                "run: --in 'a' needs a problem index: scaled_mm_multi names every input NAME.i "
                "for its problem i = 0, 1, ... (e.g. a.0)",
                out);
  check_refused(run + problem(0) + " --in a.x=" + a + out_of(0), "run: --in 'a.x' needs a problem",
                out);
  check_refused(run + problem(0) + " --out out=" + out,
                "run: --out 'out' needs a problem index: scaled_mm_multi names every output "
                "NAME.i for its problem i = 0, 1, ... (e.g. out.0)",
                out);
  check_refused(run + problem(0) + " --in c.0=" + a + out_of(0),
                "run: scaled_mm_multi has no input 'c.0' " + inputs, out);
  check_refused(run + problem(0) + out_of(0) + " --out scale_out.0=" + out,
                "run: scaled_mm_multi has no output 'scale_out.0' (outputs of each problem i: "
                "out.i)",
                out);
  check_refused(run + problem(0) + out_of(0) + out_of(2),
                "run: --out out.2 names problem 2, which has no inputs (no --in NAME.2=FILE.npy)",
                out);
  check_refused(run + problem(0) + problem(2) + out_of(0) + out_of(2),
                "run: scaled_mm_multi problems are numbered 0 .. P-1 without gaps; problem 1 is "
                "missing (inputs name problems 0, 2)",
                out);
  check_refused(run + problem(0) + " --in a.1=" + a + " --in b.1=" + bt + " --in scale_a.1=" + s +
                    out_of(0) + out_of(1),
                "run: scaled_mm_multi needs --in scale_b.1=FILE.npy for problem 1 (inputs of each "
                "problem i: a.i, b.i, scale_a.i, scale_b.i)",
                out);
  check_refused(run + problem(0) + problem(1) + out_of(0),
                "run: scaled_mm_multi needs --out out.1=FILE.npy for problem 1", out);
  check_refused(run + problem(0) + problem(0) + out_of(0), "run: input 'a.0' is given twice", out);
  check_refused(run + problem(0) + out_of(0) + out_of(0), "run: output 'out.0' is given twice",
                out);
  // The entry point's own rules, with the problem named.
  check_refused(run + " --param out_dtype=f32" + problem(0) + problem(1) + " --in bias.1=" + bias +
                    out_of(0) + " --out out.1=" + (dir() / "m_out1.npy").string(),
                "scaled_mm_multi: problem 1: argument 'bias' was given; expected no bias, as "
                "problem 0 has none: one launch runs one kernel",
                out);
}

TEST_CASE("tilewave run fused kernels: quantization and LoRA option errors") {
  const std::string x = npy_file("fx.npy", "<f2", {4, 12});
  const std::string bt = npy_file("fbt.npy", "|u1", {8, 12});
  const std::string w = npy_file("fw.npy", "|i1", {8, 12});
  const std::string s = npy_file("fs.npy", "<f4", {1});
  const std::string down = npy_file("fdown.npy", "<f2", {2, 12});
  const std::string out = (dir() / "f_out.npy").string();
  const std::string o = " --out out=" + out + " --param out_dtype=f32";
  const std::string fq = "run scaled_mm_fused_quant --in x=" + x + " --in b=" + bt +
                         " --in scale_b=" + s + " --param b_dtype=e4m3";
  const std::string i8 =
      "run int8_linear_fused --in x=" + x + " --in weight=" + w + " --in w_scale=" + s;
  check_refused(fq + " --in x_scale=" + s + o + " --out scale_out=" + (dir() / "f_so.npy").string(),
                "run: scaled_mm_fused_quant writes --out scale_out only without --in x_scale (with "
                "a given scale there is no per-row scale to write)",
                out);
  check_refused(i8 + " --in lora_down=" + down + o,
                "run: int8_linear_fused needs both --in lora_down=FILE.npy and --in "
                "lora_up=FILE.npy for LoRA (only lora_down was given)",
                out);
  check_refused(fq + " --param lora_scale=2" + o,
                "run: scaled_mm_fused_quant takes --param lora_scale only with --in "
                "lora_down=FILE.npy and --in lora_up=FILE.npy",
                out);
  check_refused(fq + " --param quant_dtype=int8" + o,
                "scaled_mm_fused_quant: parameter 'quant.dtype' is int8; expected one of e4m3, "
                "e5m2",
                out);
  check_refused(i8 + " --param quant_dtype=e4m3" + o,
                "int8_linear_fused: parameter 'quant.dtype' is e4m3; expected int8", out);
  check_refused(fq + " --param quant_dtype=fp9" + o,
                "run: --param quant_dtype=fp9 is not a dtype (expected one of ", out);
  check_refused(fq + o + " --out scales=" + out,
                "run: scaled_mm_fused_quant has no output 'scales' (outputs: out; optional: "
                "scale_out)",
                out);
  check_refused(fq + " --out scale_out=" + out,
                "run: scaled_mm_fused_quant needs --out out=FILE.npy", out);
  check_refused(i8 + " --in scale=" + s + o,
                "run: int8_linear_fused has no input 'scale' (inputs: x, weight, w_scale; "
                "optional: bias, x_scale, lora_down, lora_up)",
                out);
  check_refused("run gemm --in a=" + x + " --in b=" + x + " --out out=" + out +
                    " --out scale_out=" + out,
                "run: gemm has no output 'scale_out' (outputs: out)", out);
}

// ---- element-wise, normalization and quantization kernels (issue 12) ----------------------

TEST_CASE("tilewave run silu / swiglu / rms_norm / layer_norm / adaln: constant inputs") {
  const std::string x = npy_file("ex.npy", "<f4", {3, 10}, {0x00, 0x00, 0x80, 0x3F});   // 1.0
  const std::string two = npy_file("e2.npy", "<f4", {3, 10}, {0x00, 0x00, 0x00, 0x40}); // 2.0
  const std::string w = npy_file("ew.npy", "<f4", {10}, {0x00, 0x00, 0x00, 0x40});      // 2.0
  auto r = run_tool("run silu --in x=" + x + out_arg());
  check_valid_run(r, "<f4", {3, 10}, {0xa8, 0x26, 0x3b, 0x3f}); // silu(1) = 0.7310586f (0x3f3b26a8)
  // swiglu(gate=1, up=2) = 2 * silu(1) = 1.4621172f
  r = run_tool("run swiglu --in gate=" + x + " --in up=" + two + out_arg());
  check_valid_run(r, "<f4", {3, 10}, {0xa8, 0x26, 0xbb, 0x3f});
  // rms_norm(2) = 2 / sqrt(4) * 2 = 2 (eps 0)
  r = run_tool("run rms_norm --in x=" + two + " --in weight=" + w + " --param eps=0" + out_arg());
  check_valid_run(r, "<f4", {3, 10}, {0x00, 0x00, 0x00, 0x40});
  // layer_norm of a constant row: 0 * weight + bias (= 2)
  r = run_tool("run layer_norm --in x=" + two + " --in weight=" + w + " --in bias=" + w +
               out_arg());
  check_valid_run(r, "<f4", {3, 10}, {0x00, 0x00, 0x00, 0x40});
  // adaln of a constant row: 0 * (1 + scale) + shift (= 1)
  r = run_tool("run adaln --in x=" + two + " --in scale=" + two + " --in shift=" + x + out_arg());
  check_valid_run(r, "<f4", {3, 10}, {0x00, 0x00, 0x80, 0x3F});
}

TEST_CASE("tilewave run rope: position 0 is the identity, and errors are the entry sentences") {
  const std::string x = npy_file("rx.npy", "<f2", {2, 128}, {0x00, 0x3C}); // 1.0
  auto r = run_tool("run rope --in x=" + x + " --param head_dim=64 --param offset=0" + out_arg());
  REQUIRE(r.status == 0);
  const tw::npy::Array out = tw::npy::read((dir() / "out.npy").string());
  CHECK(out.shape == std::vector<size_t>{2, 128});
  // token 0 at position 0 is unchanged: 1.0 everywhere in its row
  for (size_t i = 0; i < 128; ++i) {
    CAPTURE(i);
    CHECK(out.data[2 * i] == 0x00);
    CHECK(out.data[2 * i + 1] == 0x3C);
  }
  r = run_tool("run rope --in x=" + x + " --param head_dim=63" + out_arg());
  CHECK(r.output.find("rope: parameter 'head_dim' is 63") != std::string::npos);
  r = run_tool("run rope --in x=" + x + " --param head_dim=64 --param style=spiral" + out_arg());
  CHECK(r.output.find("--param style=spiral must be neox or interleaved") != std::string::npos);
}

TEST_CASE("tilewave run rms_norm_rope: position ids 0 leave the normalized heads, errors") {
  // Rows of 1.0 (two heads of 64): RMSNorm gives 1 / sqrt(1 + 1e-6), 1.0 in f16, times a weight
  // of 1.0; position 0 (both tokens, from --in positions) rotates by nothing.
  const std::string x = npy_file("nrx.npy", "<f2", {2, 128}, {0x00, 0x3C});
  const std::string w = npy_file("nrw.npy", "<f2", {64}, {0x00, 0x3C});
  const std::string pos = npy_file("nrp.npy", "<i4", {2}); // zeros
  auto r = run_tool("run rms_norm_rope --in x=" + x + " --in weight=" + w +
                    " --in positions=" + pos + " --param head_dim=64" + out_arg());
  check_valid_run(r, "<f2", {2, 128}, {0x00, 0x3C});
  const std::string w128 = npy_file("nrw128.npy", "<f2", {128}, {0x00, 0x3C});
  r = run_tool("run rms_norm_rope --in x=" + x + " --in weight=" + w128 + " --param head_dim=64" +
               out_arg());
  CHECK(r.output.find("rms_norm_rope: argument 'weight' has shape [128]") != std::string::npos);
  r = run_tool("run rms_norm_rope --in x=" + x + " --in weight=" + w + out_arg());
  CHECK(r.output.find("rope needs --param head_dim=D") != std::string::npos);
}

TEST_CASE("tilewave run quant_int8 / dequant_fp8: outputs q and scale, caller scale") {
  const std::string x = npy_file("qx.npy", "<f4", {2, 5}, {0x00, 0x00, 0x20, 0xC0}); // -2.5
  const std::string q = (dir() / "q.npy").string(), s = (dir() / "s.npy").string();
  auto r = run_tool("run quant_int8 --in x=" + x + " --param scale=-1 --out q=" + q +
                    " --out scale=" + s);
  REQUIRE(r.status == 0);
  tw::npy::Array qa = tw::npy::read(q), sa = tw::npy::read(s);
  CHECK(qa.dtype == "|i1");
  CHECK(qa.shape == std::vector<size_t>{2, 5});
  for (uint8_t b : qa.data)
    CHECK(b == 2); // round_half_even(-2.5 / -1) = 2
  CHECK(sa.shape == std::vector<size_t>{1});
  r = run_tool("run quant_int8 --in x=" + x + " --param granularity=row --out q=" + q +
               " --out scale=" + s);
  REQUIRE(r.status == 0);
  qa = tw::npy::read(q);
  sa = tw::npy::read(s);
  CHECK(sa.shape == std::vector<size_t>{2});
  for (uint8_t b : qa.data)
    CHECK(b == uint8_t(-127)); // abs-max: -2.5 / (2.5 / 127)
  r = run_tool("run quant_int8 --in x=" + x + " --out q=" + q);
  CHECK(r.output.find("quant_int8 needs --out scale=FILE.npy") != std::string::npos);
  const std::string codes = npy_file("fx.npy", "|u1", {2, 4}, {0x38});                // e4m3 1.0
  const std::string scale = npy_file("fs.npy", "<f4", {2}, {0x00, 0x00, 0x00, 0x40}); // 2.0
  r = run_tool("run dequant_fp8 --in x=" + codes + " --param x_dtype=e4m3 --in scale=" + scale +
               " --param out_dtype=f32" + out_arg());
  check_valid_run(r, "<f4", {2, 4}, {0x00, 0x00, 0x00, 0x40});
}

TEST_CASE("tilewave run quant_svdquant / quant_w4a8 / quant_convrot: packed codes as bytes") {
  const std::string x = npy_file("svx.npy", "<f2", {2, 5}, {0x00, 0x3C}); // f16 1.0
  const std::string q = (dir() / "q4.npy").string(), s = (dir() / "s4.npy").string();
  auto r = run_tool("run quant_svdquant --in x=" + x + " --out q=" + q + " --out scale=" + s);
  REQUIRE(r.status == 0);
  tw::npy::Array qa = tw::npy::read(q), sa = tw::npy::read(s);
  CHECK(qa.dtype == "|u1");
  CHECK(qa.shape == std::vector<size_t>{2, 3}); // 5 codes in 3 bytes, the last nibble 0
  CHECK(qa.data == std::vector<uint8_t>{0x77, 0x77, 0x07, 0x77, 0x77, 0x07}); // 1 / (1/7) = 7
  CHECK(sa.dtype == "<f2");
  CHECK(sa.shape == std::vector<size_t>{2, 1});
  // mode 2: a group of -2.5 has lo = -2.5, hi = 0, zero point 15, codes 0.
  const std::string w = npy_file("w4x.npy", "<f4", {1, 4}, {0x00, 0x00, 0x20, 0xC0});
  const std::string gs = (dir() / "gs.npy").string(), z = (dir() / "z.npy").string();
  r = run_tool("run quant_w4a8 --in x=" + w + " --param mode=2 --out q=" + q + " --out scale=" + s +
               " --out group_scale=" + gs + " --out zeros=" + z);
  REQUIRE(r.status == 0);
  CHECK(tw::npy::read(q).data == std::vector<uint8_t>{0x00, 0x00});
  CHECK(tw::npy::read(z).data == std::vector<uint8_t>{15});
  CHECK(tw::npy::read(gs).data == std::vector<uint8_t>{0x7E}); // e4m3 448
  r = run_tool("run quant_w4a8 --in x=" + w + " --param mode=2 --out q=" + q + " --out scale=" + s +
               " --out group_scale=" + gs);
  CHECK(r.output.find("quant_w4a8: argument 'zeros' is missing with mode 2") != std::string::npos);
  // ConvRot of [1, 1, 1] (n = 4): y = [1.5, 0.5, 0.5, -0.5], codes 127, 42, 42, -42.
  const std::string c = npy_file("crx.npy", "<f4", {1, 3}, {0x00, 0x00, 0x80, 0x3F});
  r = run_tool("run quant_convrot --in x=" + c + " --out q=" + q + " --out scale=" + s);
  REQUIRE(r.status == 0);
  qa = tw::npy::read(q);
  CHECK(qa.dtype == "|i1");
  CHECK(qa.shape == std::vector<size_t>{1, 4});
  CHECK(qa.data == std::vector<uint8_t>{127, 42, 42, uint8_t(-42)});
}

TEST_CASE("tilewave run quant_fp8_stochastic: fp8 codes as uint8, seeded, repeatable") {
  const std::string x = npy_file("sx.npy", "<f4", {4, 64}, {0x9A, 0x99, 0x99, 0x3E}); // 0.3f
  const std::string q1 = (dir() / "sq1.npy").string(), q2 = (dir() / "sq2.npy").string();
  auto r = run_tool("run quant_fp8_stochastic --in x=" + x + " --param seed=7 --param offset=3" +
                    " --out out=" + q1);
  REQUIRE(r.status == 0);
  r = run_tool("run quant_fp8_stochastic --in x=" + x + " --param seed=7 --param offset=3" +
               " --out out=" + q2);
  REQUIRE(r.status == 0);
  const tw::npy::Array a = tw::npy::read(q1), b = tw::npy::read(q2);
  CHECK(a.dtype == "|u1");
  CHECK(a.shape == std::vector<size_t>{4, 64});
  CHECK(a.data == b.data); // same seed and offset: same codes
  int down = 0, up = 0;    // e4m3 neighbours of 0.3: 0.28125 (0x29) and 0.3125 (0x2A)
  for (uint8_t c : a.data) {
    down += c == 0x29;
    up += c == 0x2A;
  }
  CHECK(down + up == 256);
  CHECK(down > 0);
  CHECK(up > 0);
  const std::string one = npy_file("sone.npy", "<f4", {3}, {0x00, 0x00, 0x80, 0x3F}); // 1.0f
  r = run_tool("run quant_fp8_stochastic --in x=" + one + " --param out_dtype=e5m2" + out_arg());
  check_valid_run(r, "|u1", {3}, {0x3C}); // exact values never move
  r = run_tool("run quant_fp8_stochastic --in x=" + one + " --param seed=-1" + out_arg());
  CHECK(r.output.find("--param seed=-1 is not an integer in [0, 2^64)") != std::string::npos);
  r = run_tool("run quant_fp8_stochastic --in x=" + one + " --param out_dtype=f16" + out_arg());
  CHECK(r.output.find("quant_fp8_stochastic: argument 'q' has dtype f16") != std::string::npos);
}

// ---- issue 17: hostile input to `tilewave run` ---------------------------------------------

TEST_CASE("tilewave run: a .npy input with a garbage shape is refused before anything runs") {
  const std::string b = npy_file("hb.npy", "<f2", {12, 8});
  std::string header = "{'descr': '<f2', 'fortran_order': False, 'shape': (4, 12x), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + char(header.size()) + '\0' + header;
  bytes.append(4 * 12 * 2, '\0');
  const std::string a = (dir() / "garbage.npy").string();
  std::ofstream(a, std::ios::binary) << bytes;
  const std::string out = (dir() / "never_written.npy").string();
  const auto r = run_tool("run gemm --in a=" + a + " --in b=" + b + " --out out=" + out);
  CAPTURE(r.output);
  CHECK(r.status == 1);
  CHECK(r.output.find("tilewave: error: " + a +
                      ": header field 'shape' has 'x), }' after a "
                      "dimension") != std::string::npos);
  CHECK(!fs::exists(out));
}

TEST_CASE("tilewave run iu4_gemm: --param k with trailing junk is refused") {
  const std::string a = npy_file("ja4.npy", "|u1", {4, 4}, {0x33});
  const std::string bt = npy_file("jbt4.npy", "|u1", {6, 4}, {0x22});
  const auto r = run_tool("run iu4_gemm --in a=" + a + " --in b=" + bt + out_arg() +
                          " --param a_dtype=int4 --param b_dtype=uint4 --param k=7x");
  CHECK(r.status == 1);
  CHECK(r.output.find("run: --param k=7x is not an integer") != std::string::npos);
}

TEST_CASE("tilewave run: two outputs naming one file are refused") {
  const std::string a = npy_file("da.npy", "|u1", {4, 12});
  const std::string bt = npy_file("dbt.npy", "|u1", {8, 12});
  const std::string s = npy_file("ds.npy", "<f4", {1});
  const std::string same = (dir() / "same.npy").string();
  std::string run = "run scaled_mm_multi --param a_dtype=e4m3 --param b_dtype=e4m3";
  for (const char* i : {".0=", ".1="})
    run += std::string(" --in a") + i + a + " --in b" + i + bt + " --in scale_a" + i + s +
           " --in scale_b" + i + s;
  check_refused(run + " --out out.0=" + same +
                    " --out out.1=" + (dir() / "." / "same.npy").string(),
                "run: --out out.1=" + (dir() / "." / "same.npy").string() +
                    " and --out out.0=" + same + " name the same file " + same,
                same);
}

TEST_CASE("tilewave: a failed write to standard output is an error (issue 17)") {
  const std::string cmd =
      std::string(TILEWAVE_TOOL) + " layout '(4,2):(2,1)' --table > /dev/full 2>/dev/null";
  const int raw = std::system(cmd.c_str());
  REQUIRE(WIFEXITED(raw));
  CHECK(WEXITSTATUS(raw) == 1);
  const std::string ok = std::string(TILEWAVE_TOOL) + " layout '(4,2):(2,1)' > /dev/null";
  CHECK(std::system(ok.c_str()) == 0);
}

TEST_CASE("tilewave run dequant_awq: packed uint4 codes, one group") {
  const std::string q = npy_file("aq.npy", "|u1", {4, 3}, {0x59}); // nibbles 9 (even), 5 (odd)
  const std::string z = npy_file("az.npy", "|u1", {1, 3}, {0x11}); // zero point 1
  const std::string s = npy_file("as.npy", "<f4", {1, 6}, {0x00, 0x00, 0x00, 0x3F}); // 0.5
  auto r = run_tool("run dequant_awq --in qweight=" + q +
                    " --param qweight_dtype=uint4 --in zeros=" + z +
                    " --param zeros_dtype=uint4 --in scales=" + s +
                    " --param group_size=4 --param out_dtype=f32" + out_arg());
  CHECK(r.output.find("dequant_awq: argument 'scales' has dtype f32") != std::string::npos);
  const std::string sh = npy_file("ash.npy", "<f2", {1, 6}, {0x00, 0x38}); // 0.5
  r = run_tool("run dequant_awq --in qweight=" + q + " --param qweight_dtype=uint4 --in zeros=" +
               z + " --param zeros_dtype=uint4 --in scales=" + sh +
               " --param group_size=4 --param out_dtype=f32" + out_arg());
  REQUIRE(r.status == 0);
  const tw::npy::Array out = tw::npy::read((dir() / "out.npy").string());
  CHECK(out.shape == std::vector<size_t>{4, 6});
  for (size_t i = 0; i < 24; ++i) { // (9 - 1) * 0.5 = 4 and (5 - 1) * 0.5 = 2
    float v;
    std::memcpy(&v, out.data.data() + 4 * i, 4);
    CHECK(v == (i % 2 == 0 ? 4.0f : 2.0f));
  }
}

// ---- flash_attn ---------------------------------------------------------------------------

namespace {

// An output file of any float dtype as a host tensor of that dtype (bf16 as <u2 bits).
HostTensor load_as(const std::string& path, DType dtype, tw::kernels::Extents shape) {
  const tw::npy::Array a = tw::npy::read(path);
  CHECK(a.shape == std::vector<size_t>(shape.begin(), shape.end()));
  HostTensor t(dtype, shape);
  REQUIRE(a.data.size() == t.bytes().size());
  t.bytes() = a.data;
  return t;
}

// The attention inputs of the CLI tests and their --in arguments (files <tag>_NAME.npy).
struct AttnFiles {
  HostTensor q, k, v;
  std::string args;
  AttnFiles(const std::string& tag, tw::kernels::Extents qs, tw::kernels::Extents ks,
            tw::kernels::Extents vs, uint64_t seed)
      : q(to::random_tensor(DType::f16, std::move(qs), seed)),
        k(to::random_tensor(DType::f16, std::move(ks), seed + 1)),
        v(to::random_tensor(DType::f16, std::move(vs), seed + 2)) {
    args = " --in q=" + save(tag + "_q.npy", q) + " --in k=" + save(tag + "_k.npy", k) +
           " --in v=" + save(tag + "_v.npy", v);
  }
};

// The f16 kernel rounds P to f16 before P V: about 2^-11 of sum |P v| per element, plus the
// f32 sums; one ulp of the f16 output.
to::Tolerance attention_tolerance() {
  to::Tolerance t;
  t.out = DType::f16;
  t.accumulation = 0x1p-9;
  return t;
}

} // namespace

TEST_CASE("tilewave run flash_attn: dense causal softcap with lse, and varlen with window and "
          "ALiBi, against the float64 reference") {
  {
    const AttnFiles in("fa", {1, 5, 2, 16}, {1, 7, 1, 16}, {1, 7, 1, 24}, 301);
    const std::string out = fresh("fa_out.npy"), lse = fresh("fa_lse.npy");
    const auto r = run_tool("run flash_attn" + in.args + " --out out=" + out + " --out lse=" + lse +
                            " --param causal=1 --param softcap=20");
    CAPTURE(r.output);
    REQUIRE(r.status == 0);
    tw::kernels::FlashAttnArgs args;
    const HostTensor got = load_as(out, DType::f16, {1, 5, 2, 24});
    const HostTensor got_lse = load_f32(lse, {1, 2, 5});
    args.q = in.q.view();
    args.k = in.k.view();
    args.v = in.v.view();
    args.out = got.view();
    args.causal = true;
    args.softcap = 20.0f;
    const to::AttentionReference want = to::flash_attn(args);
    const to::CompareResult c =
        to::compare(to::decode_attention_rows(got.view()), want.out, attention_tolerance());
    INFO(c.summary());
    CHECK(c.ok);
    const to::Matrix l = to::decode_attention_rows(got_lse.view());
    for (size_t e = 0; e < l.v.size(); ++e)
      CHECK(std::abs(l.v[e] - want.lse.v[e]) <= 1e-3);
  }
  {
    // sequences of (2 queries, 3 keys) and (3, 4)
    const AttnFiles in("fv", {5, 2, 16}, {7, 1, 16}, {7, 1, 16}, 401);
    HostTensor cq(DType::i32, {3}), ck(DType::i32, {3});
    const int32_t q_off[3] = {0, 2, 5}, k_off[3] = {0, 3, 7};
    for (int64_t b = 0; b < 3; ++b) {
      cq.set({b}, q_off[b]);
      ck.set({b}, k_off[b]);
    }
    const std::string out = fresh("fv_out.npy");
    const auto r =
        run_tool("run flash_attn" + in.args + " --in cu_seqlens_q=" + save("fv_cq.npy", cq) +
                 " --in cu_seqlens_k=" + save("fv_ck.npy", ck) + " --out out=" + out +
                 " --param window=1,0 --param alibi=0.5");
    CAPTURE(r.output);
    REQUIRE(r.status == 0);
    const HostTensor got = load_as(out, DType::f16, {5, 2, 16});
    tw::kernels::FlashAttnArgs args;
    args.q = in.q.view();
    args.k = in.k.view();
    args.v = in.v.view();
    args.out = got.view();
    args.cu_seqlens_q = cq.view();
    args.cu_seqlens_k = ck.view();
    args.max_seqlen_q = 3;
    args.max_seqlen_k = 4;
    args.window_left = 1;
    args.window_right = 0;
    args.alibi_slope = 0.5f;
    const to::CompareResult c = to::compare(to::decode_attention_rows(got.view()),
                                            to::flash_attn(args).out, attention_tolerance());
    INFO(c.summary());
    CHECK(c.ok);
  }
}

TEST_CASE("tilewave run flash_attn: --param query_tile=128 (128-row query tiles), causal, "
          "against the float64 reference") {
  const AttnFiles in("fq", {1, 130, 2, 16}, {1, 97, 1, 16}, {1, 97, 1, 16}, 601);
  const std::string out = fresh("fq_out.npy");
  const auto r = run_tool("run flash_attn" + in.args + " --out out=" + out +
                          " --param causal=1 --param query_tile=128");
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  tw::kernels::FlashAttnArgs args;
  const HostTensor got = load_as(out, DType::f16, {1, 130, 2, 16});
  args.q = in.q.view();
  args.k = in.k.view();
  args.v = in.v.view();
  args.out = got.view();
  args.causal = true;
  const to::CompareResult c = to::compare(to::decode_attention_rows(got.view()),
                                          to::flash_attn(args).out, attention_tolerance());
  INFO(c.summary());
  CHECK(c.ok);
}

TEST_CASE("tilewave run flash_attn: int8 inputs with descales, against the float64 reference "
          "(which applies the int8 P quantization)") {
  const HostTensor q = to::random_tensor(DType::int8, {1, 5, 2, 32}, 501),
                   k = to::random_tensor(DType::int8, {1, 9, 1, 32}, 502),
                   v = to::random_tensor(DType::int8, {1, 9, 1, 32}, 503);
  const std::string out = fresh("fi_out.npy");
  const auto r =
      run_tool("run flash_attn --in q=" + save("fi_q.npy", q) + " --in k=" + save("fi_k.npy", k) +
               " --in v=" + save("fi_v.npy", v) + " --out out=" + out +
               " --param q_descale=0.02 --param k_descale=0.025 --param "
               "v_descale=0.015625 --param num_splits=1 --param causal=1");
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  const HostTensor got = load_as(out, DType::bf16, {1, 5, 2, 32}); // int8 inputs write bf16
  tw::kernels::FlashAttnArgs args;
  args.q = q.view();
  args.k = k.view();
  args.v = v.view();
  args.out = got.view();
  args.causal = true;
  args.q_descale = 0.02f;
  args.k_descale = 0.025f;
  args.v_descale = 0.015625f;
  args.num_splits = 1;
  tw::kernels::flash_attn_kernel::FlashAttnKernelSpec spec;
  spec.dtype = DType::int8;
  to::AttentionReference want =
      to::flash_attn(args, tw::kernels::flash_attn_kernel::kv_block(spec));
  // compare's `intermediate` term carries the oracle's allowance for P elements whose int8
  // rounding is ambiguous at f32 precision; int8 P enters PV exactly, so the f32 sums are what
  // `accumulation` covers (2^-12, tests/kernels/attention_harness.hpp).
  want.out.lora_magnitude = want.p_rounding_ambiguity;
  to::Tolerance tol;
  tol.out = DType::bf16;
  tol.accumulation = 0x1p-12;
  tol.intermediate = 1.0;
  const to::CompareResult c = to::compare(to::decode_attention_rows(got.view()), want.out, tol);
  INFO(c.summary());
  CHECK(c.ok);
}

TEST_CASE("tilewave run paged_attn: a permuting int32 block table and ragged int32 lengths, "
          "against the float64 paged reference") {
  // q [B 2, Sq 3, Hq 2, D 16]; pools of 5 pages of 16 tokens, 1 kv head; lengths 20 and 7.
  const AttnFiles in("pa", {2, 3, 2, 16}, {5, 16, 1, 16}, {5, 16, 1, 16}, 601);
  HostTensor lens(DType::i32, {2}), table(DType::i32, {2, 2});
  lens.set({0}, 20);
  lens.set({1}, 7);
  table.set({0, 0}, 3);
  table.set({0, 1}, 0);
  table.set({1, 0}, 4);
  table.set({1, 1}, -1); // past sequence 1's pages: never read
  const std::string out = fresh("pa_out.npy");
  const auto r =
      run_tool("run paged_attn" + in.args + " --in seqlens_k=" + save("pa_lens.npy", lens) +
               " --in block_table=" + save("pa_table.npy", table) + " --out out=" + out +
               " --param causal=1");
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  const HostTensor got = load_as(out, DType::f16, {2, 3, 2, 16});
  tw::kernels::PagedAttnArgs args;
  args.attn.q = in.q.view();
  args.attn.k = in.k.view();
  args.attn.v = in.v.view();
  args.attn.out = got.view();
  args.attn.causal = true;
  args.paged.seqlens_k = lens.view();
  args.paged.block_table = table.view();
  const to::CompareResult c = to::compare(to::decode_attention_rows(got.view()),
                                          to::paged_attn(args).out, attention_tolerance());
  INFO(c.summary());
  CHECK(c.ok);
  // decode_attn on the same files (3 query rows per sequence): the same result
  const std::string dec = fresh("pa_dec.npy");
  const auto rd =
      run_tool("run decode_attn" + in.args + " --in seqlens_k=" + save("pa_lens.npy", lens) +
               " --in block_table=" + save("pa_table.npy", table) + " --out out=" + dec +
               " --param causal=1");
  CAPTURE(rd.output);
  REQUIRE(rd.status == 0);
  const HostTensor got_dec = load_as(dec, DType::f16, {2, 3, 2, 16});
  CHECK(got_dec.bytes() == got.bytes());
  // a page past the pool: the entry's sentence, nothing run
  table.set({1, 0}, 5);
  const auto bad = run_tool(
      "run paged_attn" + in.args + " --in seqlens_k=" + save("pa_lens.npy", lens) +
      " --in block_table=" + save("pa_table_bad.npy", table) + " --out out=" + fresh("pa_bad.npy"));
  CAPTURE(bad.output);
  CHECK(bad.status == 1);
  CHECK(bad.output.find("paged_attn: argument 'block_table' has page 5 for batch 1, slot 0; "
                        "expected a page index in [0, num_pages = 5) of 'k' / 'v'") !=
        std::string::npos);
}

TEST_CASE("tilewave run mla_decode: q 576, a latent cache through a permuting int32 block "
          "table, lse, against the float64 MLA reference") {
  // q [B 1, Sq 1, Hq 4, 576] f16; cache [3 pages, 16, 576]; 20 keys on pages 2, 0.
  const HostTensor q = to::random_tensor(DType::f16, {1, 1, 4, 576}, 701),
                   cache = to::random_tensor(DType::f16, {3, 16, 576}, 702);
  HostTensor lens(DType::i32, {1}), table(DType::i32, {1, 2});
  lens.set({0}, 20);
  table.set({0, 0}, 2);
  table.set({0, 1}, 0);
  const std::string out = fresh("mla_out.npy"), lse = fresh("mla_lse.npy");
  const auto r = run_tool("run mla_decode --in q=" + save("mla_q.npy", q) +
                          " --in kv_cache=" + save("mla_cache.npy", cache) +
                          " --in seqlens_k=" + save("mla_lens.npy", lens) + " --in block_table=" +
                          save("mla_table.npy", table) + " --out out=" + out + " --out lse=" + lse);
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  const HostTensor got = load_as(out, DType::f16, {1, 1, 4, 512});
  tw::kernels::MlaDecodeArgs args;
  args.q = q.view();
  args.kv_cache = cache.view();
  args.out = got.view();
  args.paged.seqlens_k = lens.view();
  args.paged.block_table = table.view();
  const to::AttentionReference want = to::mla_decode(args);
  const to::CompareResult c =
      to::compare(to::decode_attention_rows(got.view()), want.out, attention_tolerance());
  INFO(c.summary());
  CHECK(c.ok);
  const std::vector<double> got_lse = to::decode_flat(load_f32(lse, {1, 4, 1}).view());
  for (int64_t h = 0; h < 4; ++h)
    CHECK(got_lse[size_t(h)] == doctest::Approx(want.lse.at(h, 0)).epsilon(1e-4));
}

TEST_CASE("tilewave run decode_attn: GQA packing with a bool mask [Sq, max seqlens_k] over "
          "pages, against the float64 paged reference") {
  // q [B 2, Sq 2, Hq 4, D 16], 2 kv heads (G 2: packed); pools of 4 pages of 16; lengths 20, 9.
  const AttnFiles in("dm", {2, 2, 4, 16}, {4, 16, 2, 16}, {4, 16, 2, 16}, 611);
  HostTensor lens(DType::i32, {2}), table(DType::i32, {2, 2}), mask(DType::uint8, {2, 20});
  lens.set({0}, 20);
  lens.set({1}, 9);
  table.set({0, 0}, 2);
  table.set({0, 1}, 0);
  table.set({1, 0}, 3);
  table.set({1, 1}, -1);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 20; ++j)
      mask.set({i, j}, (i + 2 * j) % 3 != 0 ? 1 : 0);
  const std::string out = fresh("dm_out.npy");
  const auto r =
      run_tool("run decode_attn" + in.args + " --in seqlens_k=" + save("dm_lens.npy", lens) +
               " --in block_table=" + save("dm_table.npy", table) +
               " --in mask=" + save("dm_mask.npy", mask) + " --out out=" + out);
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  const HostTensor got = load_as(out, DType::f16, {2, 2, 4, 16});
  tw::kernels::PagedAttnArgs args;
  args.attn.q = in.q.view();
  args.attn.k = in.k.view();
  args.attn.v = in.v.view();
  args.attn.out = got.view();
  args.attn.bias = mask.view();
  args.attn.bias_kind = tw::kernels::AttnBiasKind::bool_mask;
  args.paged.seqlens_k = lens.view();
  args.paged.block_table = table.view();
  const to::CompareResult c = to::compare(to::decode_attention_rows(got.view()),
                                          to::paged_attn(args).out, attention_tolerance());
  INFO(c.summary());
  CHECK(c.ok);
}

TEST_CASE("tilewave run flash_attn: command-line and argument errors") {
  const AttnFiles in("fe", {1, 4, 2, 8}, {1, 6, 1, 8}, {1, 6, 1, 8}, 501);
  const std::string q = save("fe_q.npy", in.q);
  const std::string k = save("fe_k.npy", in.k);
  const std::string out = " --out out=" + fresh("fe_out.npy");
  const auto has = [](const tw::test::ToolResult& r, const std::string& text) {
    CAPTURE(r.output);
    CHECK(r.status == 1);
    CHECK(r.output.find(text) != std::string::npos);
  };
  has(run_tool("run flash_attn --in q=" + q + " --in k=" + k + out),
      "run: flash_attn needs --in v=FILE.npy (inputs: q, k, v)");
  has(run_tool("run flash_attn" + in.args + " --in bias=" + q + out), // an additive bias
      "flash_attn: argument 'bias' has shape [1, 4, 2, 8]; expected [Sq, Sk] = [4, 6]");
  const HostTensor mask(DType::uint8, {4, 6});
  const HostTensor bias(DType::f32, {4, 6});
  has(run_tool("run flash_attn" + in.args + " --in bias=" + save("fe_bias.npy", bias) +
               " --in mask=" + save("fe_mask.npy", mask) + out),
      "run: flash_attn takes --in bias=FILE.npy (additive) or --in mask=FILE.npy (boolean), not "
      "both");
  has(run_tool("run flash_attn" + in.args + out + " --param causal=2"),
      "run: --param causal=2 must be 0 or 1");
  has(run_tool("run flash_attn" + in.args + out + " --param window=3"),
      "run: --param window=3 must be LEFT,RIGHT (two integers; -1 = no bound on that side)");
  has(run_tool("run flash_attn" + in.args + out + " --param seed=-1"),
      "run: --param seed=-1 is not an integer >= 0");
  has(run_tool("run flash_attn" + in.args + out + " --param num_splits=-2"),
      "run: --param num_splits=-2 must be 0 (the host picks) or a split count >= 1");
  has(run_tool("run flash_attn" + in.args + out + " --param query_tile=96"),
      "flash_attn: parameter 'query_tile' is 96; expected 0 (the host picks: 128 when D > 128 "
      "and Sq > 64, else 64), 64 or 128 query rows per workgroup");
  has(run_tool("run flash_attn" + in.args + out + " --param query_tile=-64"),
      "run: --param query_tile=-64 must be 0 (the host picks: 128 when D > 128 and Sq > 64, "
      "else 64), 64 or 128");
  has(run_tool("run flash_attn" + in.args + out + " --param alpha=1"),
      "run: --param 'alpha' is not a parameter of flash_attn");
  // the entry point's sentences: parameters and shapes
  has(run_tool("run flash_attn" + in.args + out + " --param window=-3,0"),
      "flash_attn: parameter 'window_left' is -3; expected a key count >= 0, or -1 for no bound "
      "on that side");
  has(run_tool("run flash_attn" + in.args + out + " --param dropout=1"),
      "flash_attn: parameter 'dropout_p' is 1; expected a probability in [0, 1) (0 = no "
      "dropout)");
  has(run_tool("run flash_attn" + in.args + out + " --param q_descale=2"),
      "flash_attn: parameter 'q_descale' is 2 with f16 inputs; expected 1 (descales apply to "
      "fp8 / int8 inputs)");
  has(run_tool("run flash_attn" + in.args + " --in mask=" + save("fe_mask2.npy", bias) + out),
      "flash_attn: argument 'bias' has dtype f32; expected one of uint8, int8");
  // a NumPy bool mask is a uint8 mask: its shape is what is wrong here
  tw::npy::Array bool_mask;
  bool_mask.dtype = "|b1";
  bool_mask.shape = {4, 5};
  bool_mask.data.assign(20, 1);
  const std::string bm = (dir() / "fe_bool.npy").string();
  tw::npy::write(bm, bool_mask);
  has(run_tool("run flash_attn" + in.args + " --in mask=" + bm + out),
      "flash_attn: argument 'bias' has shape [4, 5]; expected [Sq, Sk] = [4, 6]");
  // k and v follow --param q_dtype: bf16 bits for all three reach validation as bf16
  const HostTensor qb(DType::bf16, {1, 4, 2, 8}), kb(DType::bf16, {1, 6, 1, 4});
  has(run_tool("run flash_attn --in q=" + save("fe_qb.npy", qb) +
               " --in k=" + save("fe_kb.npy", kb) + " --in v=" + save("fe_vb.npy", kb) + out +
               " --param q_dtype=bf16"),
      "flash_attn: argument 'k' has shape [1, 6, 1, 4]; expected dimension 3 (D) to equal "
      "dimension 3 of 'q' (shape [1, 4, 2, 8]), 8");
  // varlen offsets: both or neither, and their contents
  HostTensor cq(DType::i32, {2}), bad(DType::i32, {2});
  cq.set({1}, 4);
  bad.set({1}, 9);
  const AttnFiles packed("fp", {4, 2, 8}, {6, 1, 8}, {6, 1, 8}, 601);
  has(run_tool("run flash_attn" + packed.args + " --in cu_seqlens_q=" + save("fp_cq.npy", cq) +
               out),
      "flash_attn: argument 'cu_seqlens_k' is missing; expected both cu_seqlens_q and "
      "cu_seqlens_k (varlen) or neither (dense)");
  has(run_tool("run flash_attn" + packed.args + " --in cu_seqlens_q=" + save("fp_cq.npy", cq) +
               " --in cu_seqlens_k=" + save("fp_bad.npy", bad) + out),
      "flash_attn: argument 'cu_seqlens_k' ends at 9; expected at most the 6 tokens of 'k'");
  // nothing was written
  CHECK(!fs::exists(dir() / "fe_out.npy"));
}

// ---- issue 17: NaN propagates as IEEE and OCP MX say ---------------------------------------

namespace {
std::vector<float> read_f32(const std::string& path) {
  const tw::npy::Array out = tw::npy::read(path);
  REQUIRE(out.dtype == "<f4");
  std::vector<float> v(out.data.size() / 4);
  std::memcpy(v.data(), out.data.data(), out.data.size());
  return v;
}
} // namespace

TEST_CASE("tilewave run mxfp8_gemm: an e8m0 scale code 0xFF (NaN) makes its block NaN") {
  const std::string a = npy_file("nan_a.npy", "|u1", {4, 40}, {0x38});   // e4m3 1.0
  const std::string bt = npy_file("nan_bt.npy", "|u1", {8, 40}, {0x3C}); // e5m2 1.0
  tw::npy::Array sa;
  sa.dtype = "|u1";
  sa.shape = {4, 2};
  sa.data.assign(8, 127);    // 1.0
  sa.data[2 * 2 + 1] = 0xFF; // row 2, second block: NaN
  const std::string sa_path = (dir() / "nan_sa.npy").string();
  tw::npy::write(sa_path, sa);
  const std::string sb = npy_file("nan_sb.npy", "|u1", {8, 2}, {128}); // 2.0
  const auto r = run_tool("run mxfp8_gemm --in a=" + a + " --in b=" + bt +
                          " --in scale_a=" + sa_path + " --in scale_b=" + sb + out_arg() +
                          " --param a_dtype=e4m3 --param b_dtype=e5m2 --param out_dtype=f32");
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  const std::vector<float> out = read_f32((dir() / "out.npy").string());
  REQUIRE(out.size() == 32);
  for (int m = 0; m < 4; ++m)
    for (int n = 0; n < 8; ++n) {
      CAPTURE(m);
      CAPTURE(n);
      if (m == 2)
        CHECK(std::isnan(out[size_t(m * 8 + n)])); // was +-inf (exp2(255 - 127))
      else
        CHECK(out[size_t(m * 8 + n)] == 80.0f); // 40 * 1 * 2
    }
}

TEST_CASE("tilewave run int8_linear_fused: a NaN in a row of x makes that row and its scale NaN") {
  // x: 4 x 12 of f16 1.0 with one NaN in row 1; weight all 1, w_scale 1.
  tw::npy::Array x;
  x.dtype = "<f2";
  x.shape = {4, 12};
  x.data.resize(4 * 12 * 2);
  for (size_t i = 0; i < 48; ++i) {
    x.data[2 * i] = 0x00;
    x.data[2 * i + 1] = 0x3C;
  }
  x.data[2 * (12 + 5)] = 0x00;
  x.data[2 * (12 + 5) + 1] = 0x7E; // f16 quiet NaN at (1, 5)
  const std::string xp = (dir() / "nan_x.npy").string();
  tw::npy::write(xp, x);
  const std::string w = npy_file("nan_w.npy", "|i1", {8, 12}, {1});
  const std::string s = npy_file("nan_s.npy", "<f4", {1}, {0x00, 0x00, 0x80, 0x3F});
  const std::string so = (dir() / "nan_so.npy").string();
  const auto r =
      run_tool("run int8_linear_fused --in x=" + xp + " --in weight=" + w + " --in w_scale=" + s +
               out_arg() + " --param out_dtype=f32" + " --out scale_out=" + so);
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  const std::vector<float> out = read_f32((dir() / "out.npy").string());
  const std::vector<float> scale = read_f32(so);
  REQUIRE(out.size() == 32);
  REQUIRE(scale.size() == 4);
  for (int m = 0; m < 4; ++m) {
    CAPTURE(m);
    CHECK(std::isnan(scale[size_t(m)]) == (m == 1)); // the amax step dropped the NaN before
    for (int n = 0; n < 8; ++n) {
      CAPTURE(n);
      if (m == 1)
        CHECK(std::isnan(out[size_t(m * 8 + n)]));
      else
        CHECK(out[size_t(m * 8 + n)] == doctest::Approx(12.0f).epsilon(0.01));
    }
  }
}

// ---- linear_attn and qk_norm_quant ---------------------------------------------------------

TEST_CASE("tilewave run linear_attn: decay and GQA, then the normalizer, against the quadratic "
          "float64 reference") {
  const AttnFiles in("la", {1, 20, 2, 32}, {1, 20, 1, 32}, {1, 20, 1, 24}, 601);
  HostTensor decay(DType::f32, {2});
  decay.set({0}, 0.9);
  decay.set({1}, 0.8);
  const std::string decay_file = save("la_decay.npy", decay);
  // f16 operands: each term is rounded to f16 at most twice (2 * 2^-11), plus the f32 sums.
  to::Tolerance tol;
  tol.out = DType::f16;
  tol.accumulation = 0x1p-10 + to::f32_accumulation(52);
  for (const bool normalize : {false, true}) {
    CAPTURE(normalize);
    const std::string out = fresh("la_out.npy");
    const auto r = run_tool("run linear_attn" + in.args + " --in decay=" + decay_file +
                            " --out out=" + out + " --param normalize=" + (normalize ? "1" : "0"));
    CAPTURE(r.output);
    REQUIRE(r.status == 0);
    const HostTensor got = load_as(out, DType::f16, {1, 20, 2, 24});
    tw::kernels::LinearAttnArgs args{in.q.view(), in.k.view(), in.v.view(), got.view()};
    args.decay = decay.view();
    args.normalize = normalize;
    const to::CompareResult c =
        to::compare(to::decode_attention_rows(got.view()), to::linear_attn(args), tol);
    INFO(c.summary());
    CHECK(c.ok);
  }
}

TEST_CASE("tilewave run linear_attn: varlen packed sequences (int32 cu_seqlens) against the "
          "quadratic float64 reference") {
  const AttnFiles in("lv", {25, 2, 32}, {25, 1, 32}, {25, 1, 24}, 611);
  HostTensor cu(DType::i32, {4});
  cu.set({0}, 0);
  cu.set({1}, 7);
  cu.set({2}, 8);
  cu.set({3}, 25);
  to::Tolerance tol;
  tol.out = DType::f16;
  tol.accumulation = 0x1p-10 + to::f32_accumulation(49);
  const std::string out = fresh("lv_out.npy");
  const auto r = run_tool("run linear_attn" + in.args +
                          " --in cu_seqlens=" + save("lv_cu.npy", cu) + " --out out=" + out);
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  const HostTensor got = load_as(out, DType::f16, {25, 2, 24});
  tw::kernels::LinearAttnArgs args{in.q.view(), in.k.view(), in.v.view(), got.view()};
  args.cu_seqlens = cu.view();
  const to::CompareResult c =
      to::compare(to::decode_attention_rows(got.view()), to::linear_attn(args), tol);
  INFO(c.summary());
  CHECK(c.ok);
}

TEST_CASE("tilewave run linear_attn: command-line and argument errors") {
  const AttnFiles in("le", {1, 4, 2, 8}, {1, 4, 3, 8}, {1, 4, 3, 8}, 701);
  const std::string out = " --out out=" + fresh("le_out.npy");
  auto r = run_tool("run linear_attn" + in.args + out + " --param normalize=2");
  CHECK(r.status == 1);
  CHECK(r.output.find("run: --param normalize=2 must be 0 or 1") != std::string::npos);
  r = run_tool("run linear_attn" + in.args + out);
  CHECK(r.output.find("linear_attn: argument 'k' has 3 heads; expected a divisor of the 2 heads "
                      "of 'q'") != std::string::npos);
}

TEST_CASE("tilewave run qk_norm_quant: int8 codes and scales with a neox tail, against the "
          "float64 reference") {
  const HostTensor q = to::random_tensor(DType::f32, {3, 128}, 801, to::ValueRange{-2, 2});
  const HostTensor k = to::random_tensor(DType::f32, {3, 64}, 802, to::ValueRange{-2, 2});
  const HostTensor w = to::random_tensor(DType::f32, {64}, 803, to::ValueRange{0.5, 1.5});
  const std::string qo = fresh("qk_qo.npy"), ko = fresh("qk_ko.npy"), qs = fresh("qk_qs.npy"),
                    ks = fresh("qk_ks.npy");
  const auto r = run_tool(
      "run qk_norm_quant --in q=" + save("qk_q.npy", q) + " --in k=" + save("qk_k.npy", k) +
      " --in q_weight=" + save("qk_w.npy", w) + " --in k_weight=" + save("qk_w.npy", w) +
      " --out q_out=" + qo + " --out k_out=" + ko + " --out q_scale=" + qs +
      " --out k_scale=" + ks + " --param head_dim=64 --param rope_dim=32 --param quant_dtype=int8");
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  tw::kernels::RopeParams rope;
  rope.head_dim = 32;
  for (const auto& [x, codes_file, scale_file, heads] :
       {std::tuple{&q, qo, qs, int64_t(2)}, std::tuple{&k, ko, ks, int64_t(1)}}) {
    const to::QkNormQuantReference want =
        to::qk_norm_quant(x->view(), w.view(), 64, rope, 1e-6, DType::int8, 2e-5);
    const HostTensor codes = load_as(codes_file, DType::int8, x->shape());
    const HostTensor scale = load_as(scale_file, DType::f32, {3, heads});
    for (size_t e = 0; e < codes.bytes().size(); ++e) {
      CAPTURE(e);
      const std::vector<uint32_t>& ok = want.codes[e];
      CHECK(std::find(ok.begin(), ok.end(), uint32_t(codes.bytes()[e])) != ok.end());
    }
    const std::vector<double> s = to::decode_flat(scale.view());
    for (size_t i = 0; i < s.size(); ++i)
      CHECK(std::abs(s[i] - want.scale[i]) <= 4e-6 * want.scale[i]);
  }
}

TEST_CASE("tilewave run qk_norm_quant: command-line and argument errors") {
  const HostTensor q = to::random_tensor(DType::f32, {2, 64}, 901);
  const std::string in = " --in q=" + save("qe_q.npy", q) + " --in k=" + save("qe_q.npy", q) +
                         " --in q_weight=" + save("qe_w.npy", HostTensor(DType::f32, {32})) +
                         " --in k_weight=" + save("qe_w.npy", HostTensor(DType::f32, {32}));
  const std::string outs =
      " --out q_out=" + fresh("qe_qo.npy") + " --out k_out=" + fresh("qe_ko.npy") +
      " --out q_scale=" + fresh("qe_qs.npy") + " --out k_scale=" + fresh("qe_ks.npy");
  auto r = run_tool("run qk_norm_quant" + in + outs);
  CHECK(r.status == 1);
  CHECK(r.output.find("run: qk_norm_quant needs --param head_dim=D") != std::string::npos);
  r = run_tool("run qk_norm_quant" + in + outs + " --param head_dim=32 --param rope_dim=40");
  CHECK(r.output.find("qk_norm_quant: parameter 'rope.head_dim' is 40") != std::string::npos);
  r = run_tool("run qk_norm_quant" + in + outs + " --param head_dim=32 --param quant_dtype=f16");
  CHECK(r.output.find("qk_norm_quant: argument 'q_out' has dtype f16") != std::string::npos);
}
