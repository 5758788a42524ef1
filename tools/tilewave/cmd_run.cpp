// `tilewave run KERNEL --in NAME=FILE.npy ... --out out=FILE.npy [--param k=v ...]` runs a
// shipped GEMM kernel or flash attention on the default device (TILEWAVE_DEVICE=hip|emu overrides)
// with NumPy inputs and writes its outputs. The .npy conventions are in docs/kernels.md ("tilewave
// run .npy conventions"): C-order arrays; fp8 / e8m0 / int4 as uint8 codes (int4 two per byte,
// element 2i in the low nibble) and bf16 as uint16 bits, named with --param NAME_dtype=...;
// K-contiguous operands (b of scaled_mm, scaled_mm_fused_quant, scaled_mm_multi, mxfp8_gemm,
// iu4_gemm) stored as b^T, [N, K]. scaled_mm_multi names every input and output NAME.i for
// its problem i = 0 .. P-1; the fused kernels may also write the per-row activation scale
// (--out scale_out=FILE.npy). flash_attn takes q, k, v (dense [B, S, H, D] or varlen [T, H, D]
// with --in cu_seqlens_q / cu_seqlens_k) and its options as --param (docs/kernels.md
// "Attention"); paged_attn takes q, the page pools k, v [num_pages, page_size, Hkv, D], int32
// seqlens_k [B] and an int32 block table (block_table [B, max_blocks], or block_table_indptr and
// block_table_indices) with flash_attn's options, decode_attn the same with 1..16 query rows
// per sequence (docs/kernels.md "Paged attention"); mla_decode takes q [B, Sq, Hq, 576], the
// latent cache kv_cache [num_pages, page_size, 576], seqlens_k and the block table (docs/
// kernels.md "MLA decode").
//
// Every GEMM entry point runs: valid arguments end in the output files, bad ones in a
// sentence (the tool's own for the command line, the entry point's validation sentence for
// the tensors) before anything is launched.
#include "tilewave/command.hpp"

#include <kernels/attention/flash_attn_api.hpp>
#include <kernels/attention/flash_attn_query_tile.hpp>
#include <kernels/attention/linear_attn_api.hpp>
#include <kernels/attention/mla_decode_api.hpp>
#include <kernels/attention/paged_attn_api.hpp>
#include <kernels/attention/qk_norm_quant_api.hpp>
#include <kernels/elementwise/elementwise_api.hpp>
#include <kernels/gemm/gemm_api.hpp>
#include <kernels/quant/quant_api.hpp>
#include <runtime/device.hpp>
#include <tools/npy/npy.hpp>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tw::tool {
namespace {

using kernels::DType;
using kernels::Extents;
using kernels::TensorView;

std::runtime_error run_error(const std::string& what) {
  return std::runtime_error("run: " + what);
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& e : v)
    s += (s.empty() ? "" : ", ") + e;
  return s;
}

