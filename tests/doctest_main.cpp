// The doctest main of every suite. ctest runs one TEST_CASE per process (doctest_discover_tests
// passes --test-case=<name>); a run in which no test case started fails, so a name ctest
// mangles (a ';' splits it into two entries) can never pass while running nothing. Every suite
// compiles into the build's test compile cache (TILEWAVE_TEST_CACHE_DIR, root CMakeLists.txt)
// unless the caller set TILEWAVE_CACHE_DIR.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace {

std::atomic<int> test_cases_started{0};

struct StartedCounter : doctest::IReporter {
  explicit StartedCounter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override { ++test_cases_started; }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

} // namespace

DOCTEST_REGISTER_LISTENER("started_counter", 1, StartedCounter);

int main(int argc, char** argv) {
  if (const char* dir = std::getenv("TILEWAVE_CACHE_DIR"); dir == nullptr || *dir == '\0')
    setenv("TILEWAVE_CACHE_DIR", TILEWAVE_TEST_CACHE_DIR, 1);
  doctest::Context context(argc, argv);
  const int status = context.run();
  if (context.shouldExit())
    return status;
  bool filtered = false;
  for (int i = 1; i < argc; ++i)
    filtered = filtered || std::strncmp(argv[i], "--test-case=", 12) == 0;
  if (filtered && test_cases_started == 0) {
    std::cerr << "doctest_main: no test case matched the --test-case filter; a test that runs "
                 "nothing does not pass\n";
    return 1;
  }
  return status;
}
