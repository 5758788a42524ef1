// The LLVM backend on hand-built IR kernels (emit/sample_kernels.hpp), for gfx1200 and gfx1201:
// the code object's kernarg layout equals ir::kernarg_layout, the resource report matches
// the kernel, and the LLVM IR / assembly contain the instructions each feature must select.
#include <emit/code_object.hpp>
#include <emit/llvm/llvm_backend.hpp>
#include <emit/sample_kernels.hpp>

#include <dsl/ir/ir.hpp>

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace tw;
using namespace tw::emit;

namespace {

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

struct Compiled {
  LlvmCompileOutputs out;
  KernelMetadata md;
};

Compiled compile_both_ways(const ir::Kernel& k, Arch arch) {
  Compiled c{compile_llvm(k, arch, 3, /*keep_texts=*/true), {}};
  const auto all = read_code_object_metadata(c.out.code_object);
  REQUIRE(all.size() == 1);
  c.md = all.front();
  return c;
}

// What every kernel's code object must say, whatever it computes.
void check_contract(const ir::Kernel& k, Arch arch, const Compiled& c) {
  CHECK(c.md.name == k.name);
  CHECK(c.md.target == "amdgcn-amd-amdhsa--" + std::string(arch_name(arch)));
  CHECK(c.md.wavefront_size == 32);
  CHECK(c.md.max_flat_workgroup_size == k.flat_workgroup_size());
  const ir::KernargLayout layout = ir::kernarg_layout(k);
  CHECK(c.md.kernarg_size == layout.size); // explicit arguments only, no hidden ones
  REQUIRE(c.md.args.size() == layout.slots.size());
  for (std::size_t i = 0; i < layout.slots.size(); ++i) {
    CAPTURE(i);
    CHECK(c.md.args[i].name == layout.slots[i].name);
    CHECK(c.md.args[i].offset == layout.slots[i].offset);
    CHECK(c.md.args[i].size == layout.slots[i].size);
  }
  CHECK(c.md.resources.scratch_bytes == 0);
  CHECK(c.md.resources.lds_bytes == k.lds_bytes);
  CHECK(c.md.resources.vgprs > 0);
  CHECK(c.md.resources.waves_per_simd == compute_occupancy(c.md.resources.vgprs,
                                                           static_cast<uint32_t>(k.lds_bytes),
                                                           (k.flat_workgroup_size() + 31) / 32)
                                             .waves_per_simd);
  CHECK(contains(c.out.ir_before_opt, "amdgpu_kernel void @" + k.name + "("));
  const std::string wg = std::to_string(k.flat_workgroup_size());
  CHECK(contains(c.out.ir_after_opt, "\"amdgpu-flat-work-group-size\"=\"" + wg + "," + wg + "\""));
  CHECK(contains(c.out.assembly,
                 ".amdgcn_target \"amdgcn-amd-amdhsa--" + std::string(arch_name(arch)) + "\""));
}

void for_both_arches(const std::function<void(Arch)>& body) {
  for (Arch arch : {Arch::gfx1200, Arch::gfx1201}) {
    CAPTURE(arch_name(arch));
    body(arch);
  }
}

} // namespace

TEST_CASE("llvm backend: vector add with 128-bit loads") {
  for_both_arches([](Arch arch) {
    const ir::Kernel k = samples::vector_add(256, 4);
    const Compiled c = compile_both_ways(k, arch);
    check_contract(k, arch, c);
    CHECK(contains(c.out.ir_before_opt, "load <4 x float>, ptr addrspace(1)"));
    CHECK(contains(c.out.assembly, "global_load_b128"));
    CHECK(contains(c.out.assembly, "global_store_b128"));
    CHECK(c.md.kernarg_size == 28); // 3 pointers + i32
  });
}

TEST_CASE("llvm backend: a loop with a loop-carried f32") {
  for_both_arches([](Arch arch) {
    const ir::Kernel k = samples::loop_sum(64);
    const Compiled c = compile_both_ways(k, arch);
    check_contract(k, arch, c);
    CHECK(contains(c.out.ir_before_opt, "phi float"));
    CHECK(contains(c.out.assembly, "v_add_f32"));
    CHECK(contains(c.out.assembly, "s_cbranch"));
  });
}

