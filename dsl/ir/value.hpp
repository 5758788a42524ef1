#pragma once
// An SSA value of the kernel IR: a handle into its Kernel's value table (Kernel::type_of gives
// the type). Every value is defined exactly once: by an op result, a kernel argument or a
// region argument (loop induction variable / loop-carried value).
#include <compare>
#include <cstdint>
#include <limits>

namespace tw::ir {

struct Value {
  static constexpr std::uint32_t invalid_id = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t id = invalid_id;

  constexpr bool valid() const { return id != invalid_id; }
  friend constexpr auto operator<=>(const Value&, const Value&) = default;
};

} // namespace tw::ir
