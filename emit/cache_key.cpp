#include <emit/cache_key.hpp>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/SHA256.h>

namespace tw::emit {

std::string sha256_hex(const std::string& text) {
  llvm::SHA256 h;
  h.update(text);
  return llvm::toHex(h.final(), /*LowerCase=*/true);
}

CacheKey make_cache_key(const CacheKeyParts& p) {
  // One field per line, each named: a change in any field changes the digest, and no two
  // different part lists can print the same text (fields cannot contain the separators
  // ambiguously because the IR enters only as its fixed-length digest). v2: the IR's digest
  // is kernel_digest (v1 hashed the printed IR), so no v1 entry is ever read as a v2 one. v3:
  // the entry's payload is emit/cache_entry.hpp's (description + ELF), not the bare ELF. v4:
  // the emitters' source stamp, so a changed lowering of unchanged IR misses. An artifacts
  // entry (code object and the pipeline's texts) adds one last line to the code object's key.
  CacheKey key;
  key.description = "tilewave-code-object-key-v4\n";
  key.description += "ir-blake3=" + p.ir_digest + "\n";
  key.description += "backend=" + std::string(backend_name(p.backend)) + "\n";
  key.description += "arch=" + std::string(arch_name(p.arch)) + "\n";
  key.description += "toolchain=" + p.toolchain_version + "\n";
  key.description += "tilewave=" + p.tilewave_version + "\n";
  key.description += "options=" + p.options + "\n";
  key.description += "emitter=" + p.emitter_stamp + "\n";
  if (p.artifacts)
    key.description += "entry=artifacts\n";
  key.digest = sha256_hex(key.description);
  return key;
}

} // namespace tw::emit
