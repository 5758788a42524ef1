// emit::emit_text / emit::report on a kernel defined here (not registered anywhere): the
// resources, IR, source and assembly of any DSL kernel are one call away.
#include <emit/code_object_json.hpp>
#include <emit/report.hpp>

#include <dsl/dsl.hpp>
#include <dsl/ir/print.hpp>

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>

using namespace tw::dsl;

namespace {

// A user's kernel: y[i] = max(x[i], 0) * 2 over n floats, 64 threads per workgroup.
tw::ir::Kernel build_relu_twice() {
  KernelBuilder kb("user_relu_twice", {64, 1, 1});
  auto [x, y, n] = kb.args(gptr<f32>("x"), gptr<f32>("y"), scalar<i32>("n"));
  const Int32 i = block_id() * block_dim() + thread_id();
  if_(i < n, [&] { y.store(i, max(x.load(i), 0.0f) * 2.0f); });
  return kb.finish();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("emit_text gives each format of a kernel defined in the test") {
  using namespace tw::emit;
  const tw::ir::Kernel k = build_relu_twice();
  CHECK(emit_text(k, EmitFormat::ir) == tw::ir::print(k));
  const std::string hip = emit_text(k, EmitFormat::hip);
  CHECK(contains(hip, "user_relu_twice"));
  EmitRequest llvm_request;
  llvm_request.compile.use_cache = false;
  const std::string llvm_ir = emit_text(k, EmitFormat::llvm, llvm_request);
  CHECK(contains(llvm_ir, "amdgpu_kernel void @user_relu_twice("));
  const std::string asm_text = emit_text(k, EmitFormat::asm_text, llvm_request);
  CHECK(contains(asm_text, "s_endpgm"));
  CHECK(contains(asm_text, "global_load"));
  const std::string elf = emit_text(k, EmitFormat::hsaco, llvm_request);
  CHECK(elf.substr(0, 4) == "\x7f"
                            "ELF");

  const nlohmann::json j = nlohmann::json::parse(emit_text(k, EmitFormat::report, llvm_request));
  CHECK(j["kernel"] == "user_relu_twice");
  CHECK(j["resources"]["vgprs"].get<int>() > 0);
  CHECK(j["kernarg"]["args"].size() == 3); // x, y, n
  CHECK(j["kernarg"]["args"][2]["name"] == "n");

  EmitRequest llvm_for_hip;
  llvm_for_hip.backend = Backend::llvm;
  CHECK_THROWS_WITH_AS(emit_text(k, EmitFormat::hip, llvm_for_hip),
                       "--format hip is the HIP backend's source: it takes --backend hip",
                       std::invalid_argument);
  CHECK(parse_emit_format("asm") == EmitFormat::asm_text);
  CHECK_THROWS_WITH_AS(parse_emit_format("elf"),
                       "emit format 'elf' is not one of ir, hip, llvm, asm, hsaco, report",
                       std::invalid_argument);
}

TEST_CASE("report prints resources, IR, source and assembly of one compile") {
  using namespace tw::emit;
  const tw::ir::Kernel k = build_relu_twice();
  for (Backend backend : {Backend::llvm, Backend::hip}) {
    EmitRequest request;
    request.backend = backend;
    request.arch = tw::Arch::gfx1200;
    const std::string r = report(k, request);
    CAPTURE(r);
    CHECK(contains(r, std::string("== user_relu_twice: ") + std::string(backend_name(backend)) +
                          " backend, gfx1200 =="));
    CHECK(contains(r, "== resources ==\n{"));
    CHECK(contains(r, "\"vgprs\""));
    CHECK(contains(r, "== ir ==\n" + tw::ir::print(k)));
    CHECK(contains(r, backend == Backend::hip ? "== hip ==\n" : "== llvm ==\n"));
    CHECK(contains(r, "== asm ==\n"));
    CHECK(contains(r, "amdgcn-amd-amdhsa--gfx1200"));
    CHECK(contains(r, "global_store_b32"));
  }
}
