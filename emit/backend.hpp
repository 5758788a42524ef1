#pragma once
// The two ways tilewave turns a kernel IR into a gfx12 code object.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tw::emit {

enum class Backend {
  hip,  // IR -> HIP C++ source -> clang-22 (subprocess)
  llvm, // IR -> LLVM IR (IRBuilder) -> AMDGPU backend in-process -> ld.lld-22
};

constexpr std::string_view backend_name(Backend b) {
  return b == Backend::hip ? "hip" : "llvm";
}

constexpr std::optional<Backend> try_parse_backend(std::string_view s) {
  if (s == "hip")
    return Backend::hip;
  if (s == "llvm")
    return Backend::llvm;
  return std::nullopt;
}

// Throws with the rule when `s` names no backend.
inline Backend parse_backend(std::string_view s) {
  if (auto b = try_parse_backend(s))
    return *b;
  throw std::invalid_argument("unknown backend '" + std::string(s) +
                              "': the backends are 'hip' and 'llvm'");
}

} // namespace tw::emit