TEST_CASE("llvm backend: nested if and if/else with a result") {
  for_both_arches([](Arch arch) {
    const ir::Kernel k = samples::if_else(256);
    const Compiled c = compile_both_ways(k, arch);
    check_contract(k, arch, c);
    CHECK(contains(c.out.assembly, "v_sqrt_f32"));
    CHECK(contains(c.out.assembly, "v_cmp_"));
  });
}

TEST_CASE("llvm backend: LDS block and barrier with workgroup fences") {
  for_both_arches([](Arch arch) {
    const ir::Kernel k = samples::lds_reverse(256);
    const Compiled c = compile_both_ways(k, arch);
    check_contract(k, arch, c);
    CHECK(c.md.resources.lds_bytes == 1024);
    CHECK(contains(c.out.ir_before_opt, "addrspace(3) global [1024 x i8]"));
    CHECK(contains(c.out.ir_before_opt, "fence syncscope(\"workgroup\") release"));
    CHECK(contains(c.out.assembly, "ds_store_b32"));
    CHECK(contains(c.out.assembly, "ds_load_b32"));
    CHECK(contains(c.out.assembly, "s_barrier_signal -1"));
    CHECK(contains(c.out.assembly, "s_barrier_wait -1"));
  });
}

TEST_CASE("llvm backend: an LDS-only barrier fences LDS alone (no global_inv)") {
  for_both_arches([](Arch arch) {
    const ir::Kernel full = samples::lds_reverse(256, /*lds_only=*/false);
    const ir::Kernel lds = samples::lds_reverse(256, /*lds_only=*/true);
    const Compiled cf = compile_both_ways(full, arch), cl = compile_both_ways(lds, arch);
    check_contract(lds, arch, cl);
    // The all-address-space fence invalidates L0 (shared/RDNA4.md); the LDS-only one carries
    // the "amdgpu-synchronize-as" = "local" annotation and does not.
    CHECK(contains(cf.out.assembly, "global_inv"));
    CHECK(contains(cl.out.ir_before_opt, "!mmra"));
    CHECK(contains(cl.out.ir_before_opt, "!\"amdgpu-synchronize-as\", !\"local\""));
    CHECK_FALSE(contains(cl.out.assembly, "global_inv"));
    CHECK(contains(cl.out.assembly, "s_barrier_signal -1"));
    CHECK(contains(cl.out.assembly, "s_wait_dscnt"));
  });
}

TEST_CASE("llvm backend: one WMMA 16x16x16 f16 and bf16") {
  for_both_arches([](Arch arch) {
    for (const char* atom : {"v_wmma_f32_16x16x16_f16", "v_wmma_f32_16x16x16_bf16"}) {
      CAPTURE(atom);
      const ir::Kernel k = samples::wmma_tile(atom);
      const Compiled c = compile_both_ways(k, arch);
      check_contract(k, arch, c);
      CHECK(contains(c.out.assembly, atom));
      CHECK(contains(c.out.assembly, "global_load_b128"));
    }
  });
}

TEST_CASE("llvm backend: WMMA inside a K loop keeps the accumulator in registers") {
  for_both_arches([](Arch arch) {
    const ir::Kernel k = samples::wmma_loop();
    const Compiled c = compile_both_ways(k, arch);
    check_contract(k, arch, c);
    CHECK(contains(c.out.ir_before_opt, "phi <8 x float>"));
    CHECK(contains(c.out.assembly, "v_wmma_f32_16x16x16_f16"));
    CHECK(contains(c.out.assembly, "global_load_b128"));
    CHECK_FALSE(contains(c.out.assembly, "scratch_"));
  });
}

TEST_CASE("llvm backend: SWMMAC with index_key 0 and 1") {
  for_both_arches([](Arch arch) {
    for (int key : {0, 1}) {
      CAPTURE(key);
      const ir::Kernel k = samples::swmmac_tile(key);
      const Compiled c = compile_both_ways(k, arch);
      check_contract(k, arch, c);
      CHECK(contains(c.out.assembly, "v_swmmac_f32_16x16x32_f16"));
    }
  });
}

