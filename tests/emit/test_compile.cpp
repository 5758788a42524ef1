// compile(): the cache in front of both backends (hit, miss on every key change, corrupt and
// truncated entries rebuilt, TILEWAVE_CACHE=0, concurrent compiles in threads and processes),
// the kernarg contract between the backends, and TILEWAVE_DUMP.
#include <emit/cache_key.hpp>
#include <emit/compile.hpp>
#include <emit/disk_cache.hpp>
#include <emit/hip_job_cache.hpp>
#include <emit/kernel_digest.hpp>
#include <emit/sample_kernels.hpp>
#include <emit/subprocess.hpp>

#include <dsl/ir/ir.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace tw;
using namespace tw::emit;
namespace fs = std::filesystem;

namespace {

// Compiles with a private cache directory; returns the outcome.
struct Probe {
  std::string dir;
  CacheOutcome outcome = CacheOutcome::disabled;
  CodeObject run(const ir::Kernel& k, Backend b, Arch a, int opt = 3) {
    CompileOptions o;
    o.cache_dir = dir;
    o.opt_level = opt;
    o.cache_outcome = &outcome;
    return compile(k, b, a, o);
  }
};

// The code object entries of a cache directory (not its toolchain-identity file or the hip
// backend's driver jobs).
std::vector<fs::path> entries(const std::string& dir) {
  std::vector<fs::path> out;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename() != "toolchain-identity" &&
          fs::path(hip_job_dir(dir)).filename() != e.path().filename())
        out.push_back(e.path());
  return out;
}

// What a cache entry file holds: its payload starts after DiskCache's 112-byte header with
// "TWCODE1" (compile's code object entry) or "TWARTS1" (compile_with_artifacts' entry).
std::string entry_kind(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string head(112 + 7, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  return in ? head.substr(112) : std::string("short");
}

// The one entry of `kind` in `dir`.
fs::path entry_of_kind(const std::string& dir, const std::string& kind) {
  std::vector<fs::path> found;
  for (const fs::path& e : entries(dir))
    if (entry_kind(e) == kind)
      found.push_back(e);
  REQUIRE(found.size() == 1);
  return found.front();
}

// Sets an environment variable for one scope.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const char* value) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str()))
      old = v;
    if (value)
      setenv(name.c_str(), value, 1);
    else
      unsetenv(name.c_str());
  }
  ~ScopedEnv() {
    if (old)
      setenv(name.c_str(), old->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};

} // namespace

TEST_CASE("compile: miss, then memory hit, then disk hit after the memory cache is cleared") {
  ScopedEnv no_dump("TILEWAVE_DUMP", nullptr), cache_on("TILEWAVE_CACHE", nullptr);
  TempDir tmp("tilewave-test-compile");
  Probe p{tmp.path()};
  const ir::Kernel k = samples::loop_sum(64);
  clear_memory_cache();
  const CodeObject first = p.run(k, Backend::llvm, Arch::gfx1201);
  CHECK(p.outcome == CacheOutcome::miss);
  CHECK(entries(tmp.path()).size() == 1);
  const CodeObject again = p.run(k, Backend::llvm, Arch::gfx1201);
  CHECK(p.outcome == CacheOutcome::memory_hit);
  CHECK(again.elf == first.elf);
  clear_memory_cache();
  const CodeObject from_disk = p.run(k, Backend::llvm, Arch::gfx1201);
  CHECK(p.outcome == CacheOutcome::disk_hit);
  CHECK(from_disk.elf == first.elf);
  CHECK(from_disk.kernel_name == "ir_loop_sum");
  CHECK(from_disk.resources.vgprs == first.resources.vgprs);
  CHECK(from_disk.args.size() == 3);
  CHECK(from_disk.args[2].name == "len"); // names restored from the IR on a disk hit too
}

