// emit_text / report: the texts of `tilewave emit` for any kernel IR (see report.hpp).
#include <emit/report.hpp>

#include <emit/code_object_json.hpp>
#include <emit/hip/hip_emitter.hpp>

#include <dsl/ir/print.hpp>

#include <sstream>
#include <stdexcept>

namespace tw::emit {
namespace {

Backend backend_for(EmitFormat format, const EmitRequest& request) {
  const Backend b =
      request.backend.value_or(format == EmitFormat::hip ? Backend::hip : Backend::llvm);
  if (format == EmitFormat::hip && b != Backend::hip)
    throw std::invalid_argument("--format hip is the HIP backend's source: it takes --backend hip");
  return b;
}

std::string report_json_text(const ir::Kernel& kernel, const CodeObject& co) {
  nlohmann::json j = code_object_json(co);
  j["kernel"] = kernel.name;
  return j.dump(2) + "\n";
}

} // namespace

EmitFormat parse_emit_format(std::string_view text) {
  for (EmitFormat f : {EmitFormat::ir, EmitFormat::hip, EmitFormat::llvm, EmitFormat::asm_text,
                       EmitFormat::hsaco, EmitFormat::report})
    if (to_string(f) == text)
      return f;
  throw std::invalid_argument("emit format '" + std::string(text) +
                              "' is not one of ir, hip, llvm, asm, hsaco, report");
}

std::string_view to_string(EmitFormat format) {
  switch (format) {
  case EmitFormat::ir:
    return "ir";
  case EmitFormat::hip:
    return "hip";
  case EmitFormat::llvm:
    return "llvm";
  case EmitFormat::asm_text:
    return "asm";
  case EmitFormat::hsaco:
    return "hsaco";
  case EmitFormat::report:
    return "report";
  }
  return "?";
}

std::string emit_text(const ir::Kernel& kernel, EmitFormat format, const EmitRequest& request) {
  const Backend backend = backend_for(format, request);
  switch (format) {
  case EmitFormat::ir:
    return ir::print(kernel);
  case EmitFormat::hip:
    return hip::emit_source(kernel);
  case EmitFormat::llvm:
  case EmitFormat::asm_text: {
    const CompileArtifacts a =
        compile_with_artifacts(kernel, backend, request.arch, request.compile);
    return format == EmitFormat::llvm ? a.llvm_ir_after_opt : a.assembly;
  }
  case EmitFormat::hsaco: {
    const CodeObject co = compile(kernel, backend, request.arch, request.compile);
    return std::string(co.elf.begin(), co.elf.end());
  }
  case EmitFormat::report:
    return report_json_text(kernel, compile(kernel, backend, request.arch, request.compile));
  }
  throw std::invalid_argument("emit_text: unknown format");
}

void report(const ir::Kernel& kernel, std::ostream& out, const EmitRequest& request) {
  const Backend backend = request.backend.value_or(Backend::llvm);
  const CompileArtifacts a = compile_with_artifacts(kernel, backend, request.arch, request.compile);
  out << "== " << kernel.name << ": " << backend_name(backend) << " backend, "
      << arch_name(request.arch) << " ==\n";
  out << "== resources ==\n" << report_json_text(kernel, a.code_object);
  out << "== ir ==\n" << a.ir;
  if (backend == Backend::hip)
    out << "== hip ==\n" << a.hip_source;
  else
    out << "== llvm ==\n" << a.llvm_ir_after_opt;
  out << "== asm ==\n" << a.assembly;
}

std::string report(const ir::Kernel& kernel, const EmitRequest& request) {
  std::ostringstream out;
  report(kernel, out, request);
  return out.str();
}

} // namespace tw::emit
