// `tilewave emit KERNEL --arch gfx1201 --format ir|hip|llvm|asm|hsaco|report [--backend hip|llvm]
// [--param k=v ...] [-o FILE]` and `tilewave emit --list`: one stage of a named kernel's compile.
#include "tilewave/command.hpp"
#include "tilewave/dsl_sample_kernels.hpp"
#include "tilewave/library_kernels.hpp"

#include <emit/code_object_json.hpp>
#include <emit/compile.hpp>
#include <emit/hip/hip_emitter.hpp>
#include <emit/kernel_plugin.hpp>
#include <emit/registry.hpp>
#include <emit/report.hpp>

#include <dsl/ir/print.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <unistd.h>

namespace tw::tool {
namespace {

struct EmitOptions {
  std::string kernel, arch = "gfx1201", format, backend, output;
  std::vector<std::string> params, plugins;
  int opt_level = 3;
  bool list = false;
};

void write_output(const EmitOptions& o, const std::string& bytes, bool binary) {
  if (o.output.empty()) {
    if (binary && isatty(STDOUT_FILENO))
      throw std::invalid_argument("--format " + o.format +
                                  " is binary: give -o FILE or redirect stdout");
    std::cout << bytes << std::flush;
    return;
  }
  std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  if (!out)
    throw std::runtime_error("cannot write -o '" + o.output + "'");
}

void list_kernels() {
  for (const emit::KernelEntry* e : emit::kernel_registry().entries()) {
    std::cout << e->name << ": " << e->description << "\n";
    for (const emit::KernelParamSpec& p : e->params)
      std::cout << "    --param " << p.name << "=" << p.default_value << "  (" << p.help << ")\n";
  }
}

int run_emit(const EmitOptions& o) {
  register_library_kernels(emit::kernel_registry());
  register_dsl_sample_kernels(emit::kernel_registry());
  for (const std::string& plugin : o.plugins)
    emit::load_kernel_plugin(plugin, emit::kernel_registry());
  if (o.list) {
    if (!o.kernel.empty())
      throw std::invalid_argument("emit --list takes no KERNEL");
    list_kernels();
    return 0;
  }
  if (o.kernel.empty())
    throw std::invalid_argument("emit: give a KERNEL name (`tilewave emit --list` shows them)");
  if (o.format.empty())
    throw std::invalid_argument("emit: give --format ir|hip|llvm|asm|hsaco|report");
  emit::EmitRequest request;
  request.arch = parse_arch(o.arch);
  if (!o.backend.empty())
    request.backend = emit::parse_backend(o.backend);
  request.compile.opt_level = o.opt_level;
  const emit::EmitFormat format = emit::parse_emit_format(o.format);
  if (format == emit::EmitFormat::hip &&
      request.backend.value_or(emit::Backend::hip) != emit::Backend::hip)
    throw std::invalid_argument("--format hip is the HIP backend's source: it takes --backend hip");
  emit::KernelParams params;
  for (const std::string& p : o.params) {
    auto [k, v] = emit::parse_param_assignment(p);
    if (!params.emplace(k, v).second)
      throw std::invalid_argument("--param '" + k + "' is given twice");
  }
  const ir::Kernel kernel = emit::kernel_registry().build(o.kernel, params);

  if (format != emit::EmitFormat::report) { // the texts of any kernel: emit/report.hpp
    write_output(o, emit::emit_text(kernel, format, request), format == emit::EmitFormat::hsaco);
  } else { // a registered kernel's report also names its parameters
    nlohmann::json j = nlohmann::json::parse(emit::emit_text(kernel, format, request));
    j["kernel"] = o.kernel;
    j["params"] =
        emit::ParamReader(o.kernel, emit::kernel_registry().find(o.kernel).params, params).values();
    write_output(o, j.dump(2) + "\n", false);
  }
  return 0;
}

Command emit_command{
    "emit", "Emit a named kernel: its IR, HIP source, LLVM IR, assembly or code object",
    [](CLI::App& sub) -> Command::Action {
      auto o = std::make_shared<EmitOptions>();
      sub.add_option("kernel", o->kernel, "kernel name (see --list)");
      sub.add_option("--arch", o->arch, "gfx1200 or gfx1201")->capture_default_str();
      sub.add_option("--format", o->format,
                     "ir (canonical kernel IR), hip (HIP source), llvm (optimized LLVM IR), asm, "
                     "hsaco (code object), report (resources and kernarg layout as JSON)")
          ->check(CLI::IsMember({"ir", "hip", "llvm", "asm", "hsaco", "report"}));
      sub.add_option("--backend", o->backend,
                     "hip or llvm (default: hip for --format hip, else llvm)")
          ->check(CLI::IsMember({"hip", "llvm"}));
      sub.add_option("--param", o->params, "kernel parameter name=value (repeatable)");
      sub.add_option("--opt-level", o->opt_level, "0..3")
          ->check(CLI::Range(0, 3))
          ->capture_default_str();
      sub.add_option("-o,--output", o->output, "write to FILE instead of stdout");
      sub.add_flag("--list", o->list, "list the known kernels and their parameters");
      sub.add_option("--plugin", o->plugins,
                     "a shared library of kernel builders (TILEWAVE_KERNEL_PLUGIN, "
                     "emit/kernel_plugin.hpp) whose kernels join the known ones (repeatable)");
      return [o]() { return run_emit(*o); };
    }};

} // namespace
} // namespace tw::tool