TEST_CASE("compile: every part of the key misses (IR, backend, arch, options)") {
  ScopedEnv no_dump("TILEWAVE_DUMP", nullptr), cache_on("TILEWAVE_CACHE", nullptr);
  TempDir tmp("tilewave-test-compile");
  Probe p{tmp.path()};
  clear_memory_cache();
  p.run(samples::vector_add(256, 1), Backend::llvm, Arch::gfx1201);
  CHECK(p.outcome == CacheOutcome::miss);
  p.run(samples::vector_add(256, 1), Backend::llvm, Arch::gfx1201);
  CHECK(p.outcome == CacheOutcome::memory_hit);
  p.run(samples::vector_add(128, 1), Backend::llvm, Arch::gfx1201); // IR: workgroup size
  CHECK(p.outcome == CacheOutcome::miss);
  p.run(samples::vector_add(256, 1), Backend::hip, Arch::gfx1201); // backend
  CHECK(p.outcome == CacheOutcome::miss);
  p.run(samples::vector_add(256, 1), Backend::llvm, Arch::gfx1200); // arch
  CHECK(p.outcome == CacheOutcome::miss);
  p.run(samples::vector_add(256, 1), Backend::llvm, Arch::gfx1201, 2); // options
  CHECK(p.outcome == CacheOutcome::miss);
  CHECK(entries(tmp.path()).size() == 5);
  // The toolchain and tilewave versions enter the key the same way (test_cache.cpp checks
  // make_cache_key); here the key compile() uses names the running toolchain.
  const CacheKey key =
      make_cache_key({kernel_digest(samples::vector_add(256, 1)), Backend::llvm, Arch::gfx1201,
                      "other toolchain", "0.1.0", "O3", std::string(emitter_stamp())});
  CHECK_FALSE(fs::exists(DiskCache(tmp.path()).entry_path(key.digest)));
  // The emitters' source stamp is a SHA-256 taken at build time (cmake/SourceStamp.cmake).
  const std::string_view stamp = emitter_stamp();
  CHECK(stamp.size() == 64);
  CHECK(stamp.find_first_not_of("0123456789abcdef") == std::string_view::npos);
}

TEST_CASE("compile: a truncated or corrupt disk entry is rebuilt and replaced") {
  ScopedEnv no_dump("TILEWAVE_DUMP", nullptr), cache_on("TILEWAVE_CACHE", nullptr);
  TempDir tmp("tilewave-test-compile");
  Probe p{tmp.path()};
  const ir::Kernel k = samples::lds_reverse(256);
  clear_memory_cache();
  const CodeObject good = p.run(k, Backend::hip, Arch::gfx1200);
  const auto files = entries(tmp.path());
  REQUIRE(files.size() == 1);
  const fs::path entry = files.front();
  const auto full_size = fs::file_size(entry);

  fs::resize_file(entry, full_size / 2); // truncated (a crash mid-write of a non-atomic writer)
  clear_memory_cache();
  const CodeObject rebuilt = p.run(k, Backend::hip, Arch::gfx1200);
  CHECK(p.outcome == CacheOutcome::rebuilt);
  CHECK(rebuilt.elf == good.elf);
  CHECK(fs::file_size(entry) == full_size);

  { // one flipped byte in the middle of the payload
    std::fstream f(entry, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(full_size / 2));
    f.put('\x5a');
  }
  clear_memory_cache();
  p.run(k, Backend::hip, Arch::gfx1200);
  CHECK(p.outcome == CacheOutcome::rebuilt);
  clear_memory_cache();
  p.run(k, Backend::hip, Arch::gfx1200);
  CHECK(p.outcome == CacheOutcome::disk_hit);
}

namespace {

// compile_with_artifacts with a private cache directory; records the outcome.
struct ArtifactsProbe {
  std::string dir;
  CacheOutcome outcome = CacheOutcome::disabled;
  CompileArtifacts run(const ir::Kernel& k, Backend b, int opt = 3) {
    CompileOptions o;
    o.cache_dir = dir;
    o.opt_level = opt;
    o.cache_outcome = &outcome;
    return compile_with_artifacts(k, b, Arch::gfx1201, o);
  }
};

// The hip backend's LLVM IR names the compile's temporary directory (ModuleID,
// source_filename), which differs between two uncached compiles: `same_temp_dir` false
// compares that text with the directory's name masked.
std::string masked_temp_dir(const std::string& text) {
  return std::regex_replace(text, std::regex("tilewave-hip-[0-9a-zA-Z]+"), "tilewave-hip-*");
}

void check_same_code_object(const CodeObject& a, const CodeObject& b) {
  CHECK(a.elf == b.elf);
  CHECK(a.kernel_name == b.kernel_name);
  CHECK(a.resources.vgprs == b.resources.vgprs);
  CHECK(a.resources.sgprs == b.resources.sgprs);
  CHECK(a.resources.waves_per_simd == b.resources.waves_per_simd);
  REQUIRE(a.args.size() == b.args.size());
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    CHECK(a.args[i].name == b.args[i].name);
    CHECK(a.args[i].offset == b.args[i].offset);
  }
}

