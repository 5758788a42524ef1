// `tilewave aot --all --arch gfx1200,gfx1201 -o DIR [--backend hip,llvm] [--kernel NAME ...]`:
// every shipped configuration of every named kernel as code objects, plus DIR/manifest.json
// (kernel, params, arch, backend, file, resources, kernarg layout).
#include "tilewave/command.hpp"
#include "tilewave/dsl_sample_kernels.hpp"
#include "tilewave/library_kernels.hpp"

#include <emit/code_object_json.hpp>
#include <emit/compile.hpp>
#include <emit/registry.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <stdexcept>

namespace tw::tool {
namespace {

struct AotOptions {
  bool all = false;
  std::vector<std::string> kernels, archs{"gfx1200", "gfx1201"}, backends{"hip", "llvm"};
  std::string output;
  int opt_level = 3;
};

void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out)
    throw std::runtime_error("cannot write '" + p.string() + "'");
}

int run_aot(const AotOptions& o) {
  register_library_kernels(emit::kernel_registry());
  register_dsl_sample_kernels(emit::kernel_registry());
  if (o.all == !o.kernels.empty())
    throw std::invalid_argument("aot: give either --all or one or more --kernel NAME");
  if (o.output.empty())
    throw std::invalid_argument("aot: give the output directory with -o DIR");
  std::vector<Arch> archs;
  for (const std::string& a : o.archs)
    archs.push_back(parse_arch(a));
  std::vector<emit::Backend> backends;
  for (const std::string& b : o.backends)
    backends.push_back(emit::parse_backend(b));

  const emit::KernelRegistry& registry = emit::kernel_registry();
  std::vector<const emit::KernelEntry*> entries;
  if (o.all)
    entries = registry.entries();
  else
    for (const std::string& name : o.kernels)
      entries.push_back(&registry.find(name));

  const std::filesystem::path dir(o.output);
  std::filesystem::create_directories(dir);
  emit::CompileOptions copts;
  copts.opt_level = o.opt_level;
  nlohmann::json manifest = {{"tilewave_manifest", 1}, {"kernels", nlohmann::json::array()}};
  std::set<std::string> files;
  for (const emit::KernelEntry* e : entries) {
    std::vector<emit::KernelParams> configs = e->shipped_configs;
    if (configs.empty())
      configs.push_back({});
    for (const emit::KernelParams& given : configs) {
      const emit::ParamReader params(e->name, e->params, given);
      const ir::Kernel kernel = e->build(params);
      for (emit::Backend backend : backends)
        for (Arch arch : archs) {
          const emit::CodeObject co = emit::compile(kernel, backend, arch, copts);
          const std::string file = kernel.name + "." + std::string(emit::backend_name(backend)) +
                                   "." + std::string(arch_name(arch)) + ".hsaco";
          if (!files.insert(file).second)
            throw std::logic_error("aot: two configurations of '" + e->name +
                                   "' build the same kernel symbol '" + kernel.name + "'");
          write_text(dir / file, std::string(co.elf.begin(), co.elf.end()));
          nlohmann::json entry = emit::code_object_json(co);
          entry["kernel"] = e->name;
          entry["params"] = params.values();
          entry["file"] = file;
          manifest["kernels"].push_back(std::move(entry));
          std::cout << file << "\n";
        }
    }
  }
  write_text(dir / "manifest.json", manifest.dump(2) + "\n");
  std::cout << "wrote " << manifest["kernels"].size() << " code objects and "
            << (dir / "manifest.json").string() << "\n";
  return 0;
}

Command aot_command{
    "aot", "Compile every shipped kernel configuration ahead of time, with a manifest",
    [](CLI::App& sub) -> Command::Action {
      auto o = std::make_shared<AotOptions>();
      sub.add_flag("--all", o->all, "every registered kernel (see `tilewave emit --list`)");
      sub.add_option("--kernel", o->kernels, "only this kernel (repeatable)");
      sub.add_option("--arch", o->archs, "comma-separated: gfx1200,gfx1201")
          ->delimiter(',')
          ->capture_default_str();
      sub.add_option("--backend", o->backends, "comma-separated: hip,llvm")
          ->delimiter(',')
          ->check(CLI::IsMember({"hip", "llvm"}))
          ->capture_default_str();
      sub.add_option("-o,--output", o->output, "output directory");
      sub.add_option("--opt-level", o->opt_level, "0..3")
          ->check(CLI::Range(0, 3))
          ->capture_default_str();
      return [o]() { return run_aot(*o); };
    }};

} // namespace
} // namespace tw::tool