// Splits "NAME=VALUE" (the option is named in the error).
std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw run_error(std::string(option) + " '" + text + "' must be NAME=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

// A dtype name given as --param KEY=NAME.
DType parse_dtype_param(const std::string& key, const std::string& name) {
  if (const auto t = kernels::try_parse_dtype(name))
    return *t;
  std::string known;
  for (const kernels::DTypeInfo& info : kernels::dtype_table)
    known += (known.empty() ? "" : ", ") + std::string(info.name);
  throw run_error("--param " + key + "=" + name + " is not a dtype (expected one of " + known +
                  ")");
}

// --param values, each of which must be used by the kernel.
class Params {
public:
  explicit Params(const std::vector<std::string>& texts) {
    for (const std::string& t : texts) {
      auto [k, v] = split_assignment(t, "--param");
      if (!values_.emplace(k, v).second)
        throw run_error("--param '" + k + "' is given twice");
    }
  }
  std::optional<std::string> take(const std::string& key) {
    used_.insert(key);
    auto it = values_.find(key);
    return it == values_.end() ? std::nullopt : std::optional(it->second);
  }
  std::optional<float> take_number(const std::string& key) {
    const auto v = take(key);
    if (!v)
      return std::nullopt;
    float f = 0;
    const auto r = std::from_chars(v->data(), v->data() + v->size(), f);
    if (r.ec != std::errc() || r.ptr != v->data() + v->size())
      throw run_error("--param " + key + "=" + *v + " is not a number");
    return f;
  }
  // A decimal integer of type I (int64_t, uint64_t, ...).
  template <class I>
  std::optional<I> take_integer(const std::string& key) {
    const auto v = take(key);
    if (!v)
      return std::nullopt;
    I x = 0;
    const auto r = std::from_chars(v->data(), v->data() + v->size(), x);
    if (r.ec != std::errc() || r.ptr != v->data() + v->size())
      throw run_error("--param " + key + "=" + *v + " is not an integer" +
                      (std::is_signed_v<I> ? "" : " >= 0"));
    return x;
  }
  float take_float(const std::string& key, float fallback) {
    return take_number(key).value_or(fallback);
  }
  std::optional<DType> take_dtype(const std::string& key) {
    const auto v = take(key);
    return v ? std::optional(parse_dtype_param(key, *v)) : std::nullopt;
  }
  void reject_unused(const std::string& kernel) const {
    for (const auto& [k, v] : values_)
      if (!used_.count(k)) {
        std::string known;
        for (const std::string& u : used_)
          known += (known.empty() ? "" : ", ") + u;
        throw run_error("--param '" + k + "' is not a parameter of " + kernel +
                        " (its parameters: " + known + ")");
      }
  }

private:
  std::map<std::string, std::string> values_;
  std::set<std::string> used_;
};

// The .npy dtype that stores a tensor of dtype `t` (fp8, e8m0, packed int4, uint8: bytes).
std::string storage_descr(DType t) {
  static const std::map<DType, std::string> descrs = {{DType::f32, "<f4"},
                                                      {DType::f16, "<f2"},
                                                      {DType::bf16, "<u2"},
                                                      {DType::int8, "|i1"},
                                                      {DType::i32, "<i4"}};
  const auto it = descrs.find(t);
  return it == descrs.end() ? "|u1" : it->second;
}

// The tensor dtype an .npy storage type holds, given the optional --param NAME_dtype.
DType input_dtype(const std::string& name, const std::string& path, const npy::Array& a,
                  const std::optional<DType>& declared) {
  if (!declared) {
    if (a.dtype == "<f4")
      return DType::f32;
    if (a.dtype == "<f2")
      return DType::f16;
    if (a.dtype == "|i1")
      return DType::int8;
    if (a.dtype == "|u1" || a.dtype == "|b1") // NumPy bool: bytes 0 / 1
      return DType::uint8;
    if (a.dtype == "<i4")
      return DType::i32;
    throw run_error("input '" + name + "' (" + path + ") has NumPy dtype " + a.dtype +
                    ", which needs --param " + name + "_dtype=... to say what it holds");
  }
  const DType t = *declared;
  const std::string want = storage_descr(t);
  if (a.dtype != want)
    throw run_error("input '" + name + "' (" + path + ") has NumPy dtype " + a.dtype + "; " +
                    std::string(kernels::dtype_name(t)) + " is stored as " + want);
  return t;
}

// An input on the device, with the logical view of it the kernel takes.
struct DeviceInput {
  runtime::DevicePtr ptr = 0;
  TensorView view;
};

class Buffers {
public:
  explicit Buffers(runtime::Device& d) : dev_(d) {}
  ~Buffers() {
    for (runtime::DevicePtr p : owned_)
      dev_.free(p);
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  runtime::DevicePtr upload(const std::vector<uint8_t>& bytes) {
    const runtime::DevicePtr p = dev_.allocate(bytes.empty() ? 1 : bytes.size());
    owned_.push_back(p);
    if (!bytes.empty())
      dev_.copy_to_device(p, bytes.data(), bytes.size());
    return p;
  }

private:
  runtime::Device& dev_;
  std::vector<runtime::DevicePtr> owned_;
};

// One problem of a launch: its inputs and outputs by name (without the problem index).
struct Problem {
  std::map<std::string, DeviceInput> in;
  std::map<std::string, TensorView> out; // "out", and the optional outputs that were given

  const TensorView& input(const std::string& name) const { return in.at(name).view; }
  std::optional<TensorView> maybe(const std::string& name) const {
    auto it = in.find(name);
    return it == in.end() ? std::nullopt : std::optional(it->second.view);
  }
  std::optional<TensorView> maybe_out(const std::string& name) const {
    auto it = out.find(name);
    return it == out.end() ? std::nullopt : std::optional(it->second);
  }
};

// How a kernel's inputs are stored in the .npy files and how to call its entry point.
struct KernelRun {
  std::vector<std::string> required{}, optional{};
  std::set<std::string> transposed{}; // stored [N, K] for a logical [K, N] column-major operand
  std::set<std::string> matrices{};   // rank-2 operands (int4 packing applies to them)
  // out shape and default out dtype from the inputs
  std::function<Extents(const Problem&)> out_shape{};
  std::function<DType(const Problem&)> default_out{};
  // Calls the entry point on the problems (exactly one unless `indexed`).
  std::function<void(runtime::Device&, std::vector<Problem>&, Params&)> call{};
  std::vector<std::string> scalar_params{}; // --param names the call reads (alpha, beta, ...)
  // f32 outputs besides `out` that the caller may ask for, with their shapes
  std::map<std::string, std::function<Extents(const Problem&)>> optional_outputs{};
  // Kernels whose outputs are not `out` (quant_int8: q and scale): every one is required, with
  // its dtype and shape from the inputs.
  struct NamedOutput {
    std::function<DType(const Problem&, Params&)> dtype;
    std::function<Extents(const Problem&, Params&)> shape;
    bool optional = false; // the entry point says which ones it needs (quant_w4a8 by mode)
  };
  std::map<std::string, NamedOutput> named_outputs{};
  bool indexed = false; // every input and output is NAME.i, for problems i = 0 .. P-1
  // dtypes of inputs that need no --param NAME_dtype (the e8m0 MX scales)
  std::map<std::string, DType> implied_dtypes{};
  // inputs whose dtype defaults to another's --param (k and v of flash_attn follow q_dtype)
  std::map<std::string, std::string> dtype_follows{};

  // "a, b" or, indexed, "a.i, b.i".
  std::string list(const std::vector<std::string>& names) const {
    std::vector<std::string> shown;
    for (const std::string& n : names)
      shown.push_back(indexed ? n + ".i" : n);
    return join(shown);
  }
  std::string inputs_text(bool with_optional = true) const {
    return "(inputs" + std::string(indexed ? " of each problem i" : "") + ": " + list(required) +
           (optional.empty() || !with_optional ? "" : "; optional: " + list(optional)) + ")";
  }
  std::vector<std::string> required_outputs() const {
    if (named_outputs.empty())
      return {"out"};
    std::vector<std::string> names;
    for (const auto& [name, o] : named_outputs)
      if (!o.optional)
        names.push_back(name);
    return names;
  }
  std::string outputs_text() const {
    std::vector<std::string> extra;
    for (const auto& [name, shape] : optional_outputs)
      extra.push_back(name);
    for (const auto& [name, o] : named_outputs)
      if (o.optional)
        extra.push_back(name);
    return "(outputs" + std::string(indexed ? " of each problem i" : "") + ": " +
           list(required_outputs()) + (extra.empty() ? "" : "; optional: " + list(extra)) + ")";
  }
  // The name of input or output `name` of problem `i` on the command line.
  std::string shown(const std::string& name, size_t i) const {
    return indexed ? name + "." + std::to_string(i) : name;
  }
};

using Call = std::function<void(runtime::Device&, Problem&, Params&)>;

// The call of a kernel with one problem.
std::function<void(runtime::Device&, std::vector<Problem>&, Params&)> single(Call call) {
  return
      [call](runtime::Device& d, std::vector<Problem>& ps, Params& p) { call(d, ps.front(), p); };
}

// out is [rows of `m_from`, dimension `n_dim` of `n_from`].
std::function<Extents(const Problem&)> mn(std::string m_from, std::string n_from, size_t n_dim) {
  return [=](const Problem& p) {
    return Extents{p.input(m_from).shape[0], p.input(n_from).shape[n_dim]};
  };
}

kernels::ScaledMmArgs scaled_mm_args(const Problem& p) {
  return {p.input("a"),       p.input("b"),    p.input("scale_a"),
          p.input("scale_b"), p.out.at("out"), p.maybe("bias")};
}

// The activation quantization of a fused kernel: given_scale with --in x_scale, otherwise
// dynamic_rowwise (whose s_m goes to --out scale_out when given); --param quant_dtype.
kernels::ActivationQuant activation_quant(const std::string& kernel, const Problem& p,
                                          Params& params, DType default_dtype) {
  kernels::ActivationQuant q;
  q.dtype = params.take_dtype("quant_dtype").value_or(default_dtype);
  q.scale = p.maybe("x_scale");
  q.scale_out = p.maybe_out("scale_out");
  q.mode = q.scale ? kernels::ActQuantMode::given_scale : kernels::ActQuantMode::dynamic_rowwise;
  if (q.scale && q.scale_out)
    throw run_error(kernel + " writes --out scale_out only without --in x_scale (with a given " +
                    "scale there is no per-row scale to write)");
  return q;
}

// The LoRA addition of a fused kernel: --in lora_down, --in lora_up, --param lora_scale.
std::optional<kernels::LoraArgs> lora_args(const std::string& kernel, const Problem& p,
                                           Params& params) {
  const auto down = p.maybe("lora_down"), up = p.maybe("lora_up");
  const auto scale = params.take_number("lora_scale");
  if (!down && !up) {
    if (scale)
      throw run_error(kernel + " takes --param lora_scale only with --in lora_down=FILE.npy and " +
                      "--in lora_up=FILE.npy");
    return std::nullopt;
  }
  if (!down || !up)
    throw run_error(kernel + " needs both --in lora_down=FILE.npy and --in lora_up=FILE.npy for " +
                    "LoRA (only " + (down ? "lora_down" : "lora_up") + " was given)");
  return kernels::LoraArgs{*down, *up, scale.value_or(1.0f)};
}

// A fused kernel (scaled_mm_fused_quant, int8_linear_fused): x (f16 / bf16) quantized in the
// prologue, the 8-bit `weight` with its scale `w_scale`, optional bias, given activation scale
// and LoRA factors, and scale_out as an optional output. `Args` lists x, quant, weight,
// w_scale, out, bias and lora in this order.
template <class Args>
KernelRun fused_kernel(const std::string& kernel, const std::string& weight,
                       const std::string& w_scale, bool transposed, DType default_quant,
                       void (*entry)(runtime::Device&, const Args&)) {
  KernelRun k;
  k.required = {"x", weight, w_scale};
  k.optional = {"bias", "x_scale", "lora_down", "lora_up"};
  if (transposed)
    k.transposed = {weight};
  k.matrices = {"x", weight, "lora_down", "lora_up"};
  k.out_shape = mn("x", weight, transposed ? 1 : 0);
  k.default_out = [](const Problem&) { return DType::bf16; };
  k.call = single([=](runtime::Device& d, Problem& p, Params& params) {
    Args args{p.input("x"), activation_quant(kernel, p, params, default_quant), p.input(weight),
              p.input(w_scale), p.out.at("out")};
    args.bias = p.maybe("bias");
    args.lora = lora_args(kernel, p, params);
    entry(d, args);
  });
  k.scalar_params = {"quant_dtype", "lora_scale"};
  k.optional_outputs["scale_out"] = [](const Problem& p) { return Extents{p.input("x").shape[0]}; };
  return k;
}

// An unsigned 64-bit --param (a Philox seed or offset), 0 when absent.
uint64_t u64_param(Params& params, const std::string& key) {
  const auto v = params.take(key);
  if (!v)
    return 0;
  uint64_t n = 0;
  const auto r = std::from_chars(v->data(), v->data() + v->size(), n);
  if (r.ec != std::errc() || r.ptr != v->data() + v->size())
    throw run_error("--param " + key + "=" + *v + " is not an integer in [0, 2^64)");
  return n;
}

// The element-wise, normalization and quantization kernels (kernels/elementwise, kernels/quant):
// x [rows, width] (or [width]) in, out of x's shape and dtype unless --param out_dtype says.
int64_t int_param(Params& params, const std::string& key, int64_t fallback) {
  const auto v = params.take(key);
  if (!v)
    return fallback;
  int64_t n = 0;
  const auto r = std::from_chars(v->data(), v->data() + v->size(), n);
  if (r.ec != std::errc() || r.ptr != v->data() + v->size())
    throw run_error("--param " + key + "=" + *v + " is not an integer");
  return n;
}

// The RoPE options besides the rotated width: style, positions / offset, cos / sin, base.
kernels::RopeParams rope_options(const Problem& p, Params& params) {
  kernels::RopeParams r;
  const std::string style = params.take("style").value_or("neox");
  if (style != "neox" && style != "interleaved")
    throw run_error("--param style=" + style + " must be neox or interleaved");
  r.style = style == "neox" ? kernels::RopeStyle::neox : kernels::RopeStyle::interleaved;
  r.positions = p.maybe("positions");
  r.position_offset = int_param(params, "offset", 0);
  r.cos = p.maybe("cos");
  r.sin = p.maybe("sin");
  r.base = params.take_float("base", 10000.0f);
  return r;
}

// The 4-bit quantizers and ConvRot: x in; packed 4-bit q written as bytes [rows, ceil(K / 2)]
// (two codes each, element 2i in the low nibble), scales and zero points per row or group.
void add_int4_quant_kernels(std::map<std::string, KernelRun>& t) {
  using Output = KernelRun::NamedOutput;
  const auto rows = [](const Problem& p) {
    const TensorView& x = p.input("x");
    return x.rank() == 2 ? x.shape[0] : 1;
  };
  // ceil(K / group_size) for the group size of --param group_size (default `fallback`).
  const auto groups = [](const Problem& p, Params& params, int64_t fallback) {
    const int64_t g = std::max<int64_t>(1, int_param(params, "group_size", fallback));
    return (p.input("x").shape.back() + g - 1) / g;
  };
  const auto fixed = [](DType d) { return [d](const Problem&, Params&) { return d; }; };
  const auto x_shape = [](const Problem& p, Params&) { return p.input("x").shape; };
  const auto per_row = [=](const Problem& p, Params&) { return Extents{rows(p)}; };
  const auto block = [](Params& params) { return int(int_param(params, "block_size", 0)); };

  KernelRun svd{.required = {"x"},
                .call = single([=](runtime::Device& d, Problem& p, Params& params) {
                  kernels::quant_svdquant(d, {p.input("x"), p.out.at("q"), p.out.at("scale"),
                                              int_param(params, "group_size", 64), block(params)});
                }),
                .scalar_params = {"group_size", "block_size"}};
  svd.named_outputs["q"] = Output{fixed(DType::int4), x_shape};
  svd.named_outputs["scale"] = Output{[](const Problem& p, Params&) { return p.input("x").dtype; },
                                      [=](const Problem& p, Params& params) {
                                        return Extents{rows(p), groups(p, params, 64)};
                                      }};
  t["quant_svdquant"] = svd;

  const auto mode = [](Params& params) { return int(int_param(params, "mode", 1)); };
  const auto w4_groups = [=](const Problem& p, Params& params) {
    return Extents{rows(p), groups(p, params, 128)};
  };
  KernelRun w4{.required = {"x"},
               .call = single([=](runtime::Device& d, Problem& p, Params& params) {
                 kernels::QuantW4a8Args a{p.input("x"), p.out.at("q"), p.out.at("scale")};
                 a.group_scale = p.maybe_out("group_scale");
                 a.zeros = p.maybe_out("zeros");
                 a.correction = p.maybe_out("correction");
                 a.mode = mode(params);
                 a.group_size = int_param(params, "group_size", 128);
                 a.block_size = block(params);
                 kernels::quant_w4a8(d, a);
               }),
               .scalar_params = {"mode", "group_size", "group_scale_dtype", "block_size"}};
  w4.named_outputs["q"] = Output{[=](const Problem&, Params& params) {
                                   return mode(params) == 2 ? DType::uint4 : DType::int4;
                                 },
                                 x_shape};
  w4.named_outputs["scale"] = Output{fixed(DType::f32), per_row};
  w4.named_outputs["group_scale"] =
      Output{[](const Problem&, Params& params) {
               return params.take_dtype("group_scale_dtype").value_or(DType::e4m3);
             },
             w4_groups, true};
  w4.named_outputs["zeros"] = Output{fixed(DType::uint8), w4_groups, true};
  w4.named_outputs["correction"] = Output{fixed(DType::f32), w4_groups, true};
  t["quant_w4a8"] = w4;

  KernelRun rot{.required = {"x"},
                .call = single([=](runtime::Device& d, Problem& p, Params& params) {
                  kernels::quant_convrot(d, {p.input("x"), p.out.at("q"), p.out.at("scale"),
                                             int_param(params, "group_size", 256), block(params)});
                }),
                .scalar_params = {"group_size", "block_size"}};
  rot.named_outputs["q"] = Output{fixed(DType::int8), [](const Problem& p, Params& params) {
                                    Extents e = p.input("x").shape;
                                    const int64_t g = int_param(params, "group_size", 256);
                                    e.back() = kernels::convrot_width(
                                        e.back(), std::clamp<int64_t>(g, 1, int64_t(1) << 40));
                                    return e;
                                  }};
  rot.named_outputs["scale"] = Output{fixed(DType::f32), per_row};
  t["quant_convrot"] = rot;
}

kernels::RopeParams rope_params(const Problem& p, Params& params) {
  kernels::RopeParams r = rope_options(p, params);
  r.head_dim = int_param(params, "head_dim", 0);
  if (r.head_dim == 0)
    throw run_error("rope needs --param head_dim=D (the rows of x are heads * D)");
  return r;
}

void add_elementwise_kernels(std::map<std::string, KernelRun>& t) {
  const auto same_shape = [](const std::string& from) {
    return [from](const Problem& p) { return p.input(from).shape; };
  };
  const auto dtype_of = [](const std::string& from) {
    return [from](const Problem& p) { return p.input(from).dtype; };
  };
  t["silu"] = {
      .required = {"x"},
      .out_shape = same_shape("x"),
      .default_out = dtype_of("x"),
      .call = single([](runtime::Device& d, Problem& p, Params& params) {
        kernels::silu(d, {p.input("x"), p.out.at("out"), int(int_param(params, "block_size", 0))});
      }),
      .scalar_params = {"block_size"}};
  t["swiglu"] = {.required = {"gate", "up"},
                 .out_shape = same_shape("gate"),
                 .default_out = dtype_of("gate"),
                 .call = single([](runtime::Device& d, Problem& p, Params& params) {
                   kernels::swiglu(d, {p.input("gate"), p.input("up"), p.out.at("out"),
                                       int(int_param(params, "block_size", 0))});
                 }),
                 .scalar_params = {"block_size"}};
  const auto norm = [&](void (*entry)(runtime::Device&, const kernels::NormArgs&),
                        float default_eps) {
    return KernelRun{.required = {"x", "weight"},
                     .optional = {"bias"},
                     .out_shape = same_shape("x"),
                     .default_out = dtype_of("x"),
                     .call = single([=](runtime::Device& d, Problem& p, Params& params) {
                       entry(d, {p.input("x"), p.input("weight"), p.maybe("bias"), p.out.at("out"),
                                 params.take_float("eps", default_eps),
                                 int(int_param(params, "block_size", 0))});
                     }),
                     .scalar_params = {"eps", "block_size"}};
  };
  t["rms_norm"] = norm(&kernels::rms_norm, 1e-6f);
  t["layer_norm"] = norm(&kernels::layer_norm, 1e-5f);
  t["adaln"] = {.required = {"x", "scale", "shift"},
                .out_shape = same_shape("x"),
                .default_out = dtype_of("x"),
                .call = single([](runtime::Device& d, Problem& p, Params& params) {
                  kernels::adaln(d, {p.input("x"), p.input("scale"), p.input("shift"),
                                     p.out.at("out"), params.take_float("eps", 1e-6f),
                                     int(int_param(params, "block_size", 0))});
                }),
                .scalar_params = {"eps", "block_size"}};
  t["rope"] = {.required = {"x"},
               .optional = {"positions", "cos", "sin"},
               .out_shape = same_shape("x"),
               .default_out = dtype_of("x"),
               .call = single([](runtime::Device& d, Problem& p, Params& params) {
                 kernels::rope(d, {p.input("x"), p.out.at("out"), rope_params(p, params),
                                   int(int_param(params, "block_size", 0))});
               }),
               .scalar_params = {"head_dim", "style", "offset", "base", "block_size"}};
  t["rms_norm_rope"] = {
      .required = {"x", "weight"},
      .optional = {"positions", "cos", "sin"},
      .out_shape = same_shape("x"),
      .default_out = dtype_of("x"),
      .call = single([](runtime::Device& d, Problem& p, Params& params) {
        kernels::rms_norm_rope(d, {p.input("x"), p.input("weight"), p.out.at("out"),
                                   rope_params(p, params), params.take_float("eps", 1e-6f),
                                   int(int_param(params, "block_size", 0))});
      }),
      .scalar_params = {"head_dim", "style", "offset", "base", "eps", "block_size"}};
  KernelRun quant{.required = {"x"},
                  .call = single([](runtime::Device& d, Problem& p, Params& params) {
                    const std::string g = params.take("granularity").value_or("tensor");
                    if (g != "tensor" && g != "row")
                      throw run_error("--param granularity=" + g + " must be tensor or row");
                    kernels::QuantInt8Args a{p.input("x"), p.out.at("q"), p.out.at("scale"),
                                             g == "row" ? kernels::QuantGranularity::rowwise
                                                        : kernels::QuantGranularity::tensorwise};
                    a.given_scale = params.take_number("scale");
                    a.block_size = int(int_param(params, "block_size", 0));
                    kernels::quant_int8(d, a);
                  }),
                  .scalar_params = {"granularity", "scale", "block_size"}};
  quant.named_outputs["q"] = {[](const Problem&, Params&) { return DType::int8; },
                              [](const Problem& p, Params&) { return p.input("x").shape; }};
  // rowwise: one scale per row of x; tensorwise: one scale, [1].
  quant.named_outputs["scale"] = {[](const Problem&, Params&) { return DType::f32; },
                                  [](const Problem& p, Params& params) {
                                    const TensorView& x = p.input("x");
                                    const bool row = params.take("granularity") == "row";
                                    return Extents{row && x.rank() == 2 ? x.shape[0] : 1};
                                  }};
  t["quant_int8"] = quant;
  add_int4_quant_kernels(t);
  t["dequant_awq"] = {.required = {"qweight", "zeros", "scales"},
                      .matrices = {"qweight", "zeros", "scales"},
                      .out_shape = same_shape("qweight"),
                      .default_out = dtype_of("scales"),
                      .call = single([](runtime::Device& d, Problem& p, Params& params) {
                        kernels::dequant_awq(d, {p.input("qweight"), p.input("zeros"),
                                                 p.input("scales"), p.out.at("out"),
                                                 int_param(params, "group_size", 128),
                                                 int(int_param(params, "block_size", 0))});
                      }),
                      .scalar_params = {"group_size", "block_size"}};
  t["quant_fp8_stochastic"] = {.required = {"x"},
                               .out_shape = same_shape("x"),
                               .default_out = [](const Problem&) { return DType::e4m3; },
                               .call = single([](runtime::Device& d, Problem& p, Params& params) {
                                 kernels::quant_fp8_stochastic(
                                     d, {p.input("x"), p.out.at("out"), u64_param(params, "seed"),
                                         u64_param(params, "offset"),
                                         int(int_param(params, "block_size", 0))});
                               }),
                               .scalar_params = {"seed", "offset", "block_size"}};
  t["dequant_fp8"] = {.required = {"x", "scale"},
                      .out_shape = same_shape("x"),
                      .default_out = [](const Problem&) { return DType::bf16; },
                      .call = single([](runtime::Device& d, Problem& p, Params& params) {
                        kernels::dequant_fp8(d, {p.input("x"), p.input("scale"), p.out.at("out"),
                                                 int(int_param(params, "block_size", 0))});
                      }),
                      .scalar_params = {"block_size"}};
  // qk_norm_quant: codes q_out / k_out (--param quant_dtype, e4m3 unless given) and f32 scales
  // q_scale / k_scale [tokens, heads].
  const auto head_dim_of = [](Params& params) {
    const int64_t d = int_param(params, "head_dim", 0);
    if (d <= 0)
      throw run_error("qk_norm_quant needs --param head_dim=D (the rows of q and k are heads * D)");
    return d;
  };
  const auto codes_dtype = [](const Problem&, Params& params) {
    return params.take_dtype("quant_dtype").value_or(DType::e4m3);
  };
  KernelRun qk{.required = {"q", "k", "q_weight", "k_weight"},
               .optional = {"positions", "cos", "sin"},
               .call = single([=](runtime::Device& d, Problem& p, Params& params) {
                 kernels::QkNormQuantArgs a{p.input("q"),        p.input("k"),
                                            p.input("q_weight"), p.input("k_weight"),
                                            p.out.at("q_out"),   p.out.at("k_out"),
                                            p.out.at("q_scale"), p.out.at("k_scale")};
                 a.head_dim = head_dim_of(params);
                 a.rope = rope_options(p, params);
                 a.rope.head_dim = int_param(params, "rope_dim", 0);
                 a.eps = params.take_float("eps", 1e-6f);
                 a.block_size = int(int_param(params, "block_size", 0));
                 kernels::qk_norm_quant(d, a);
               }),
               .scalar_params = {"head_dim", "rope_dim", "style", "offset", "base", "eps",
                                 "block_size", "quant_dtype"},
               .dtype_follows = {{"k", "q"}, {"q_weight", "q"}, {"k_weight", "q"}}};
  for (const char* side : {"q", "k"}) {
    const std::string x = side;
    qk.named_outputs[x + "_out"] = {codes_dtype,
                                    [x](const Problem& p, Params&) { return p.input(x).shape; }};
    qk.named_outputs[x + "_scale"] = {
        [](const Problem&, Params&) { return DType::f32; },
        [x, head_dim_of](const Problem& p, Params& params) {
          const TensorView& t = p.input(x);
          const int64_t d = head_dim_of(params);
          return t.rank() == 2 ? Extents{t.shape[0], t.shape[1] / d} : Extents{0};
        }};
  }
  t["qk_norm_quant"] = qk;
}

// ---- flash_attn ----------------------------------------------------------------------------

// The longest sequence of an int32 offsets input [B + 1] (0 when it is not one: validation
// then says what is wrong with it).
int64_t longest_sequence(runtime::Device& dev, const TensorView& cu) {
  if (cu.dtype != DType::i32 || cu.rank() != 1 || cu.shape[0] < 2)
    return 0;
  std::vector<int32_t> offsets(size_t(cu.shape[0]));
  dev.copy_to_host(offsets.data(), cu.device_address, offsets.size() * sizeof(int32_t));
  int64_t longest = 0;
  for (size_t b = 0; b + 1 < offsets.size(); ++b)
    longest = std::max<int64_t>(longest, int64_t(offsets[b + 1]) - offsets[b]);
  return longest;
}

// --param causal=0|1 (absent: `fallback`) and --param num_splits (0: the host picks), shared by
// the attention entries.
bool take_causal(Params& params, bool fallback) {
  const auto causal = params.take("causal");
  if (!causal)
    return fallback;
  if (*causal != "0" && *causal != "1")
    throw run_error("--param causal=" + *causal + " must be 0 or 1");
  return *causal == "1";
}
int take_num_splits(Params& params) {
  const int64_t splits = params.take_integer<int64_t>("num_splits").value_or(0);
  if (splits < 0 || splits > std::numeric_limits<int>::max())
    throw run_error("--param num_splits=" + std::to_string(splits) +
                    " must be 0 (the host picks) or a split count >= 1");
  return int(splits);
}

// FlashAttnArgs from the inputs and --param causal, window=L,R, softcap, sm_scale, dropout,
// seed, offset, alibi (a scalar slope), q/k/v_descale, num_splits, query_tile. max_seqlen_q / k are
// the longest sequences of cu_seqlens_q / k.
kernels::FlashAttnArgs flash_attn_args(runtime::Device& dev, const Problem& p, Params& params) {
  kernels::FlashAttnArgs a;
  a.q = p.input("q");
  a.k = p.input("k");
  a.v = p.input("v");
  a.out = p.out.at("out");
  a.lse = p.maybe_out("lse");
  if (p.maybe("bias") && p.maybe("mask"))
    throw run_error("flash_attn takes --in bias=FILE.npy (additive) or --in mask=FILE.npy "
                    "(boolean), not both");
  if ((a.bias = p.maybe("bias")))
    a.bias_kind = kernels::AttnBiasKind::additive;
  else if ((a.bias = p.maybe("mask")))
    a.bias_kind = kernels::AttnBiasKind::bool_mask;
  a.alibi_slopes = p.maybe("alibi_slopes");
  a.alibi_slope = params.take_number("alibi");
  a.cu_seqlens_q = p.maybe("cu_seqlens_q");
  a.cu_seqlens_k = p.maybe("cu_seqlens_k");
  if (a.cu_seqlens_q)
    a.max_seqlen_q = longest_sequence(dev, *a.cu_seqlens_q);
  if (a.cu_seqlens_k)
    a.max_seqlen_k = longest_sequence(dev, *a.cu_seqlens_k);

  a.causal = take_causal(params, a.causal);
  if (const auto window = params.take("window")) {
    const auto comma = window->find(',');
    int64_t lr[2] = {0, 0};
    const std::string parts[2] = {window->substr(0, comma),
                                  comma == std::string::npos ? "" : window->substr(comma + 1)};
    for (int side = 0; side < 2; ++side) {
      const std::string& t = parts[side];
      const auto r = std::from_chars(t.data(), t.data() + t.size(), lr[side]);
      if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size())
        throw run_error("--param window=" + *window +
                        " must be LEFT,RIGHT (two integers; -1 = no bound on that side)");
    }
    a.window_left = lr[0];
    a.window_right = lr[1];
  }
  a.sm_scale = params.take_float("sm_scale", 0.0f);
  a.softcap = params.take_float("softcap", 0.0f);
  a.dropout_p = params.take_float("dropout", 0.0f);
  a.dropout_seed = params.take_integer<uint64_t>("seed").value_or(0);
  a.dropout_offset = params.take_integer<uint64_t>("offset").value_or(0);
  a.q_descale = params.take_float("q_descale", 1.0f);
  a.k_descale = params.take_float("k_descale", 1.0f);
  a.v_descale = params.take_float("v_descale", 1.0f);
  a.num_splits = take_num_splits(params);
  // query_tile: validate_flash_attn refuses anything but 0, 64 and 128 with its sentence
  const int64_t tile = params.take_integer<int64_t>("query_tile").value_or(0);
  if (tile < 0 || tile > std::numeric_limits<int>::max())
    throw run_error("--param query_tile=" + std::to_string(tile) + " must be 0 (the host picks: " +
                    std::string(kernels::default_query_tile_rule) + "), 64 or 128");
  a.query_tile = int(tile);
  return a;
}

// PagedAttnArgs: flash_attn's arguments (k, v are the page pools) and the block table inputs.
kernels::PagedAttnArgs paged_attn_args(runtime::Device& dev, const Problem& p, Params& params) {
  kernels::PagedAttnArgs a;
  a.attn = flash_attn_args(dev, p, params);
  a.paged.seqlens_k = p.input("seqlens_k");
  a.paged.block_table = p.maybe("block_table");
  a.paged.block_table_indptr = p.maybe("block_table_indptr");
  a.paged.block_table_indices = p.maybe("block_table_indices");
  return a;
}

// out: the shape of q with the value head dim of v. lse: [B, Hq, Sq] (dense, q rank 4) or
// [Hq, Tq] (varlen, q rank 3); other ranks are the validation's to reject.
Extents attention_out_shape(const Problem& p) {
  Extents s = p.input("q").shape;
  if (!s.empty() && !p.input("v").shape.empty())
    s.back() = p.input("v").shape.back();
  return s;
}
Extents attention_lse_shape(const Problem& p) {
  const Extents& q = p.input("q").shape;
  if (q.size() == 4)
    return {q[0], q[2], q[1]};
  if (q.size() == 3)
    return {q[1], q[0]};
  return {0};
}

const std::map<std::string, KernelRun>& kernel_table() {
  static const std::map<std::string, KernelRun> table = [] {
    std::map<std::string, KernelRun> t;
    const auto mn_ab = mn("a", "b", 1);
    const auto mn_xw = mn("x", "weight", 0);
    const auto bf16_out = [](const Problem&) { return DType::bf16; };
    const auto a_dtype = [](const Problem& p) { return p.input("a").dtype; };
    const auto x_dtype = [](const Problem& p) { return p.input("x").dtype; };
    t["gemm"] = {.required = {"a", "b"},
                 .optional = {"c", "bias"},
                 .matrices = {"a", "b", "c"},
                 .out_shape = mn_ab,
                 .default_out = a_dtype,
                 .call = single([](runtime::Device& d, Problem& p, Params& params) {
                   kernels::gemm(d, {p.input("a"), p.input("b"), p.out.at("out"), p.maybe("c"),
                                     p.maybe("bias"), params.take_float("alpha", 1.0f),
                                     params.take_float("beta", 0.0f)});
                 }),
                 .scalar_params = {"alpha", "beta"}};
    t["scaled_mm"] = {.required = {"a", "b", "scale_a", "scale_b"},
                      .optional = {"bias"},
                      .transposed = {"b"},
                      .matrices = {"a", "b"},
                      .out_shape = mn_ab,
                      .default_out = bf16_out,
                      .call = single([](runtime::Device& d, Problem& p, Params&) {
                        kernels::scaled_mm(d, scaled_mm_args(p));
                      })};
    KernelRun multi = t["scaled_mm"];
    multi.indexed = true;
    multi.call = [](runtime::Device& d, std::vector<Problem>& ps, Params&) {
      kernels::ScaledMmMultiArgs args;
      for (const Problem& p : ps)
        args.problems.push_back(scaled_mm_args(p));
      kernels::scaled_mm_multi(d, args);
    };
    t["scaled_mm_multi"] = multi;
    t["scaled_mm_fused_quant"] = fused_kernel("scaled_mm_fused_quant", "b", "scale_b", true,
                                              DType::e4m3, &kernels::scaled_mm_fused_quant);
    t["mxfp8_gemm"] = {.required = {"a", "b", "scale_a", "scale_b"},
                       .optional = {"bias"},
                       .transposed = {"b"},
                       .matrices = {"a", "b", "scale_a", "scale_b"},
                       .out_shape = mn_ab,
                       .default_out = bf16_out,
                       .call = single([](runtime::Device& d, Problem& p, Params&) {
                         kernels::mxfp8_gemm(d, {p.input("a"), p.input("b"), p.input("scale_a"),
                                                 p.input("scale_b"), p.out.at("out"),
                                                 p.maybe("bias")});
                       }),
                       .implied_dtypes = {{"scale_a", DType::e8m0}, {"scale_b", DType::e8m0}}};
    t["iu4_gemm"] = {.required = {"a", "b"},
                     .transposed = {"b"},
                     .matrices = {"a", "b"},
                     .out_shape = mn_ab,
                     .default_out = [](const Problem&) { return DType::i32; },
                     .call = single([](runtime::Device& d, Problem& p, Params&) {
                       kernels::iu4_gemm(d, {p.input("a"), p.input("b"), p.out.at("out")});
                     })};
    t["w8a16"] = {.required = {"x", "weight", "scale"},
                  .optional = {"bias"},
                  .matrices = {"x", "weight"},
                  .out_shape = mn_xw,
                  .default_out = x_dtype,
                  .call = single([](runtime::Device& d, Problem& p, Params&) {
                    kernels::w8a16(d, {p.input("x"), p.input("weight"), p.input("scale"),
                                       p.out.at("out"), p.maybe("bias")});
                  })};
    t["int8_linear"] = {.required = {"x", "weight", "x_scale", "w_scale"},
                        .optional = {"bias"},
                        .matrices = {"x", "weight"},
                        .out_shape = mn_xw,
                        .default_out = bf16_out,
                        .call = single([](runtime::Device& d, Problem& p, Params&) {
                          kernels::int8_linear(d, {p.input("x"), p.input("weight"),
                                                   p.input("x_scale"), p.input("w_scale"),
                                                   p.out.at("out"), p.maybe("bias")});
                        })};
    t["int8_linear_fused"] = fused_kernel("int8_linear_fused", "weight", "w_scale", false,
                                          DType::int8, &kernels::int8_linear_fused);
    add_elementwise_kernels(t);
    t["flash_attn"] = {.required = {"q", "k", "v"},
                       .optional = {"bias", "mask", "alibi_slopes", "cu_seqlens_q", "cu_seqlens_k"},
                       .out_shape = attention_out_shape,
                       // f16 / bf16 inputs keep their dtype, fp8 / int8 ones write bf16
                       .default_out =
                           [](const Problem& p) {
                             const DType q = p.input("q").dtype;
                             return q == DType::f16 ? DType::f16 : DType::bf16;
                           },
                       .call = single([](runtime::Device& d, Problem& p, Params& params) {
                         kernels::flash_attn(d, flash_attn_args(d, p, params));
                       }),
                       .scalar_params = {"causal", "window", "softcap", "sm_scale", "dropout",
                                         "seed", "offset", "alibi", "q_descale", "k_descale",
                                         "v_descale", "num_splits", "query_tile"},
                       .optional_outputs = {{"lse", attention_lse_shape}},
                       .dtype_follows = {{"k", "q"}, {"v", "q"}}};
    t["linear_attn"] = {
        .required = {"q", "k", "v"},
        .optional = {"decay", "cu_seqlens"},
        .out_shape = attention_out_shape,
        .default_out = [](const Problem& p) { return p.input("q").dtype; },
        .call = single([](runtime::Device& d, Problem& p, Params& params) {
          kernels::LinearAttnArgs a{p.input("q"), p.input("k"), p.input("v"), p.out.at("out")};
          a.decay = p.maybe("decay");
          a.cu_seqlens = p.maybe("cu_seqlens");
          a.scale = params.take_number("scale");
          if (const auto n = params.take("normalize")) {
            if (*n != "0" && *n != "1")
              throw run_error("--param normalize=" + *n + " must be 0 or 1");
            a.normalize = *n == "1";
          }
          a.eps = params.take_float("eps", 1e-6f);
          kernels::linear_attn(d, a);
        }),
        .scalar_params = {"scale", "normalize", "eps"},
        .dtype_follows = {{"k", "q"}, {"v", "q"}}};
    KernelRun paged = t["flash_attn"];
    paged.required = {"q", "k", "v", "seqlens_k"};
    paged.optional = {"block_table",  "block_table_indptr", "block_table_indices",
                      "alibi_slopes", "cu_seqlens_q",       "bias",
                      "mask"};
    paged.call = single([](runtime::Device& d, Problem& p, Params& params) {
      kernels::paged_attn(d, paged_attn_args(d, p, params));
    });
    t["paged_attn"] = paged;
    paged.call = single([](runtime::Device& d, Problem& p, Params& params) {
      kernels::decode_attn(d, paged_attn_args(d, p, params));
    });
    t["decode_attn"] = paged;
    t["mla_decode"] = {
        .required = {"q", "kv_cache", "seqlens_k"},
        .optional = {"block_table", "block_table_indptr", "block_table_indices"},
        // out [B, Sq, Hq, 512]: q's shape with the value width (shape errors are validation's)
        .out_shape =
            [](const Problem& p) {
              Extents s = p.input("q").shape;
              if (!s.empty())
                s.back() = kernels::mla_v_dim;
              return s;
            },
        .default_out = t["flash_attn"].default_out,
        .call = single([](runtime::Device& d, Problem& p, Params& params) {
          kernels::MlaDecodeArgs a;
          a.q = p.input("q");
          a.kv_cache = p.input("kv_cache");
          a.out = p.out.at("out");
          a.lse = p.maybe_out("lse");
          a.paged.seqlens_k = p.input("seqlens_k");
          a.paged.block_table = p.maybe("block_table");
          a.paged.block_table_indptr = p.maybe("block_table_indptr");
          a.paged.block_table_indices = p.maybe("block_table_indices");
          a.causal = take_causal(params, a.causal);
          a.sm_scale = params.take_float("sm_scale", 0.0f);
          a.q_descale = params.take_float("q_descale", 1.0f);
          a.k_descale = params.take_float("k_descale", 1.0f);
          a.v_descale = params.take_float("v_descale", 1.0f);
          a.num_splits = take_num_splits(params);
          kernels::mla_decode(d, a);
        }),
        .scalar_params = {"causal", "sm_scale", "q_descale", "k_descale", "v_descale",
                          "num_splits"},
        .optional_outputs = {{"lse", attention_lse_shape}},
        .dtype_follows = {{"kv_cache", "q"}}};
    return t;
  }();
  return table;
}

// The .npy dtype of an output of dtype `t` (fp8: one uint8 code per element).
std::string npy_descr(DType t) {
  if (t != DType::f32 && t != DType::f16 && t != DType::bf16 && t != DType::i32 &&
      t != DType::int8 && t != DType::e4m3 && t != DType::e5m2 && t != DType::uint8 &&
      !kernels::is_packed_int4(t))
    throw run_error("an output of dtype " + std::string(kernels::dtype_name(t)) +
                    " cannot be written (f32, f16, bf16, i32, int8, uint8, e4m3, e5m2, int4, "
                    "uint4)");
  return storage_descr(t);
}

// Reads one input file and uploads it. `name` is the input's name in the kernel (it picks
// the --param NAME_dtype), `shown` its name on the command line; `k` is the logical K of
// packed int4 matrices.
DeviceInput load_input(runtime::Device& dev, Buffers& buffers, const KernelRun& spec,
                       const std::string& name, const std::string& shown, const std::string& path,
                       Params& params) {
  const npy::Array a = npy::read(path);
  std::optional<DType> declared = params.take_dtype(name + "_dtype");
  if (!declared && spec.implied_dtypes.count(name))
    declared = spec.implied_dtypes.at(name);
  if (!declared && spec.dtype_follows.count(name))
    declared = params.take_dtype(spec.dtype_follows.at(name) + "_dtype");
  const DType dtype = input_dtype(name, path, a, declared);
  Extents shape(a.shape.begin(), a.shape.end());
  Extents strides = kernels::contiguous_strides(shape);
  if (spec.matrices.count(name)) {
    if (shape.size() != 2)
      throw run_error("input '" + shown + "' (" + path + ") has shape " +
                      kernels::format_extents(shape) + "; expected a matrix (rank 2)");
    if (kernels::is_packed_int4(dtype)) {
      // [rows, ceil(K / 2)] bytes hold rows of K nibbles; the row stride is 2 * bytes.
      const int64_t bytes = shape[1];
      int64_t k = 2 * bytes;
      if (const auto kp = params.take("k")) {
        const auto r = std::from_chars(kp->data(), kp->data() + kp->size(), k);
        if (r.ec != std::errc() || r.ptr != kp->data() + kp->size())
          throw run_error("--param k=" + *kp + " is not an integer");
        if (k < 0 || (k + 1) / 2 != bytes)
          throw run_error("--param k=" + *kp + " does not fit input '" + shown + "' (" + path +
                          "), whose rows are " + std::to_string(bytes) + " bytes (K = " +
                          std::to_string(2 * bytes - 1) + " or " + std::to_string(2 * bytes) + ")");
      }
      shape[1] = k;
      strides = {2 * bytes, 1};
    }
    if (spec.transposed.count(name)) { // stored [N, K]: the logical [K, N] is column-major
      shape = {shape[1], shape[0]};
      strides = {strides[1], strides[0]};
    }
  }
  DeviceInput in;
  in.ptr = buffers.upload(a.data);
  in.view = TensorView::on_device(dev, in.ptr, dtype, shape, strides);
  return in;
}

// Files by problem index, then by name without the index.
using FilesByProblem = std::map<size_t, std::map<std::string, std::string>>;

// Reads the NAME=FILE.npy options of `option` (--in or --out); `known` says which names
// the kernel has (without the index), `what` is "input" or "output".
FilesByProblem parse_files(const std::string& kernel, const KernelRun& spec,
                           const std::vector<std::string>& texts, const char* option,
                           const std::function<bool(const std::string&)>& known,
                           const std::string& what, const std::string& names_text) {
  FilesByProblem files;
  for (const std::string& text : texts) {
    const auto [full, path] = split_assignment(text, option);
    std::string name = full;
    size_t index = 0;
    if (spec.indexed) {
      const auto dot = full.rfind('.');
      const std::string digits = dot == std::string::npos ? "" : full.substr(dot + 1);
      const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), index);
      if (digits.empty() || r.ec != std::errc() || r.ptr != digits.data() + digits.size())
        throw run_error(std::string(option) + " '" + full + "' needs a problem index: " + kernel +
                        " names every " + what + " NAME.i for its problem i = 0, 1, ... (e.g. " +
                        full.substr(0, dot) + ".0)");
      name = full.substr(0, dot);
    }
    if (!known(name))
      throw run_error(kernel + " has no " + what + " '" + full + "' " + names_text);
    if (!files[index].emplace(name, path).second)
      throw run_error(what + " '" + full + "' is given twice");
  }
  return files;
}