TEST_CASE("llvm backend: bounded buffer loads") {
  for_both_arches([](Arch arch) {
    for (int width : {1, 4}) {
      CAPTURE(width);
      const ir::Kernel k = samples::buffer_copy(256, width);
      const Compiled c = compile_both_ways(k, arch);
      check_contract(k, arch, c);
      CHECK(contains(c.out.ir_before_opt, "@llvm.amdgcn.make.buffer.rsrc"));
      CHECK(contains(c.out.assembly, width == 4 ? "buffer_load_b128" : "buffer_load_b32"));
    }
  });
}

TEST_CASE("llvm backend: DPP, permlanex16 and ds_bpermute") {
  for_both_arches([](Arch arch) {
    const ir::Kernel k = samples::lane_reduce(64);
    const Compiled c = compile_both_ways(k, arch);
    check_contract(k, arch, c);
    CHECK(contains(c.out.assembly, "row_xmask:1"));
    CHECK(contains(c.out.assembly, "row_xmask:8"));
    CHECK(contains(c.out.assembly, "v_permlanex16_b32"));
    CHECK(contains(c.out.assembly, "ds_bpermute_b32"));
  });
}

TEST_CASE("llvm backend: the emitted text before and after optimization") {
  const ir::Kernel k = samples::vector_add(128, 1);
  const std::string before = emit_llvm_ir(k, Arch::gfx1201, false);
  const std::string after = emit_llvm_ir(k, Arch::gfx1201, true);
  CHECK(contains(before, "target triple = \"amdgcn-amd-amdhsa\""));
  CHECK(contains(before, "ptr addrspace(1) noundef %a"));
  CHECK(contains(before, "call i32 @llvm.amdgcn.workitem.id.x()"));
  CHECK(contains(before, "\"amdhsa_code_object_version\", i32 600"));
  CHECK(after.size() < before.size() + 4096);
  CHECK(contains(after, "load float, ptr addrspace(1)"));
}

TEST_CASE("llvm backend: opt levels 0..3 all produce loadable code objects") {
  const ir::Kernel k = samples::wmma_loop();
  for (int level = 0; level <= 3; ++level) {
    CAPTURE(level);
    const LlvmCompileOutputs out = compile_llvm(k, Arch::gfx1201, level);
    const auto md = read_code_object_metadata(out.code_object);
    CHECK(md.front().kernarg_size == ir::kernarg_layout(k).size);
  }
  CHECK_THROWS_WITH_AS(compile_llvm(k, Arch::gfx1201, 4), "opt_level must be 0..3, got 4",
                       std::invalid_argument);
}

TEST_CASE("llvm backend: a thread's reused target machine gives the bytes of a fresh thread's") {
  // Each thread keeps one target machine per (arch, opt level): compiles on this thread in
  // between, for another arch and another level, must not change what the next compile gives.
  const ir::Kernel k = samples::wmma_loop();
  const std::vector<std::uint8_t> first = compile_llvm(k, Arch::gfx1201, 3).code_object;
  compile_llvm(samples::vector_add(256, 4), Arch::gfx1200, 3);
  compile_llvm(k, Arch::gfx1201, 0);
  compile_llvm(samples::lds_reverse(256), Arch::gfx1201, 3);
  const std::vector<std::uint8_t> again = compile_llvm(k, Arch::gfx1201, 3).code_object;
  std::vector<std::uint8_t> fresh;
  std::thread([&] { fresh = compile_llvm(k, Arch::gfx1201, 3).code_object; }).join();
  CHECK(again == first);
  CHECK(fresh == first);
}

TEST_CASE("llvm backend: a kernel that fails the verifier is rejected with its message") {
  ir::Kernel k = samples::vector_add(256, 1);
  k.workgroup_size = {0, 1, 1};
  try {
    compile_llvm(k, Arch::gfx1201, 3);
    FAIL("an invalid kernel compiled");
  } catch (const std::exception& e) {
    CHECK(contains(e.what(), "ir.verify: kernel 'ir_vector_add_w1'"));
  }
}
