// `tilewave emit --plugin LIB.so` on a user's kernel library (tests/tools/plugin/): the
// kernel a test defines gets the same IR / asm / report as the shipped ones, and a bad plugin
// is an error naming it.
#include "tools/run_tool.hpp"
#include "tools/scratch_dir.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>

using tw::test::run_tool;

namespace {

const std::string plugin = std::string(" --plugin ") + TILEWAVE_TEST_PLUGIN;

} // namespace

TEST_CASE("tilewave emit --plugin: a user's kernel is listed and emitted in every format") {
  tw::test::ScratchDir scratch("emit-plugin");
  auto r = run_tool("emit --list" + plugin);
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("user_row_softmax: row softmax of a rows x cols f32 matrix") !=
        std::string::npos);
  CHECK(r.output.find("vector_add") != std::string::npos); // the shipped kernels stay

  r = run_tool("emit user_row_softmax --format ir --param cols=64" + plugin);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("kernel @user_row_softmax_64(") != std::string::npos);
  r = run_tool("emit user_row_softmax --format asm" + plugin);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("v_exp_f32") != std::string::npos);
  CHECK(r.output.find("s_endpgm") != std::string::npos);
  r = run_tool("emit user_row_softmax --format hip" + plugin);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("user_row_softmax_128") != std::string::npos);
  r = run_tool("emit user_row_softmax --format report --arch gfx1200" + plugin);
  REQUIRE(r.status == 0);
  const nlohmann::json j = nlohmann::json::parse(r.output);
  CHECK(j["kernel"] == "user_row_softmax");
  CHECK(j["params"]["cols"] == "128");
  CHECK(j["resources"]["vgprs"].get<int>() > 0);
  r = run_tool("emit user_row_softmax --format ir --param cols=48" + plugin);
  CHECK(r.status == 1);
  CHECK(r.output.find("cols") != std::string::npos);
}

TEST_CASE("tilewave emit --plugin: a file that is not a plugin is an error naming it") {
  auto r = run_tool("emit --list --plugin /nonexistent/libk.so");
  CHECK(r.status == 1);
  CHECK(r.output.find("--plugin '/nonexistent/libk.so': cannot load it") != std::string::npos);
  // A real shared library without the entry point.
  r = run_tool("emit --list --plugin /lib/x86_64-linux-gnu/libm.so.6");
  CHECK(r.status == 1);
  CHECK(r.output.find("defines no tilewave_register_kernels") != std::string::npos);
}
