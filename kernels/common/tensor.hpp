#pragma once
// TensorView: a non-owning description of a kernel argument (where its elements live,
// their dtype, shape and strides). Shapes and strides count elements (not bytes) and are
// 64-bit, so a view can describe tensors past 2^31 elements. Packed int4 views count
// nibbles: element e sits in byte e / 2, low nibble when e is even (atoms/formats/int4.hpp).
//
// A view is either on a Device (a DevicePtr of that device) or in host memory (a plain
// pointer): host entry points take device views, the oracles and `tilewave run` read host
// views through load_element / store_element below.
#include <kernels/common/dtype.hpp>
#include <runtime/device.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tw::kernels {

using Extents = std::vector<int64_t>;

// Strides of a densely packed row-major tensor of this shape (last dimension contiguous).
Extents contiguous_strides(const Extents& shape);
// Strides of a densely packed column-major matrix [rows, cols]: [1, rows].
Extents column_major_strides(const Extents& shape);

struct TensorView {
  DType dtype = DType::f32;
  Extents shape;
  Extents strides;                   // elements; same length as shape
  runtime::Device* device = nullptr; // null: host memory
  runtime::DevicePtr device_address = 0;
  void* host_data = nullptr;

  // Empty `strides` means row-major contiguous.
  static TensorView on_device(runtime::Device& device, runtime::DevicePtr address, DType dtype,
                              Extents shape, Extents strides = {});
  static TensorView on_host(void* data, DType dtype, Extents shape, Extents strides = {});

  int rank() const { return int(shape.size()); }
  bool on_host_memory() const { return device == nullptr; }
  int64_t numel() const; // throws std::overflow_error when the product overflows
  bool empty() const { return numel() == 0; }
  // The start address as an integer (a device address or a host pointer), for the
  // alignment and overlap rules.
  uint64_t address() const;
  // Elements between the first and one past the last addressed element (0 when empty).
  // Assumes non-negative strides (the validation rejects negative ones).
  int64_t span_elements() const;
  int64_t span_bytes() const { return dtype_storage_bytes(dtype, span_elements()); }
  // Element offset of a multi-index (no bounds check: load/store_element check).
  int64_t offset_of(std::span<const int64_t> index) const;
};

// "[4, 12]"
std::string format_extents(const Extents& e);

// Host access to one element as a double: exact decode through tw::num (f32 and i32 are
// read as they are). Throws std::out_of_range on a bad index and std::logic_error for a
// device view.
double load_element(const TensorView& view, std::span<const int64_t> index);
// Stores `value` rounded once to the view's dtype (nearest even; integer types round half
// to even and clamp, e8m0 rounds down to a power of two, as tw::num::encode does).
void store_element(const TensorView& view, std::span<const int64_t> index, double value);
// The raw code of one element (the bits tw::num decodes; an int4 nibble in the low bits).
uint32_t load_code(const TensorView& view, std::span<const int64_t> index);
void store_code(const TensorView& view, std::span<const int64_t> index, uint32_t code);

} // namespace tw::kernels
