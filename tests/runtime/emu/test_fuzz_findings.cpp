// The fuzz targets' kept inputs (tests/fuzz/code_object/, tests/fuzz/executor/: the seeds
// and every input a fuzz run found a problem with) replayed in the ordinary suite: each code
// object loads or is refused with an EmuError; each instruction stream runs in the fuzz_body
// template kernel or ends in an EmuError. scripts/fuzz.sh explores further (ctest -L fuzz).
#include "emu_test_util.hpp"

#include "fuzz/executor_harness.hpp"

#include <runtime/emu/code_object.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> kept_inputs(const std::string& target) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(TW_TEST_FUZZ_DIR) / target))
    if (e.is_regular_file())
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

} // namespace

TEST_CASE("fuzz findings: every kept code object loads or is refused in one sentence") {
  const auto files = kept_inputs("code_object");
  REQUIRE(files.size() >= 3);
  size_t loaded = 0;
  for (const fs::path& f : files) {
    CAPTURE(f.string());
    const std::vector<uint8_t> bytes = tw::test::read_file_bytes(f.string());
    try {
      const auto co = tw::emu::CodeObject::load(bytes);
      CHECK(!co->kernel_names().empty());
      ++loaded;
    } catch (const tw::emu::EmuError& e) {
      CHECK(std::string(e.what()).find("code object") != std::string::npos);
    }
  }
  CHECK(loaded >= 3); // the clang-built seeds
}

TEST_CASE("fuzz findings: every kept instruction stream runs or ends in an emulator error") {
  const tw::fuzz::ExecutorTemplate t = tw::fuzz::load_executor_template(
      std::string(TW_TEST_KERNEL_DIR) + "/fuzz_body.gfx1201.O3.hsaco");
  const auto files = kept_inputs("executor");
  REQUIRE(files.size() >= 4);
  for (const fs::path& f : files) {
    CAPTURE(f.string());
    const std::vector<uint8_t> stream = tw::test::read_file_bytes(f.string());
    const std::string error = tw::fuzz::run_instruction_stream(t, stream);
    MESSAGE(f.filename().string() << ": " << (error.empty() ? "ran" : error));
  }
}

TEST_CASE("fuzz harness: the seed streams and the kept findings do what they say") {
  const tw::fuzz::ExecutorTemplate t = tw::fuzz::load_executor_template(
      std::string(TW_TEST_KERNEL_DIR) + "/fuzz_body.gfx1201.O3.hsaco");
  const std::string dir = std::string(TW_TEST_FUZZ_DIR) + "/executor/";
  // A counted scalar loop and LDS traffic run to their s_endpgm.
  CHECK(tw::fuzz::run_instruction_stream(t, tw::test::read_file_bytes(dir + "salu_loop")) == "");
  CHECK(tw::fuzz::run_instruction_stream(t, tw::test::read_file_bytes(dir + "valu_lds")) == "");
  // Finding of the executor target: LLVM decodes v_max_num_f64 v[255:256] (a register pair
  // past v255); the write of v256 overflowed the VGPR file. Now refused when executed.
  const std::string past_file = tw::fuzz::run_instruction_stream(
      t, tw::test::read_file_bytes(dir + "v_max_num_f64_v255_256"));
  CHECK(past_file.find("names registers past the register file") != std::string::npos);
  CHECK(past_file.find("v[255:256]") != std::string::npos);
  // Found through the code_object target: LLVM 22 reads the K literal of v_fmaak_f16 /
  // v_fmamk_f16 as an operand code when it is 0x80..0xff (0x80 printed as 0x0, 0xff crashes
  // it). Such a word is refused before LLVM sees it and fails when executed, not run with K = 0.
  const std::string k_literal = tw::fuzz::run_instruction_stream(
      t, tw::test::read_file_bytes(dir + "fmaak_f16_literal_0x80"));
  CHECK(k_literal.find("undecodable instruction word") != std::string::npos);
  // A branch to itself is stopped by the instruction budget, not by the host hanging.
  const std::vector<uint8_t> self_loop = {0xff, 0xff, 0xa0, 0xbf}; // s_branch -1
  const std::string e = tw::fuzz::run_instruction_stream(t, self_loop);
  CHECK(e.find("20000") != std::string::npos);
}
