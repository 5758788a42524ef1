#pragma once
// Typed copy atoms: CopyAtom<Path, Dir, WidthBits> names one gfx12 instruction at compile time,
// and check<Space, StaticOffset>() rejects a wrong use with a static_assert sentence. The
// aliases read like the instructions: tw::atoms::global_load_b128, ds_store_b64, ...
#include <atoms/copy/verify.hpp>

#include <cstdint>

namespace tw::atoms {

template <CopyPath Path, CopyDir Dir, int WidthBits>
struct CopyAtom {
  static_assert(is_copy_width(WidthBits),
                "copy atoms move 32, 64 or 128 bits per lane (b32, b64, b128)");

  // (A bad width already failed the static_assert above; look up b32 then so that no
  // second, less readable error follows.)
  static constexpr const CopyInstrInfo& info =
      *find_copy_instr(Path, Dir, is_copy_width(WidthBits) ? WidthBits : 32);
  static constexpr CopyPath path = Path;
  static constexpr CopyDir dir = Dir;
  static constexpr int width_bits = WidthBits;
  static constexpr int bytes = WidthBits / 8;

  // Compile-time check of one use: the pointer's address space and the static offset.
  // Usage: static_assert(global_load_b128::check<AddressSpace::global, 32>());
  template <AddressSpace Space, std::int64_t StaticOffset = 0>
  static consteval bool check() {
    static_assert(Space == address_space_of(Path),
                  "copy atom used through the wrong address space: global atoms take a global "
                  "pointer (addrspace 1), LDS atoms an LDS pointer (addrspace 3), buffer atoms a "
                  "buffer resource (addrspace 8)");
    static_assert(StaticOffset % (WidthBits / 8) == 0,
                  "copy atom's static offset is not a multiple of its width: b32 needs 4-byte, "
                  "b64 8-byte and b128 16-byte alignment");
    return true;
  }

  // Run-time form of the same rules (plus the arch), throwing with the rule sentence.
  static void verify(const CopyUse& use) { verify_copy(info, use); }
};

using global_load_b32 = CopyAtom<CopyPath::global, CopyDir::load, 32>;
using global_load_b64 = CopyAtom<CopyPath::global, CopyDir::load, 64>;
using global_load_b128 = CopyAtom<CopyPath::global, CopyDir::load, 128>;
using global_store_b32 = CopyAtom<CopyPath::global, CopyDir::store, 32>;
using global_store_b64 = CopyAtom<CopyPath::global, CopyDir::store, 64>;
using global_store_b128 = CopyAtom<CopyPath::global, CopyDir::store, 128>;
using buffer_load_b32 = CopyAtom<CopyPath::buffer, CopyDir::load, 32>;
using buffer_load_b64 = CopyAtom<CopyPath::buffer, CopyDir::load, 64>;
using buffer_load_b128 = CopyAtom<CopyPath::buffer, CopyDir::load, 128>;
using buffer_store_b32 = CopyAtom<CopyPath::buffer, CopyDir::store, 32>;
using buffer_store_b64 = CopyAtom<CopyPath::buffer, CopyDir::store, 64>;
using buffer_store_b128 = CopyAtom<CopyPath::buffer, CopyDir::store, 128>;
using ds_load_b32 = CopyAtom<CopyPath::lds, CopyDir::load, 32>;
using ds_load_b64 = CopyAtom<CopyPath::lds, CopyDir::load, 64>;
using ds_load_b128 = CopyAtom<CopyPath::lds, CopyDir::load, 128>;
using ds_store_b32 = CopyAtom<CopyPath::lds, CopyDir::store, 32>;
using ds_store_b64 = CopyAtom<CopyPath::lds, CopyDir::store, 64>;
using ds_store_b128 = CopyAtom<CopyPath::lds, CopyDir::store, 128>;

} // namespace tw::atoms
