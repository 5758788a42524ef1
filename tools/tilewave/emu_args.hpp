#pragma once
// The raw and structured argument kinds of `tilewave emu --arg` (docs/emulator.md, "Kernel
// arguments"): `bytes=HEX` and `file=ARGS.bin` (bytes placed as they are, e.g. a by-value
// struct), `ptr=0` (a null pointer) and `struct=FIELD,...` (a by-value struct laid out like C,
// whose pointer fields name buffers declared with `--buffer NAME:in=F.npy`).
#include <runtime/device.hpp>

#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

namespace tw::tool {

// One field of a struct=... argument: NAME:TYPE[=VALUE].
struct StructField {
  std::string name, type;           // type: ptr, i8, u8, i16, u16, i32, u32, i64, u64, f32, f64
  std::optional<std::string> value; // absent for `ptr` naming a buffer; "0" for a null ptr
  std::size_t size = 0;             // = alignment (every field type is naturally aligned)
};

struct StructSpec {
  std::vector<StructField> fields;
};

// bytes=HEX (pairs of hex digits in memory order, '_' between groups allowed) or
// file=PATH (the file's bytes); nullopt when `kind` is neither. Throws std::invalid_argument
// naming `arg` and the rule.
std::optional<std::vector<std::uint8_t>>
parse_raw_arg(const std::string& kind, const std::string& value, const std::string& arg);

// ptr=VALUE: only 0 (the emulator has no addresses a user could know); throws otherwise.
void check_null_pointer_arg(const std::string& value, const std::string& arg);

// struct=FIELD[,FIELD...]; throws std::invalid_argument naming `arg`, the field and the rule.
StructSpec parse_struct_arg(const std::string& value, const std::string& arg);

// The struct's bytes in C layout: each field at its natural alignment, the size rounded up to
// the largest alignment. `buffers` are the --buffer allocations by name; a `ptr` field without
// a value takes the device address of the buffer of its own name.
std::vector<std::uint8_t> pack_struct(const StructSpec& spec,
                                      const std::map<std::string, runtime::DevicePtr>& buffers,
                                      const std::string& arg);

// --buffer NAME:in=F.npy | NAME:out=F.npy:SHAPE:DTYPE | NAME:inout=F.npy -> {NAME, the
// equivalent --arg text "buf:in=F.npy" ...}. Throws when NAME is empty or not an identifier.
std::pair<std::string, std::string> split_named_buffer(const std::string& text);

// A number of a command-line value as the whole of `s`: decimal, or 0x hex for integers;
// nullopt when `s` is not one or is out of T's range.
template <class T>
std::optional<T> parse_cli_number(const std::string& s) {
  T v{};
  const char* first = s.data();
  const char* last = s.data() + s.size();
  std::from_chars_result r;
  if constexpr (std::is_floating_point_v<T>)
    r = std::from_chars(first, last, v);
  else if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    r = std::from_chars(first + 2, last, v, 16);
  else
    r = std::from_chars(first, last, v);
  if (r.ec != std::errc() || r.ptr != last)
    return std::nullopt;
  return v;
}

} // namespace tw::tool