// The problems' files, checked against each other: every problem 0 .. P-1 has its required
// inputs and its out, and no out names a problem without inputs.
void check_problems(const std::string& kernel, const KernelRun& spec, const FilesByProblem& ins,
                    const FilesByProblem& outs) {
  for (const auto& [i, files] : outs)
    if (!ins.count(i))
      throw run_error("--out " + spec.shown(files.begin()->first, i) + " names problem " +
                      std::to_string(i) + ", which has no inputs (no --in NAME." +
                      std::to_string(i) + "=FILE.npy)");
  size_t expected = 0;
  for (const auto& [i, files] : ins) {
    if (i != expected) {
      std::vector<std::string> given;
      for (const auto& [j, f] : ins)
        given.push_back(std::to_string(j));
      throw run_error(kernel + " problems are numbered 0 .. P-1 without gaps; problem " +
                      std::to_string(expected) + " is missing (inputs name problems " +
                      join(given) + ")");
    }
    ++expected;
    const std::string of = spec.indexed ? " for problem " + std::to_string(i) : "";
    for (const std::string& r : spec.required)
      if (!files.count(r))
        throw run_error(kernel + " needs --in " + spec.shown(r, i) + "=FILE.npy" + of + " " +
                        spec.inputs_text(false));
    const auto o = outs.find(i);
    for (const std::string& r : spec.required_outputs())
      if (o == outs.end() || !o->second.count(r))
        throw run_error(kernel + " needs --out " + spec.shown(r, i) + "=FILE.npy" + of + " " +
                        spec.outputs_text());
  }
}

