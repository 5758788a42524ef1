#pragma once
// The front door from a kernel IR to a loadable gfx12 code object: cache lookup (memory, then
// disk), else the HIP or LLVM backend, then the resource report; TILEWAVE_DUMP writes the
// pipeline's stages. Used by the DSL's examples, the runtime and the kernel library.
#include <atoms/arch.hpp>
#include <dsl/ir/kernel.hpp>
#include <emit/backend.hpp>
#include <emit/code_object.hpp>
#include <emit/resources.hpp>
#include <emit/stage_times.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace tw::emit {

// Where compile() found the code object.
enum class CacheOutcome {
  disabled,   // caching was off (CompileOptions::use_cache or TILEWAVE_CACHE=0)
  memory_hit, // this process compiled it before
  disk_hit,   // a valid on-disk entry
  miss,       // compiled (and stored); a dumping compile always reports this
  rebuilt,    // the on-disk entry was truncated or corrupt: discarded, compiled, stored again
};
std::string_view to_string(CacheOutcome o);

// SHA-256 of the sources that lower IR to a code object (emit/, dsl/ir/, atoms/), taken at
// build time: part of every cache key, so a build whose lowering changed never takes a code
// object an older build compiled from the same kernel IR.
std::string_view emitter_stamp();

struct CompileOptions {
  int opt_level = 3;                        // 0..3; part of the cache key
  bool use_cache = true;                    // false: always compile (still no cache write)
  std::optional<std::string> cache_dir;     // default: $TILEWAVE_CACHE_DIR, else ~/.cache/tilewave
  std::optional<std::string> dump_dir;      // default: $TILEWAVE_DUMP (unset: no dump)
  CacheOutcome* cache_outcome = nullptr;    // when set, receives where the code object came from
  CompileStageTimes* stage_times = nullptr; // when set, receives each stage's seconds (added)
};

// The options text that enters the cache key (every option that changes the code).
std::string options_key(const CompileOptions& options);

// Forgets the code objects of this process (the disk cache is untouched).
void clear_memory_cache();

// Compiles `kernel` for `arch` with `backend`. Throws std::runtime_error with the compiler's
// message when the IR does not verify or the toolchain fails. Environment:
//   TILEWAVE_CACHE=0      disables the cache (memory and disk)
//   TILEWAVE_CACHE_DIR    on-disk cache directory (default ~/.cache/tilewave)
//   TILEWAVE_DUMP=DIR     writes DIR/<kernel>.<backend>.<arch>/NN_<stage> for every stage;
//                         a dumping compile always runs the backend (compile()'s entries
//                         hold only code objects) and then refreshes the cache entry.
CodeObject compile(const ir::Kernel& kernel, Backend backend, Arch arch,
                   const CompileOptions& options = {});

// Every intermediate text of one compile, in pipeline order (what `tilewave emit` prints and
// TILEWAVE_DUMP writes). Fields a backend does not produce stay empty: hip_source is empty
// for the llvm backend, llvm_ir_before_opt for the hip backend.
struct CompileArtifacts {
  std::string ir;                 // 01 canonical IR
  std::string hip_source;         // 02 (hip)
  std::string llvm_ir_before_opt; // 02 (llvm)
  std::string llvm_ir_after_opt;  // 03
  std::string assembly;           // 04
  CodeObject code_object;         // 05
};

// Runs the whole pipeline and keeps every stage. Cached on disk (not in memory) under the code
// object's key plus an "artifacts" marker: one entry holds the texts and the code object, so a
// hit returns them byte for byte as the compile that stored them. cache_dir, use_cache,
// TILEWAVE_CACHE and cache_outcome work as for compile(); with a dump directory set
// (CompileOptions::dump_dir or TILEWAVE_DUMP) the cache is bypassed and the backend always runs.
CompileArtifacts compile_with_artifacts(const ir::Kernel& kernel, Backend backend, Arch arch,
                                        const CompileOptions& options = {});

} // namespace tw::emit
