#pragma once
// TILEWAVE_DUMP=DIR: every stage of one kernel's compile as numbered files, in pipeline order,
// under DIR/<kernel>.<backend>.<arch>/ :
//   01_ir.twir  02_source.hip (hip) | 02_before_opt.ll (llvm)  03_after_opt.ll
//   04_assembly.s  05_code_object.hsaco
#include <atoms/arch.hpp>
#include <emit/backend.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tw::emit {

struct CompileArtifacts;

// $TILEWAVE_DUMP when set and non-empty.
std::optional<std::string> dump_dir_from_environment();

// The folder one kernel's stages go to.
std::string dump_folder(const std::string& dump_dir, std::string_view kernel_name, Backend backend,
                        Arch arch);

// Writes the non-empty stages of `artifacts`; returns the folder. Throws std::runtime_error
// naming the path when it cannot write.
std::string write_dump(const std::string& dump_dir, std::string_view kernel_name,
                       const CompileArtifacts& artifacts);

} // namespace tw::emit
