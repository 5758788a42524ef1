// Black-box tests of `tilewave emit` and `tilewave aot` on the registered sample kernels.
#include "tools/run_tool.hpp"
#include "tools/scratch_dir.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace tw::test {
// test_emit_samples_cli.cpp: the DSL sample kernels' entries of the same `aot --all` run.
void check_aot_ships_sample_kernels(const nlohmann::json& manifest,
                                    const std::filesystem::path& out);
} // namespace tw::test

namespace {

namespace fs = std::filesystem;
using tw::test::slurp;
struct Scratch : tw::test::ScratchDir {
  Scratch() : ScratchDir("emit-cli") {}
};
using tw::test::run_tool;

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

} // namespace

TEST_CASE("tilewave emit --list names the kernels and their parameters") {
  const auto r = run_tool("emit --list");
  CHECK(r.status == 0);
  CHECK(contains(r.output, "ir_vector_add: "));
  CHECK(contains(r.output, "--param width=4  (floats per thread: 1, 2 or 4"));
  CHECK(contains(r.output, "ir_wmma_loop: "));
}

TEST_CASE("tilewave emit prints each stage: ir, hip, llvm, asm") {
  Scratch s;
  const auto ir = run_tool("emit ir_vector_add --format ir --param width=2");
  CHECK(ir.status == 0);
  CHECK(contains(ir.output, "kernel @ir_vector_add_w2(%0: ptr<global> a, %1: ptr<global> b"));
  const auto hip = run_tool("emit ir_vector_add --format hip");
  CHECK(hip.status == 0);
  CHECK(contains(hip.output, "extern \"C\" __attribute__((global))"));
  const auto ll = run_tool("emit ir_lds_reverse --format llvm --arch gfx1200");
  CHECK(ll.status == 0);
  CHECK(contains(ll.output, "define protected amdgpu_kernel void @ir_lds_reverse("));
  CHECK(contains(ll.output, "\"target-cpu\"=\"gfx1200\""));
  const auto hip_ll = run_tool("emit ir_lds_reverse --format llvm --backend hip --arch gfx1200");
  CHECK(hip_ll.status == 0);
  CHECK(contains(hip_ll.output, "amdgpu_kernel void @ir_lds_reverse("));
  const auto as = run_tool("emit ir_wmma_tile --format asm --backend hip --arch gfx1201");
  CHECK(as.status == 0);
  CHECK(contains(as.output, "v_wmma_f32_16x16x16_f16"));
}

TEST_CASE("tilewave emit: a failed write (> /dev/full, -o /dev/full) is an error (issue 17)") {
  for (const char* format : {"ir", "hsaco"}) {
    CAPTURE(format);
    const std::string to_stdout = std::string(TILEWAVE_TOOL) + " emit ir_vector_add --format " +
                                  format + " > /dev/full 2>/dev/null";
    int raw = std::system(to_stdout.c_str());
    REQUIRE(WIFEXITED(raw));
    CHECK(WEXITSTATUS(raw) == 1);
    const auto r = run_tool(std::string("emit ir_vector_add --format ") + format + " -o /dev/full");
    CHECK(r.status == 1);
    CHECK(contains(r.output, "cannot write -o '/dev/full'"));
  }
  const std::string ok = std::string(TILEWAVE_TOOL) + " emit ir_vector_add --format ir > /dev/null";
  CHECK(std::system(ok.c_str()) == 0);
}

TEST_CASE("tilewave emit --format hsaco -o writes a code object, --format report is JSON") {
  Scratch s;
  const fs::path out = s.dir / "k.hsaco";
  const auto r = run_tool("emit ir_loop_sum --format hsaco --backend hip -o " + out.string());
  CHECK(r.status == 0);
  const std::string elf = slurp(out);
  REQUIRE(elf.size() > 64);
  CHECK(elf.substr(0, 4) == "\x7f"
                            "ELF");

  const auto rep = run_tool("emit ir_vector_add --format report --param block=128");
  REQUIRE(rep.status == 0);
  const auto j = nlohmann::json::parse(rep.output);
  CHECK(j["kernel"] == "ir_vector_add");
  CHECK(j["symbol"] == "ir_vector_add_w4");
  CHECK(j["backend"] == "llvm");
  CHECK(j["arch"] == "gfx1201");
  CHECK(j["params"]["block"] == "128");
  CHECK(j["params"]["width"] == "4");
  CHECK(j["workgroup_size_max"] == 128);
  CHECK(j["kernarg"]["size"] == 28);
  CHECK(j["kernarg"]["args"][3]["name"] == "n");
  CHECK(j["kernarg"]["args"][3]["offset"] == 24);
  CHECK(j["resources"]["scratch_bytes"] == 0);
  CHECK(j["resources"]["waves_per_simd"] == 16);
}

