// `tilewave run KERNEL --in NAME=FILE.npy ... --out out=FILE.npy [--param k=v ...]` runs a
// shipped kernel on the default device (TILEWAVE_DEVICE=hip|emu overrides) with NumPy
// inputs and writes its output. The .npy conventions are in docs/kernels.md ("tilewave run
// .npy conventions"): C-order arrays; fp8 / e8m0 / int4 as uint8 codes (int4 two per byte,
// element 2i in the low nibble) and bf16 as uint16 bits, named with --param NAME_dtype=...;
// K-contiguous operands (b of scaled_mm, mxfp8_gemm, iu4_gemm) stored as b^T, [N, K].
//
// The GEMM kernel bodies are not written yet: valid arguments end in the entry point's
// "gemm kernel bodies not implemented yet" error, bad ones in its validation sentence.
#include "tilewave/command.hpp"

#include <kernels/gemm/gemm_api.hpp>
#include <runtime/device.hpp>
#include <tools/npy/npy.hpp>

#include <algorithm>
#include <charconv>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace tw::tool {
namespace {

using kernels::DType;
using kernels::Extents;
using kernels::TensorView;

std::runtime_error run_error(const std::string& what) {
  return std::runtime_error("run: " + what);
}

// Splits "NAME=VALUE" (the option is named in the error).
std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw run_error(std::string(option) + " '" + text + "' must be NAME=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
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
  float take_float(const std::string& key, float fallback) {
    const auto v = take(key);
    if (!v)
      return fallback;
    float f = 0;
    const auto r = std::from_chars(v->data(), v->data() + v->size(), f);
    if (r.ec != std::errc() || r.ptr != v->data() + v->size())
      throw run_error("--param " + key + "=" + *v + " is not a number");
    return f;
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

// The tensor dtype an .npy storage type holds, given the optional --param NAME_dtype.
DType input_dtype(const std::string& name, const std::string& path, const npy::Array& a,
                  const std::optional<std::string>& declared) {
  if (!declared) {
    if (a.dtype == "<f4")
      return DType::f32;
    if (a.dtype == "<f2")
      return DType::f16;
    if (a.dtype == "|i1")
      return DType::int8;
    if (a.dtype == "|u1")
      return DType::uint8;
    if (a.dtype == "<i4")
      return DType::i32;
    throw run_error("input '" + name + "' (" + path + ") has NumPy dtype " + a.dtype +
                    ", which needs --param " + name + "_dtype=... to say what it holds");
  }
  const DType t = kernels::parse_dtype(*declared);
  const std::string want = t == DType::f32    ? "<f4"
                           : t == DType::f16  ? "<f2"
                           : t == DType::bf16 ? "<u2"
                           : t == DType::int8 ? "|i1"
                           : t == DType::i32  ? "<i4"
                                              : "|u1";
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

// How a kernel's inputs are stored in the .npy files and how to call its entry point.
struct KernelRun {
  std::vector<std::string> required, optional;
  std::set<std::string> transposed; // stored [N, K] for a logical [K, N] column-major operand
  std::set<std::string> matrices;   // rank-2 operands (int4 packing applies to them)
  // out shape and default out dtype from the inputs
  std::function<Extents(std::map<std::string, DeviceInput>&)> out_shape;
  std::function<DType(std::map<std::string, DeviceInput>&)> default_out;
  std::function<void(runtime::Device&, std::map<std::string, DeviceInput>&, const TensorView&,
                     Params&)>
      call;
  std::vector<std::string> scalar_params{}; // --param names the call reads (alpha, beta)
};

std::optional<TensorView> maybe(std::map<std::string, DeviceInput>& in, const std::string& n) {
  auto it = in.find(n);
  return it == in.end() ? std::nullopt : std::optional(it->second.view);
}

const std::map<std::string, KernelRun>& kernel_table() {
  using In = std::map<std::string, DeviceInput>;
  static const std::map<std::string, KernelRun> table = [] {
    std::map<std::string, KernelRun> t;
    const auto mn_ab = [](In& in) { return Extents{in["a"].view.shape[0], in["b"].view.shape[1]}; };
    const auto mn_xw = [](In& in) {
      return Extents{in["x"].view.shape[0], in["weight"].view.shape[0]};
    };
    const auto bf16_out = [](In&) { return DType::bf16; };
    t["gemm"] = {{"a", "b"},
                 {"c", "bias"},
                 {},
                 {"a", "b", "c"},
                 mn_ab,
                 [](In& in) { return in["a"].view.dtype; },
                 [](runtime::Device& d, In& in, const TensorView& out, Params& p) {
                   kernels::GemmArgs g{in["a"].view,
                                       in["b"].view,
                                       out,
                                       maybe(in, "c"),
                                       maybe(in, "bias"),
                                       p.take_float("alpha", 1.0f),
                                       p.take_float("beta", 0.0f)};
                   kernels::gemm(d, g);
                 },
                 {"alpha", "beta"}};
    t["scaled_mm"] = {{"a", "b", "scale_a", "scale_b"},
                      {"bias"},
                      {"b"},
                      {"a", "b"},
                      mn_ab,
                      bf16_out,
                      [](runtime::Device& d, In& in, const TensorView& out, Params&) {
                        kernels::scaled_mm(d, {in["a"].view, in["b"].view, in["scale_a"].view,
                                               in["scale_b"].view, out, maybe(in, "bias")});
                      }};
    t["mxfp8_gemm"] = {{"a", "b", "scale_a", "scale_b"},
                       {"bias"},
                       {"b"},
                       {"a", "b", "scale_a", "scale_b"},
                       mn_ab,
                       bf16_out,
                       [](runtime::Device& d, In& in, const TensorView& out, Params&) {
                         kernels::mxfp8_gemm(d, {in["a"].view, in["b"].view, in["scale_a"].view,
                                                 in["scale_b"].view, out, maybe(in, "bias")});
                       }};
    t["iu4_gemm"] = {{"a", "b"},
                     {},
                     {"b"},
                     {"a", "b"},
                     mn_ab,
                     [](In&) { return DType::i32; },
                     [](runtime::Device& d, In& in, const TensorView& out, Params&) {
                       kernels::iu4_gemm(d, {in["a"].view, in["b"].view, out});
                     }};
    t["w8a16"] = {{"x", "weight", "scale"},
                  {"bias"},
                  {},
                  {"x", "weight"},
                  mn_xw,
                  [](In& in) { return in["x"].view.dtype; },
                  [](runtime::Device& d, In& in, const TensorView& out, Params&) {
                    kernels::w8a16(d, {in["x"].view, in["weight"].view, in["scale"].view, out,
                                       maybe(in, "bias")});
                  }};
    t["int8_linear"] = {{"x", "weight", "x_scale", "w_scale"},
                        {"bias"},
                        {},
                        {"x", "weight"},
                        mn_xw,
                        bf16_out,
                        [](runtime::Device& d, In& in, const TensorView& out, Params&) {
                          kernels::int8_linear(d,
                                               {in["x"].view, in["weight"].view, in["x_scale"].view,
                                                in["w_scale"].view, out, maybe(in, "bias")});
                        }};
    return t;
  }();
  return table;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& e : v)
    s += (s.empty() ? "" : ", ") + e;
  return s;
}

std::string npy_descr(DType t) {
  switch (t) {
  case DType::f32:
    return "<f4";
  case DType::f16:
    return "<f2";
  case DType::bf16:
    return "<u2";
  case DType::i32:
    return "<i4";
  default:
    throw run_error("an output of dtype " + std::string(kernels::dtype_name(t)) +
                    " cannot be written (f32, f16, bf16, i32)");
  }
}

// Reads one input file and uploads it; `k_param` is the logical K of packed int4 matrices.
DeviceInput load_input(runtime::Device& dev, Buffers& buffers, const KernelRun& spec,
                       const std::string& name, const std::string& path, Params& params) {
  const npy::Array a = npy::read(path);
  const DType dtype = input_dtype(name, path, a, params.take(name + "_dtype"));
  Extents shape(a.shape.begin(), a.shape.end());
  Extents strides = kernels::contiguous_strides(shape);
  if (spec.matrices.count(name)) {
    if (shape.size() != 2)
      throw run_error("input '" + name + "' (" + path + ") has shape " +
                      kernels::format_extents(shape) + "; expected a matrix (rank 2)");
    if (kernels::is_packed_int4(dtype)) {
      // [rows, ceil(K / 2)] bytes hold rows of K nibbles; the row stride is 2 * bytes.
      const int64_t bytes = shape[1];
      int64_t k = 2 * bytes;
      if (const auto kp = params.take("k")) {
        k = std::stoll(*kp);
        if (k < 0 || (k + 1) / 2 != bytes)
          throw run_error("--param k=" + *kp + " does not fit input '" + name + "' (" + path +
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

  std::map<std::string, std::string> in_files;
  for (const std::string& text : ins) {
    auto [name, path] = split_assignment(text, "--in");
    const bool known = std::count(spec.required.begin(), spec.required.end(), name) ||
                       std::count(spec.optional.begin(), spec.optional.end(), name);
    if (!known)
      throw run_error(kernel + " has no input '" + name + "' (inputs: " + join(spec.required) +
                      (spec.optional.empty() ? "" : "; optional: " + join(spec.optional)) + ")");
    if (!in_files.emplace(name, path).second)
      throw run_error("input '" + name + "' is given twice");
  }
  for (const std::string& r : spec.required)
    if (!in_files.count(r))
      throw run_error(kernel + " needs --in " + r + "=FILE.npy (inputs: " + join(spec.required) +
                      ")");
  if (outs.size() != 1 || split_assignment(outs[0], "--out").first != "out")
    throw run_error("expected exactly one --out out=FILE.npy");
  const std::string out_path = split_assignment(outs[0], "--out").second;

  std::unique_ptr<runtime::Device> dev = runtime::make_default_device();
  Buffers buffers(*dev);
  std::map<std::string, DeviceInput> inputs;
  for (const auto& [name, path] : in_files)
    inputs[name] = load_input(*dev, buffers, spec, name, path, params);

  const DType out_dtype = params.take("out_dtype") ? kernels::parse_dtype(*params.take("out_dtype"))
                                                   : spec.default_out(inputs);
  const Extents out_shape = spec.out_shape(inputs);
  const std::string descr = npy_descr(out_dtype);
  npy::Array result;
  result.dtype = descr;
  result.shape.assign(out_shape.begin(), out_shape.end());
  result.data.assign(result.count() * result.element_size(), 0);
  const runtime::DevicePtr out_ptr = buffers.upload(result.data);
  const TensorView out = TensorView::on_device(*dev, out_ptr, out_dtype, out_shape);

  for (const std::string& p : spec.scalar_params) // read by the call below
    params.take(p);
  params.reject_unused(kernel);
  spec.call(*dev, inputs, out, params);
  dev->synchronize();
  if (!result.data.empty())
    dev->copy_to_host(result.data.data(), out_ptr, result.data.size());
  npy::write(out_path, result);
  std::cout << kernel << ": wrote " << out_path << " " << kernels::format_extents(out_shape) << " "
            << kernels::dtype_name(out_dtype) << " on " << dev->name() << "\n";
  return 0;
}

const Command run_command{
    "run", "run a shipped kernel on the default device with .npy inputs and output",
    [](CLI::App& sub) -> Command::Action {
      auto kernel = std::make_shared<std::string>();
      auto ins = std::make_shared<std::vector<std::string>>();
      auto outs = std::make_shared<std::vector<std::string>>();
      auto params = std::make_shared<std::vector<std::string>>();
      sub.add_option("kernel", *kernel,
                     "gemm, scaled_mm, w8a16, int8_linear, iu4_gemm or mxfp8_gemm")
          ->required();
      sub.add_option("--in", *ins, "NAME=FILE.npy: an input (see docs/kernels.md)")->required();
      sub.add_option("--out", *outs, "out=FILE.npy: where the output is written")->required();
      sub.add_option("--param", *params,
                     "k=v: NAME_dtype (bf16, e4m3, e5m2, int4, uint4, ...), out_dtype, k, "
                     "alpha, beta");
      return [=] { return run_kernel(*kernel, *ins, *outs, *params); };
    }};

} // namespace
} // namespace tw::tool
