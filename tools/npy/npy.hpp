#pragma once
// A small reader / writer of NumPy .npy files (format versions 1.0, 2.0 and 3.0; C order;
// little-endian or single-byte dtypes). No Debian package provides one.
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tw::npy {

// The error of the .npy layer: "<file>: <field> <rule>".
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct Array {
  std::string dtype;         // NumPy descr, e.g. "<f4", "<i4", "|u1", "<f2"
  std::vector<size_t> shape; // empty = scalar (one element)
  std::vector<uint8_t> data; // count() * element_size() bytes, C order

  // The product of the shape; throws Error when it does not fit in 64 bits.
  size_t count() const {
    size_t n = 1;
    for (size_t d : shape)
      if (__builtin_mul_overflow(n, d, &n))
        throw Error("npy: shape " + shape_text() + " has more elements than fit in 64 bits");
    return n;
  }
  // The byte size of the element dtype names ("<f4" -> 4); throws Error for a bad dtype.
  size_t element_size() const {
    if (dtype.size() != 3 || dtype[2] < '1' || dtype[2] > '8')
      throw Error("npy: dtype '" + dtype + "' has no element size");
    return size_t(dtype[2] - '0');
  }
  // count() * element_size(); throws Error when it does not fit in 64 bits.
  size_t byte_size() const {
    size_t n = 0;
    if (__builtin_mul_overflow(count(), element_size(), &n))
      throw Error("npy: shape " + shape_text() + " of " + dtype +
                  " has more bytes than fit in 64 bits");
    return n;
  }
  std::string shape_text() const {
    std::string t = "(";
    for (size_t i = 0; i < shape.size(); ++i)
      t += (i ? ", " : "") + std::to_string(shape[i]);
    return t + (shape.size() == 1 ? ",)" : ")");
  }
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

// The header dictionary, parsed strictly: exactly the keys 'descr' (a quoted string),
// 'fortran_order' (True / False) and 'shape' (a tuple of non-negative integers), then only
// spaces and the final newline.
class HeaderParser {
public:
  // The padding (spaces and the final newline) is not part of the dictionary.
  HeaderParser(std::string_view text, const std::string& what)
      : s_(text.substr(0, text.find_last_not_of(" \n") + 1)), what_(what) {}

  void parse(Array& a) {
    bool has_descr = false, has_order = false, has_shape = false;
    expect('{', "the header dictionary");
    for (;;) {
      skip_spaces();
      if (peek() == '}')
        break;
      const std::string key = quoted("a header key");
      skip_spaces();
      expect(':', "header key '" + key + "'");
      skip_spaces();
      if (key == "descr" && !has_descr) {
        a.dtype = quoted("header field 'descr'");
        has_descr = true;
      } else if (key == "fortran_order" && !has_order) {
        if (take_word("True"))
          fail("header field 'fortran_order'", "is True: Fortran-order arrays are not supported "
                                               "(use C order)");
        if (!take_word("False"))
          fail("header field 'fortran_order'", "must be True or False");
        has_order = true;
      } else if (key == "shape" && !has_shape) {
        shape(a.shape);
        has_shape = true;
      } else {
        fail("header key '" + key + "'", "is unknown or given twice (a .npy header has "
                                         "'descr', 'fortran_order' and 'shape' once each)");
      }
      skip_spaces();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() != '}')
        fail("header field '" + key + "'", "is followed by " + shown() + ", not ',' or '}'");
    }
    ++i_; // '}'
    skip_spaces();
    if (i_ != s_.size())
      fail("the header", "has " + shown() + " after its closing '}'");
    if (!has_descr || !has_order || !has_shape)
      fail("the header", std::string("has no '") +
                             (!has_descr   ? "descr"
                              : !has_order ? "fortran_order"
                                           : "shape") +
                             "' entry");
  }

private:
  [[noreturn]] void fail(const std::string& field, const std::string& rule) const {
    throw Error(what_ + ": " + field + " " + rule);
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  std::string shown() const {
    if (i_ >= s_.size())
      return "the end of the header";
    std::string q(1, '\'');
    q.append(s_.substr(i_, 12));
    q.push_back('\'');
    return q;
  }
  void skip_spaces() {
    while (i_ < s_.size() && s_[i_] == ' ')
      ++i_;
  }
  void expect(char c, const std::string& field) {
    if (peek() != c)
      fail(field, std::string("expects '") + c + "' but has " + shown());
    ++i_;
  }
  bool take_word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w)
      return false;
    i_ += w.size();
    return true;
  }
  std::string quoted(const std::string& field) {
    const char q = peek();
    if (q != '\'' && q != '"')
      fail(field, "must be a quoted string but has " + shown());
    const size_t close = s_.find(q, i_ + 1);
    if (close == std::string_view::npos)
      fail(field, "has an unclosed string");
    std::string v(s_.substr(i_ + 1, close - i_ - 1));
    i_ = close + 1;
    return v;
  }
  void shape(std::vector<size_t>& dims) {
    expect('(', "header field 'shape'");
    for (;;) {
      skip_spaces();
      if (peek() == ')')
        break;
      const size_t begin = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9')
        ++i_;
      uint64_t d = 0;
      const auto r = std::from_chars(s_.data() + begin, s_.data() + i_, d);
      if (begin == i_ || r.ec != std::errc() || d >= (uint64_t(1) << 62)) {
        i_ = begin;
        fail("header field 'shape'",
             "has " + shown() + " where a dimension (an integer below 2^62) belongs");
      }
      dims.push_back(d);
      skip_spaces();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() != ')')
        fail("header field 'shape'", "has " + shown() + " after a dimension");
    }
    ++i_; // ')'
  }

  std::string_view s_;
  const std::string& what_;
  size_t i_ = 0;
};