TEST_CASE("tilewave emit: the paged / decode attention specs and qk_norm_quant by parameters") {
  const auto paged = run_tool("emit flash_attn --format ir --param paging=csr --param gqa=1");
  CHECK(paged.status == 0);
  CHECK(contains(paged.output, "kernel @tw_flash_attn_bf16_bf16_d128_dv128_v_pagedcsr_vtr_gqa("));
  CHECK(contains(paged.output, "ptr<global> block_table"));
  const auto qk = run_tool("emit qk_norm_quant --format ir --param codes=int8 --param ids=1");
  CHECK(qk.status == 0);
  CHECK(contains(qk.output, "kernel @qk_norm_quant_bf16_int8_neox_ids_v8_rn"));
  const auto bad = run_tool("emit qk_norm_quant --format ir --param style=diagonal");
  CHECK(bad.status == 1);
  CHECK(contains(bad.output,
                 "kernel 'qk_norm_quant' parameter 'style' = 'diagonal': must be neox or "
                 "interleaved"));
  const auto odd = run_tool("emit qk_norm_quant --format ir --param rope_dim=7");
  CHECK(odd.status == 1);
  CHECK(contains(odd.output, "parameter 'rope_dim' = '7': must be even"));
  const auto mla = run_tool("emit mla_decode --format ir --param paging=csr --param lse=1");
  CHECK(mla.status == 0);
  CHECK(contains(mla.output, "kernel @tw_mla_decode_bf16_bf16_v_lse_pagedcsr("));
  const auto mla_none = run_tool("emit mla_decode --format ir --param paging=none");
  CHECK(mla_none.status == 1);
  CHECK(contains(mla_none.output, "parameter 'paging' = 'none': must be table or csr"));
  const auto pg = run_tool("emit flash_attn --format ir --param paging=pages");
  CHECK(pg.status == 1);
  CHECK(contains(pg.output, "parameter 'paging' = 'pages': must be none, table or csr"));
}

TEST_CASE("tilewave emit: unknown kernel, bad arch, bad parameters are clear errors") {
  const auto unknown = run_tool("emit no_such_kernel --format ir");
  CHECK(unknown.status == 1);
  CHECK(contains(unknown.output, "unknown kernel 'no_such_kernel' (known kernels: flash_attn, "
                                 "gemm, gemm_f16, ir_buffer_copy"));
  CHECK(contains(unknown.output, ", linear_attn"));
  const auto arch = run_tool("emit ir_vector_add --format asm --arch gfx942");
  CHECK(arch.status == 1);
  CHECK(contains(arch.output, "unsupported arch 'gfx942': tilewave targets RDNA4 only"));
  const auto value = run_tool("emit ir_vector_add --format ir --param width=3");
  CHECK(value.status == 1);
  CHECK(contains(value.output,
                 "kernel 'ir_vector_add' parameter 'width' = '3': must be one of 1, 2, 4"));
  const auto name = run_tool("emit ir_vector_add --format ir --param depth=3");
  CHECK(name.status == 1);
  CHECK(contains(name.output,
                 "kernel 'ir_vector_add' has no parameter 'depth' (it takes: block, width)"));
  const auto form = run_tool("emit ir_vector_add --format ir --param width");
  CHECK(form.status == 1);
  CHECK(contains(form.output, "--param 'width' must have the form name=value"));
  const auto integer = run_tool("emit ir_loop_sum --format ir --param block=big");
  CHECK(integer.status == 1);
  CHECK(contains(integer.output, "parameter 'block' = 'big': must be an integer"));
  const auto fmt = run_tool("emit ir_vector_add --format pdf");
  CHECK(fmt.status != 0);
  CHECK(contains(fmt.output, "--format"));
  const auto mix = run_tool("emit ir_vector_add --format hip --backend llvm");
  CHECK(mix.status == 1);
  CHECK(contains(mix.output, "--format hip is the HIP backend's source: it takes --backend hip"));
  const auto dtype = run_tool("emit gemm --format ir --param a=q9");
  CHECK(dtype.status == 1);
  CHECK(contains(dtype.output, "kernel 'gemm' parameter 'a' = 'q9': is not a dtype name"));
  const auto quant = run_tool("emit gemm --format ir --param quant=sideways");
  CHECK(quant.status == 1);
  CHECK(contains(quant.output, "kernel 'gemm' parameter 'quant' = 'sideways': must be none, "
                               "tensor, row or dynamic"));
  const auto lora = run_tool("emit gemm --format ir --param lora=1");
  CHECK(lora.status == 1);
  CHECK(contains(lora.output, "gemm kernel: LoRA is a block of the quantized-activation kernels"));
  const auto none = run_tool("emit --format ir");
  CHECK(none.status == 1);
  CHECK(contains(none.output, "give a KERNEL name"));
}

