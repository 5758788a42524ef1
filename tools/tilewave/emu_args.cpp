// Raw and structured `tilewave emu --arg` kinds (see emu_args.hpp).
#include "tilewave/emu_args.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace tw::tool {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

std::vector<std::uint8_t> parse_hex(const std::string& value, const std::string& arg) {
  std::string digits;
  for (char c : value)
    if (c != '_')
      digits.push_back(c);
  if (digits.empty() || digits.size() % 2 != 0)
    throw std::invalid_argument(fmt::format(
        "emu: --arg {}: bytes= takes an even, non-zero number of hex digits (two per byte, in "
        "memory order, '_' allowed between groups)",
        arg));
  std::vector<std::uint8_t> bytes(digits.size() / 2);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const int hi = hex_digit(digits[2 * i]), lo = hex_digit(digits[2 * i + 1]);
    if (hi < 0 || lo < 0)
      throw std::invalid_argument(
          fmt::format("emu: --arg {}: bytes= takes hex digits only ('{}{}' is not a byte)", arg,
                      digits[2 * i], digits[2 * i + 1]));
    bytes[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return bytes;
}

std::vector<std::uint8_t> read_arg_file(const std::string& path, const std::string& arg) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw std::invalid_argument(fmt::format("emu: --arg {}: cannot open '{}'", arg, path));
  std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(f),
                                  std::istreambuf_iterator<char>()};
  if (bytes.empty())
    throw std::invalid_argument(
        fmt::format("emu: --arg {}: '{}' is empty (an argument has at least one byte)", arg, path));
  return bytes;
}

std::size_t field_size(const std::string& type) {
  static const std::map<std::string, std::size_t> sizes{
      {"ptr", 8}, {"i8", 1},  {"u8", 1},  {"i16", 2}, {"u16", 2}, {"i32", 4},
      {"u32", 4}, {"i64", 8}, {"u64", 8}, {"f32", 4}, {"f64", 8}};
  const auto it = sizes.find(type);
  return it == sizes.end() ? 0 : it->second;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

template <class T>
void put_number(std::vector<std::uint8_t>& out, std::size_t offset, const StructField& f,
                const std::string& arg) {
  const std::optional<T> v = parse_cli_number<T>(*f.value);
  if (!v)
    throw std::invalid_argument(
        fmt::format("emu: --arg {}: field '{}': '{}' is not a valid {} (or out of its range)", arg,
                    f.name, *f.value, f.type));
  std::memcpy(out.data() + offset, &*v, sizeof(T));
}

// A non-pointer field's value at `offset` of `out`.
void put_scalar_field(std::vector<std::uint8_t>& out, std::size_t offset, const StructField& f,
                      const std::string& arg) {
  if (f.type == "i8")
    put_number<std::int8_t>(out, offset, f, arg);
  else if (f.type == "u8")
    put_number<std::uint8_t>(out, offset, f, arg);
  else if (f.type == "i16")
    put_number<std::int16_t>(out, offset, f, arg);
  else if (f.type == "u16")
    put_number<std::uint16_t>(out, offset, f, arg);
  else if (f.type == "i32")
    put_number<std::int32_t>(out, offset, f, arg);
  else if (f.type == "u32")
    put_number<std::uint32_t>(out, offset, f, arg);
  else if (f.type == "i64")
    put_number<std::int64_t>(out, offset, f, arg);
  else if (f.type == "u64")
    put_number<std::uint64_t>(out, offset, f, arg);
  else if (f.type == "f32")
    put_number<float>(out, offset, f, arg);
  else
    put_number<double>(out, offset, f, arg);
}

} // namespace

std::optional<std::vector<std::uint8_t>>
parse_raw_arg(const std::string& kind, const std::string& value, const std::string& arg) {
  if (kind == "bytes")
    return parse_hex(value, arg);
  if (kind == "file")
    return read_arg_file(value, arg);
  return std::nullopt;
}

void check_null_pointer_arg(const std::string& value, const std::string& arg) {
  if (value != "0")
    throw std::invalid_argument(
        fmt::format("emu: --arg {}: ptr= takes only 0 (a null pointer); a buffer is buf:in=F.npy, "
                    "buf:out=..., or a --buffer named in struct=",
                    arg));
}

