#include <emit/cache_entry.hpp>
#include <emit/cache_key.hpp>
#include <emit/compile.hpp>
#include <emit/compile_lock.hpp>
#include <emit/compile_log.hpp>
#include <emit/disk_cache.hpp>
#include <emit/dump.hpp>
#include <emit/hip/hip_emitter.hpp>
#include <emit/kernel_digest.hpp>
#include <emit/llvm/llvm_backend.hpp>
#include <emit/memory_cache.hpp>
#include <emit/subprocess.hpp>
#include <emit/toolchain.hpp>

#include <dsl/ir/kernel.hpp>
#include <dsl/ir/print.hpp>
#include <dsl/ir/verify.hpp>

#include <emit/emitter_stamp.hpp>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

#ifndef TILEWAVE_VERSION
#define TILEWAVE_VERSION "unknown"
#endif

namespace tw::emit {

std::string_view emitter_stamp() {
  return TILEWAVE_EMITTER_STAMP;
}

std::string_view to_string(CacheOutcome o) {
  switch (o) {
  case CacheOutcome::disabled:
    return "disabled";
  case CacheOutcome::memory_hit:
    return "memory hit";
  case CacheOutcome::disk_hit:
    return "disk hit";
  case CacheOutcome::miss:
    return "miss";
  case CacheOutcome::rebuilt:
    return "rebuilt";
  }
  return "?";
}

std::string options_key(const CompileOptions& options) {
  std::string key = "O"; // appended: g++-12 warns falsely on "literal" + std::string&&
  key += std::to_string(options.opt_level);
  return key;
}

void clear_memory_cache() {
  process_memory_cache().clear();
}

namespace {

void check_options(const CompileOptions& options) {
  if (options.opt_level < 0 || options.opt_level > 3)
    throw std::invalid_argument("CompileOptions::opt_level must be 0..3, got " +
                                std::to_string(options.opt_level));
}

// The code object's explicit kernel arguments must sit where ir::kernarg_layout puts them
// (the contract both backends share); names come from the IR (clang does not record them).
void adopt_kernarg_layout(CodeObject& co, const ir::Kernel& kernel) {
  const ir::KernargLayout layout = ir::kernarg_layout(kernel);
  const std::string who = "the " + std::string(backend_name(co.backend)) +
                          " backend's code object for '" + kernel.name + "'";
  if (co.args.size() != layout.slots.size())
    throw std::logic_error(who + " has " + std::to_string(co.args.size()) +
                           " kernel arguments, the IR " + std::to_string(layout.slots.size()));
  for (std::size_t i = 0; i < co.args.size(); ++i) {
    const ir::KernargSlot& s = layout.slots[i];
    if (co.args[i].offset != s.offset || co.args[i].size != s.size)
      throw std::logic_error(who + " puts argument '" + s.name + "' at offset " +
                             std::to_string(co.args[i].offset) + " size " +
                             std::to_string(co.args[i].size) + ", ir::kernarg_layout at " +
                             std::to_string(s.offset) + " size " + std::to_string(s.size));
    co.args[i].name = s.name;
  }
}

// The backend itself, on a kernel both callers have just run ir::verify on (the llvm backend
// does not verify it again): every stage when keep_texts, else only what the code object needs.
// `cache_dir` (empty: none) keeps the hip backend's driver jobs (emit/hip_job_cache.hpp).
CompileArtifacts run_backend(const ir::Kernel& kernel, Backend backend, Arch arch, int opt_level,
                             bool keep_texts, const std::string& cache_dir,
                             CompileStageTimes* times) {
  CompileArtifacts a;
  if (keep_texts)
    a.ir = ir::print(kernel);
  std::vector<std::uint8_t> elf;
  if (backend == Backend::hip) {
    StageTimer t(times ? &times->hip_compile : nullptr);
    a.hip_source = hip::emit_source(kernel);
    HipCompileOutputs out =
        compile_hip_source(a.hip_source, arch, opt_level, keep_texts, keep_texts, cache_dir);
    a.llvm_ir_after_opt = std::move(out.llvm_ir_after_opt);
    a.assembly = std::move(out.assembly);
    elf = std::move(out.code_object);
    if (!keep_texts)
      a.hip_source.clear();
  } else {
    LlvmCompileOutputs out =
        compile_llvm(kernel, arch, opt_level, keep_texts, times, KernelCheck::verified);
    a.llvm_ir_before_opt = std::move(out.ir_before_opt);
    a.llvm_ir_after_opt = std::move(out.ir_after_opt);
    a.assembly = std::move(out.assembly);
    elf = std::move(out.code_object);
  }
  StageTimer t(times ? &times->describe : nullptr);
  a.code_object = describe_code_object(std::move(elf), backend, arch, kernel.name);
  adopt_kernarg_layout(a.code_object, kernel);
  return a;
}

// The parts of a kernel's disk keys: its code object entry (compile) is make_cache_key of
// them, its code object and texts entry (compile_with_artifacts) the same with `artifacts`.
CacheKeyParts entry_key_parts(const ir::Kernel& kernel, Backend backend, Arch arch,
                              const std::string& toolchain, const CompileOptions& options) {
  return {kernel_digest(kernel),
          backend,
          arch,
          toolchain,
          TILEWAVE_VERSION,
          options_key(options),
          std::string(emitter_stamp()),
          false};
}

CacheKey entry_key(CacheKeyParts parts, bool artifacts) {
  parts.artifacts = artifacts;
  return make_cache_key(parts);
}

// The disk entry of `digest` as `decode` reads it (the entry's code object, or its code object
// and texts), or nothing: a miss, or intact bytes that are not this kernel's entry, which are
// deleted (`lookup` then says corrupt, so the caller reports a rebuild). The read and the
// decoding add to `read_time` / `decode_time` when given.
template <class Decode>
auto load_entry(const DiskCache& disk, const std::string& digest, DiskLookup& lookup,
                const Decode& decode, StageTime* read_time = nullptr,
                StageTime* decode_time = nullptr)
    -> std::optional<std::invoke_result_t<const Decode&, const std::vector<std::uint8_t>&>> {
  std::optional<std::vector<std::uint8_t>> bytes;
  {
    StageTimer t(read_time);
    bytes = disk.load(digest, &lookup);
  }
  if (!bytes)
    return std::nullopt;
  try {
    StageTimer t(decode_time);
    return decode(*bytes);
  } catch (const std::exception&) {
    disk.discard(digest);
    lookup = DiskLookup::corrupt;
    return std::nullopt;
  }
}

// Tells the caller where the code object came from, when it asked.
void report_outcome(const CompileOptions& options, CacheOutcome o) {
  if (options.cache_outcome)
    *options.cache_outcome = o;
}

// run_backend, and its line in TILEWAVE_COMPILE_LOG (emit/compile_log.hpp). `key` is the code
// object's key digest (empty when the cache is off).
CompileArtifacts run_logged(std::string_view path, const ir::Kernel& kernel, Backend backend,
                            Arch arch, int opt_level, bool keep_texts, std::string_view key,
                            const std::string& cache_dir = {}, CompileStageTimes* times = nullptr) {
  StageTime spent;
  CompileArtifacts a;
  const double children0 = child_process_cpu_seconds();
  {
    StageTimer t(&spent);
    a = run_backend(kernel, backend, arch, opt_level, keep_texts, cache_dir, times);
  }
  log_backend_run(
      {path, kernel.name, backend, arch, opt_level, key, spent.cpu_s, spent.wall_s,
       std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(),
       child_process_cpu_seconds() - children0});
  return a;
}

// Decodes a code object entry (compile's) of `kernel`; throws when it is not one.
CodeObject decode_code_object(const std::vector<std::uint8_t>& bytes, const ir::Kernel& kernel,
                              Backend backend, Arch arch) {
  CodeObject c = decode_cache_entry(bytes, backend, arch, kernel.name);
  adopt_kernarg_layout(c, kernel);
  return c;
}

// Decodes an artifacts entry (compile_with_artifacts') of `kernel`; throws when it is not one.
CompileArtifacts decode_artifacts(const std::vector<std::uint8_t>& bytes, const ir::Kernel& kernel,
                                  Backend backend, Arch arch) {
  CompileArtifacts entry = decode_artifacts_entry(bytes, backend, arch, kernel.name);
  adopt_kernarg_layout(entry.code_object, kernel);
  return entry;
}

// Whether compile_with_artifacts' code object is, byte for byte, the one compile() builds:
// llvm runs the same in-process pipeline (the texts are printed beside it; tests/emit/
// test_compile.cpp compares them). The hip backend's texts come from the driver with
// -save-temps, which assembles clang's .s: the same code, another ELF layout (one more
// section), so its two entries stay apart.
bool artifacts_hold_compiles_code_object(Backend backend) {
  return backend == Backend::llvm;
}

// Stores `co` as compile()'s entry under `key` (and in this process's memory cache); a
// directory that cannot be written is reported once and otherwise ignored.
void store_code_object(const DiskCache& disk, const CacheKey& key, const CodeObject& co) {
  if (!disk.store(key.digest, encode_cache_entry(co)) && !disk.problem().empty())
    warn_cache_unusable_once(disk.problem());
  process_memory_cache().insert(key.digest, co);
}

} // namespace

CompileArtifacts compile_with_artifacts(const ir::Kernel& kernel, Backend backend, Arch arch,
                                        const CompileOptions& options) {
  check_options(options);
  const bool dumping = options.dump_dir.has_value() || dump_dir_from_environment().has_value();
  const bool cached = options.use_cache && cache_enabled_by_environment() && !dumping;
  const std::string dir =
      cached ? (options.cache_dir ? *options.cache_dir : default_cache_dir()) : std::string();
  if (dir.empty()) {
    // No cache (as before: a dumping compile always runs the backend).
    ir::verify(kernel);
    CompileArtifacts a =
        run_logged("artifacts", kernel, backend, arch, options.opt_level, true, {});
    report_outcome(options, cached || dumping ? CacheOutcome::miss : CacheOutcome::disabled);
    return a;
  }
  // The code object's key plus the artifacts marker: an entry of its own, never confused with
  // the code object entry compile() makes.
  const CacheKeyParts parts =
      entry_key_parts(kernel, backend, arch, toolchain_version(dir), options);
  const CacheKey key = entry_key(parts, /*artifacts=*/true);
  const DiskCache disk(dir);
  auto read_entry = [&](DiskLookup& lookup) {
    std::optional<CompileArtifacts> a =
        load_entry(disk, key.digest, lookup, [&](const std::vector<std::uint8_t>& bytes) {
          return decode_artifacts(bytes, kernel, backend, arch);
        });
    if (a)
      report_outcome(options, CacheOutcome::disk_hit);
    return a;
  };
  DiskLookup lookup = DiskLookup::miss;
  if (std::optional<CompileArtifacts> a = read_entry(lookup))
    return std::move(*a);
  if (!disk.problem().empty())
    warn_cache_unusable_once(disk.problem());
  // Another process or thread compiling this entry now: wait for it and read what it stored.
  const CompileLock lock(dir, key.digest);
  DiskLookup again = DiskLookup::miss;
  if (lock.waited())
    if (std::optional<CompileArtifacts> a = read_entry(again))
      return std::move(*a);
  ir::verify(kernel);
  const CacheKey co_key = entry_key(parts, /*artifacts=*/false);
  CompileArtifacts a =
      run_logged("artifacts", kernel, backend, arch, options.opt_level, true, co_key.digest);
  if (!disk.store(key.digest, encode_artifacts_entry(a)) && !disk.problem().empty())
    warn_cache_unusable_once(disk.problem());
  // When this compile's code object is the one compile() builds, it is stored as compile()'s
  // entry too: a later compile() of the kernel is a hit instead of a second compile.
  if (artifacts_hold_compiles_code_object(backend))
    store_code_object(disk, co_key, a.code_object);
  report_outcome(options,
                 lookup == DiskLookup::corrupt ? CacheOutcome::rebuilt : CacheOutcome::miss);
  return a;
}

CodeObject compile(const ir::Kernel& kernel, Backend backend, Arch arch,
                   const CompileOptions& options) {
  check_options(options);
  CompileStageTimes* times = options.stage_times;
  auto timer = [times](StageTime CompileStageTimes::*slot) {
    return StageTimer(times ? &(times->*slot) : nullptr);
  };
  const std::optional<std::string> dump =
      options.dump_dir ? options.dump_dir : dump_dir_from_environment();
  const bool cached = options.use_cache && cache_enabled_by_environment();

  // A hit is not verified again: entries are made only from kernels that ir::verify accepted,
  // and the key holds kernel_digest, which covers every field of the kernel, so a kernel that
  // hits is field for field one that verified. A malformed kernel never hits (no entry is
  // made for it) and is rejected below before anything is compiled or stored.
  CacheKeyParts parts;
  CacheKey key;
  std::string dir;
  std::optional<DiskCache> disk;
  std::optional<CompileLock> lock; // held from a disk miss until the entry is stored
  CacheOutcome outcome = CacheOutcome::disabled;
  if (cached) {
    dir = options.cache_dir ? *options.cache_dir : default_cache_dir();
    const std::string& toolchain = [&]() -> const std::string& {
      auto t = timer(&CompileStageTimes::toolchain);
      return toolchain_version(dir);
    }();
    {
      auto t = timer(&CompileStageTimes::key);
      parts = entry_key_parts(kernel, backend, arch, toolchain, options);
      key = entry_key(parts, /*artifacts=*/false);
    }
    if (!dir.empty())
      disk.emplace(dir);
    outcome = CacheOutcome::miss;
    if (!dump) {
      std::optional<CodeObject> hit;
      {
        auto t = timer(&CompileStageTimes::memory);
        hit = process_memory_cache().find(key.digest);
      }
      if (hit) {
        report_outcome(options, CacheOutcome::memory_hit);
        return *hit;
      }
      if (disk) {
        StageTime* read_time = times ? &times->disk_read : nullptr;
        StageTime* decode_time = times ? &times->describe : nullptr;
        // The code object's entry, into the memory cache when found.
        auto read_entry = [&](DiskLookup& lookup) {
          std::optional<CodeObject> co = load_entry(
              *disk, key.digest, lookup,
              [&](const std::vector<std::uint8_t>& bytes) {
                return decode_code_object(bytes, kernel, backend, arch);
              },
              read_time, decode_time);
          if (co) {
            process_memory_cache().insert(key.digest, *co);
            report_outcome(options, CacheOutcome::disk_hit);
          }
          return co;
        };
        DiskLookup lookup = DiskLookup::miss;
        if (std::optional<CodeObject> co = read_entry(lookup))
          return std::move(*co);
        // For the llvm backend, compile_with_artifacts' entry of the kernel holds the same
        // code object (it stores compile()'s entry too; this finds the entries of a cache
        // filled before it did, or whose code object entry alone was lost): a hit, and
        // compile()'s entry is stored from it, so the next process reads the smaller file.
        DiskLookup artifacts_lookup = DiskLookup::miss;
        std::optional<CompileArtifacts> stored;
        if (artifacts_hold_compiles_code_object(backend))
          stored = load_entry(
              *disk, entry_key(parts, /*artifacts=*/true).digest, artifacts_lookup,
              [&](const std::vector<std::uint8_t>& bytes) {
                return decode_artifacts(bytes, kernel, backend, arch);
              },
              read_time, decode_time);
        if (stored) {
          auto t = timer(&CompileStageTimes::disk_write);
          store_code_object(*disk, key, stored->code_object);
          report_outcome(options, CacheOutcome::disk_hit);
          return std::move(stored->code_object);
        }
        if (lookup == DiskLookup::corrupt || artifacts_lookup == DiskLookup::corrupt)
          outcome = CacheOutcome::rebuilt;
        if (!disk->problem().empty())
          warn_cache_unusable_once(disk->problem());
        // Another process or thread compiling this entry now: wait, and read what it stored.
        lock.emplace(dir, key.digest);
        DiskLookup again = DiskLookup::miss;
        if (lock->waited())
          if (std::optional<CodeObject> co = read_entry(again))
            return std::move(*co);
      }
    }
  }

  {
    auto t = timer(&CompileStageTimes::verify);
    ir::verify(kernel);
  }
  CompileArtifacts a = run_logged(dump ? "dump" : "compile", kernel, backend, arch,
                                  options.opt_level, dump.has_value(), key.digest, dir, times);
  if (dump)
    write_dump(*dump, kernel.name, a);
  if (cached) {
    auto t = timer(&CompileStageTimes::disk_write);
    if (disk)
      store_code_object(*disk, key, a.code_object);
    else
      process_memory_cache().insert(key.digest, a.code_object);
  }
  report_outcome(options, outcome);
  return std::move(a.code_object);
}

} // namespace tw::emit
