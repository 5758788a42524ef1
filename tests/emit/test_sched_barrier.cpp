// The sched_barrier IR op (a scheduling fence, no machine code) on both backends and arches:
// an LDS load written after a chain of square roots stays after it when fenced, while without
// the fence both compilers' schedulers hoist the load above the chain (to hide its latency).
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

// out[t] = sqrt^4(in[t]) + lds[(t + 1) % 32] (the LDS row written from in[] first). With
// `fenced`, sched_barrier(0) stands before and after the LDS load, which follows the chain.
Kernel sqrt_chain_then_lds_load(bool fenced) {
  Kernel k;
  k.name = fenced ? "sched_fenced" : "sched_free";
  k.workgroup_size = {32, 1, 1};
  k.lds_bytes = 128;
  OpBuilder b(k);
  const Type gptr = Type::ptr(AddrSpace::global);
  Value in = b.arg("in", gptr), out = b.arg("out", gptr);
  Value t = b.workitem_id(Dim::x);
  Value off = b.mul(t, b.i32(4));
  Value x = b.load(Type::f32(), b.ptr_add(in, off));
  Value base = b.lds_ptr(0);
  b.store(b.ptr_add(base, off), x);
  b.barrier(/*lds_only=*/true);
  Value y = x;
  for (int i = 0; i < 4; ++i)
    y = b.sqrt(b.add(y, b.f32(1.0)));
  if (fenced)
    b.sched_barrier(sched_kind::none);
  Value next = b.rem_u(b.add(t, b.i32(1)), b.i32(32));
  Value a = b.load(Type::f32(), b.ptr_add(base, b.mul(next, b.i32(4))));
  if (fenced)
    b.sched_barrier(sched_kind::none);
  b.store(b.ptr_add(out, off), b.add(y, a));
  return k;
}

// Whether the last v_sqrt_f32 comes before the (only) ds_load_b32 in `text`.
bool chain_before_load(const std::string& text) {
  const std::size_t load = text.find("ds_load_b32"), last_sqrt = text.rfind("v_sqrt_f32");
  REQUIRE(load != std::string::npos);
  REQUIRE(last_sqrt != std::string::npos);
  return last_sqrt < load;
}

} // namespace

TEST_CASE("llvm backend: sched_barrier keeps an LDS load after the chain it follows") {
  for (Arch arch : {Arch::gfx1200, Arch::gfx1201}) {
    CAPTURE(arch_name(arch));
    const emit::LlvmCompileOutputs fenced =
        emit::compile_llvm(sqrt_chain_then_lds_load(true), arch, 3, /*keep_texts=*/true);
    const emit::LlvmCompileOutputs free =
        emit::compile_llvm(sqrt_chain_then_lds_load(false), arch, 3, /*keep_texts=*/true);
    INFO("fenced:\n" << fenced.assembly << "\nfree:\n" << free.assembly);
    CHECK(fenced.ir_before_opt.find("call void @llvm.amdgcn.sched.barrier(i32 0)") !=
          std::string::npos);
    // LLVM prints the fence as a comment where it stands (it emits no instruction).
    CHECK(fenced.assembly.find("sched_barrier mask(0x00000000)") != std::string::npos);
    CHECK(chain_before_load(fenced.assembly));
    CHECK_FALSE(chain_before_load(free.assembly));
  }
}

TEST_CASE("hip emitter: sched_barrier keeps an LDS load after the chain it follows") {
  const std::string fenced = emit::hip::emit_source(sqrt_chain_then_lds_load(true));
  const std::string free = emit::hip::emit_source(sqrt_chain_then_lds_load(false));
  CHECK(fenced.find("__builtin_amdgcn_sched_barrier(0);") != std::string::npos);
  CHECK(free.find("sched_barrier") == std::string::npos);
  for (const char* arch : {"gfx1200", "gfx1201"}) {
    CAPTURE(arch);
    const test::HipBuild bf = test::compile_hip(fenced, arch), bn = test::compile_hip(free, arch);
    INFO("fenced:\n" << fenced << "\n" << bf.log << bf.disasm << "\nfree:\n" << bn.disasm);
    REQUIRE(bf.ok);
    REQUIRE(bn.ok);
    CHECK(chain_before_load(bf.disasm));
    CHECK_FALSE(chain_before_load(bn.disasm));
  }
}