void check_same_artifacts(const CompileArtifacts& a, const CompileArtifacts& b,
                          bool same_temp_dir = true) {
  CHECK(a.ir == b.ir);
  CHECK(a.hip_source == b.hip_source);
  CHECK(a.llvm_ir_before_opt == b.llvm_ir_before_opt);
  if (same_temp_dir)
    CHECK(a.llvm_ir_after_opt == b.llvm_ir_after_opt);
  else
    CHECK(masked_temp_dir(a.llvm_ir_after_opt) == masked_temp_dir(b.llvm_ir_after_opt));
  CHECK(a.assembly == b.assembly);
  check_same_code_object(a.code_object, b.code_object);
}

} // namespace

TEST_CASE("compile_with_artifacts: miss, then a disk hit with byte-identical texts and code "
          "object, for each backend") {
  ScopedEnv no_dump("TILEWAVE_DUMP", nullptr), cache_on("TILEWAVE_CACHE", nullptr);
  TempDir tmp("tilewave-test-compile");
  ArtifactsProbe p{tmp.path()};
  const ir::Kernel k = samples::loop_sum(64);
  std::size_t expected_entries = 0;
  for (Backend backend : {Backend::hip, Backend::llvm}) {
    CAPTURE(backend_name(backend));
    const CompileArtifacts first = p.run(k, backend);
    CHECK(p.outcome == CacheOutcome::miss);
    expected_entries += backend == Backend::llvm ? 2 : 1; // llvm: its own and compile()'s
    CHECK(entries(tmp.path()).size() == expected_entries);
    CHECK(!first.assembly.empty());
    CHECK(!first.llvm_ir_after_opt.empty());
    CHECK((backend == Backend::hip ? first.hip_source : first.llvm_ir_before_opt) != "");
    const CompileArtifacts hit = p.run(k, backend);
    CHECK(p.outcome == CacheOutcome::disk_hit);
    check_same_artifacts(hit, first);
    CHECK(hit.code_object.args[2].name == "len");
    // What the hit returns is what an uncached compile of the same kernel gives.
    CompileOptions uncached;
    uncached.use_cache = false;
    CacheOutcome outcome = CacheOutcome::miss;
    uncached.cache_outcome = &outcome;
    check_same_artifacts(hit, compile_with_artifacts(k, backend, Arch::gfx1201, uncached),
                         /*same_temp_dir=*/false);
    CHECK(outcome == CacheOutcome::disabled);
  }
  // The llvm miss also stored compile()'s entry of the kernel, the same code object: compile()
  // in a new process (memory cleared) is a disk hit with those bytes, and compiles nothing.
  clear_memory_cache();
  Probe co{tmp.path()};
  const CodeObject c = co.run(k, Backend::llvm, Arch::gfx1201);
  CHECK(co.outcome == CacheOutcome::disk_hit);
  check_same_code_object(c, p.run(k, Backend::llvm).code_object);
  // The hip backend's artifacts come from the driver with -save-temps, whose code object has
  // another ELF layout: its entries do not serve compile(), which compiles its own.
  const CodeObject h = co.run(k, Backend::hip, Arch::gfx1201);
  CHECK(co.outcome == CacheOutcome::miss);
  CHECK(h.elf != p.run(k, Backend::hip).code_object.elf);
  CHECK(entries(tmp.path()).size() == expected_entries + 1);
}

TEST_CASE("compile_with_artifacts' code object is compile()'s, byte for byte (llvm backend, "
          "both arches, the sample kernels, opt levels 0 and 3)") {
  ScopedEnv no_dump("TILEWAVE_DUMP", nullptr);
  CompileOptions uncached;
  uncached.use_cache = false;
  for (const ir::Kernel& k :
       {samples::vector_add(), samples::loop_sum(), samples::if_else(), samples::lds_reverse(),
        samples::wmma_tile(), samples::wmma_loop(), samples::swmmac_tile(), samples::buffer_copy(),
        samples::lane_reduce()})
    for (Arch arch : {Arch::gfx1200, Arch::gfx1201})
      for (int opt : {0, 3}) {
        CAPTURE(k.name);
        CAPTURE(arch_name(arch));
        CAPTURE(opt);
        uncached.opt_level = opt;
        const CodeObject plain = compile(k, Backend::llvm, arch, uncached);
        REQUIRE(plain.elf.size() > 64);
        CHECK(compile_with_artifacts(k, Backend::llvm, arch, uncached).code_object.elf ==
              plain.elf);
      }
}

