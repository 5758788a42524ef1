// Static quality of the main f16 GEMM config (128 x 128 block tile, 4 waves, 16-byte aligned
// operands), from the resource report and the assembly of both backends: no scratch, LDS
// within 64 KiB, VGPRs allowing >= 2 waves per SIMD, 128-bit global loads, WMMA in the K
// loop (one loop body of 2 k steps x 16 atoms per wave), LDS double buffering (2 stages), and
// the shape of the K loop interior workgroups run (one basic block): buffer loads through an
// SGPR descriptor with no 64-bit VALU address math, no global_inv, the operand fragments'
// ds_loads issued ahead of the WMMAs with no full LDS drain per WMMA group.
#include <kernels/gemm/gemm_kernel.hpp>

#include <emit/compile.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

using namespace tw;
using namespace tw::kernels;

namespace {
int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
    ++n;
  return n;
}
// The instructions of every single-block loop of the assembly (a label whose block branches
// back to itself with no other label in between), each as its lines.
std::vector<std::vector<std::string>> single_block_loops(const std::string& assembly) {
  std::vector<std::vector<std::string>> loops;
  std::istringstream in(assembly);
  std::string line, label;
  std::vector<std::string> body;
  while (std::getline(in, line)) {
    if (line.rfind(".LBB", 0) == 0) {
      label = line.substr(0, line.find(':'));
      body.clear();
      continue;
    }
    const std::string instr = line.substr(line.find_first_not_of(" \t") == std::string::npos
                                              ? line.size()
                                              : line.find_first_not_of(" \t"));
    if (instr.empty() || instr[0] == ';')
      continue;
    body.push_back(instr);
    if (!label.empty() && instr.rfind("s_cbranch", 0) == 0 && instr.size() >= label.size() &&
        instr.compare(instr.size() - label.size(), label.size(), label) == 0)
      loops.push_back(body);
  }
  return loops;
}
int count_prefix(const std::vector<std::string>& lines, const std::string& prefix) {
  int n = 0;
  for (const std::string& l : lines)
    n += l.rfind(prefix, 0) == 0;
  return n;
}
int first_index(const std::vector<std::string>& lines, const std::string& prefix) {
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].rfind(prefix, 0) == 0)
      return static_cast<int>(i);
  return -1;
}
} // namespace

TEST_CASE("gemm static quality: main f16 config on both backends") {
  gemm_kernel::GemmKernelSpec spec;
  spec.a = spec.b = DType::f16;
  spec.out = DType::f32;
  spec.a_vec_aligned = spec.b_vec_aligned = true;
  const ir::Kernel k = gemm_kernel::build_gemm_kernel(spec);
  CHECK(k.flat_workgroup_size() == 128);
  // 2 stages x (128 + 128 rows) x (32 + 8) f16.
  CHECK(k.lds_bytes == 2 * 256 * 40 * 2);
  for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
    CAPTURE(emit::backend_name(b));
    const emit::CompileArtifacts art = emit::compile_with_artifacts(k, b, Arch::gfx1201);
    const emit::ResourceReport& r = art.code_object.resources;
    const int wmma = count(art.assembly, "v_wmma_f32_16x16x16_f16");
    const int b128 = count(art.assembly, "global_load_b128");
    std::printf("gemm f16 128x128x32 (%s): %d VGPRs, %d SGPRs, %lld B LDS, %lld B scratch, %d "
                "waves/SIMD, %d v_wmma, %d global_load_b128 in the assembly\n",
                std::string(emit::backend_name(b)).c_str(), r.vgprs, r.sgprs,
                static_cast<long long>(r.lds_bytes), static_cast<long long>(r.scratch_bytes),
                r.waves_per_simd, wmma, b128);
    CHECK(r.scratch_bytes == 0);
    CHECK(r.lds_bytes <= 65536);
    CHECK(r.waves_per_simd >= 2);
    CHECK(b128 >= 8); // 4 passes each for A and B per K tile (prologue and loop)
    CHECK(wmma >= 32);
    CHECK(count(art.assembly, "s_barrier") >= 2);
    CHECK(count(art.assembly, "s_cbranch") >= 1);
    // The interior K loop: the one single-block loop with WMMAs.
    std::vector<std::string> loop;
    for (const auto& l : single_block_loops(art.assembly))
      if (count_prefix(l, "v_wmma") > 0) {
        CHECK(loop.empty());
        loop = l;
      }
    REQUIRE(!loop.empty());
    const int loop_wmma = count_prefix(loop, "v_wmma_f32_16x16x16_f16");
    std::printf("  interior K loop: %zu instructions, %d v_wmma (%.1f%%), %d buffer_load_b128, %d "
                "ds_load_b128, %d s_wait_dscnt\n",
                loop.size(), loop_wmma, 100.0 * loop_wmma / double(loop.size()),
                count_prefix(loop, "buffer_load_b128"), count_prefix(loop, "ds_load_b128"),
                count_prefix(loop, "s_wait_dscnt"));
    CHECK(loop_wmma == 32);
    CHECK(count_prefix(loop, "buffer_load_b128") == 8); // the next tile: 4 passes each of A, B
    CHECK(count_prefix(loop, "global_load") == 0);
    CHECK(count_prefix(loop, "v_add_co") == 0); // no 64-bit address math
    CHECK(count_prefix(loop, "global_inv") == 0);
    CHECK(count_prefix(loop, "scratch_") == 0);
    // Operand fragments: 8 A and 8 B reads per K tile, all issued before the first WMMA; the
    // waits among the WMMAs count down the reads still in flight (at most one full drain: for
    // the last fragment read), a handful in all (the landed code had 13, 8 of them drains).
    CHECK(count_prefix(loop, "ds_load_b128") == 16);
    const int first_wmma = first_index(loop, "v_wmma");
    int loads_before = 0, drains_among = 0, last_wmma = 0;
    for (int i = 0; i < static_cast<int>(loop.size()); ++i) {
      loads_before += i < first_wmma && loop[size_t(i)].rfind("ds_load_b128", 0) == 0;
      if (loop[size_t(i)].rfind("v_wmma", 0) == 0)
        last_wmma = i;
    }
    for (int i = first_wmma; i < last_wmma; ++i)
      drains_among += loop[size_t(i)] == "s_wait_dscnt 0x0";
    CHECK(loads_before == 16);
    CHECK(drains_among <= 1);
    CHECK(count_prefix(loop, "s_wait_dscnt") <= 6);
  }
}