// A dtype this reader can hold: byte order '<', '|' or '=' (stored as '<'), kind f / i / u /
// b, a size of 1, 2, 4 or 8 bytes.
inline std::string checked_dtype(std::string d, const std::string& what) {
  const auto bad = [&](const std::string& rule) {
    throw Error(what + ": header field 'descr' '" + d + "' " + rule);
  };
  if (d.size() != 3 || std::string_view("fiub").find(d[1]) == std::string_view::npos ||
      std::string_view("1248").find(d[2]) == std::string_view::npos)
    bad("is not a number dtype (f, i, u or b of 1, 2, 4 or 8 bytes; structured dtypes are not "
        "supported)");
  if (d[0] == '>' || (d[0] == '|' && d[2] != '1'))
    bad("is not little-endian");
  if (d[0] != '<' && d[0] != '|' && d[0] != '=')
    bad("has byte order '" + d.substr(0, 1) + "' (expected <, | or =)");
  if (d[0] == '=')
    d[0] = '<';
  return d;
}

} // namespace detail

// Parses a .npy image; `what` names the source in error messages. Throws Error.
inline Array parse(std::span<const uint8_t> bytes, const std::string& what = "npy") {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    throw Error(what + ": not a .npy file (missing the \\x93NUMPY magic)");
  const int major = bytes[6];
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = bytes[8] | (size_t(bytes[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      throw Error(what + ": truncated header");
    header_len =
        bytes[8] | (size_t(bytes[9]) << 8) | (size_t(bytes[10]) << 16) | (size_t(bytes[11]) << 24);
    header_start = 12;
  } else {
    throw Error(what + ": .npy format version " + std::to_string(major) +
                " is not supported (1, 2 or 3)");
  }
  if (header_len > bytes.size() - header_start)
    throw Error(what + ": header length " + std::to_string(header_len) +
                " runs past the end of the " + std::to_string(bytes.size()) + "-byte file");
  const std::string_view header(reinterpret_cast<const char*>(bytes.data()) + header_start,
                                header_len);
  Array a;
  detail::HeaderParser(header, what).parse(a);
  a.dtype = detail::checked_dtype(a.dtype, what);
  size_t bytes_needed = 0;
  try {
    bytes_needed = a.byte_size();
  } catch (const Error&) {
    throw Error(what + ": header field 'shape' " + a.shape_text() + " of " + a.dtype +
                " has more bytes than fit in 64 bits");
  }
  const size_t data_start = header_start + header_len;
  if (bytes.size() - data_start != bytes_needed)
    throw Error(what + ": holds " + std::to_string(bytes.size() - data_start) +
                " data bytes, the header field 'shape' " + a.shape_text() + " of " + a.dtype +
                " says " + std::to_string(bytes_needed));
  a.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_start), bytes.end());
  return a;
}

inline std::vector<uint8_t> serialize(const Array& a) {
  std::string header =
      "{'descr': '" + a.dtype + "', 'fortran_order': False, 'shape': " + a.shape_text() + ", }";
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
    throw Error(path + ": cannot open for reading");
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  return parse(bytes, path);
}

inline void write(const std::string& path, const Array& a) {
  if (a.data.size() != a.byte_size())
    throw std::invalid_argument(path + ": array data size does not match its shape and dtype");
  const auto bytes = serialize(a);
  std::ofstream f(path, std::ios::binary);
  if (!f)
    throw Error(path + ": cannot open for writing");
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  f.close(); // a full disk shows at the flush
  if (!f)
    throw Error(path + ": write failed (disk full?)");
}

} // namespace tw::npy
