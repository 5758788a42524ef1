// Stochastic rounding f32 -> fp8 (e4m3 / e5m2): the map skeleton with one Philox draw and one
// v_cvt_sr_* per element as its block. The random-bits rule (docs/kernels.md): element
// e = row * width + col takes word e % 4 of philox4x32_10(counter (e / 4, offset), key seed).
#include <kernels/elementwise/launch.hpp>
#include <kernels/elementwise/map_skeleton.hpp>
#include <kernels/quant/quant_api.hpp>

#include <dsl/handles/convert.hpp>
#include <dsl/ops/philox.hpp>

namespace tw::kernels {

using namespace elementwise;

namespace {

// Word e % 4 of the Philox block of element e.
dsl::UInt32 element_random_bits(const dsl::UInt64& e, const dsl::UInt64& seed,
                                const dsl::UInt64& offset) {
  using namespace tw::dsl;
  const std::array<UInt32, 4> r = philox4x32_10(philox_counter(e >> 2, offset), philox_key(seed));
  const UInt64 word = e & UInt64(3);
  return select(word == UInt64(0), r[0],
                select(word == UInt64(1), r[1], select(word == UInt64(2), r[2], r[3])));
}

} // namespace

void quant_fp8_stochastic(runtime::Device& device, const QuantFp8StochasticArgs& args) {
  const ArgChecker check("quant_fp8_stochastic");
  check.dtype_in(args.x, "x", {DType::f32});
  check.dtype_in(args.q, "q", {DType::e4m3, DType::e5m2});
  const int threads = block_size(check, args.block_size);
  const Rows shape = rows_of(check, args.x, "x", device);
  rows_of(check, args.q, "q", device);
  same_shape(check, args.q, "q", args.x, "x");
  check.no_overlap(args.q, "q", args.x, "x");
  if (shape.empty())
    return;
  const bool e5m2 = args.q.dtype == DType::e5m2;
  const int vec = access_vec({&args.x, &args.q});
  const std::string key = "quant_fp8_stochastic_" + std::string(dtype_name(args.q.dtype)) + "_v" +
                          std::to_string(vec) + "_t" + std::to_string(threads);
  const auto build = [&] {
    using namespace tw::dsl;
    KernelBuilder kb(key, {threads, 1, 1});
    const MapArgs m = map_args(kb, {{"x", DType::f32}}, {{"q", args.q.dtype}});
    const auto [seed_arg, offset_arg] = kb.args(scalar<i64>("seed"), scalar<i64>("offset"));
    const UInt64 seed = cast<u64>(seed_arg), offset = cast<u64>(offset_arg);
    map_rows(m.inputs, m.outputs, m.rows, m.width, vec,
             [&](const Int64& row, const Int64& col, const Values& v) {
               const UInt32 bits =
                   element_random_bits(cast<u64>(row * m.width + col), seed, offset);
               // The code decodes exactly to f32 and the store's (RNE, saturating) conversion
               // gives the same code back.
               const Float32 code =
                   e5m2 ? cast<f32>(convert_stochastic<dsl::e5m2>(v[0], bits, true))
                        : cast<f32>(convert_stochastic<dsl::e4m3>(v[0], bits, true));
               return Values{code};
             });
    return kb.finish();
  };
  runtime::KernelArgs a = map_kernel_args({&args.x}, {&args.q}, shape);
  a.add<int64_t>(int64_t(args.seed)).add<int64_t>(int64_t(args.offset));
  launch(device, key, build, blocks_for(check, map_threads(shape.rows, shape.width, vec), threads),
         threads, a);
}

} // namespace tw::kernels
