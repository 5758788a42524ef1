#pragma once
// The element types a kernel argument can have. Storage and value semantics of the narrow
// formats come from atoms/formats (tw::num); this enum only names them and knows their
// storage width, so host code never switches on formats to size a buffer.
#include <atoms/formats.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace tw::kernels {

enum class DType { f32, f16, bf16, e4m3, e5m2, e8m0, int8, uint8, int4, uint4, i32 };

struct DTypeInfo {
  DType dtype;
  std::string_view name; // spelling used in messages, docs and `tilewave run`
  int bits;              // storage bits of one element (4 for the packed int4 types)
  bool is_float;
  bool is_integer;
};

inline constexpr DTypeInfo dtype_table[] = {
    {DType::f32, "f32", 32, true, false},   {DType::f16, "f16", 16, true, false},
    {DType::bf16, "bf16", 16, true, false}, {DType::e4m3, "e4m3", 8, true, false},
    {DType::e5m2, "e5m2", 8, true, false},  {DType::e8m0, "e8m0", 8, true, false},
    {DType::int8, "int8", 8, false, true},  {DType::uint8, "uint8", 8, false, true},
    {DType::int4, "int4", 4, false, true},  {DType::uint4, "uint4", 4, false, true},
    {DType::i32, "i32", 32, false, true},
};

constexpr const DTypeInfo& dtype_info(DType t) {
  return dtype_table[size_t(t)];
}
constexpr std::string_view dtype_name(DType t) {
  return dtype_info(t).name;
}
constexpr int dtype_bits(DType t) {
  return dtype_info(t).bits;
}
// Two int4 elements share a byte (element 2i in the low nibble, as atoms/formats/int4.hpp).
constexpr bool is_packed_int4(DType t) {
  return t == DType::int4 || t == DType::uint4;
}
constexpr bool is_fp8(DType t) {
  return t == DType::e4m3 || t == DType::e5m2;
}

// Bytes occupied by `elements` consecutive elements (rounded up for packed int4).
constexpr int64_t dtype_storage_bytes(DType t, int64_t elements) {
  return (elements * dtype_bits(t) + 7) / 8;
}

// The tw::num format that decodes/encodes a dtype; f32 and i32 need none (nullopt).
constexpr std::optional<num::Format> num_format(DType t) {
  switch (t) {
  case DType::f16:
    return num::Format::f16;
  case DType::bf16:
    return num::Format::bf16;
  case DType::e4m3:
    return num::Format::e4m3;
  case DType::e5m2:
    return num::Format::e5m2;
  case DType::e8m0:
    return num::Format::e8m0;
  case DType::int8:
    return num::Format::int8;
  case DType::uint8:
    return num::Format::uint8;
  case DType::int4:
    return num::Format::int4;
  case DType::uint4:
    return num::Format::uint4;
  case DType::f32:
  case DType::i32:
    return std::nullopt;
  }
  return std::nullopt;
}

constexpr std::optional<DType> try_parse_dtype(std::string_view name) {
  for (const DTypeInfo& info : dtype_table)
    if (info.name == name)
      return info.dtype;
  return std::nullopt;
}

// Throws std::invalid_argument listing the known names.
DType parse_dtype(std::string_view name);

} // namespace tw::kernels
