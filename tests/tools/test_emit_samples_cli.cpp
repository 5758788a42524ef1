// Black-box tests of `tilewave emit` / `tilewave aot` on the DSL sample kernels (dsl/samples/,
// the kernels of examples 02-05): each compiles for both arches with both backends into the
// instructions its algorithm needs, aot --all ships them, and bad names / parameters are clear
// errors.
#include "tools/run_tool.hpp"
#include "tools/scratch_dir.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;
using tw::test::slurp;
struct Scratch : tw::test::ScratchDir {
  Scratch() : ScratchDir("emit-samples") {}
};
using tw::test::run_tool;

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// Lines of `asm` whose instruction (first token after the indentation) is `mnemonic`.
int count_instructions(const std::string& asm_text, const std::string& mnemonic) {
  int n = 0;
  for (std::size_t pos = 0; (pos = asm_text.find("\t" + mnemonic, pos)) != std::string::npos;
       ++pos) {
    const char after =
        pos + 1 + mnemonic.size() < asm_text.size() ? asm_text[pos + 1 + mnemonic.size()] : '\n';
    if ((pos == 0 || asm_text[pos - 1] == '\n') && (after == ' ' || after == '\n'))
      ++n;
  }
  return n;
}

// What one sample kernel's gfx12 assembly must contain: its symbol and, per instruction, the
// least number of times it appears (from the algorithm, e.g. 2 k steps x 4 x 4 WMMAs per wave).
struct AsmExpectation {
  std::string kernel, params, symbol;
  std::map<std::string, int> at_least;
};

const std::vector<AsmExpectation>& expectations() {
  static const std::vector<AsmExpectation> all = {
      {"vector_add",
       "",
       "vector_add",
       {{"global_load_b32", 2}, {"global_store_b32", 1}, {"v_add_f32_e32", 1}}},
      // The sum's cross-row step is v_permlanex16, the maximum's shuffles are ds_bpermute.
      {"row_reduce",
       "",
       "row_reduce",
       {{"v_permlanex16_b32", 1}, {"ds_bpermute_b32", 5}, {"global_store_b32", 2}}},
      // One tile: exactly one WMMA is checked below.
      {"wmma_tile", "", "wmma_16x16x16_f16", {{"v_wmma_f32_16x16x16_f16", 1}}},
      {"gemm_f16",
       "--param row_align=16",
       "gemm_f16_128x128x32_align16",
       {{"v_wmma_f32_16x16x16_f16", 32}, {"buffer_load_b128", 1}, {"s_barrier_wait", 1}}},
  };
  return all;
}

} // namespace

TEST_CASE("tilewave emit --list names the DSL sample kernels and gemm_f16's row_align") {
  const auto r = run_tool("emit --list");
  CHECK(r.status == 0);
  for (const char* name : {"vector_add: ", "row_reduce: ", "wmma_tile: ", "gemm_f16: "})
    CHECK(contains(r.output, std::string("\n") + name));
  CHECK(contains(r.output, "--param row_align=16  (bytes every row of A / column of B"));
}

TEST_CASE("tilewave emit: each DSL sample kernel compiles for gfx1200 and gfx1201 with both "
          "backends") {
  Scratch s;
  for (const AsmExpectation& e : expectations())
    for (const std::string arch : {"gfx1200", "gfx1201"})
      for (const std::string backend : {"hip", "llvm"}) {
        CAPTURE(e.kernel);
        CAPTURE(arch);
        CAPTURE(backend);
        const auto r = run_tool("emit " + e.kernel + " " + e.params + " --arch " + arch +
                                " --backend " + backend + " --format asm");
        REQUIRE(r.status == 0);
        CHECK(contains(r.output, ".amdgcn_target \"amdgcn-amd-amdhsa--" + arch + "\""));
        CHECK(contains(r.output, "\n" + e.symbol + ":"));
        for (const auto& [mnemonic, least] : e.at_least) {
          CAPTURE(mnemonic);
          CHECK(count_instructions(r.output, mnemonic) >= least);
        }
        if (e.kernel == "wmma_tile")
          CHECK(count_instructions(r.output, "v_wmma_f32_16x16x16_f16") == 1);
        // Neither spills nor a stack: the kernels' register budgets fit.
        CHECK(contains(r.output, ".private_segment_fixed_size: 0"));
      }
}

