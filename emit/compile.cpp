#include <emit/cache_entry.hpp>
#include <emit/cache_key.hpp>
#include <emit/compile.hpp>
#include <emit/disk_cache.hpp>
#include <emit/dump.hpp>
#include <emit/hip/hip_emitter.hpp>
#include <emit/kernel_digest.hpp>
#include <emit/llvm/llvm_backend.hpp>
#include <emit/memory_cache.hpp>
#include <emit/toolchain.hpp>

#include <dsl/ir/kernel.hpp>
#include <dsl/ir/print.hpp>
#include <dsl/ir/verify.hpp>

#include <emit/emitter_stamp.hpp>

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
CompileArtifacts run_backend(const ir::Kernel& kernel, Backend backend, Arch arch, int opt_level,
                             bool keep_texts, CompileStageTimes* times = nullptr) {
  CompileArtifacts a;
  if (keep_texts)
    a.ir = ir::print(kernel);
  std::vector<std::uint8_t> elf;
  if (backend == Backend::hip) {
    StageTimer t(times ? &times->hip_compile : nullptr);
    a.hip_source = hip::emit_source(kernel);
    HipCompileOutputs out =
        compile_hip_source(a.hip_source, arch, opt_level, keep_texts, keep_texts);
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

// The key of a kernel's disk entry: its code object (compile) or its code object and texts
// (compile_with_artifacts, `artifacts`).
CacheKey entry_key(const ir::Kernel& kernel, Backend backend, Arch arch,
                   const std::string& toolchain, const CompileOptions& options, bool artifacts) {
  return make_cache_key({kernel_digest(kernel), backend, arch, toolchain, TILEWAVE_VERSION,
                         options_key(options), std::string(emitter_stamp()), artifacts});
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
    CompileArtifacts a = run_backend(kernel, backend, arch, options.opt_level, true);
    report_outcome(options, cached || dumping ? CacheOutcome::miss : CacheOutcome::disabled);
    return a;
  }
  // The code object's key plus the artifacts marker: an entry of its own, never confused with
  // the code object entry compile() makes.
  const CacheKey key =
      entry_key(kernel, backend, arch, toolchain_version(dir), options, /*artifacts=*/true);
  const DiskCache disk(dir);
  DiskLookup lookup = DiskLookup::miss;
  if (std::optional<CompileArtifacts> a =
          load_entry(disk, key.digest, lookup, [&](const std::vector<std::uint8_t>& bytes) {
            CompileArtifacts entry = decode_artifacts_entry(bytes, backend, arch, kernel.name);
            adopt_kernarg_layout(entry.code_object, kernel);
            return entry;
          })) {
    report_outcome(options, CacheOutcome::disk_hit);
    return std::move(*a);
  }
  if (!disk.problem().empty())
    warn_cache_unusable_once(disk.problem());
  ir::verify(kernel);
  CompileArtifacts a = run_backend(kernel, backend, arch, options.opt_level, true);
  if (!disk.store(key.digest, encode_artifacts_entry(a)) && !disk.problem().empty())
    warn_cache_unusable_once(disk.problem());
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
  CacheKey key;
  std::optional<DiskCache> disk;
  CacheOutcome outcome = CacheOutcome::disabled;
  if (cached) {
    const std::string dir = options.cache_dir ? *options.cache_dir : default_cache_dir();
    const std::string& toolchain = [&]() -> const std::string& {
      auto t = timer(&CompileStageTimes::toolchain);
      return toolchain_version(dir);
    }();
    {
      auto t = timer(&CompileStageTimes::key);
      key = entry_key(kernel, backend, arch, toolchain, options, /*artifacts=*/false);
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
        DiskLookup lookup = DiskLookup::miss;
        if (std::optional<CodeObject> co = load_entry(
                *disk, key.digest, lookup,
                [&](const std::vector<std::uint8_t>& bytes) {
                  CodeObject c = decode_cache_entry(bytes, backend, arch, kernel.name);
                  adopt_kernarg_layout(c, kernel);
                  return c;
                },
                times ? &times->disk_read : nullptr, times ? &times->describe : nullptr)) {
          process_memory_cache().insert(key.digest, *co);
          report_outcome(options, CacheOutcome::disk_hit);
          return std::move(*co);
        }
        if (lookup == DiskLookup::corrupt)
          outcome = CacheOutcome::rebuilt;
        if (!disk->problem().empty())
          warn_cache_unusable_once(disk->problem());
      }
    }
  }

  {
    auto t = timer(&CompileStageTimes::verify);
    ir::verify(kernel);
  }
  CompileArtifacts a =
      run_backend(kernel, backend, arch, options.opt_level, dump.has_value(), times);
  if (dump)
    write_dump(*dump, kernel.name, a);
  if (cached) {
    auto t = timer(&CompileStageTimes::disk_write);
    if (disk && !disk->store(key.digest, encode_cache_entry(a.code_object)) &&
        !disk->problem().empty())
      warn_cache_unusable_once(disk->problem());
    process_memory_cache().insert(key.digest, a.code_object);
  }
  report_outcome(options, outcome);
  return std::move(a.code_object);
}

} // namespace tw::emit
