#pragma once
// The map skeleton: every element-wise kernel (SiLU, SwiGLU, tensorwise quantization, FP8
// dequantization, ...) is this loop with its operation as a block.
//
// The tensors are [rows, width] with a row stride each (a column slice of a larger buffer is
// fine); element (r, c) of tensor t is at t.base + r * t.ld + c. Thread u of the grid owns run
// u: row u / ceil(width / V), columns V * (u % ceil(width / V)) .. + V. A whole run moves with
// 128-bit accesses (pieces of at most 16 bytes); the last run of a row, when width % V != 0,
// moves as a tail of masked scalar accesses. Index math is 64-bit. Every input element is read
// once and every output element written once.
//
// op(row, col, inputs) -> outputs: one element's f32 inputs (one per input tensor, in order)
// to its f32 outputs (one per output tensor), stored with the output dtype's conversion.
#include <kernels/elementwise/typed_access.hpp>

#include <functional>

namespace tw::kernels::elementwise {

struct MapTensor {
  AnyPtr ptr;
  dsl::Int64 ld; // row stride in elements
};

using MapOp =
    std::function<Values(const dsl::Int64& row, const dsl::Int64& col, const Values& inputs)>;

// The map over [rows, width] with runs of `vec` elements (1, 2, 4, 8 or 16).
void map_rows(const std::vector<MapTensor>& inputs, const std::vector<MapTensor>& outputs,
              const dsl::Int64& rows, const dsl::Int64& width, int vec, const MapOp& op);

// Threads of the grid the map needs: rows * ceil(width / vec).
int64_t map_threads(int64_t rows, int64_t width, int vec);

} // namespace tw::kernels::elementwise

namespace tw::kernels::elementwise {

// The kernel arguments every map kernel starts with, in this order: one pointer per input and
// per output (names given), then i64 rows, width, and the row stride of each input and output.
struct MapArgs {
  std::vector<MapTensor> inputs, outputs;
  dsl::Int64 rows, width;
};
MapArgs map_args(dsl::KernelBuilder& kb, const std::vector<std::pair<const char*, DType>>& inputs,
                 const std::vector<std::pair<const char*, DType>>& outputs);

} // namespace tw::kernels::elementwise