// A bound on one output's bytes: larger shapes come from damaged inputs, not real problems.
constexpr size_t kMaxOutputBytes = size_t(16) << 30;

// An output buffer on the device and the file it goes to.
struct DeviceOutput {
  std::string path;
  npy::Array array; // zeros until the kernel ran
  runtime::DevicePtr ptr = 0;
  TensorView view;
};

DeviceOutput make_output(runtime::Device& dev, Buffers& buffers, const std::string& path,
                         DType dtype, const Extents& shape) {
  DeviceOutput o;
  o.path = path;
  o.array.dtype = npy_descr(dtype);
  o.array.shape.assign(shape.begin(), shape.end());
  // Packed int4: the file holds the bytes, [.., ceil(K / 2)]; the view counts nibbles.
  const bool packed = kernels::is_packed_int4(dtype) && !shape.empty();
  if (packed)
    o.array.shape.back() = (shape.back() + 1) / 2;
  const size_t bytes = o.array.byte_size();
  if (bytes > kMaxOutputBytes)
    throw run_error("output " + path + " of shape " + kernels::format_extents(shape) + " is " +
                    std::to_string(bytes) + " bytes, more than the " +
                    std::to_string(kMaxOutputBytes >> 30) + " GiB limit of one output");
  o.array.data.assign(bytes, 0);
  o.ptr = buffers.upload(o.array.data);
  Extents strides = kernels::contiguous_strides(shape);
  if (packed && shape.size() == 2)
    strides = {2 * int64_t(o.array.shape.back()), 1};
  o.view = TensorView::on_device(dev, o.ptr, dtype, shape, strides);
  return o;
}

