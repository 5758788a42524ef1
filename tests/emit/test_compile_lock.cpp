// The per-key compile lock (emit/compile_lock.hpp): a second compile of one key waits for the
// first and reads its entry; a crashed holder's lock is free at once, a stopped holder's is
// given up after max_wait; two processes compiling one kernel at once compile it once.
#include <emit/compile.hpp>
#include <emit/compile_lock.hpp>
#include <emit/sample_kernels.hpp>
#include <emit/subprocess.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace tw;
using namespace tw::emit;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

const std::string kDigest(64, 'c');

// A child process that takes the lock, says so on a pipe, and then sleeps until killed.
pid_t child_holding_lock(const std::string& dir) {
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    CompileLock lock(dir, kDigest);
    const char c = lock.held() ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    for (;;)
      ::pause();
  }
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  ::close(ready[0]);
  ::close(ready[1]);
  REQUIRE(c == 'y');
  return child;
}

void kill_and_reap(pid_t child, int signal) {
  ::kill(child, signal);
  if (signal == SIGSTOP)
    ::kill(child, SIGKILL); // a stopped process still dies of SIGKILL
  int status = 0;
  ::waitpid(child, &status, 0);
}

std::size_t line_count(const std::string& file) {
  if (!fs::exists(file))
    return 0;
  std::stringstream in(read_text_file(file));
  std::size_t n = 0;
  for (std::string l; std::getline(in, l);)
    ++n;
  return n;
}

} // namespace

TEST_CASE("compile lock: taken at once when free, its file removed when let go") {
  TempDir dir("tw-lock");
  {
    CompileLock lock(dir.path(), kDigest);
    CHECK(lock.held());
    CHECK_FALSE(lock.waited());
    CHECK(fs::exists(CompileLock::path(dir.path(), kDigest)));
  }
  CHECK_FALSE(fs::exists(CompileLock::path(dir.path(), kDigest)));
  // A cache directory not made yet (the first compile of a fresh cache): made, and locked.
  {
    CompileLock first(dir.file("new/cache"), kDigest);
    CHECK(first.held());
  }
  CHECK(fs::is_directory(dir.file("new/cache")));
  // A directory that cannot be made (a file in its place): no lock, no wait.
  std::ofstream(dir.file("file")) << "x";
  CompileLock none(dir.file("file/cache"), kDigest);
  CHECK_FALSE(none.held());
  CHECK_FALSE(none.waited());
}

TEST_CASE("compile lock: a second thread waits until the first lets go") {
  TempDir dir("tw-lock");
  auto first = std::make_unique<CompileLock>(dir.path(), kDigest);
  REQUIRE(first->held());
  const auto start = std::chrono::steady_clock::now();
  std::thread release([&] {
    std::this_thread::sleep_for(200ms);
    first.reset();
  });
  CompileLock second(dir.path(), kDigest);
  const auto waited_for = std::chrono::steady_clock::now() - start;
  release.join();
  CHECK(second.held());
  CHECK(second.waited());
  CHECK(waited_for >= 150ms);
}

TEST_CASE("compile lock: a crashed holder does not block (the kernel lets its lock go)") {
  TempDir dir("tw-lock");
  const pid_t child = child_holding_lock(dir.path());
  {
    CompileLock busy(dir.path(), kDigest, 100ms);
    CHECK_FALSE(busy.held());
    CHECK(busy.waited());
  }
  kill_and_reap(child, SIGKILL); // dies holding it; its lock file stays behind
  CHECK(fs::exists(CompileLock::path(dir.path(), kDigest)));
  const auto start = std::chrono::steady_clock::now();
  CompileLock lock(dir.path(), kDigest);
  CHECK(lock.held());
  CHECK(std::chrono::steady_clock::now() - start < 5s);
}

TEST_CASE("compile lock: a stopped holder is given up after max_wait") {
  TempDir dir("tw-lock");
  const pid_t child = child_holding_lock(dir.path());
  ::kill(child, SIGSTOP);
  const auto start = std::chrono::steady_clock::now();
  CompileLock lock(dir.path(), kDigest, 300ms);
  const auto waited_for = std::chrono::steady_clock::now() - start;
  CHECK_FALSE(lock.held());
  CHECK(lock.waited());
  CHECK(waited_for >= 250ms);
  CHECK(waited_for < 10s);
  kill_and_reap(child, SIGSTOP);
}

TEST_CASE("compile lock: compile() waiting for another compile of the key reads its entry") {
  TempDir dir("tw-lock"), log_dir("tw-lock-log");
  const std::string log = log_dir.file("log.tsv");
  setenv("TILEWAVE_COMPILE_LOG", log.c_str(), 1);
  unsetenv("TILEWAVE_DUMP");
  unsetenv("TILEWAVE_CACHE");
  const ir::Kernel k = samples::wmma_loop();
  CompileOptions o;
  o.cache_dir = dir.path();
  clear_memory_cache();
  // Both backends and both entry points: the second of each pair waits and reads.
  for (Backend backend : {Backend::llvm, Backend::hip})
    for (bool artifacts : {false, true}) {
      CAPTURE(backend_name(backend));
      CAPTURE(artifacts);
      const std::size_t before = line_count(log);
      auto run = [&](CacheOutcome& outcome) {
        CompileOptions mine = o;
        mine.cache_outcome = &outcome;
        return artifacts ? compile_with_artifacts(k, backend, Arch::gfx1200, mine).code_object
                         : compile(k, backend, Arch::gfx1200, mine);
      };
      CacheOutcome a = CacheOutcome::disabled, b = CacheOutcome::disabled;
      CodeObject first, second;
      std::thread other([&] { first = run(a); });
      std::this_thread::sleep_for(20ms); // usually inside the first compile by now
      second = run(b);
      other.join();
      CHECK(first.elf == second.elf);
      CHECK(line_count(log) == before + 1); // one backend run between them
      CHECK(((a == CacheOutcome::miss) != (b == CacheOutcome::miss)));
      clear_memory_cache();
    }
  unsetenv("TILEWAVE_COMPILE_LOG");
  for (const auto& e : fs::directory_iterator(dir.path()))
    CHECK(e.path().extension() != ".lock"); // every lock file removed
}
