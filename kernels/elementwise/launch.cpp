// Host side shared by the element-wise, normalization and quantization kernels (launch.hpp).
#include <kernels/common/compile_traced.hpp>
#include <kernels/elementwise/launch.hpp>

#include <emit/compile.hpp>
#include <kernels/gemm/gemm_config.hpp>
#include <kernels/gemm/gemm_target.hpp>

#include <map>
#include <mutex>

namespace tw::kernels::elementwise {

Rows rows_of(const ArgChecker& check, const TensorView& t, std::string_view arg,
             const runtime::Device& device) {
  check.well_formed(t, arg);
  if (t.rank() != 1 && t.rank() != 2)
    check.fail(arg, "has rank " + std::to_string(t.rank()) + " (shape " + format_extents(t.shape) +
                        "); expected [width] or [rows, width]");
  Rows r;
  r.rows = t.rank() == 2 ? t.shape[0] : 1;
  r.width = t.shape.back();
  if (r.width > 1 && t.strides.back() != 1)
    check.fail(arg,
               "has layout " + describe_layout(t) + "; expected contiguous rows (last stride 1)");
  r.ld = t.rank() == 2 ? t.strides[0] : r.width;
  if (t.rank() == 2 && r.rows > 1 && r.ld < r.width)
    check.fail(arg, "has layout " + describe_layout(t) +
                        "; expected a row stride of at least the width " + std::to_string(r.width));
  if (r.rows == 1)
    r.ld = std::max<int64_t>(r.ld, r.width); // a single row: any stride is fine
  if (!t.empty())
    check.on_device(t, arg, device);
  check.naturally_aligned(t, arg);
  return r;
}

void same_shape(const ArgChecker& check, const TensorView& t, std::string_view arg,
                const TensorView& of, std::string_view of_arg) {
  check.shape_is(t, arg, of.shape, "the shape of '" + std::string(of_arg) + "'");
}

void row_vector(const ArgChecker& check, const TensorView& t, std::string_view arg, int64_t width,
                const runtime::Device& device) {
  check.well_formed(t, arg);
  check.shape_is(t, arg, {width}, "[width] of the rows");
  check.contiguous_vector(t, arg);
  if (!t.empty())
    check.on_device(t, arg, device);
  check.naturally_aligned(t, arg);
}

int block_size(const ArgChecker& check, int requested) {
  if (requested == 0)
    return 256;
  if (requested < 32 || requested > 1024 || requested % 32 != 0)
    check.fail_parameter("block_size", "is " + std::to_string(requested) +
                                           "; expected 0 (256 threads) or a multiple of 32 "
                                           "from 32 to 1024");
  return requested;
}

int access_vec(const std::vector<const TensorView*>& views, int max_vec) {
  int narrowest = 16;
  for (const TensorView* v : views)
    narrowest = std::min<int>(narrowest, int(dtype_storage_bytes(v->dtype, 1)));
  int vec = std::min(max_vec, 16 / narrowest);
  const auto fits = [&](int v) {
    for (const TensorView* t : views) {
      const int64_t bytes = dtype_storage_bytes(t->dtype, 1);
      const int64_t need = std::min<int64_t>(16, v * bytes);
      const int64_t ld = t->rank() == 2 && t->shape[0] > 1 ? t->strides[0] : 0;
      if (t->address() % uint64_t(need) != 0 || (ld * bytes) % need != 0)
        return false;
    }
    return true;
  };
  while (vec > 1 && !fits(vec))
    vec /= 2;
  return vec;
}

int64_t resident_workgroups(int threads) {
  constexpr int64_t waves_per_unit = 32; // 16 per SIMD, 2 SIMDs
  const int64_t compute_units = gemm_kernel::gemm_compute_units(gemm_target().arch);
  return compute_units * std::max<int64_t>(1, waves_per_unit / ((threads + 31) / 32));
}

int64_t blocks_for(const ArgChecker& check, int64_t work, int threads) {
  const int64_t blocks = (work + threads - 1) / threads;
  if (blocks > int64_t{0x7fffffff})
    check.fail_parameter("shape", "needs " + std::to_string(blocks) +
                                      " workgroups; expected at most 2^31 - 1 (the grid's x)");
  return blocks;
}

void launch(runtime::Device& device, const std::string& key,
            const std::function<ir::Kernel()>& build, int64_t grid, int threads,
            const runtime::KernelArgs& args) {
  if (grid == 0)
    return;
  device.launch(traced_kernel(device, key, build), {static_cast<uint32_t>(grid)},
                {static_cast<uint32_t>(threads)}, args.span());
  device.synchronize();
}

} // namespace tw::kernels::elementwise

namespace tw::kernels::elementwise {

int64_t row_stride(const TensorView& t) {
  return t.rank() == 2 && t.shape[0] > 1 ? t.strides[0] : t.shape.back();
}

runtime::KernelArgs map_kernel_args(const std::vector<const TensorView*>& inputs,
                                    const std::vector<const TensorView*>& outputs,
                                    const Rows& shape) {
  runtime::KernelArgs a;
  for (const TensorView* t : inputs)
    a.ptr(t->device_address);
  for (const TensorView* t : outputs)
    a.ptr(t->device_address);
  a.add<int64_t>(shape.rows).add<int64_t>(shape.width);
  for (const TensorView* t : inputs)
    a.add<int64_t>(row_stride(*t));
  for (const TensorView* t : outputs)
    a.add<int64_t>(row_stride(*t));
  return a;
}

} // namespace tw::kernels::elementwise

namespace tw::kernels::elementwise {

int access_vec_runs(const std::vector<RunAlignment>& tensors, int max_vec) {
  int vec = max_vec;
  for (const RunAlignment& t : tensors)
    vec = std::min<int>(vec,
                        std::max<int64_t>(1, 16 / (dtype_storage_bytes(t.dtype, 1) * t.per_col)));
  const auto fits = [&](int v) {
    for (const RunAlignment& t : tensors) {
      const int64_t bytes = dtype_storage_bytes(t.dtype, 1);
      const int64_t need = std::min<int64_t>(16, int64_t(v) * t.per_col * bytes);
      if (t.address % uint64_t(need) != 0)
        return false;
      for (int64_t s : t.strides)
        if ((s * bytes) % need != 0)
          return false;
    }
    return true;
  };
  while (vec > 1 && !fits(vec))
    vec /= 2;
  return vec;
}

} // namespace tw::kernels::elementwise
