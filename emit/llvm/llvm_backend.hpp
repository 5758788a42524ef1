#pragma once
// LLVM backend: kernel IR -> LLVM IR (IRBuilder) -> new-pass-manager optimization -> AMDGPU
// codegen -> relocatable object -> lld's ELF driver -> loadable code object, all in-process.
#include <atoms/arch.hpp>
#include <emit/stage_times.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace tw::ir {
struct Kernel;
} // namespace tw::ir

namespace tw::emit {

// Whether the backend runs ir::verify on the kernel (`verify`), or the caller already has
// (`verified`: compile() verifies every kernel it builds once, before the backend).
enum class KernelCheck { verify, verified };

// The unoptimized module of one kernel: an amdgpu_kernel function named after the kernel with
// the kernarg layout of ir::kernarg_layout, the static LDS block as one addrspace(3) global,
// and llvm.amdgcn.* intrinsics for ids, lane ops, buffer access and WMMA / SWMMAC. Verifies
// `kernel` first (ir::verify, unless `check` says the caller did) and the module after
// (llvm::verifyModule). Throws std::runtime_error naming the op that cannot be lowered.
std::unique_ptr<llvm::Module> build_llvm_module(const ir::Kernel& kernel, Arch arch,
                                                llvm::LLVMContext& context,
                                                KernelCheck check = KernelCheck::verify);

struct LlvmCompileOutputs {
  std::string ir_before_opt;             // when keep_texts
  std::string ir_after_opt;              // when keep_texts
  std::string assembly;                  // when keep_texts
  std::vector<std::uint8_t> object;      // relocatable ELF from the AMDGPU backend
  std::vector<std::uint8_t> code_object; // linked, loadable
};

// The whole backend. opt_level 0..3 selects both the IR pipeline and codegen level. `times`
// (optional) receives the seconds of building, optimising, code generation and linking.
// Each thread keeps one LLVM target machine per arch and opt level for all its compiles.
LlvmCompileOutputs compile_llvm(const ir::Kernel& kernel, Arch arch, int opt_level,
                                bool keep_texts = false, CompileStageTimes* times = nullptr,
                                KernelCheck check = KernelCheck::verify);

// The LLVM IR text of `kernel`, before or after the O<opt_level> pipeline.
std::string emit_llvm_ir(const ir::Kernel& kernel, Arch arch, bool optimized, int opt_level = 3);

} // namespace tw::emit
