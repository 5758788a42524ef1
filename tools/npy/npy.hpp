#pragma once
// A small reader / writer of NumPy .npy files (format versions 1.0, 2.0 and 3.0; C order;
// little-endian or single-byte dtypes). No Debian package provides one.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tw::npy {

struct Array {
  std::string dtype;         // NumPy descr, e.g. "<f4", "<i4", "|u1", "<f2"
  std::vector<size_t> shape; // empty = scalar (one element)
  std::vector<uint8_t> data; // count() * element_size() bytes, C order

  size_t count() const {
    return std::accumulate(shape.begin(), shape.end(), size_t(1), std::multiplies<>());
  }
  size_t element_size() const { return std::stoul(dtype.substr(2)); }
};

// "f32" -> "<f4"; also accepts NumPy descrs and names such as "float32", "int8", "bf16"
// (stored as "<u2": NumPy has no bfloat16). Throws std::invalid_argument naming the rule.
inline std::string dtype_from_name(std::string_view n) {
  struct Alias {
    std::string_view name, descr;
  };
  static constexpr Alias table[] = {
      {"f16", "<f2"},    {"float16", "<f2"}, {"f32", "<f4"},    {"float32", "<f4"},
      {"f64", "<f8"},    {"float64", "<f8"}, {"bf16", "<u2"},   {"i8", "|i1"},
      {"int8", "|i1"},   {"i16", "<i2"},     {"int16", "<i2"},  {"i32", "<i4"},
      {"int32", "<i4"},  {"i64", "<i8"},     {"int64", "<i8"},  {"u8", "|u1"},
      {"uint8", "|u1"},  {"u16", "<u2"},     {"uint16", "<u2"}, {"u32", "<u4"},
      {"uint32", "<u4"}, {"u64", "<u8"},     {"uint64", "<u8"}};
  for (const auto& a : table)
    if (a.name == n || a.descr == n)
      return std::string(a.descr);
  throw std::invalid_argument("dtype '" + std::string(n) +
                              "' is not one of f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, "
                              "u32, u64");
}

namespace detail {

inline std::string dict_value(const std::string& header, const std::string& key,
                              const std::string& what) {
  const auto k = header.find("'" + key + "'");
  if (k == std::string::npos)
    throw std::runtime_error(what + ": header has no '" + key + "' entry");
  auto colon = header.find(':', k);
  auto start = header.find_first_not_of(" ", colon + 1);
  if (header[start] == '(') {
    auto end = header.find(')', start);
    return header.substr(start, end - start + 1);
  }
  auto end = header.find_first_of(",}", start);
  return header.substr(start, end - start);
}

} // namespace detail

// Parses a .npy image; `what` names the source in error messages.
inline Array parse(std::span<const uint8_t> bytes, const std::string& what = "npy") {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    throw std::runtime_error(what + ": not a .npy file (missing the \\x93NUMPY magic)");
  const int major = bytes[6];
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = bytes[8] | (size_t(bytes[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      throw std::runtime_error(what + ": truncated header");
    header_len =
        bytes[8] | (size_t(bytes[9]) << 8) | (size_t(bytes[10]) << 16) | (size_t(bytes[11]) << 24);
    header_start = 12;
  } else {
    throw std::runtime_error(what + ": .npy format version " + std::to_string(major) +
                             " is not supported (1, 2 or 3)");
  }
  if (header_start + header_len > bytes.size())
    throw std::runtime_error(what + ": truncated header");
  const std::string header(reinterpret_cast<const char*>(bytes.data()) + header_start, header_len);
  Array a;
  std::string descr = detail::dict_value(header, "descr", what);
  if (descr.size() < 3 || (descr.front() != '\'' && descr.front() != '"'))
    throw std::runtime_error(what + ": unsupported descr " + descr + " (structured dtype?)");
  a.dtype = descr.substr(1, descr.size() - 2);
  if (a.dtype.size() < 3 || (a.dtype[0] != '<' && a.dtype[0] != '|' && a.dtype[0] != '='))
    throw std::runtime_error(what + ": dtype " + a.dtype + " is not little-endian");
  if (a.dtype[0] == '=')
    a.dtype[0] = '<';
  if (std::string(1, a.dtype[1]).find_first_of("fiub") == std::string::npos)
    throw std::runtime_error(what + ": dtype " + a.dtype + " is not a number type");
  if (detail::dict_value(header, "fortran_order", what).find("True") != std::string::npos)
    throw std::runtime_error(what + ": Fortran-order arrays are not supported (use C order)");
  std::string shape = detail::dict_value(header, "shape", what);
  for (size_t i = 1; i < shape.size();) {
    auto j = shape.find_first_of(",)", i);
    std::string tok = shape.substr(i, j - i);
    tok.erase(0, tok.find_first_not_of(' '));
    if (!tok.empty())
      a.shape.push_back(std::stoul(tok));
    if (j == std::string::npos || shape[j] == ')')
      break;
    i = j + 1;
  }
  const size_t bytes_needed = a.count() * a.element_size();
  const size_t data_start = header_start + header_len;
  if (bytes.size() - data_start < bytes_needed)
    throw std::runtime_error(what + ": holds " + std::to_string(bytes.size() - data_start) +
                             " data bytes, the header says " + std::to_string(bytes_needed));
  a.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_start),
                bytes.begin() + static_cast<std::ptrdiff_t>(data_start + bytes_needed));
  return a;
}

inline std::vector<uint8_t> serialize(const Array& a) {
  std::string shape = "(";
  for (size_t i = 0; i < a.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(a.shape[i]) + (a.shape.size() == 1 ? "," : "");
  shape += ")";
  std::string header =
      "{'descr': '" + a.dtype + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that magic + version + length + header + '\n' is a multiple of 64.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  const uint8_t preamble[10] = {0x93,
                                'N',
                                'U',
                                'M',
                                'P',
                                'Y',
                                1,
                                0,
                                static_cast<uint8_t>(header.size() & 0xff),
                                static_cast<uint8_t>(header.size() >> 8)};
  std::vector<uint8_t> out(sizeof preamble + header.size() + a.data.size());
  std::memcpy(out.data(), preamble, sizeof preamble);
  std::memcpy(out.data() + sizeof preamble, header.data(), header.size());
  if (!a.data.empty())
    std::memcpy(out.data() + sizeof preamble + header.size(), a.data.data(), a.data.size());
  return out;
}

inline Array read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw std::runtime_error(path + ": cannot open for reading");
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  return parse(bytes, path);
}

inline void write(const std::string& path, const Array& a) {
  if (a.data.size() != a.count() * a.element_size())
    throw std::invalid_argument(path + ": array data size does not match its shape and dtype");
  const auto bytes = serialize(a);
  std::ofstream f(path, std::ios::binary);
  if (!f)
    throw std::runtime_error(path + ": cannot open for writing");
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f)
    throw std::runtime_error(path + ": write failed");
}

} // namespace tw::npy
