#pragma once
// Linking a relocatable AMDGPU object into a loadable code object with lld as a library
// (liblld-22-dev: lldELF), in this process: the LLVM backend starts no process.
#include <cstdint>
#include <span>
#include <vector>

namespace tw::emit {

// The same link as `ld.lld-22 -shared --no-undefined kernel.o -o kernel.hsaco`. lld's driver
// is not thread-safe: calls are serialized. Throws std::runtime_error with lld's message.
std::vector<std::uint8_t> link_code_object_in_process(std::span<const std::uint8_t> object);

} // namespace tw::emit
