// The launches of the kernels that run on the GEMM composition (kernels/gemm/gemm_kernel.hpp):
// gemm, scaled_mm, int8_linear. Each maps its validated arguments to a GemmKernelSpec (what
// changes the code) and GemmLaunchArgs (addresses, sizes, leading strides, alpha/beta).
#include <kernels/gemm/gemm_kernel.hpp>
#include <kernels/gemm/gemm_launch.hpp>

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace tw::kernels::gemm_launch {

namespace {
using namespace gemm_kernel;

// The leading stride (elements) of a validated rank-2 operand in that order.
int64_t leading_stride(const TensorView& t, MatrixOrder o) {
  return o == MatrixOrder::row_major ? t.strides[0] : t.strides[1];
}
// 128-bit loads need a 16-byte aligned base and 16-byte aligned rows (or columns).
bool vec_aligned(const TensorView& t, MatrixOrder o) {
  return t.device_address % 16 == 0 && dtype_storage_bytes(t.dtype, leading_stride(t, o)) % 16 == 0;
}
ScaleKind scale_kind(const std::optional<ScaleGranularity>& g) {
  if (!g)
    return ScaleKind::none;
  return *g == ScaleGranularity::tensorwise ? ScaleKind::tensorwise : ScaleKind::rowwise;
}
// Spec and args of the operand/output part every kernel shares.
void set_operands(GemmKernelSpec& s, GemmLaunchArgs& g, const GemmProblem& p, const TensorView& a,
                  const TensorView& b, const TensorView& out,
                  const std::optional<TensorView>& bias) {
  s.a = p.a_dtype;
  s.b = p.b_dtype;
  s.out = out.dtype;
  s.a_order = p.a_order;
  s.b_order = p.b_order;
  s.a_vec_aligned = vec_aligned(a, p.a_order);
  s.b_vec_aligned = vec_aligned(b, p.b_order);
  s.has_bias = bias.has_value();
  g.a = a.device_address;
  g.b = b.device_address;
  g.out = out.device_address;
  g.bias = bias ? bias->device_address : 0;
  g.m = p.m;
  g.n = p.n;
  g.k = p.k;
  g.lda = leading_stride(a, p.a_order);
  g.ldb = leading_stride(b, p.b_order);
  g.ldo = out.strides[0];
}
// The prologue quantization block of the fused kernels (the quantized dtype becomes `a`).
void set_act_quant(GemmKernelSpec& s, GemmLaunchArgs& g, const ActivationQuant& q,
                   const TensorView& x) {
  s.a = q.dtype;
  s.x = x.dtype;
  if (q.mode == ActQuantMode::dynamic_rowwise) {
    s.act_quant = ActQuant::dynamic_rowwise;
    s.write_scale_out = q.scale_out.has_value();
    g.scale_out = q.scale_out ? q.scale_out->device_address : 0;
  } else {
    s.act_quant = q.scale->numel() == 1 ? ActQuant::given_tensorwise : ActQuant::given_rowwise;
    g.scale_a = q.scale->device_address;
  }
}
// LoRA in two steps: t = x @ down^T first (a GEMM launch into device scratch, rounded to the
// activation dtype as PEFT computes it; its leading stride padded to 16 bytes so the main
// kernel reads it with 128-bit loads), then the main kernel's LoRA block adds
// lora.scale * t @ up^T to its f32 result before the one rounding to out's dtype.
class LoraStep {
public:
  LoraStep(runtime::Device& device, const TensorView& x, const LoraArgs& lora, GemmKernelSpec& s,
           GemmLaunchArgs& g)
      : device_(device) {
    const int64_t m = x.shape[0], k = x.shape[1], r = lora.down.shape[0];
    const int64_t ld_t = (r + 7) / 8 * 8;
    t_ = device.allocate(size_t(std::max<int64_t>(dtype_storage_bytes(x.dtype, m * ld_t), 1)));
    const TensorView t = TensorView::on_device(device, t_, x.dtype, {m, r}, {ld_t, 1});
    GemmArgs down;
    down.a = x;
    // down [R, K] row-major is down^T [K, R] column-major.
    down.b = TensorView::on_device(device, lora.down.device_address, x.dtype, {k, r},
                                   {1, lora.down.strides[0]});
    down.out = t;
    try {
      gemm(device, down);
    } catch (...) {
      device.free(t_);
      throw;
    }
    s.lora = true;
    s.lora_vec_aligned =
        vec_aligned(t, MatrixOrder::row_major) && vec_aligned(lora.up, MatrixOrder::row_major);
    g.lora_t = t_;
    g.lora_up = lora.up.device_address;
    g.lora_rank = r;
    g.ld_lora_t = ld_t;
    g.ld_lora_up = lora.up.strides[0];
    g.lora_scale = lora.scale;
  }
  ~LoraStep() { device_.free(t_); }
  LoraStep(const LoraStep&) = delete;
  LoraStep& operator=(const LoraStep&) = delete;

private:
  runtime::Device& device_;
  runtime::DevicePtr t_ = 0;
};

// What the fused kernels share after their operands are set: the quantizing prologue, the
// scale of b's columns, the LoRA block, the launch.
void launch_fused(runtime::Device& device, GemmKernelSpec& s, GemmLaunchArgs& g,
                  const GemmProblem& p, const TensorView& x, const ActivationQuant& quant,
                  const TensorView& b_scale, const std::optional<LoraArgs>& lora_args) {
  set_act_quant(s, g, quant, x);
  s.scale_b = scale_kind(p.scale_b);
  g.scale_b = b_scale.device_address;
  std::optional<LoraStep> lora;
  if (lora_args)
    lora.emplace(device, x, *lora_args, s, g);
  run_gemm_kernel(device, s, g);
}

void set_scaled_mm(GemmKernelSpec& s, GemmLaunchArgs& g, const ScaledMmArgs& args,
                   const GemmProblem& p) {
  set_operands(s, g, p, args.a, args.b, args.out, args.bias);
  s.scale_a = scale_kind(p.scale_a);
  s.scale_b = scale_kind(p.scale_b);
  g.scale_a = args.scale_a.device_address;
  g.scale_b = args.scale_b.device_address;
}
} // namespace

void launch(runtime::Device& device, const ScaledMmFusedQuantArgs& args, const GemmProblem& p) {
  GemmKernelSpec s;
  GemmLaunchArgs g;
  set_operands(s, g, p, args.x, args.b, args.out, args.bias);
  launch_fused(device, s, g, p, args.x, args.quant, args.scale_b, args.lora);
}

void launch(runtime::Device& device, const Int8LinearFusedArgs& args, const GemmProblem& p) {
  GemmKernelSpec s;
  GemmLaunchArgs g;
  set_operands(s, g, p, args.x, args.weight, args.out, args.bias);
  // weight [N, K] row-major is b = weight^T column-major.
  g.ldb = args.weight.strides[0];
  s.b_vec_aligned = vec_aligned(args.weight, MatrixOrder::row_major);
  launch_fused(device, s, g, p, args.x, args.quant, args.w_scale, args.lora);
}

void launch(runtime::Device& device, const GemmArgs& args, const GemmProblem& p) {
  GemmKernelSpec s;
  GemmLaunchArgs g;
  set_operands(s, g, p, args.a, args.b, args.out, args.bias);
  s.alpha_beta = true;
  s.has_c = p.has_c;
  g.alpha = args.alpha;
  g.beta = args.beta;
  if (p.has_c) {
    g.c = args.c->device_address;
    g.ldc = args.c->strides[0];
  }
  run_gemm_kernel(device, s, g);
}

void launch(runtime::Device& device, const ScaledMmArgs& args, const GemmProblem& p) {
  GemmKernelSpec s;
  GemmLaunchArgs g;
  set_scaled_mm(s, g, args, p);
  run_gemm_kernel(device, s, g);
}

void launch(runtime::Device& device, const Int8LinearArgs& args, const GemmProblem& p) {
  GemmKernelSpec s;
  GemmLaunchArgs g;
  set_operands(s, g, p, args.x, args.weight, args.out, args.bias);
  s.scale_a = scale_kind(p.scale_a);
  s.scale_b = scale_kind(p.scale_b);
  // weight [N, K] row-major is b = weight^T column-major: its leading stride is strides[0].
  g.ldb = args.weight.strides[0];
  s.b_vec_aligned = vec_aligned(args.weight, MatrixOrder::row_major);
  g.scale_a = args.x_scale.device_address;
  g.scale_b = args.w_scale.device_address;
  run_gemm_kernel(device, s, g);
}

// One grouped launch over every problem's tiles: validation guarantees the problems share
// dtypes, scale granularities and bias presence (one code object); 128-bit loads are used when
// every problem's operands allow them.
void launch(runtime::Device& device, const ScaledMmMultiArgs& args,
            const std::vector<GemmProblem>& problems) {
  GemmKernelSpec s;
  bool a_vec = true, b_vec = true;
  std::vector<GemmGroupRow> rows;
  const auto addr = [](runtime::DevicePtr p) { return static_cast<int64_t>(p); };
  for (size_t i = 0; i < problems.size(); ++i) {
    if (problems[i].empty())
      continue;
    GemmLaunchArgs g;
    set_scaled_mm(s, g, args.problems[i], problems[i]);
    a_vec = a_vec && s.a_vec_aligned;
    b_vec = b_vec && s.b_vec_aligned;
    rows.push_back({addr(g.a), addr(g.b), addr(g.out), addr(g.bias), addr(g.scale_a),
                    addr(g.scale_b), g.m, g.n, g.k, g.lda, g.ldb, g.ldo});
  }
  s.a_vec_aligned = a_vec;
  s.b_vec_aligned = b_vec;
  s.grouped = true;
  run_grouped_gemm_kernel(device, s, std::move(rows));
}

void launch(runtime::Device& device, const W8A16Args& args, const GemmProblem& p) {
  GemmKernelSpec s;
  GemmLaunchArgs g;
  set_operands(s, g, p, args.x, args.weight, args.out, args.bias);
  // weight [N, K] row-major is b = weight^T column-major (int8, converted in the prologue).
  g.ldb = args.weight.strides[0];
  s.b_vec_aligned = vec_aligned(args.weight, MatrixOrder::row_major);
  s.scale_b = ScaleKind::rowwise; // one scale per output channel
  g.scale_b = args.scale.device_address;
  run_gemm_kernel(device, s, g);
}

void launch(runtime::Device& device, const Mxfp8GemmArgs& args, const GemmProblem& p) {
  GemmKernelSpec s;
  GemmLaunchArgs g;
  set_operands(s, g, p, args.a, args.b, args.out, args.bias);
  s.mx_block_scales = true;
  g.scale_a = args.scale_a.device_address;
  g.scale_b = args.scale_b.device_address;
  g.ld_scale_a = args.scale_a.strides[0];
  g.ld_scale_b = args.scale_b.strides[0];
  run_gemm_kernel(device, s, g);
}

} // namespace tw::kernels::gemm_launch