// Two outputs written to one file would silently overwrite each other.
void check_distinct_outputs(const KernelRun& spec, const FilesByProblem& outs) {
  std::map<std::filesystem::path, std::string> seen; // file -> the option that named it
  for (const auto& [i, files] : outs)
    for (const auto& [name, path] : files) {
      std::error_code ec;
      auto canonical = std::filesystem::weakly_canonical(path, ec);
      if (ec)
        canonical = path;
      const std::string option = "--out " + spec.shown(name, i) + "=" + path;
      const auto [it, fresh] = seen.emplace(canonical, option);
      if (!fresh)
        throw run_error(option + " and " + it->second + " name the same file " +
                        canonical.string());
    }
}

int run_kernel(const std::string& kernel, const std::vector<std::string>& ins,
               const std::vector<std::string>& outs, const std::vector<std::string>& param_texts) {
  const auto& table = kernel_table();
  const auto it = table.find(kernel);
  if (it == table.end()) {
    std::vector<std::string> names;
    for (const auto& [n, s] : table)
      names.push_back(n);
    throw run_error("unknown kernel '" + kernel + "': expected one of " + join(names));
  }
  const KernelRun& spec = it->second;
  Params params(param_texts);

  const auto is_input = [&](const std::string& n) {
    return std::count(spec.required.begin(), spec.required.end(), n) ||
           std::count(spec.optional.begin(), spec.optional.end(), n);
  };
  const auto is_output = [&](const std::string& n) {
    return (spec.named_outputs.empty() ? n == "out" : spec.named_outputs.count(n) > 0) ||
           spec.optional_outputs.count(n);
  };
  const FilesByProblem in_files =
      parse_files(kernel, spec, ins, "--in", is_input, "input", spec.inputs_text());
  const FilesByProblem out_files =
      parse_files(kernel, spec, outs, "--out", is_output, "output", spec.outputs_text());
  check_problems(kernel, spec, in_files, out_files);
  check_distinct_outputs(spec, out_files);

  std::unique_ptr<runtime::Device> dev = runtime::make_default_device();
  Buffers buffers(*dev);
  std::vector<Problem> problems(in_files.size());
  for (const auto& [i, files] : in_files)
    for (const auto& [name, path] : files)
      problems[i].in[name] =
          load_input(*dev, buffers, spec, name, spec.shown(name, i), path, params);

  const DType out_dtype =
      spec.named_outputs.empty()
          ? params.take_dtype("out_dtype").value_or(spec.default_out(problems.front()))
          : DType::f32;
  std::vector<DeviceOutput> results;
  for (const auto& [i, files] : out_files)
    for (const auto& [name, path] : files) {
      if (const auto named = spec.named_outputs.find(name); named != spec.named_outputs.end()) {
        results.push_back(make_output(*dev, buffers, path, named->second.dtype(problems[i], params),
                                      named->second.shape(problems[i], params)));
      } else {
        const bool main = name == "out";
        results.push_back(make_output(*dev, buffers, path, main ? out_dtype : DType::f32,
                                      main ? spec.out_shape(problems[i])
                                           : spec.optional_outputs.at(name)(problems[i])));
      }
      problems[i].out[name] = results.back().view;
    }

  for (const std::string& p : spec.scalar_params) // read by the call below
    params.take(p);
  params.reject_unused(kernel);
  spec.call(*dev, problems, params);
  dev->synchronize();
  for (DeviceOutput& r : results) {
    if (!r.array.data.empty())
      dev->copy_to_host(r.array.data.data(), r.ptr, r.array.data.size());
    npy::write(r.path, r.array);
    std::cout << kernel << ": wrote " << r.path << " " << kernels::format_extents(r.view.shape)
              << " " << kernels::dtype_name(r.view.dtype) << " on " << dev->name() << "\n";
  }
  return 0;
}

