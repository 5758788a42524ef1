#include <emit/compile.hpp>
#include <emit/dump.hpp>
#include <emit/subprocess.hpp>

#include <llvm/Support/FileSystem.h>

#include <cstdlib>
#include <stdexcept>

namespace tw::emit {

std::optional<std::string> dump_dir_from_environment() {
  if (const char* env = std::getenv("TILEWAVE_DUMP"); env && *env)
    return std::string(env);
  return std::nullopt;
}

std::string dump_folder(const std::string& dump_dir, std::string_view kernel_name, Backend backend,
                        Arch arch) {
  return dump_dir + "/" + std::string(kernel_name) + "." + std::string(backend_name(backend)) +
         "." + std::string(arch_name(arch));
}

std::string write_dump(const std::string& dump_dir, std::string_view kernel_name,
                       const CompileArtifacts& a) {
  const CodeObject& co = a.code_object;
  const std::string folder = dump_folder(dump_dir, kernel_name, co.backend, co.arch);
  if (auto ec = llvm::sys::fs::create_directories(folder))
    throw std::runtime_error("TILEWAVE_DUMP: cannot create '" + folder + "': " + ec.message());
  auto text = [&](const char* name, const std::string& s) {
    if (!s.empty())
      write_file(folder + "/" + name, s.data(), s.size());
  };
  text("01_ir.twir", a.ir);
  text("02_source.hip", a.hip_source);
  text("02_before_opt.ll", a.llvm_ir_before_opt);
  text("03_after_opt.ll", a.llvm_ir_after_opt);
  text("04_assembly.s", a.assembly);
  if (!co.elf.empty())
    write_file(folder + "/05_code_object.hsaco", co.elf.data(), co.elf.size());
  return folder;
}

} // namespace tw::emit