StructSpec parse_struct_arg(const std::string& value, const std::string& arg) {
  StructSpec spec;
  std::size_t i = 0;
  while (i <= value.size()) {
    const std::size_t j = value.find(',', i);
    const std::string text = value.substr(i, j == std::string::npos ? std::string::npos : j - i);
    StructField f;
    const std::size_t colon = text.find(':');
    const std::size_t eq = text.find('=');
    if (colon == std::string::npos || (eq != std::string::npos && eq < colon))
      throw std::invalid_argument(fmt::format(
          "emu: --arg {}: struct field '{}' must be NAME:TYPE[=VALUE] (e.g. q:ptr, n:i32=128, "
          "bias:ptr=0)",
          arg, text));
    f.name = text.substr(0, colon);
    f.type = text.substr(colon + 1, eq == std::string::npos ? std::string::npos : eq - colon - 1);
    if (eq != std::string::npos)
      f.value = text.substr(eq + 1);
    if (!is_identifier(f.name))
      throw std::invalid_argument(
          fmt::format("emu: --arg {}: struct field name '{}' must be an identifier", arg, f.name));
    for (const StructField& prev : spec.fields)
      if (prev.name == f.name)
        throw std::invalid_argument(
            fmt::format("emu: --arg {}: struct field '{}' is given twice", arg, f.name));
    f.size = field_size(f.type);
    if (f.size == 0)
      throw std::invalid_argument(fmt::format(
          "emu: --arg {}: field '{}' has type '{}', not one of ptr, i8, u8, i16, u16, i32, u32, "
          "i64, u64, f32, f64",
          arg, f.name, f.type));
    if (f.type == "ptr" && f.value)
      check_null_pointer_arg(*f.value, arg);
    if (f.type != "ptr" && !f.value)
      throw std::invalid_argument(
          fmt::format("emu: --arg {}: field '{}' of type {} needs a value ({}:{}=VALUE)", arg,
                      f.name, f.type, f.name, f.type));
    if (f.type != "ptr") { // the value is checked now, before anything is allocated
      std::vector<std::uint8_t> scratch(f.size);
      put_scalar_field(scratch, 0, f, arg);
    }
    spec.fields.push_back(std::move(f));
    if (j == std::string::npos)
      break;
    i = j + 1;
  }
  return spec;
}

std::vector<std::uint8_t> pack_struct(const StructSpec& spec,
                                      const std::map<std::string, runtime::DevicePtr>& buffers,
                                      const std::string& arg) {
  std::size_t size = 0, align = 1;
  std::vector<std::size_t> offsets;
  for (const StructField& f : spec.fields) {
    size = (size + f.size - 1) / f.size * f.size;
    offsets.push_back(size);
    size += f.size;
    align = std::max(align, f.size);
  }
  std::vector<std::uint8_t> out((size + align - 1) / align * align, 0);
  for (std::size_t k = 0; k < spec.fields.size(); ++k) {
    const StructField& f = spec.fields[k];
    const std::size_t off = offsets[k];
    if (f.type == "ptr") {
      std::uint64_t address = 0; // ptr=0
      if (!f.value) {
        const auto it = buffers.find(f.name);
        if (it == buffers.end())
          throw std::invalid_argument(fmt::format(
              "emu: --arg {}: pointer field '{}' names no buffer: declare it with --buffer "
              "{}:in=F.npy (or :out=, :inout=), or write {}:ptr=0 for a null pointer",
              arg, f.name, f.name, f.name));
        address = it->second;
      }
      std::memcpy(out.data() + off, &address, 8);
    } else {
      put_scalar_field(out, off, f, arg);
    }
  }
  return out;
}

std::pair<std::string, std::string> split_named_buffer(const std::string& text) {
  const std::size_t colon = text.find(':');
  const std::size_t eq = text.find('=');
  if (colon == std::string::npos || eq == std::string::npos || eq < colon)
    throw std::invalid_argument(
        fmt::format("emu: --buffer '{}' must be NAME:in=F.npy, NAME:out=F.npy:SHAPE:DTYPE or "
                    "NAME:inout=F.npy",
                    text));
  const std::string name = text.substr(0, colon);
  if (!is_identifier(name))
    throw std::invalid_argument(
        fmt::format("emu: --buffer '{}': the name '{}' must be an identifier", text, name));
  return {name, "buf:" + text.substr(colon + 1)};
}

} // namespace tw::tool
