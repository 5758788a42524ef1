#pragma once
// Umbrella header: the whole public API of tilewave. tests/api checks that every public header
// of the source tree is reachable from here; the internal ones (implementation details behind
// these) are listed, each with its reason, in tests/api/internal_headers.txt.
//
// Namespaces (docs/guide.md, "Namespaces"): tw (layouts), tw::num (formats), tw::atoms,
// tw::dsl (the kernel vocabulary, meant for `using namespace tw::dsl;`), tw::dsl::ops
// (operations named like common identifiers: copy, gemm, min, max, ...; found by argument-
// dependent lookup), tw::ir, tw::emit, tw::runtime, tw::kernels.

// The layout algebra.
#include <layouts/expression.hpp>
#include <layouts/layouts.hpp>

// Numeric formats, WMMA / SWMMAC atoms, copy atoms.
#include <atoms/arch.hpp>
#include <atoms/copy.hpp>
#include <atoms/formats.hpp>
#include <atoms/mma/describe.hpp>
#include <atoms/mma/gfx12.hpp>
#include <atoms/mma/reference.hpp>
#include <atoms/mma/verify.hpp>
#include <atoms/occupancy.hpp>

// The DSL and its kernel IR.
#include <dsl/copy/buffer_clipped_tile.hpp>
#include <dsl/copy/buffer_clipped_walk.hpp>
#include <dsl/copy/buffer_global_tile.hpp>
#include <dsl/copy/transpose_load.hpp>
#include <dsl/dsl.hpp>
#include <dsl/handles/nan.hpp>
#include <dsl/ir/ir.hpp>
#include <dsl/mma/accumulator_convert.hpp>
#include <dsl/mma/accumulator_exchange.hpp>
#include <dsl/mma/fragment_pipeline.hpp>
#include <dsl/mma/scale_cols.hpp>
#include <dsl/mma/wave_private.hpp>
#include <dsl/ops/activation.hpp>
#include <dsl/ops/block_reduce.hpp>
#include <dsl/ops/philox.hpp>
#include <dsl/ops/pipeline_unrolled.hpp>
#include <dsl/ops/trig.hpp>
#include <dsl/ops/wait_counters.hpp>
#include <dsl/tensor/clamped_load.hpp>
#include <dsl/tensor/folded_rows.hpp>
#include <dsl/tensor/gathered_rows.hpp>
#include <dsl/tensor/whole_tile.hpp>

// IR -> code object: compile, the compile cache, the emitters' outputs, resources.
#include <emit/code_object_json.hpp>
#include <emit/compile.hpp>
#include <emit/dump.hpp>
#include <emit/hip/hip_emitter.hpp>
#include <emit/kernel_plugin.hpp>
#include <emit/registry.hpp>
#include <emit/report.hpp>

// Devices: the user's HIP runtime or the gfx12 emulator; kernel arguments.
#include <runtime/device.hpp>
#include <runtime/emu_device.hpp>
#include <runtime/hip/hip_device.hpp>
#include <runtime/kernel_args.hpp>

// The kernel library's host entry points.
#include <kernels/attention/flash_attn_api.hpp>
#include <kernels/attention/linear_attn_api.hpp>
#include <kernels/attention/mla_decode_api.hpp>
#include <kernels/attention/paged_attn_api.hpp>
#include <kernels/attention/qk_norm_quant_api.hpp>
#include <kernels/common/arg_check.hpp>
#include <kernels/common/dtype.hpp>
#include <kernels/common/host_tensor.hpp>
#include <kernels/common/tensor.hpp>
#include <kernels/elementwise/elementwise_api.hpp>
#include <kernels/gemm/gemm_api.hpp>
#include <kernels/gemm/gemm_target.hpp>
#include <kernels/quant/quant_api.hpp>