TEST_CASE("compile: served by compile_with_artifacts' entry when its own is missing, which it "
          "stores again, and a damaged artifacts entry is deleted and the kernel compiled") {
  ScopedEnv no_dump("TILEWAVE_DUMP", nullptr), cache_on("TILEWAVE_CACHE", nullptr);
  TempDir tmp("tilewave-test-compile");
  ArtifactsProbe art{tmp.path()};
  Probe co{tmp.path()};
  const ir::Kernel k = samples::lds_reverse(256);
  const CompileArtifacts stored = art.run(k, Backend::llvm);
  REQUIRE(art.outcome == CacheOutcome::miss);
  const fs::path plain = entry_of_kind(tmp.path(), "TWCODE1");
  const fs::path artifacts = entry_of_kind(tmp.path(), "TWARTS1");
  const auto plain_size = fs::file_size(plain);

  // A cache the artifacts entry alone is in (an older build's, or compile()'s entry lost).
  fs::remove(plain);
  clear_memory_cache();
  const CodeObject from_artifacts = co.run(k, Backend::llvm, Arch::gfx1201);
  CHECK(co.outcome == CacheOutcome::disk_hit);
  check_same_code_object(from_artifacts, stored.code_object);
  REQUIRE(fs::exists(plain)); // compile()'s entry is back, whole
  CHECK(fs::file_size(plain) == plain_size);
  clear_memory_cache();
  CHECK(co.run(k, Backend::llvm, Arch::gfx1201).elf == stored.code_object.elf);
  CHECK(co.outcome == CacheOutcome::disk_hit);

  // compile()'s entry missing and the artifacts entry damaged: deleted, the kernel compiled.
  for (const bool truncate : {true, false}) {
    CAPTURE(truncate);
    check_same_artifacts(art.run(k, Backend::llvm), stored); // the artifacts entry, whole
    fs::remove(plain);
    if (truncate)
      fs::resize_file(artifacts, fs::file_size(artifacts) / 2);
    else { // one flipped byte in the middle of the payload
      std::fstream f(artifacts, std::ios::binary | std::ios::in | std::ios::out);
      f.seekp(static_cast<std::streamoff>(fs::file_size(artifacts) / 2));
      f.put(static_cast<char>(f.peek() ^ 0x5a));
    }
    clear_memory_cache();
    CHECK(co.run(k, Backend::llvm, Arch::gfx1201).elf == stored.code_object.elf);
    CHECK(co.outcome == CacheOutcome::rebuilt);
    CHECK_FALSE(fs::exists(artifacts));
    CHECK(fs::file_size(plain) == plain_size);
    // compile_with_artifacts then finds no entry of its own: a miss.
    check_same_artifacts(art.run(k, Backend::llvm), stored);
    CHECK(art.outcome == CacheOutcome::miss);
  }
}

TEST_CASE("compile_with_artifacts: a truncated or corrupt entry is rebuilt and replaced") {
  ScopedEnv no_dump("TILEWAVE_DUMP", nullptr), cache_on("TILEWAVE_CACHE", nullptr);
  TempDir tmp("tilewave-test-compile");
  ArtifactsProbe p{tmp.path()};
  const ir::Kernel k = samples::lds_reverse(256);
  const CompileArtifacts good = p.run(k, Backend::llvm);
  REQUIRE(entries(tmp.path()).size() == 2); // its own and compile()'s
  const fs::path entry = entry_of_kind(tmp.path(), "TWARTS1");
  const auto full_size = fs::file_size(entry);

  fs::resize_file(entry, full_size / 2);
  check_same_artifacts(p.run(k, Backend::llvm), good);
  CHECK(p.outcome == CacheOutcome::rebuilt);
  CHECK(fs::file_size(entry) == full_size);

  { // one flipped byte in the middle of the payload
    std::fstream f(entry, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(full_size / 2));
    f.put(static_cast<char>(f.peek() ^ 0x5a));
  }
  check_same_artifacts(p.run(k, Backend::llvm), good);
  CHECK(p.outcome == CacheOutcome::rebuilt);
  check_same_artifacts(p.run(k, Backend::llvm), good);
  CHECK(p.outcome == CacheOutcome::disk_hit);
}

