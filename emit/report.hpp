#pragma once
// What `tilewave emit` prints, for any kernel IR: a user's own kernel is one call away from its
// IR, HIP source, LLVM IR, assembly, code object and resources, with no registration. The CLI
// prints through these functions, so the texts are the same.
#include <atoms/arch.hpp>
#include <dsl/ir/kernel.hpp>
#include <emit/backend.hpp>
#include <emit/compile.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace tw::emit {

// The outputs of `tilewave emit --format F`.
enum class EmitFormat { ir, hip, llvm, asm_text, hsaco, report };

// "ir", "hip", "llvm", "asm", "hsaco", "report"; throws std::invalid_argument naming the
// allowed values otherwise.
EmitFormat parse_emit_format(std::string_view text);
std::string_view to_string(EmitFormat format);

struct EmitRequest {
  Arch arch = Arch::gfx1201;
  // Default: the backend whose output the format is (hip for EmitFormat::hip, else llvm).
  std::optional<Backend> backend;
  CompileOptions compile;
};

// Exactly what `tilewave emit --format F` writes for `kernel` (hsaco: the ELF bytes; report:
// the resources and kernarg layout as JSON, with "kernel" = kernel.name). Throws
// std::invalid_argument for a format the backend does not produce (hip source from llvm).
std::string emit_text(const ir::Kernel& kernel, EmitFormat format, const EmitRequest& request = {});

// One readable report of a kernel: resources (the report JSON), the IR, the backend's source
// (HIP source or optimized LLVM IR) and the assembly, each under a "== <part> ==" heading.
// One compile: the stages come from compile_with_artifacts.
void report(const ir::Kernel& kernel, std::ostream& out, const EmitRequest& request = {});
std::string report(const ir::Kernel& kernel, const EmitRequest& request = {});

} // namespace tw::emit
