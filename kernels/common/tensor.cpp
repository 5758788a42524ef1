#include <kernels/common/host_tensor.hpp>
#include <kernels/common/tensor.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace tw::kernels {

DType parse_dtype(std::string_view name) {
  if (auto t = try_parse_dtype(name))
    return *t;
  std::string known;
  for (const DTypeInfo& info : dtype_table)
    known += (known.empty() ? "" : ", ") + std::string(info.name);
  throw std::invalid_argument("unknown dtype '" + std::string(name) + "': expected one of " +
                              known);
}

Extents contiguous_strides(const Extents& shape) {
  Extents strides(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * (shape[d + 1] > 0 ? shape[d + 1] : 1);
  return strides;
}

Extents column_major_strides(const Extents& shape) {
  if (shape.size() != 2)
    throw std::invalid_argument("column_major_strides: shape " + format_extents(shape) +
                                " is not a matrix (rank 2)");
  return {1, shape[0] > 0 ? shape[0] : 1};
}

TensorView TensorView::on_device(runtime::Device& device, runtime::DevicePtr address, DType dtype,
                                 Extents shape, Extents strides) {
  TensorView v;
  v.dtype = dtype;
  v.strides = strides.empty() ? contiguous_strides(shape) : std::move(strides);
  v.shape = std::move(shape);
  v.device = &device;
  v.device_address = address;
  return v;
}

TensorView TensorView::on_host(void* data, DType dtype, Extents shape, Extents strides) {
  TensorView v;
  v.dtype = dtype;
  v.strides = strides.empty() ? contiguous_strides(shape) : std::move(strides);
  v.shape = std::move(shape);
  v.host_data = data;
  return v;
}

int64_t TensorView::numel() const {
  int64_t n = 1;
  for (int64_t e : shape)
    if (__builtin_mul_overflow(n, e, &n))
      throw std::overflow_error("tensor of shape " + format_extents(shape) +
                                " has more elements than fit in 64 bits");
  return n;
}

uint64_t TensorView::address() const {
  return device ? device_address : uint64_t(std::bit_cast<uintptr_t>(host_data));
}

int64_t TensorView::span_elements() const {
  if (numel() <= 0)
    return 0;
  int64_t last = 0, step = 0;
  for (size_t d = 0; d < shape.size() && d < strides.size(); ++d)
    if (__builtin_mul_overflow(shape[d] - 1, strides[d], &step) ||
        __builtin_add_overflow(last, step, &last))
      throw std::overflow_error("tensor of shape " + format_extents(shape) + " and strides " +
                                format_extents(strides) +
                                " spans more elements than fit in 64 "
                                "bits");
  return last + 1;
}

int64_t TensorView::offset_of(std::span<const int64_t> index) const {
  int64_t off = 0;
  for (size_t d = 0; d < index.size() && d < strides.size(); ++d)
    off += index[d] * strides[d];
  return off;
}

std::string format_extents(const Extents& e) {
  std::string s = "[";
  for (size_t i = 0; i < e.size(); ++i)
    s += (i ? ", " : "") + std::to_string(e[i]);
  return s + "]";
}

namespace {

// Byte address of element `offset` (for packed int4: of the byte holding its nibble).
uint8_t* element_bytes(const TensorView& v, std::span<const int64_t> index, const char* what) {
  if (v.device)
    throw std::logic_error(std::string(what) + ": the view is in device memory; copy it to the "
                                               "host first");
  if (index.size() != v.shape.size())
    throw std::out_of_range(std::string(what) + ": index of rank " + std::to_string(index.size()) +
                            " for a tensor of rank " + std::to_string(v.shape.size()));
  for (size_t d = 0; d < index.size(); ++d)
    if (index[d] < 0 || index[d] >= v.shape[d])
      throw std::out_of_range(std::string(what) + ": index " + std::to_string(index[d]) +
                              " in dimension " + std::to_string(d) + " is outside shape " +
                              format_extents(v.shape));
  const int64_t off = v.offset_of(index);
  return static_cast<uint8_t*>(v.host_data) + off * dtype_bits(v.dtype) / 8;
}

} // namespace

uint32_t load_code(const TensorView& v, std::span<const int64_t> index) {
  const uint8_t* p = element_bytes(v, index, "load_code");
  switch (dtype_bits(v.dtype)) {
  case 4:
    return (v.offset_of(index) % 2) ? uint32_t(*p >> 4) : uint32_t(*p & 0xF);
  case 8:
    return *p;
  case 16: {
    uint16_t c;
    std::memcpy(&c, p, 2);
    return c;
  }
  default: {
    uint32_t c;
    std::memcpy(&c, p, 4);
    return c;
  }
  }
}

void store_code(const TensorView& v, std::span<const int64_t> index, uint32_t code) {
  uint8_t* p = element_bytes(v, index, "store_code");
  switch (dtype_bits(v.dtype)) {
  case 4:
    if (v.offset_of(index) % 2)
      *p = uint8_t((*p & 0x0F) | ((code & 0xF) << 4));
    else
      *p = uint8_t((*p & 0xF0) | (code & 0xF));
    break;
  case 8:
    *p = uint8_t(code);
    break;
  case 16: {
    const uint16_t c = uint16_t(code);
    std::memcpy(p, &c, 2);
    break;
  }
  default:
    std::memcpy(p, &code, 4);
  }
}

double load_element(const TensorView& v, std::span<const int64_t> index) {
  const uint32_t code = load_code(v, index);
  switch (v.dtype) {
  case DType::f32:
    return double(std::bit_cast<float>(code));
  case DType::i32:
    return double(std::bit_cast<int32_t>(code));
  default:
    return double(num::decode(*num_format(v.dtype), code));
  }
}

void store_element(const TensorView& v, std::span<const int64_t> index, double value) {
  uint32_t code = 0;
  switch (v.dtype) {
  case DType::f32:
    code = std::bit_cast<uint32_t>(float(value));
    break;
  case DType::i32: {
    // Round half to even and clamp, like the narrow integer types.
    const double r = std::nearbyint(value);
    const double c =
        std::isnan(r) ? 0.0
                      : (r < -2147483648.0 ? -2147483648.0 : (r > 2147483647.0 ? 2147483647.0 : r));
    code = std::bit_cast<uint32_t>(int32_t(c));
    break;
  }
  case DType::f16:
    code = num::f64_to_f16(value);
    break;
  case DType::bf16:
    code = num::f64_to_bf16(value);
    break;
  case DType::e4m3:
    code = num::f64_to_e4m3(value, num::Saturate::no);
    break;
  case DType::e5m2:
    code = num::f64_to_e5m2(value, num::Saturate::no);
    break;
  case DType::e8m0: {
    // Round down to a power of two in double (as f32_to_e8m0 does in f32).
    if (!(value > 0.0) || std::isinf(value)) {
      code = value == 0.0 ? 0x00 : 0xFF;
      break;
    }
    int exp = 0;
    std::frexp(value, &exp); // value = f * 2^exp, f in [0.5, 1)
    const int log2_floor = exp - 1;
    code = log2_floor > 127 ? 0xFF : uint32_t((log2_floor < -127 ? -127 : log2_floor) + 127);
    break;
  }
  default: { // int8 / uint8 / int4 / uint4: round half to even, then clamp (NaN -> 0)
    const num::FormatInfo& info = num::format_info(*num_format(v.dtype));
    const double r = std::isnan(value) ? 0.0 : std::nearbyint(value);
    const double c =
        r < info.min_finite ? info.min_finite : (r > info.max_finite ? info.max_finite : r);
    code = uint32_t(int32_t(c)) & ((1u << info.bits) - 1);
  }
  }
  store_code(v, index, code);
}

HostTensor::HostTensor(DType dtype, Extents shape, Extents strides)
    : dtype_(dtype), shape_(std::move(shape)),
      strides_(strides.empty() ? contiguous_strides(shape_) : std::move(strides)) {
  if (strides_.size() != shape_.size())
    throw std::invalid_argument("HostTensor: " + std::to_string(strides_.size()) +
                                " strides for a shape of rank " + std::to_string(shape_.size()));
  for (size_t d = 0; d < shape_.size(); ++d)
    if (shape_[d] < 0 || strides_[d] < 0)
      throw std::invalid_argument("HostTensor: negative extent or stride in shape " +
                                  format_extents(shape_) + " strides " + format_extents(strides_));
  bytes_.assign(size_t(view().span_bytes()), 0);
}

TensorView HostTensor::view() const {
  return TensorView::on_host(const_cast<uint8_t*>(bytes_.data()), dtype_, shape_, strides_);
}

double HostTensor::at(std::initializer_list<int64_t> index) const {
  return load_element(view(), std::span(index.begin(), index.size()));
}
void HostTensor::set(std::initializer_list<int64_t> index, double value) {
  store_element(view(), std::span(index.begin(), index.size()), value);
}
uint32_t HostTensor::code(std::initializer_list<int64_t> index) const {
  return load_code(view(), std::span(index.begin(), index.size()));
}
void HostTensor::set_code(std::initializer_list<int64_t> index, uint32_t code) {
  store_code(view(), std::span(index.begin(), index.size()), code);
}

} // namespace tw::kernels
