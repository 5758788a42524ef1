// SiLU and SwiGLU: the map skeleton with silu(x) / silu(gate) * up as its block.
#include <kernels/elementwise/elementwise_api.hpp>
#include <kernels/elementwise/launch.hpp>
#include <kernels/elementwise/map_skeleton.hpp>

#include <dsl/ops/activation.hpp>

namespace tw::kernels {

using namespace elementwise;

namespace {

constexpr std::initializer_list<DType> float_dtypes = {DType::f16, DType::bf16, DType::f32};

// A map over `inputs` -> `out` whose block is `op`.
void run_map(runtime::Device& device, const ArgChecker& check, const std::string& op_name,
             const std::vector<std::pair<const char*, const TensorView*>>& inputs,
             const TensorView& out, int requested_block, const MapOp& op) {
  const int threads = block_size(check, requested_block);
  const Rows shape = rows_of(check, out, "out", device);
  for (const auto& [name, t] : inputs) {
    rows_of(check, *t, name, device);
    same_shape(check, *t, name, out, "out");
    check.no_overlap(out, "out", *t, name, /*allow_same=*/true);
  }
  if (shape.empty())
    return;
  std::vector<const TensorView*> all, ins;
  std::vector<std::pair<const char*, DType>> in_decl;
  for (const auto& [name, t] : inputs) {
    all.push_back(t);
    ins.push_back(t);
    in_decl.push_back({name, t->dtype});
  }
  all.push_back(&out);
  const int vec = access_vec(all);
  std::string k = op_name;
  for (const TensorView* t : all)
    k.append("_").append(dtype_name(t->dtype));
  k.append("_v").append(std::to_string(vec)).append("_t").append(std::to_string(threads));
  const auto build = [&] {
    dsl::KernelBuilder kb(k, {threads, 1, 1});
    const MapArgs a = map_args(kb, in_decl, {{"out", out.dtype}});
    map_rows(a.inputs, a.outputs, a.rows, a.width, vec, op);
    return kb.finish();
  };
  launch(device, k, build, blocks_for(check, map_threads(shape.rows, shape.width, vec), threads),
         threads, map_kernel_args(ins, {&out}, shape));
}

} // namespace

void silu(runtime::Device& device, const SiluArgs& args) {
  const ArgChecker check("silu");
  check.dtype_in(args.x, "x", float_dtypes);
  check.dtype_in(args.out, "out", float_dtypes);
  run_map(device, check, "silu", {{"x", &args.x}}, args.out, args.block_size,
          [](const dsl::Int64&, const dsl::Int64&, const Values& x) {
            return Values{dsl::silu(x[0])};
          });
}

void swiglu(runtime::Device& device, const SwigluArgs& args) {
  const ArgChecker check("swiglu");
  check.dtype_in(args.gate, "gate", float_dtypes);
  check.same_dtype(args.up, "up", args.gate, "gate");
  check.dtype_in(args.out, "out", float_dtypes);
  run_map(device, check, "swiglu", {{"gate", &args.gate}, {"up", &args.up}}, args.out,
          args.block_size, [](const dsl::Int64&, const dsl::Int64&, const Values& x) {
            return Values{dsl::silu(x[0]) * x[1]};
          });
}

} // namespace tw::kernels