TEST_CASE("compile_with_artifacts: other options, kernel or backend miss, a dump bypasses") {
  ScopedEnv no_dump("TILEWAVE_DUMP", nullptr), cache_on("TILEWAVE_CACHE", nullptr);
  TempDir tmp("tilewave-test-compile"), dump("tilewave-test-dump");
  ArtifactsProbe p{tmp.path()};
  p.run(samples::vector_add(256, 1), Backend::llvm);
  CHECK(p.outcome == CacheOutcome::miss);
  const CompileArtifacts o2 = p.run(samples::vector_add(256, 1), Backend::llvm, 2);
  CHECK(p.outcome == CacheOutcome::miss);
  p.run(samples::vector_add(128, 1), Backend::llvm);
  CHECK(p.outcome == CacheOutcome::miss);
  p.run(samples::vector_add(256, 1), Backend::hip);
  CHECK(p.outcome == CacheOutcome::miss);
  CHECK(entries(tmp.path()).size() == 7); // llvm misses store compile()'s entry too
  check_same_artifacts(p.run(samples::vector_add(256, 1), Backend::llvm, 2), o2);
  CHECK(p.outcome == CacheOutcome::disk_hit);

  // A dumping compile runs the backend and writes no artifacts entry.
  ScopedEnv dump_env("TILEWAVE_DUMP", dump.path().c_str());
  p.run(samples::vector_add(64, 1), Backend::llvm);
  CHECK(p.outcome == CacheOutcome::miss);
  p.run(samples::vector_add(256, 1), Backend::llvm, 2);
  CHECK(p.outcome == CacheOutcome::miss);
  CHECK(entries(tmp.path()).size() == 7);
}

TEST_CASE("compile: TILEWAVE_CACHE=0 and use_cache=false bypass both layers") {
  ScopedEnv no_dump("TILEWAVE_DUMP", nullptr);
  TempDir tmp("tilewave-test-compile");
  Probe p{tmp.path()};
  const ir::Kernel k = samples::if_else(256);
  {
    ScopedEnv off("TILEWAVE_CACHE", "0");
    p.run(k, Backend::llvm, Arch::gfx1201);
    CHECK(p.outcome == CacheOutcome::disabled);
    p.run(k, Backend::llvm, Arch::gfx1201);
    CHECK(p.outcome == CacheOutcome::disabled);
    CHECK(entries(tmp.path()).empty());
  }
  CompileOptions o;
  o.cache_dir = tmp.path();
  o.use_cache = false;
  CacheOutcome outcome = CacheOutcome::miss;
  o.cache_outcome = &outcome;
  compile(k, Backend::llvm, Arch::gfx1201, o);
  CHECK(outcome == CacheOutcome::disabled);
  CHECK(entries(tmp.path()).empty());
}

TEST_CASE("compile: TILEWAVE_CACHE_DIR is the default directory") {
  ScopedEnv no_dump("TILEWAVE_DUMP", nullptr), cache_on("TILEWAVE_CACHE", nullptr);
  TempDir tmp("tilewave-test-compile");
  ScopedEnv dir("TILEWAVE_CACHE_DIR", tmp.path().c_str());
  clear_memory_cache();
  compile(samples::loop_sum(128), Backend::llvm, Arch::gfx1200);
  CHECK(entries(tmp.path()).size() == 1);
}

TEST_CASE("compile: threads compiling the same kernel at once all get the same code object") {
  ScopedEnv no_dump("TILEWAVE_DUMP", nullptr), cache_on("TILEWAVE_CACHE", nullptr);
  TempDir tmp("tilewave-test-compile");
  const ir::Kernel k = samples::wmma_loop();
  clear_memory_cache();
  std::vector<CodeObject> results(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&, i] {
      CompileOptions o;
      o.cache_dir = tmp.path();
      results[i] = compile(k, i % 2 ? Backend::llvm : Backend::hip, Arch::gfx1201, o);
    });
  for (auto& t : threads)
    t.join();
  CHECK(results[0].elf == results[2].elf);
  CHECK(results[1].elf == results[3].elf);
  CHECK(entries(tmp.path()).size() == 2);
  for (const auto& e : entries(tmp.path()))
    CHECK(e.extension() == ".twco"); // no temporary file left behind
}