const Command run_command{
    "run", "run a shipped kernel on the default device with .npy inputs and outputs",
    [](CLI::App& sub) -> Command::Action {
      auto kernel = std::make_shared<std::string>();
      auto ins = std::make_shared<std::vector<std::string>>();
      auto outs = std::make_shared<std::vector<std::string>>();
      auto params = std::make_shared<std::vector<std::string>>();
      sub.add_option("kernel", *kernel,
                     "gemm, scaled_mm, scaled_mm_fused_quant, scaled_mm_multi, w8a16, "
                     "int8_linear, int8_linear_fused, iu4_gemm, mxfp8_gemm, silu, swiglu, "
                     "rms_norm, layer_norm, adaln, rope, rms_norm_rope, quant_int8, "
                     "quant_fp8_stochastic, quant_w4a8, quant_svdquant, quant_convrot, "
                     "dequant_fp8, dequant_awq, qk_norm_quant, flash_attn, paged_attn, "
                     "decode_attn, mla_decode or linear_attn")
          ->required();
      sub.add_option("--in", *ins,
                     "NAME=FILE.npy: an input (NAME.i for problem i of scaled_mm_multi; see "
                     "docs/kernels.md)")
          ->required();
      sub.add_option("--out", *outs,
                     "NAME=FILE.npy: where an output is written: out (out.i for "
                     "scaled_mm_multi); scale_out for the fused kernels; q and scale for "
                     "quant_int8, quant_svdquant, quant_convrot and quant_w4a8 (also "
                     "group_scale, zeros, correction); q_out, k_out, q_scale and k_scale for "
                     "qk_norm_quant; lse for flash_attn, paged_attn, decode_attn and mla_decode")
          ->required();
      sub.add_option("--param", *params,
                     "k=v: NAME_dtype (bf16, e4m3, e5m2, int4, uint4, ...), out_dtype, k, "
                     "alpha, beta, quant_dtype, lora_scale, eps, block_size, head_dim, style, "
                     "offset, base, granularity, scale, group_size, mode, group_scale_dtype, seed "
                     "(also quant_fp8_stochastic); flash_attn, paged_attn, decode_attn: causal, "
                     "window=L,R, softcap, sm_scale, dropout, seed, offset, alibi, q/k/v_descale, "
                     "num_splits, query_tile (64 or 128); mla_decode: causal, sm_scale, "
                     "q/k/v_descale, num_splits; "
                     "qk_norm_quant: head_dim, rope_dim, quant_dtype; linear_attn: "
                     "scale, normalize, eps");
      return [=] { return run_kernel(*kernel, *ins, *outs, *params); };
    }};

} // namespace
} // namespace tw::tool