TEST_CASE("tilewave emit gemm_f16: every row alignment builds, the report has the LDS plan") {
  Scratch s;
  for (const std::string align : {"2", "4", "8", "16"}) {
    CAPTURE(align);
    const auto ir = run_tool("emit gemm_f16 --format ir --param row_align=" + align);
    REQUIRE(ir.status == 0);
    CHECK(contains(ir.output, "kernel @gemm_f16_128x128x32_align" + align + "("));
    // The A and B tile loads carry the promised alignment.
    CHECK(contains(ir.output, "load align(" + align + ") "));
  }
  const auto report = run_tool("emit gemm_f16 --format report --arch gfx1200");
  REQUIRE(report.status == 0);
  const auto j = nlohmann::json::parse(report.output);
  CHECK(j["resources"]["lds_bytes"] == 40960); // 2 stages x (A + B) x 128 x 40 f16
  CHECK(j["resources"]["scratch_bytes"] == 0);
  CHECK(j["kernarg"]["size"] == 48); // 3 pointers + 3 i64
}

namespace tw::test {
// `aot --all` takes minutes (every library configuration, two arches, two backends), so it runs
// once, in test_emit_cli.cpp's aot test, which calls this to check the DSL sample kernels.
void check_aot_ships_sample_kernels(const nlohmann::json& manifest, const fs::path& out) {
  // kernel -> the (params, arch, backend) configurations the manifest lists for it.
  std::map<std::string, std::set<std::string>> seen;
  for (const auto& k : manifest["kernels"]) {
    const std::string name = k["kernel"];
    if (name != "vector_add" && name != "row_reduce" && name != "wmma_tile" && name != "gemm_f16")
      continue;
    CAPTURE(k.dump());
    const fs::path file = out / k["file"].get<std::string>();
    REQUIRE(fs::exists(file));
    CHECK(slurp(file).substr(0, 4) == "\x7f"
                                      "ELF");
    CHECK(k["resources"]["scratch_bytes"] == 0);
    seen[name].insert(k["params"].dump() + " " + k["arch"].get<std::string>() + " " +
                      k["backend"].get<std::string>());
  }
  const std::vector<std::string> targets = {"gfx1200 hip", "gfx1200 llvm", "gfx1201 hip",
                                            "gfx1201 llvm"};
  for (const std::string name : {"vector_add", "row_reduce", "wmma_tile"}) {
    CAPTURE(name);
    std::set<std::string> want;
    for (const std::string& t : targets)
      want.insert("{} " + t);
    CHECK(seen[name] == want);
  }
  std::set<std::string> want_gemm;
  for (const std::string align : {"16", "2"})
    for (const std::string& t : targets)
      want_gemm.insert("{\"row_align\":\"" + align + "\"} " + t);
  CHECK(seen["gemm_f16"] == want_gemm);
  CHECK(fs::exists(out / "gemm_f16_128x128x32_align2.hip.gfx1200.hsaco"));
  CHECK(fs::exists(out / "wmma_16x16x16_f16.llvm.gfx1201.hsaco"));
}
} // namespace tw::test

TEST_CASE("tilewave emit: unknown sample kernels and bad sample parameters are clear errors") {
  const auto unknown = run_tool("emit gemm_f32 --format ir");
  CHECK(unknown.status == 1);
  CHECK(contains(unknown.output, "unknown kernel 'gemm_f32' (known kernels: "));
  CHECK(contains(unknown.output, "gemm_f16, "));
  CHECK(contains(unknown.output, "row_reduce, "));
  const auto align = run_tool("emit gemm_f16 --format ir --param row_align=32");
  CHECK(align.status == 1);
  CHECK(contains(align.output,
                 "kernel 'gemm_f16' parameter 'row_align' = '32': must be one of 2, 4, 8, 16"));
  const auto word = run_tool("emit gemm_f16 --format ir --param row_align=wide");
  CHECK(word.status == 1);
  CHECK(contains(word.output,
                 "kernel 'gemm_f16' parameter 'row_align' = 'wide': must be an integer"));
  const auto none = run_tool("emit vector_add --format ir --param width=4");
  CHECK(none.status == 1);
  CHECK(contains(none.output, "kernel 'vector_add' has no parameter 'width' (it takes none)"));
  const auto other = run_tool("emit gemm_f16 --format ir --param align=16");
  CHECK(other.status == 1);
  CHECK(contains(other.output, "kernel 'gemm_f16' has no parameter 'align' (it takes: row_align)"));
  const auto aot = run_tool("aot --kernel wmma_tiles -o /tmp/tilewave-never-written");
  CHECK(aot.status == 1);
  CHECK(contains(aot.output, "unknown kernel 'wmma_tiles'"));
}