TEST_CASE("compile: two processes compiling the same kernel into one cache directory") {
  ScopedEnv no_dump("TILEWAVE_DUMP", nullptr), cache_on("TILEWAVE_CACHE", nullptr);
  TempDir tmp("tilewave-test-compile");
  const ir::Kernel k = samples::lane_reduce(64);
  clear_memory_cache();
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int status = 0;
    try {
      CompileOptions o;
      o.cache_dir = tmp.path();
      const CodeObject co = compile(k, Backend::llvm, Arch::gfx1200, o);
      status = co.elf.empty() ? 2 : 0;
    } catch (...) {
      status = 3;
    }
    _exit(status);
  }
  CompileOptions o;
  o.cache_dir = tmp.path();
  const CodeObject mine = compile(k, Backend::llvm, Arch::gfx1200, o);
  int status = -1;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  REQUIRE(entries(tmp.path()).size() == 1);
  clear_memory_cache();
  CacheOutcome outcome = CacheOutcome::miss;
  o.cache_outcome = &outcome;
  const CodeObject stored = compile(k, Backend::llvm, Arch::gfx1200, o);
  CHECK(outcome == CacheOutcome::disk_hit);
  CHECK(stored.elf == mine.elf);
}

TEST_CASE("compile: both backends give one kernarg layout, the IR's, with the IR's names") {
  ScopedEnv no_dump("TILEWAVE_DUMP", nullptr), cache_off("TILEWAVE_CACHE", "0");
  // Every kernel argument type, with alignment gaps: i8, ptr, f16, i32, i64, bf16, ptr<constant>,
  // f32 -> offsets 0, 8, 16, 20, 24, 32, 40, 48, size 52 (natural alignment, in order).
  ir::Kernel k;
  k.name = "all_arg_types";
  k.workgroup_size = {64, 1, 1};
  ir::OpBuilder b(k);
  using ir::Type;
  const ir::Value i8 = b.arg("i8", Type::i8()),
                  out = b.arg("out", Type::ptr(ir::AddrSpace::global));
  const ir::Value h = b.arg("h", Type::f16()), n = b.arg("n", Type::i32());
  const ir::Value big = b.arg("big", Type::i64()), bf = b.arg("bf", Type::bf16());
  const ir::Value tab = b.arg("tab", Type::ptr(ir::AddrSpace::constant));
  const ir::Value f = b.arg("f", Type::f32());
  ir::Value sum = b.add(b.load(Type::f32(), tab), f);
  sum = b.add(sum, b.cvt(Type::f32(), h));
  sum = b.add(sum, b.cvt(Type::f32(), bf));
  sum = b.add(sum, b.cvt(Type::f32(), n));
  sum = b.add(sum, b.cvt(Type::f32(), big));
  sum = b.add(sum, b.cvt(Type::f32(), b.zext(Type::i32(), i8)));
  b.store(out, sum);
  const std::vector<std::pair<std::int64_t, std::int64_t>> want = {
      {0, 1}, {8, 8}, {16, 2}, {20, 4}, {24, 8}, {32, 2}, {40, 8}, {48, 4}};
  for (Backend backend : {Backend::hip, Backend::llvm})
    for (Arch arch : {Arch::gfx1200, Arch::gfx1201}) {
      CAPTURE(backend_name(backend));
      CAPTURE(arch_name(arch));
      const CodeObject co = compile(k, backend, arch);
      CHECK(co.kernarg_size == 52);
      REQUIRE(co.args.size() == want.size());
      for (std::size_t i = 0; i < want.size(); ++i) {
        CAPTURE(i);
        CHECK(co.args[i].offset == want[i].first);
        CHECK(co.args[i].size == want[i].second);
        CHECK(co.args[i].name == k.args[i].name);
      }
      CHECK(co.args[6].address_space == "constant");
      CHECK(co.args[1].value_kind == "global_buffer");
      CHECK(co.args[0].value_kind == "by_value");
    }
}

