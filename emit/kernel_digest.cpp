// BLAKE3 digest of an ir::Kernel's fields (see kernel_digest.hpp).
#include <emit/kernel_digest.hpp>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/BLAKE3.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace tw::emit {
namespace {

// Every field of these structs is encoded below; a new field changes their size on the one
// ABI this guard knows, and must then enter the encoding (else two kernels differing only in
// it would share cache entries).
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(ir::Type) == 6, "a new ir::Type field must enter kernel_digest");
static_assert(sizeof(ir::Attrs) == 88, "a new ir::Attrs field must enter kernel_digest");
static_assert(sizeof(ir::Op) == 168, "a new ir::Op field must enter kernel_digest");
static_assert(sizeof(ir::Region) == 48, "a new ir::Region field must enter kernel_digest");
static_assert(sizeof(ir::KernelArg) == 48, "a new ir::KernelArg field must enter kernel_digest");
static_assert(sizeof(ir::Kernel) == 152, "a new ir::Kernel field must enter kernel_digest");
#endif

// Feeds fixed-width fields and length-prefixed strings and lists to BLAKE3 through a small
// fixed buffer (few hasher calls, and no large allocation: in a new process every fresh page
// of a growing buffer is a page fault, which made a whole-kernel buffer cost milliseconds).
// The prefixes make the encoding unambiguous: no two different kernels give the same bytes.
class Encoder {
public:
  template <class T>
  void fixed(T v) {
    static_assert(std::is_integral_v<T> || std::is_enum_v<T>);
    if (used_ + sizeof(T) > sizeof(buffer_))
      flush();
    std::memcpy(buffer_ + used_, &v, sizeof(T)); // the host's byte order: part of the digest
    used_ += sizeof(T);
  }
  void count(std::size_t n) { fixed(static_cast<std::uint64_t>(n)); }
  void text(std::string_view s) {
    count(s.size());
    flush();
    hasher_.update(llvm::StringRef(s.data(), s.size()));
  }
  void type(ir::Type t) {
    fixed(static_cast<std::uint64_t>(t.kind()) | std::uint64_t(t.elem_bits() & 0xff) << 8 |
          std::uint64_t(t.lanes() & 0xffff) << 16 | std::uint64_t(t.addr_space()) << 32);
  }
  // The ids as one block (a Value is its 32-bit id).
  void values(const std::vector<ir::Value>& vs) {
    static_assert(sizeof(ir::Value) == sizeof(std::uint32_t));
    count(vs.size());
    const std::size_t bytes = vs.size() * sizeof(ir::Value);
    if (used_ + bytes > sizeof(buffer_)) {
      flush();
      if (bytes > sizeof(buffer_)) {
        hasher_.update(llvm::ArrayRef(reinterpret_cast<const std::uint8_t*>(vs.data()), bytes));
        return;
      }
    }
    if (bytes)
      std::memcpy(buffer_ + used_, vs.data(), bytes);
    used_ += bytes;
  }

  // Attributes are mostly defaults: a mask of the fields that differ from a default Attrs,
  // then those fields. Equal masks and fields <=> equal attributes.
  void attrs(const ir::Attrs& a) {
    static const ir::Attrs d{};
    const bool differs[] = {a.int_value != d.int_value,
                            std::bit_cast<std::uint64_t>(a.float_value) !=
                                std::bit_cast<std::uint64_t>(d.float_value),
                            a.index != d.index,
                            a.pred != d.pred,
                            a.rounding != d.rounding,
                            a.saturate != d.saturate,
                            a.is_unsigned != d.is_unsigned,
                            a.dim != d.dim,
                            a.align != d.align,
                            a.dpp != d.dpp,
                            a.row_mask != d.row_mask,
                            a.bank_mask != d.bank_mask,
                            a.bound_ctrl != d.bound_ctrl,
                            a.atom != d.atom,
                            a.mma != d.mma,
                            a.lds_only != d.lds_only};
    std::uint32_t mask = 0;
    for (std::size_t i = 0; i < std::size(differs); ++i)
      mask |= std::uint32_t(differs[i]) << i;
    fixed(mask);
    if (!mask)
      return;
    int i = 0;
    auto field = [&](auto encode) {
      if (mask >> i++ & 1)
        encode();
    };
    field([&] { fixed(a.int_value); });
    field([&] { fixed(std::bit_cast<std::uint64_t>(a.float_value)); });
    field([&] { fixed(a.index); });
    field([&] { fixed(a.pred); });
    field([&] { fixed(a.rounding); });
    field([&] { fixed(a.saturate); });
    field([&] { fixed(a.is_unsigned); });
    field([&] { fixed(a.dim); });
    field([&] { fixed(a.align); });
    field([&] {
      fixed(a.dpp.kind);
      fixed(a.dpp.arg);
    });
    field([&] { fixed(a.row_mask); });
    field([&] { fixed(a.bank_mask); });
    field([&] { fixed(a.bound_ctrl); });
    field([&] { text(a.atom); });
    field([&] {
      fixed(a.mma.a_signed);
      fixed(a.mma.b_signed);
      fixed(a.mma.clamp);
      fixed(a.mma.neg_lo);
      fixed(a.mma.neg_hi);
      fixed(a.mma.index_key);
    });
    field([&] { fixed(a.lds_only); });
  }

  void region(const ir::Region& r) {
    values(r.args);
    count(r.ops.size());
    for (const ir::Op& op : r.ops) {
      fixed(op.opcode);
      values(op.operands);
      values(op.results);
      attrs(op.attrs);
      count(op.regions.size());
      for (const ir::Region& inner : op.regions)
        region(inner);
    }
  }

  void kernel(const ir::Kernel& k) {
    text("tilewave-kernel-digest-v1");
    text(k.name);
    count(k.args.size());
    for (const ir::KernelArg& a : k.args) {
      text(a.name);
      type(a.type);
      fixed(a.value.id);
    }
    for (int n : k.workgroup_size)
      fixed(static_cast<std::int32_t>(n));
    fixed(k.lds_bytes);
    count(k.value_types.size());
    for (ir::Type t : k.value_types)
      type(t);
    region(k.body);
  }

  std::string hex_digest() {
    flush();
    return llvm::toHex(hasher_.final<32>(), /*LowerCase=*/true);
  }

private:
  void flush() {
    hasher_.update(llvm::ArrayRef(buffer_, used_));
    used_ = 0;
  }

  llvm::BLAKE3 hasher_;
  std::uint8_t buffer_[8192];
  std::size_t used_ = 0;
};

} // namespace

std::string kernel_digest(const ir::Kernel& kernel) {
  Encoder e;
  e.kernel(kernel);
  return e.hex_digest();
}

} // namespace tw::emit
