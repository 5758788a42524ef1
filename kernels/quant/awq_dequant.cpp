// AWQ dequantization: the blocked map skeleton over byte columns (two packed uint4 weights
// each). A block is a slice of at most awq_block_rows rows of one quantization group: each
// thread loads its run of the group's zero points and scales once, then dequantizes its column
// run in every row of the slice.
#include <kernels/elementwise/launch.hpp>
#include <kernels/elementwise/map_skeleton.hpp>
#include <kernels/quant/quant_api.hpp>

#include <bit>

namespace tw::kernels {

using namespace elementwise;

namespace {

// A packed uint4 [rows, cols] row-major matrix (the library's 4-bit packing: rows start on a
// byte, so an odd number of columns leaves a pad nibble): returns its row stride in bytes.
int64_t packed_rows(const ArgChecker& check, const TensorView& t, std::string_view arg,
                    const runtime::Device& device) {
  check.well_formed(t, arg);
  check.dtype_in(t, arg, {DType::uint4});
  check.order(t, arg, row_major_only); // well_formed refused an odd row stride
  const int64_t ld = t.shape[0] > 1 ? t.strides[0] : t.shape[1] + t.shape[1] % 2;
  if (!t.empty())
    check.on_device(t, arg, device);
  return ld / 2;
}

// Rows of a group that share one load of its zero points and scales (a block of the map): the
// largest power of two up to group_size that still gives every thread the target keeps
// resident (gfx1201: 64 CUs x 32 waves x 32 lanes = 65536) one run of a block. The group's zero
// points and scales are read ceil(group_size / block_rows) times. (Modeled, gfx1201, bf16 out,
// group 128, 4-byte-column runs: K = N = 4096 gets 32 rows, reads x1.113 of the minimum in
// 66.0 us, DRAM-bound, where all 128 rows read x1.000 in 170.4 us; K = 4096, N = 1024 gets 8
// rows, 16.5 us, DRAM-bound, where 16 rows take 24.1 us and 32 rows 44.7 us.)
int64_t awq_block_rows(int64_t k, int64_t group_size, int64_t runs_per_row) {
  const int64_t wanted = resident_workgroups(256) * 256;
  const int64_t groups = (k + group_size - 1) / group_size;
  int64_t rows = int64_t(std::bit_floor(uint64_t(group_size)));
  while (rows > 1 && groups * ((group_size + rows - 1) / rows) * runs_per_row < wanted)
    rows /= 2;
  return rows;
}

} // namespace

void dequant_awq(runtime::Device& device, const DequantAwqArgs& args) {
  const ArgChecker check("dequant_awq");
  const int threads = block_size(check, args.block_size);
  if (args.group_size <= 0)
    check.fail_parameter("group_size",
                         "is " + std::to_string(args.group_size) + "; expected a group size > 0");
  const int64_t ld_q = packed_rows(check, args.qweight, "qweight", device);
  const int64_t k = args.qweight.shape[0], n = args.qweight.shape[1];
  const int64_t groups = (k + args.group_size - 1) / args.group_size;
  const int64_t ld_z = packed_rows(check, args.zeros, "zeros", device);
  check.shape_is(args.zeros, "zeros", {groups, n}, "[ceil(K / group_size), N]");
  check.dtype_in(args.scales, "scales", {DType::f16, DType::bf16});
  const Rows sr = rows_of(check, args.scales, "scales", device);
  check.shape_is(args.scales, "scales", {groups, n}, "[ceil(K / group_size), N]");
  check.dtype_in(args.out, "out", {DType::f16, DType::bf16, DType::f32});
  const Rows orows = rows_of(check, args.out, "out", device);
  check.shape_is(args.out, "out", {k, n}, "[K, N] of 'qweight'");
  for (const auto& [t, name] : {std::pair{&args.qweight, "qweight"},
                                std::pair{&args.zeros, "zeros"}, std::pair{&args.scales, "scales"}})
    check.no_overlap(args.out, "out", *t, name);
  if (k == 0 || n == 0)
    return;
  const int vec = access_vec_runs({{DType::uint8, args.qweight.address(), {ld_q}, 1},
                                   {DType::uint8, args.zeros.address(), {ld_z}, 1},
                                   {args.scales.dtype, args.scales.address(), {sr.ld}, 2},
                                   {args.out.dtype, args.out.address(), {orows.ld}, 2}});
  const std::string key = "dequant_awq_" + std::string(dtype_name(args.scales.dtype)) + "_" +
                          std::string(dtype_name(args.out.dtype)) + "_v" + std::to_string(vec) +
                          "_t" + std::to_string(threads);
  const auto build = [&] {
    using namespace tw::dsl;
    KernelBuilder kb(key, {threads, 1, 1});
    const AnyPtr q = any_ptr_arg(kb, "qweight", DType::uint8),
                 z = any_ptr_arg(kb, "zeros", DType::uint8),
                 sc = any_ptr_arg(kb, "scales", args.scales.dtype),
                 out = any_ptr_arg(kb, "out", args.out.dtype);
    const auto [rows, n_cols, bytes_per_row, group, lq, lz, ls, lo, block_rows, blocks_per_group] =
        kb.args(scalar<i64>("k"), scalar<i64>("n"), scalar<i64>("bytes_per_row"),
                scalar<i64>("group_size"), scalar<i64>("ld_q"), scalar<i64>("ld_z"),
                scalar<i64>("ld_s"), scalar<i64>("ld_out"), scalar<i64>("block_rows"),
                scalar<i64>("blocks_per_group"));
    const std::vector<MapTensor> ins = {{q, lq, {}, 1}};
    // An odd N: the last byte column holds one weight (its high nibble is the pad).
    const std::vector<MapTensor> outs = {{out, lo, {}, 2, n_cols}};
    // Block b: slice b mod blocks_per_group of group b / blocks_per_group, its rows cut at the
    // group's end and at K.
    const auto group_of = [&](const Int64& b) { return b / blocks_per_group; };
    const BlockRows block_range = [&](const Int64& b) {
      const Int64 g = group_of(b);
      const Int64 first = g * group + (b - g * blocks_per_group) * block_rows;
      const Int64 group_end = g * group + group;
      const Int64 end = select(first + block_rows < group_end, first + block_rows, group_end);
      return std::pair{first, select(end < rows, end, rows)};
    };
    // A byte b holds the nibbles lo = b mod 16 (element 2i) and hi = b / 16 (element 2i + 1);
    // the f32 code is exact, truncation is the floor for these non-negative values.
    const auto nibbles = [](const Float32& b) {
      const Float32 hi = cast<f32>(cast<i32>(b * Float32(0.0625)));
      return std::pair{b - hi * Float32(16.0), hi};
    };
    map_blocked_runs(ins, outs, ceil_div(rows, group) * blocks_per_group, block_range,
                     bytes_per_row, vec, [&](const Int64& b, const Int64& col) {
                       const Int64 g = group_of(b);
                       const Values zs =
                           load_run_or_tail(z, g * lz + col, vec, g * lz + bytes_per_row);
                       const Values ss =
                           load_run_or_tail(sc, g * ls + col * Int64(2), 2 * vec, g * ls + n_cols);
                       return RunOp([=](const Int64&, const Int64&, const std::vector<Values>& in) {
                         Values y;
                         for (int j = 0; j < vec; ++j) {
                           const std::size_t u = std::size_t(j);
                           const auto [q0, q1] = nibbles(in[0][u]);
                           const auto [z0, z1] = nibbles(zs[u]);
                           y.push_back((q0 - z0) * ss[2 * u]);
                           y.push_back((q1 - z1) * ss[2 * u + 1]);
                         }
                         return std::vector<Values>{y};
                       });
                     });
    return kb.finish();
  };
  runtime::KernelArgs a;
  for (const TensorView* t : {&args.qweight, &args.zeros, &args.scales, &args.out})
    a.ptr(t->device_address);
  const int64_t bytes_per_row = (n + 1) / 2;
  a.add<int64_t>(k).add<int64_t>(n).add<int64_t>(bytes_per_row).add<int64_t>(args.group_size);
  a.add<int64_t>(ld_q).add<int64_t>(ld_z).add<int64_t>(sr.ld).add<int64_t>(orows.ld);
  const int64_t block_rows = awq_block_rows(k, args.group_size, (bytes_per_row + vec - 1) / vec);
  const int64_t blocks_per_group = (args.group_size + block_rows - 1) / block_rows;
  a.add<int64_t>(block_rows).add<int64_t>(blocks_per_group);
  launch(device, key, build,
         blocks_for(check, map_threads(groups * blocks_per_group, bytes_per_row, vec), threads),
         threads, a);
}

} // namespace tw::kernels
