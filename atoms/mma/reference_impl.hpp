#pragma once
// Implementation of mma_reference (included by reference.hpp only).
#include <atoms/mma/reference.hpp>

#include <stdexcept>
#include <string>

namespace tw::atoms {

// TEMPORARY (first commit publishes the API): the implementation lands in the next commit.
inline void mma_reference(const MmaInstrInfo& info, const MmaModifiers&, const std::uint32_t*,
                          const std::uint32_t*, const std::uint32_t*, const std::uint32_t*,
                          std::uint32_t*) {
  throw std::logic_error("mma_reference(" + std::string(info.mnemonic) + "): not implemented yet");
}

} // namespace tw::atoms
