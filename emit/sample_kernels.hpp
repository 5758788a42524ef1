#pragma once
// Small kernels written directly with ir::OpBuilder (no DSL): one per IR feature the emitters
// must lower (element-wise with 128-bit loads, a loop with a carried value, if/else with
// results, LDS + barrier, WMMA, SWMMAC, a WMMA inside a loop, buffer loads with out-of-range
// zero, lane ops). The emitter tests, FileCheck tests and bench/compile use them; they are
// registered as ir_<name> for `tilewave emit`.
#include <dsl/ir/kernel.hpp>

#include <string>

namespace tw::emit {

class KernelRegistry;

namespace samples {

// c[i..i+width) = a[..] + b[..] (f32), i = (workgroup * block + thread) * width, when
// i + width <= n. width 4 = one 128-bit load per operand.
ir::Kernel vector_add(int block = 256, int width = 4);
// out[row] = sum_{k < len} x[row * len + k] with a for loop carrying the f32 sum.
ir::Kernel loop_sum(int block = 64);
// out[i] = x > 0 ? sqrt(x) : -2 x for i < n, as nested if / if-else with a result.
ir::Kernel if_else(int block = 256);
// One workgroup reverses a block of `block` floats through LDS with a barrier (lds_only: the
// barrier's fences order LDS only).
ir::Kernel lds_reverse(int block = 256, bool lds_only = false);
// One wave: C (16x16 f32, row-major) = A (16x16 f16, row-major) * B (16x16 f16, column-major)
// with one `atom` (a 16-bit-input dense WMMA with f32 accumulator); 128-bit operand loads.
ir::Kernel wmma_tile(const std::string& atom = "v_wmma_f32_16x16x16_f16");
// One wave: C (16x16 f32) = A (16 x K f16, row-major) * B (K x 16, column-major), K a run-time
// multiple of 16: a for loop of 128-bit loads and one WMMA per step, accumulator carried.
ir::Kernel wmma_loop();
// One wave: one v_swmmac_f32_16x16x32_f16 on pre-packed operands (A 2:4-compressed, index
// VGPR from memory, index_key 0 or 1).
ir::Kernel swmmac_tile(int index_key = 0);
// out[i] = x[i] for i < n and 0 past n, read with a bounded buffer resource (num_records =
// n * 4 bytes), `width` floats per thread (4: buffer_load_b128).
ir::Kernel buffer_copy(int block = 256, int width = 1);
// Per wave of 32: the sum of x over the wave with DPP row_xmask steps and permlanex16, and
// the lane-reversed x via ds_bpermute: out_sum[wave] (lane 0 stores), out_rev[i].
ir::Kernel lane_reduce(int block = 64);

} // namespace samples

// Registers ir_vector_add, ir_loop_sum, ir_if_else, ir_lds_reverse, ir_wmma_tile,
// ir_wmma_loop, ir_swmmac_tile, ir_buffer_copy and ir_lane_reduce.
void register_sample_kernels(KernelRegistry& registry);

} // namespace tw::emit
