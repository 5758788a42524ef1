#pragma once
// The identity of one compiled code object: everything that changes the code it holds.
#include <atoms/arch.hpp>
#include <emit/backend.hpp>

#include <string>

namespace tw::emit {

struct CacheKeyParts {
  std::string ir_digest; // kernel_digest(kernel): every field of the IR (emit/kernel_digest.hpp)
  Backend backend = Backend::llvm;
  Arch arch = Arch::gfx1201;
  std::string toolchain_version; // toolchain_version()
  std::string tilewave_version;  // the project version
  std::string options;           // the compile options that change code ("O3")
  std::string emitter_stamp;     // emitter_stamp(): the sources that lower IR to code
  bool artifacts = false;        // true: the entry of compile_with_artifacts (code object + texts)
};

struct CacheKey {
  std::string description; // readable: every part, with the IR as its digest
  std::string digest;      // lowercase hex SHA-256 of `description`: the entry's name
};

CacheKey make_cache_key(const CacheKeyParts& parts);

// Lowercase hex SHA-256 of `text`.
std::string sha256_hex(const std::string& text);

} // namespace tw::emit
