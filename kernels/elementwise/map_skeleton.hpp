#pragma once
// The map skeleton: every element-wise kernel (SiLU, SwiGLU, RoPE, tensorwise quantization, FP8
// dequantization, ...) is this loop with its operation as a block.
//
// The tensors are [rows, width]; row r of tensor t starts at t.row_start(r) (default r * t.ld:
// a column slice of a larger buffer is fine) and column c covers elements c * per_col ..
// + per_col of the row (per_col = 2: the pairs of interleaved RoPE). Thread u of the grid owns
// run u: row u / ceil(width / V), columns V * (u % ceil(width / V)) .. + V. A whole run moves
// with 128-bit accesses (pieces of at most 16 bytes); the last run of a row, when width % V
// != 0, moves as a tail of masked scalar accesses. Index math is 64-bit. Every input element is
// read once and every output element written once.
#include <kernels/elementwise/typed_access.hpp>

#include <functional>
#include <optional>

namespace tw::kernels::elementwise {

using RowStart = std::function<dsl::Int64(const dsl::Int64& row)>;

struct MapTensor {
  AnyPtr ptr;
  dsl::Int64 ld;      // row stride in elements (when row_start is empty)
  RowStart row_start; // element offset of row r (empty: r * ld)
  int per_col = 1;    // elements per column
  // Elements of a row when fewer than width * per_col (a packed row of odd length: the last
  // column's second element is past the row and neither loaded nor stored).
  std::optional<dsl::Int64> row_elements = std::nullopt;

  dsl::Int64 start(const dsl::Int64& row) const { return row_start ? row_start(row) : row * ld; }
  // The element index just past row `row` of a map `width` columns wide.
  dsl::Int64 end(const dsl::Int64& row, const dsl::Int64& width) const {
    return start(row) + (row_elements ? *row_elements : width * dsl::Int64(per_col));
  }
};

// op(row, col, inputs) -> outputs: one element's f32 inputs (one per input tensor, in order)
// to its f32 outputs (one per output tensor), stored with the output dtype's conversion.
using MapOp =
    std::function<Values(const dsl::Int64& row, const dsl::Int64& col, const Values& inputs)>;
// The general form: a whole run (V columns) at once, runs[t] holding V * per_col elements of
// tensor t; returns one such vector per output.
using RunOp = std::function<std::vector<Values>(const dsl::Int64& row, const dsl::Int64& col,
                                                const std::vector<Values>& runs)>;

// The map over [rows, width] with runs of `vec` columns (1, 2, 4, 8 or 16).
void map_runs(const std::vector<MapTensor>& inputs, const std::vector<MapTensor>& outputs,
              const dsl::Int64& rows, const dsl::Int64& width, int vec, const RunOp& op);
// The element form (every tensor has per_col = 1).
void map_rows(const std::vector<MapTensor>& inputs, const std::vector<MapTensor>& outputs,
              const dsl::Int64& rows, const dsl::Int64& width, int vec, const MapOp& op);

// The map over [groups * inner, width] whose rows come in groups of `inner` consecutive rows
// sharing per-column data (RoPE: the heads of a token share its cos / sin row): thread u owns run
// u % ceil(width / vec) of group u / ceil(width / vec) and loops over the group's rows
// (row = group * inner + i). `setup(group, col)` runs once per thread, before the loop (it
// loads or computes the shared data: read once per group), and returns the op of the rows.
// The grid is map_threads(groups, width, vec).
using RunSetup = std::function<RunOp(const dsl::Int64& group, const dsl::Int64& col)>;
void map_grouped_runs(const std::vector<MapTensor>& inputs, const std::vector<MapTensor>& outputs,
                      const dsl::Int64& groups, const dsl::Int64& inner, const dsl::Int64& width,
                      int vec, const RunSetup& setup);

// The general form of the grouped map: `blocks` blocks of consecutive rows, block b covering
// rows [rows(b).first, rows(b).second), a block's rows sharing per-column data that
// `setup(b, col)` loads once per thread (dequant_awq: a slice of a quantization group shares
// the group's zero points and scales). The grid is map_threads(blocks, width, vec).
using BlockRows = std::function<std::pair<dsl::Int64, dsl::Int64>(const dsl::Int64& block)>;
void map_blocked_runs(const std::vector<MapTensor>& inputs, const std::vector<MapTensor>& outputs,
                      const dsl::Int64& blocks, const BlockRows& rows, const dsl::Int64& width,
                      int vec, const RunSetup& setup);

// The map with one workgroup per row, its threads looping over the row's runs (thread t: runs
// t, t + threads, ...), for rows that share a value (dequant_fp8's row scale): `setup(row)` runs
// once per workgroup, before the loop, at a uniform row (a load there reads the value once per
// wave), and returns the op of the row's runs. The grid is `rows` workgroups.
using RowRunSetup = std::function<RunOp(const dsl::Int64& row)>;
void map_row_runs(const std::vector<MapTensor>& inputs, const std::vector<MapTensor>& outputs,
                  const dsl::Int64& width, int vec, const RowRunSetup& setup);

// Threads of the grid the map needs: rows * ceil(width / vec).
int64_t map_threads(int64_t rows, int64_t width, int vec);

// The kernel arguments every element map starts with, in this order: one pointer per input and
// per output (names given), then i64 rows, width, and the row stride of each input and output.
struct MapArgs {
  std::vector<MapTensor> inputs, outputs;
  dsl::Int64 rows, width;
};
MapArgs map_args(dsl::KernelBuilder& kb, const std::vector<std::pair<const char*, DType>>& inputs,
                 const std::vector<std::pair<const char*, DType>>& outputs);

} // namespace tw::kernels::elementwise
