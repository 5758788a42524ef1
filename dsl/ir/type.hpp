#pragma once
// The value types of the kernel IR. A Type is a small value (compare with ==, copy freely):
//  - integers i1..i64 (signless: the op decides signed or unsigned meaning),
//  - floats f16, bf16, f32 and the OCP fp8 formats e4m3 (E4M3FN) and e5m2,
//  - vectors <N x scalar> (N = 2..64) of i8..i64, i4, f16, bf16, f32, e4m3, e5m2 (not i1, not
//    odd integer widths); <N x i4> is "packed int4": element 2i sits in the low nibble of byte i,
//    so <8 x i4> is exactly one 32-bit register,
//  - opaque pointers in the global (1), LDS (3) or constant (4) address space
//    (global / constant pointers are 64-bit, LDS pointers 32-bit byte offsets),
//  - the buffer resource (a 128-bit descriptor: base, num_records, flags).
#include <cstdint>
#include <string>

namespace tw::ir {

enum class AddrSpace : std::uint8_t { global = 1, lds = 3, constant = 4 };

enum class TypeKind : std::uint8_t {
  none, // the default-constructed, invalid type
  int_,
  f16,
  bf16,
  f32,
  e4m3,
  e5m2,
  ptr,
  buffer_rsrc,
};

class Type {
public:
  constexpr Type() = default;

  // Scalars.
  static constexpr Type i(int bits) { return Type(TypeKind::int_, bits, 1); }
  static constexpr Type i1() { return i(1); }
  static constexpr Type i4() { return i(4); }
  static constexpr Type i8() { return i(8); }
  static constexpr Type i16() { return i(16); }
  static constexpr Type i32() { return i(32); }
  static constexpr Type i64() { return i(64); }
  static constexpr Type f16() { return Type(TypeKind::f16, 16, 1); }
  static constexpr Type bf16() { return Type(TypeKind::bf16, 16, 1); }
  static constexpr Type f32() { return Type(TypeKind::f32, 32, 1); }
  static constexpr Type e4m3() { return Type(TypeKind::e4m3, 8, 1); }
  static constexpr Type e5m2() { return Type(TypeKind::e5m2, 8, 1); }
  // Vectors of a scalar element; lanes == 1 gives the scalar back.
  static constexpr Type vec(Type elem, int lanes) {
    Type t = elem;
    t.lanes_ = static_cast<std::uint16_t>(lanes);
    return t;
  }
  // Packed int4: `count` 4-bit integers (count * 4 must be a multiple of 32 to fill registers).
  static constexpr Type packed_i4(int count) { return vec(i4(), count); }
  static constexpr Type ptr(AddrSpace space) {
    Type t(TypeKind::ptr, space == AddrSpace::lds ? 32 : 64, 1);
    t.space_ = space;
    return t;
  }
  static constexpr Type buffer_rsrc() { return Type(TypeKind::buffer_rsrc, 128, 1); }

  constexpr TypeKind kind() const { return kind_; }
  constexpr bool valid() const { return kind_ != TypeKind::none; }
  // Bits of one element (scalar: of the value itself).
  constexpr int elem_bits() const { return bits_; }
  constexpr int lanes() const { return lanes_; }
  constexpr bool is_vector() const { return lanes_ > 1; }
  constexpr bool is_scalar() const { return valid() && lanes_ == 1; }
  constexpr Type element() const { return vec(*this, 1); }
  constexpr int bits() const { return bits_ * lanes_; }
  // Size in memory: packed for sub-byte elements, rounded up to whole bytes.
  constexpr int bytes() const { return (bits() + 7) / 8; }

  constexpr bool is_int() const { return kind_ == TypeKind::int_; }
  constexpr bool is_int(int bits) const { return is_int() && bits_ == bits; }
  constexpr bool is_bool() const { return is_int(1); }
  // f16, bf16, f32 (types with IEEE-style arithmetic in the IR).
  constexpr bool is_float() const {
    return kind_ == TypeKind::f16 || kind_ == TypeKind::bf16 || kind_ == TypeKind::f32;
  }
  constexpr bool is_fp8() const { return kind_ == TypeKind::e4m3 || kind_ == TypeKind::e5m2; }
  constexpr bool is_ptr() const { return kind_ == TypeKind::ptr; }
  constexpr bool is_ptr(AddrSpace s) const { return is_ptr() && space_ == s; }
  constexpr bool is_buffer_rsrc() const { return kind_ == TypeKind::buffer_rsrc; }
  // Only meaningful for pointers.
  constexpr AddrSpace addr_space() const { return space_; }

  friend constexpr bool operator==(const Type&, const Type&) = default;

private:
  constexpr Type(TypeKind k, int bits, int lanes)
      : kind_(k), bits_(static_cast<std::uint8_t>(bits)),
        lanes_(static_cast<std::uint16_t>(lanes)) {}

  TypeKind kind_ = TypeKind::none;
  std::uint8_t bits_ = 0;
  std::uint16_t lanes_ = 0;
  AddrSpace space_ = AddrSpace::global;
};

// Canonical spelling: i32, f16, <8 x f16>, <16 x i4>, ptr<global>, ptr<lds>, ptr<constant>,
// buffer_rsrc, <invalid>.
std::string to_string(Type t);
const char* to_string(AddrSpace s);

// Why `t` is not a well-formed type ("" when it is): int widths 1..64, vector lanes 2..64 of a
// scalar int / float / fp8 element, packed int4 vectors of a multiple of 8 elements.
std::string type_error(Type t);

// The code of an fp8 constant: `value` rounded to nearest even into t's format (e4m3 or e5m2);
// `exact` says whether the code decodes back to `value` (NaN counts as exact).
struct Fp8Constant {
  std::uint8_t code = 0;
  bool exact = false;
};
Fp8Constant fp8_constant(Type t, double value);

} // namespace tw::ir
