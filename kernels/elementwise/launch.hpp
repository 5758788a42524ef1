#pragma once
// The host side shared by the element-wise, normalization and quantization kernels: how a
// [rows, width] argument is validated and described, which access width its alignment allows,
// the block size rule, and the compile-cached launch.
#include <dsl/ir/kernel.hpp>
#include <kernels/common/arg_check.hpp>
#include <runtime/kernel_args.hpp>

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace tw::kernels::elementwise {

// A [rows, width] operand whose rows are contiguous: element (r, c) at r * ld + c.
struct Rows {
  int64_t rows = 0, width = 0, ld = 0;
  bool empty() const { return rows == 0 || width == 0; }
};

// A rank-1 ([width], one row) or rank-2 ([rows, width]) view with unit column stride: the
// rows it describes. Checks well-formedness, rank, the column stride and the device.
Rows rows_of(const ArgChecker& check, const TensorView& t, std::string_view arg,
             const runtime::Device& device);
// `t` must have the shape `expected` (given by the first operand `of`, in the message).
void same_shape(const ArgChecker& check, const TensorView& t, std::string_view arg,
                const TensorView& of, std::string_view of_arg);
// A [width] vector (weight, bias) of `width` contiguous elements on the device.
void row_vector(const ArgChecker& check, const TensorView& t, std::string_view arg, int64_t width,
                const runtime::Device& device);

// The workgroup size: 256 unless the caller passes one (a multiple of 32, 32 .. 1024).
int block_size(const ArgChecker& check, int requested);

// The largest run of elements (a power of two up to 16 bytes of the narrowest dtype and
// at most `max_vec`) that every view's start and row stride are aligned to: min(16, V * size)
// bytes for each. 1 when some view forbids 2.
int access_vec(const std::vector<const TensorView*>& views, int max_vec = 16);

// Builds (once per process and `key`; the key names every value that changes the code) for the
// library target (gemm_target(): backend and arch), compiles through the code-object cache and
// launches `grid` workgroups of `threads` threads. Does nothing when grid is 0.
void launch(runtime::Device& device, const std::string& key,
            const std::function<ir::Kernel()>& build, int64_t grid, int threads,
            const runtime::KernelArgs& args);

// Workgroups of `threads` threads the library target keeps resident at once: the grid of a
// kernel whose workgroups loop over the rows. Its compute units (gemm_target(): gfx1201 64,
// gfx1200 32) x 32 wave slots (16 per SIMD, 2 SIMDs; shared/RDNA4.md), whole workgroups, at
// least one per CU. (The wave slots, not the kernel's VGPR occupancy: the row kernels at
// [4096, 4096] allocate 48 to 96 VGPRs, 16 waves per SIMD.)
int64_t resident_workgroups(int threads);

// grid = ceil(work / threads), checked against the grid's x limit.
int64_t blocks_for(const ArgChecker& check, int64_t work, int threads);

} // namespace tw::kernels::elementwise

namespace tw::kernels::elementwise {

// The host side of map_args (map_skeleton.hpp): the pointers, rows, width and row strides in
// the kernel's order. Every tensor has the [rows, width] shape of `shape` (its own row stride).
runtime::KernelArgs map_kernel_args(const std::vector<const TensorView*>& inputs,
                                    const std::vector<const TensorView*>& outputs,
                                    const Rows& shape);
// The row stride of a validated [width] / [rows, width] view.
int64_t row_stride(const TensorView& t);

} // namespace tw::kernels::elementwise

namespace tw::kernels::elementwise {

// One tensor of a map whose rows start at sums of strides (e.g. token * ld + head * head_dim):
// the run of V columns (V * per_col elements) must start on min(16, V * per_col * size) bytes.
struct RunAlignment {
  DType dtype = DType::f32;
  uint64_t address = 0;
  std::vector<int64_t> strides; // element strides any run start is a combination of
  int per_col = 1;
};
// The largest V (a power of two, at most max_vec) every tensor allows.
int access_vec_runs(const std::vector<RunAlignment>& tensors, int max_vec = 16);

} // namespace tw::kernels::elementwise