TEST_CASE("tilewave aot --all writes every configuration for both arches and a manifest") {
  Scratch s;
  const fs::path out = s.dir / "aot";
  const auto r = run_tool("aot --all --arch gfx1200,gfx1201 -o " + out.string());
  REQUIRE(r.status == 0);
  const auto manifest = nlohmann::json::parse(slurp(out / "manifest.json"));
  CHECK(manifest["tilewave_manifest"] == 1);
  const auto& kernels = manifest["kernels"];
  // 9 sample kernels; ir_vector_add and ir_buffer_copy ship two widths: 11 configurations;
  // the library's gemm ships one per kernel of the family (10) in each of the 4 block tiles,
  // plus the split-K partial and reduce passes of gemm f16 and scaled_mm in 3 tiles (12): 52.
  // Each for 2 backends x 2 arches.
  int samples = 0, gemm = 0, wmma_loop = 0, flash = 0, linear = 0, qk_norm = 0, mla = 0;
  std::set<std::string> gemm_symbols, flash_symbols, linear_symbols, qk_norm_symbols, mla_symbols;
  for (const auto& k : kernels) {
    CAPTURE(k.dump());
    const fs::path file = out / k["file"].get<std::string>();
    REQUIRE(fs::exists(file));
    CHECK(slurp(file).substr(0, 4) == "\x7f"
                                      "ELF");
    CHECK((k["arch"] == "gfx1200" || k["arch"] == "gfx1201"));
    CHECK((k["backend"] == "hip" || k["backend"] == "llvm"));
    CHECK(k["resources"]["vgprs"].get<int>() > 0);
    // No scratch in any shipped configuration of any kernel (issue 14), on both backends and
    // arches: the code object's .private_segment_fixed_size is 0 (docs/kernels.md: the GEMMs'
    // fused quantizing and LoRA kernels, MX and packed int4; attention at head dim 256 reading
    // V^T in passes; linear attention's clipped loads).
    CHECK(k["resources"]["scratch_bytes"].get<int64_t>() == 0);
    CHECK(k["kernarg"]["args"].is_array());
    CHECK(k["params"].is_object());
    const std::string name = k["kernel"];
    if (name.rfind("ir_", 0) == 0)
      ++samples;
    if (name == "gemm") {
      ++gemm;
      gemm_symbols.insert(k["symbol"].get<std::string>());
      CHECK(k["resources"]["lds_bytes"].get<int>() <= 65536);
    }
    if (name == "qk_norm_quant") { // 4 configurations
      ++qk_norm;
      qk_norm_symbols.insert(k["symbol"].get<std::string>());
    }
    if (name == "flash_attn") { // flash attention (11) and paged / decode attention (6)
      ++flash;
      flash_symbols.insert(k["symbol"].get<std::string>());
      CHECK(k["resources"]["lds_bytes"].get<int>() <= 65536);
    }
    if (name == "mla_decode") { // 6 configurations; the S^T reduction scratch in LDS
      ++mla;
      mla_symbols.insert(k["symbol"].get<std::string>());
      CHECK(k["resources"]["lds_bytes"].get<int>() <= 65536);
    }
    if (name == "linear_attn") { // 4 configurations, no LDS
      ++linear;
      linear_symbols.insert(k["symbol"].get<std::string>());
      CHECK(k["resources"]["lds_bytes"] == 0);
    }
    if (name == "ir_wmma_loop") {
      ++wmma_loop;
      CHECK(k["kernarg"]["size"] == 28);
      CHECK(k["kernarg"]["args"][3]["name"] == "k");
    }
  }
  CHECK(samples == 44);
  // 10 kernels x 4 tiles, less MX's t128x128w8 (not offered: it spills), + 12 split-K passes
  CHECK(gemm == 51 * 4);
  tw::test::check_aot_ships_sample_kernels(manifest, out);
  // One symbol per configuration: the mx, grouped, quantizing and LoRA kernels among them, in
  // every tile they are offered in (the symbol carries the tile and the split-K pass).
  CHECK(gemm_symbols.size() == 51);
  for (const char* feature :
       {"_mx", "_grouped", "_qbf16d", "_lorav", "int4_int4_i32", "_t128x128w4", "_t128x128w8",
        "_t32x128w4", "_t128x32w4", "_skpart", "_skred"})
    CHECK(std::any_of(gemm_symbols.begin(), gemm_symbols.end(), [&](const std::string& sym) {
      return sym.find(feature) != std::string::npos;
    }));
  CHECK(std::none_of(gemm_symbols.begin(), gemm_symbols.end(), [](const std::string& sym) {
    return sym.find("_mx") != std::string::npos && sym.find("_t128x128w8") != std::string::npos;
  }));
  CHECK(wmma_loop == 4);
  CHECK(flash == 68);
  CHECK(flash_symbols.size() == 17);
  // D 256 in 64- and 128-row query tiles (the default for Sq > 64, docs/kernels.md "Query tile")
  for (bool q128 : {false, true})
    CHECK(std::any_of(flash_symbols.begin(), flash_symbols.end(), [&](const std::string& sym) {
      return sym.find("bf16_bf16_d256_dv256_") != std::string::npos &&
             (sym.find("_q128") != std::string::npos) == q128;
    }));
  for (const char* feature : {"_paged_", "_pagedcsr_", "_gqa", "int8_bf16_d128_dv128_v_paged"})
    CHECK(std::any_of(flash_symbols.begin(), flash_symbols.end(), [&](const std::string& sym) {
      return sym.find(feature) != std::string::npos;
    }));
  CHECK(qk_norm == 16);
  CHECK(qk_norm_symbols.size() == 4);
  CHECK(mla == 24);
  CHECK(mla_symbols.size() == 6);
  CHECK(linear == 16);
  CHECK(linear_symbols.size() == 4);
  // the shipped linear attention reads aligned rows through clipped loads (the spec's `_clip`)
  CHECK(std::all_of(linear_symbols.begin(), linear_symbols.end(),
                    [](const std::string& sym) { return sym.find("_clip") != std::string::npos; }));
}

TEST_CASE("tilewave aot: selection and argument errors") {
  Scratch s;
  const auto one = run_tool("aot --kernel ir_wmma_tile --arch gfx1201 --backend llvm -o " +
                            (s.dir / "one").string());
  CHECK(one.status == 0);
  CHECK(contains(one.output, "wrote 1 code objects"));
  CHECK(fs::exists(s.dir / "one" / "ir_wmma_tile.llvm.gfx1201.hsaco"));
  const auto neither = run_tool("aot -o " + (s.dir / "x").string());
  CHECK(neither.status == 1);
  CHECK(contains(neither.output, "give either --all or one or more --kernel NAME"));
  const auto arch = run_tool("aot --all --arch gfx1201,gfx1100 -o " + (s.dir / "x").string());
  CHECK(arch.status == 1);
  CHECK(contains(arch.output, "unsupported arch 'gfx1100'"));
  const auto unknown = run_tool("aot --kernel nope -o " + (s.dir / "x").string());
  CHECK(unknown.status == 1);
  CHECK(contains(unknown.output, "unknown kernel 'nope'"));
}
