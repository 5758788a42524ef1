// The sched_barrier IR op (a scheduling fence, no machine code) on both backends and arches:
// an LDS load written after a WMMA stays after it when fenced, while without the fence both
// compilers' schedulers hoist the load above the WMMA (to hide its latency).
// The fence is what keeps the order as written (dsl/mma/fragment_pipeline.hpp relies on it).
#include "hip_toolchain.hpp"

#include <emit/hip/hip_emitter.hpp>
#include <emit/llvm/llvm_backend.hpp>

#include <dsl/ir/ir.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace tw;
using namespace tw::ir;

namespace {

// A WMMA on operands from global memory, then an LDS load that does not depend on it (the
// LDS row written from in[] first): d = A * B, out[t] = d[0] + lds[(t + 1) % 32]. With
// `fenced`, sched_barrier(0) stands before and after the LDS load.
Kernel wmma_then_lds_load(bool fenced) {
  Kernel k;
  k.name = fenced ? "sched_fenced" : "sched_free";
  k.workgroup_size = {32, 1, 1};
  k.lds_bytes = 128;
  OpBuilder b(k);
  const Type gptr = Type::ptr(AddrSpace::global);
  Value in = b.arg("in", gptr), out = b.arg("out", gptr);
  Value t = b.workitem_id(Dim::x);
  Value off = b.mul(t, b.i32(4));
  Value base = b.lds_ptr(0);
  b.store(b.ptr_add(base, off), b.load(Type::f32(), b.ptr_add(in, off)));
  b.barrier(/*lds_only=*/true);
  const Type h8 = Type::vec(Type::f16(), 8);
  Value a = b.load(h8, b.ptr_add(in, b.mul(t, b.i32(16))), 16);
  Value bb = b.load(h8, b.ptr_add(in, b.add(b.mul(t, b.i32(16)), b.i32(512))), 16);
  Value d = b.wmma("v_wmma_f32_16x16x16_f16", a, bb, b.splat(b.f32(0.0), 8));
  if (fenced)
    b.sched_barrier(sched_kind::none);
  Value next = b.rem_u(b.add(t, b.i32(1)), b.i32(32));
  Value x = b.load(Type::f32(), b.ptr_add(base, b.mul(next, b.i32(4))));
  if (fenced)
    b.sched_barrier(sched_kind::none);
  b.store(b.ptr_add(out, off), b.add(b.extract(d, 0), x));
  return k;
}

// Whether the WMMA comes before the (only) ds_load_b32 in `text`.
bool wmma_before_load(const std::string& text) {
  const std::size_t load = text.find("ds_load_b32"), wmma = text.find("v_wmma_f32_16x16x16_f16");
  REQUIRE(load != std::string::npos);
  REQUIRE(wmma != std::string::npos);
  return wmma < load;
}

} // namespace

TEST_CASE("llvm backend: sched_barrier keeps an LDS load after the WMMA it follows") {
  for (Arch arch : {Arch::gfx1200, Arch::gfx1201}) {
    CAPTURE(arch_name(arch));
    const emit::LlvmCompileOutputs fenced =
        emit::compile_llvm(wmma_then_lds_load(true), arch, 3, /*keep_texts=*/true);
    const emit::LlvmCompileOutputs free =
        emit::compile_llvm(wmma_then_lds_load(false), arch, 3, /*keep_texts=*/true);
    INFO("fenced:\n" << fenced.assembly << "\nfree:\n" << free.assembly);
    CHECK(fenced.ir_before_opt.find("call void @llvm.amdgcn.sched.barrier(i32 0)") !=
          std::string::npos);
    // LLVM prints the fence as a comment where it stands (it emits no instruction).
    CHECK(fenced.assembly.find("sched_barrier mask(0x00000000)") != std::string::npos);
    CHECK(wmma_before_load(fenced.assembly));
    CHECK_FALSE(wmma_before_load(free.assembly));
  }
}

TEST_CASE("hip emitter: sched_barrier keeps an LDS load after the WMMA it follows") {
  const std::string fenced = emit::hip::emit_source(wmma_then_lds_load(true));
  const std::string free = emit::hip::emit_source(wmma_then_lds_load(false));
  CHECK(fenced.find("__builtin_amdgcn_sched_barrier(0);") != std::string::npos);
  CHECK(free.find("sched_barrier") == std::string::npos);
  for (const char* arch : {"gfx1200", "gfx1201"}) {
    CAPTURE(arch);
    const test::HipBuild bf = test::compile_hip(fenced, arch), bn = test::compile_hip(free, arch);
    INFO("fenced:\n" << fenced << "\n" << bf.log << bf.disasm << "\nfree:\n" << bn.disasm);
    REQUIRE(bf.ok);
    REQUIRE(bn.ok);
    CHECK(wmma_before_load(bf.disasm));
    CHECK_FALSE(wmma_before_load(bn.disasm));
  }
}
