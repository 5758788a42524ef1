#pragma once
// What every element-wise / normalization / quantization kernel test does: fixed-seed host
// tensors (rows with an optional row stride), the oracle on the host views, then per backend
// (HIP and LLVM emitters) a run through the host API on the emulator with memcheck on, the
// output decoded and compared with the oracle.
#include "gemm_harness.hpp"

#include <functional>
#include <map>
#include <string>

namespace tw::oracle {

// The width sweep (shared by the slow tests).
inline constexpr int64_t sweep_widths[] = {1, 7, 40, 80, 96, 100, 160, 300, 384, 700, 4096};

// [rows, width] with row stride ld (0: width), random in `range`.
inline HostTensor rows_tensor(DType dtype, int64_t rows, int64_t width, uint64_t seed,
                              std::optional<ValueRange> range = std::nullopt, int64_t ld = 0) {
  return random_tensor(dtype, {rows, width}, seed, range,
                       {ld ? ld : std::max<int64_t>(width, 1), 1});
}

// Host tensors by name, uploaded once per backend; `run` gets their device views and calls
// the kernel; outputs are read back into their host tensors.
class KernelRun {
public:
  std::map<std::string, HostTensor> in, out;

  // Runs `call` through both emitters; `check(outputs)` is called after each with the
  // downloaded outputs (by name, as HostTensors).
  void run(const std::function<void(runtime::Device&, std::map<std::string, TensorView>&)>& call,
           const std::function<void(std::map<std::string, HostTensor>&)>& check) {
    for_each_backend([&](emit::Backend) {
      runtime::EmuDevice& d = emu_device();
      DeviceTensors dev(d);
      std::map<std::string, TensorView> views;
      for (auto& [n, t] : in)
        views[n] = dev.upload(t);
      for (auto& [n, t] : out)
        views[n] = dev.upload(t);
      call(d, views);
      std::map<std::string, HostTensor> got;
      for (auto& [n, t] : out) {
        HostTensor h(t.dtype(), t.shape(), t.strides());
        if (!h.bytes().empty())
          d.copy_to_host(h.bytes().data(), views[n].device_address, h.bytes().size());
        got.emplace(n, std::move(h));
      }
      check(got);
    });
  }
};

inline void check_close(const HostTensor& got, const Reference& want, const Tolerance& tol) {
  const CompareResult r = compare(decode_matrix(got.view()), want, tol);
  CHECK_MESSAGE(r.ok, r.summary());
}

// Bytes of a strided output outside its [rows, width] elements must stay as they were.
inline void check_untouched_gaps(const HostTensor& got, const HostTensor& before) {
  const TensorView v = got.view();
  std::vector<bool> inside(got.bytes().size(), false);
  const int64_t esize = kernels::dtype_storage_bytes(v.dtype, 1);
  for (int64_t i = 0; i < v.shape[0]; ++i)
    for (int64_t j = 0; j < v.shape[1]; ++j)
      for (int64_t b = 0; b < esize; ++b)
        inside[size_t((i * v.strides[0] + j * v.strides[1]) * esize + b)] = true;
  int64_t changed = 0;
  for (size_t b = 0; b < inside.size(); ++b)
    changed += !inside[b] && got.bytes()[b] != before.bytes()[b];
  CHECK_MESSAGE(changed == 0, changed << " bytes between the rows of out were written");
}

} // namespace tw::oracle