TEST_CASE("compile: TILEWAVE_DUMP writes every stage, numbered, for each backend") {
  ScopedEnv cache_on("TILEWAVE_CACHE", nullptr);
  TempDir cache("tilewave-test-compile"), dump("tilewave-test-dump");
  ScopedEnv dump_env("TILEWAVE_DUMP", dump.path().c_str());
  const ir::Kernel k = samples::lds_reverse(128);
  CompileOptions o;
  o.cache_dir = cache.path();
  clear_memory_cache();
  for (Backend backend : {Backend::hip, Backend::llvm}) {
    CAPTURE(backend_name(backend));
    const CodeObject co = compile(k, backend, Arch::gfx1201, o);
    const fs::path dir = fs::path(dump.path()) /
                         ("ir_lds_reverse." + std::string(backend_name(backend)) + ".gfx1201");
    REQUIRE(fs::is_directory(dir));
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    const std::vector<std::string> expected =
        backend == Backend::hip
            ? std::vector<std::string>{"01_ir.twir", "02_source.hip", "03_after_opt.ll",
                                       "04_assembly.s", "05_code_object.hsaco"}
            : std::vector<std::string>{"01_ir.twir", "02_before_opt.ll", "03_after_opt.ll",
                                       "04_assembly.s", "05_code_object.hsaco"};
    CHECK(names == expected);
    CHECK(read_text_file((dir / "01_ir.twir").string()) == ir::print(k));
    const auto elf = read_binary_file((dir / "05_code_object.hsaco").string());
    CHECK(elf == co.elf);
    CHECK(read_text_file((dir / "04_assembly.s").string()).find("s_barrier_signal") !=
          std::string::npos);
    CHECK(read_text_file((dir / "03_after_opt.ll").string()).find("amdgpu_kernel") !=
          std::string::npos);
  }
  // A dumping compile still stores the code object: without the dump it is a hit.
  unsetenv("TILEWAVE_DUMP");
  clear_memory_cache();
  CacheOutcome outcome = CacheOutcome::miss;
  o.cache_outcome = &outcome;
  compile(k, Backend::llvm, Arch::gfx1201, o);
  CHECK(outcome == CacheOutcome::disk_hit);
}

TEST_CASE("compile: bad options and invalid kernels are errors that say why") {
  const ir::Kernel k = samples::loop_sum(64);
  CompileOptions o;
  o.opt_level = 5;
  CHECK_THROWS_WITH_AS(compile(k, Backend::llvm, Arch::gfx1201, o),
                       "CompileOptions::opt_level must be 0..3, got 5", std::invalid_argument);
  ir::Kernel bad = k;
  bad.lds_bytes = 1 << 20;
  try {
    compile(bad, Backend::hip, Arch::gfx1201);
    FAIL("a kernel with 1 MiB of LDS compiled");
  } catch (const ir::VerifyError& e) {
    CHECK(std::string(e.what()).find("ir.verify: kernel 'ir_loop_sum'") == 0);
  }
}

TEST_CASE("compile: a hit needs the very kernel that verified, and a malformed kernel never hits") {
  ScopedEnv no_dump("TILEWAVE_DUMP", nullptr), cache_on("TILEWAVE_CACHE", nullptr);
  TempDir tmp("tilewave-test-compile");
  Probe p{tmp.path()};
  clear_memory_cache();
  const ir::Kernel k = samples::loop_sum(64);
  p.run(k, Backend::llvm, Arch::gfx1201);
  CHECK(p.outcome == CacheOutcome::miss);
  p.run(k, Backend::llvm, Arch::gfx1201);
  CHECK(p.outcome == CacheOutcome::memory_hit);
  // Prints like k (an attribute its opcode does not read) but is another kernel: no hit.
  ir::Kernel unprinted = k;
  unprinted.body.ops.front().attrs.index = 7;
  REQUIRE(ir::print(unprinted) == ir::print(k));
  p.run(unprinted, Backend::llvm, Arch::gfx1201);
  CHECK(p.outcome == CacheOutcome::miss);
  // A malformed variant is verified (no entry exists for it) and rejected, twice, storing nothing.
  ir::Kernel bad = k;
  bad.lds_bytes = 1 << 20;
  const std::size_t stored = entries(tmp.path()).size();
  for (int i = 0; i < 2; ++i)
    CHECK_THROWS_AS(p.run(bad, Backend::llvm, Arch::gfx1201), ir::VerifyError);
  CHECK(entries(tmp.path()).size() == stored);
}
