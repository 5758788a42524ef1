#pragma once
// HostTensor: host memory that owns the bytes of a tensor (row-major contiguous unless
// strides are given) and hands out TensorViews of it. The oracles, the tests and
// `tilewave run` use it; kernels take views of device copies of the same bytes.
#include <kernels/common/tensor.hpp>

#include <cstdint>
#include <vector>

namespace tw::kernels {

class HostTensor {
public:
  HostTensor() = default;
  // Zero-filled. Empty `strides` means row-major contiguous.
  HostTensor(DType dtype, Extents shape, Extents strides = {});

  // TensorView carries no constness: a view of a const HostTensor must not be written.
  TensorView view() const;
  DType dtype() const { return dtype_; }
  const Extents& shape() const { return shape_; }
  const Extents& strides() const { return strides_; }
  std::vector<uint8_t>& bytes() { return bytes_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

  double at(std::initializer_list<int64_t> index) const;
  void set(std::initializer_list<int64_t> index, double value);
  uint32_t code(std::initializer_list<int64_t> index) const;
  void set_code(std::initializer_list<int64_t> index, uint32_t code);

private:
  DType dtype_ = DType::f32;
  Extents shape_, strides_;
  std::vector<uint8_t> bytes_;
};

} // namespace tw::kernels
