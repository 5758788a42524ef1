// The LLVM backend's pipeline: module -> O<n> (new pass manager) -> AMDGPU object -> lld.
#include <emit/llvm/lld_in_process.hpp>
#include <emit/llvm/llvm_backend.hpp>
#include <emit/toolchain.hpp>

#include <dsl/ir/kernel.hpp>

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace tw::emit {

namespace {

constexpr const char* kTriple = "amdgcn-amd-amdhsa";

const llvm::Target& amdgpu_target() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
  std::string err;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(llvm::Triple(kTriple), err);
  if (!t)
    throw std::runtime_error("libLLVM has no AMDGPU target: " + err);
  return *t;
}

llvm::CodeGenOptLevel codegen_level(int opt_level) {
  switch (opt_level) {
  case 0:
    return llvm::CodeGenOptLevel::None;
  case 1:
    return llvm::CodeGenOptLevel::Less;
  case 2:
    return llvm::CodeGenOptLevel::Default;
  default:
    return llvm::CodeGenOptLevel::Aggressive;
  }
}

void check_opt_level(int opt_level) {
  if (opt_level < 0 || opt_level > 3)
    throw std::invalid_argument("opt_level must be 0..3, got " + std::to_string(opt_level));
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(Arch arch, int opt_level) {
  llvm::TargetOptions options;
  options.MCOptions.AsmVerbose = true; // the "; NumVgprs:", "; ScratchSize:" comments clang prints
  std::unique_ptr<llvm::TargetMachine> tm(amdgpu_target().createTargetMachine(
      llvm::Triple(kTriple), arch_name(arch), "", options, llvm::Reloc::PIC_, std::nullopt,
      codegen_level(opt_level)));
  if (!tm)
    throw std::runtime_error("cannot create an AMDGPU target machine for " +
                             std::string(arch_name(arch)));
  return tm;
}

// The target machine of (arch, opt_level), made once per thread and reused by every compile of
// that thread (making one cost about 0.4 ms of CPU on every compile before: vector_add's build
// stage went from 1.5 to 1.1 ms). A TargetMachine compiles any number of modules one after the
// other (llc and LLVM's ORC JIT reuse theirs); it is not shared between threads, which compile
// concurrently.
llvm::TargetMachine& target_machine(Arch arch, int opt_level) {
  thread_local std::map<std::pair<Arch, int>, std::unique_ptr<llvm::TargetMachine>> machines;
  std::unique_ptr<llvm::TargetMachine>& tm = machines[{arch, opt_level}];
  if (!tm)
    tm = make_target_machine(arch, opt_level);
  return *tm;
}

void optimize(llvm::Module& m, llvm::TargetMachine& tm, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  static const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1, llvm::OptimizationLevel::O2,
      llvm::OptimizationLevel::O3};
  llvm::ModulePassManager mpm = opt_level == 0
                                    ? pb.buildO0DefaultPipeline(levels[0])
                                    : pb.buildPerModuleDefaultPipeline(levels[opt_level]);
  mpm.run(m, mam);
}

std::string codegen(llvm::Module& m, llvm::TargetMachine& tm, llvm::CodeGenFileType kind) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  // No IR verifier in codegen (it ran twice there): the module was verified right after
  // lowering (build_llvm_module) and LLVM's passes keep it valid; clang skips it the same way
  // in release builds (-disable-llvm-verifier).
  if (tm.addPassesToEmitFile(pm, os, nullptr, kind, /*DisableVerify=*/true))
    throw std::runtime_error("the AMDGPU target cannot emit this file type");
  pm.run(m);
  return std::string(buffer.begin(), buffer.end());
}

std::string print_module(const llvm::Module& m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return s;
}

} // namespace

LlvmCompileOutputs compile_llvm(const ir::Kernel& kernel, Arch arch, int opt_level, bool keep_texts,
                                CompileStageTimes* times, KernelCheck check) {
  check_opt_level(opt_level);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> m;
  llvm::TargetMachine* tm = nullptr;
  {
    StageTimer t(times ? &times->build_module : nullptr);
    m = build_llvm_module(kernel, arch, context, check);
    tm = &target_machine(arch, opt_level);
    m->setDataLayout(tm->createDataLayout());
  }
  LlvmCompileOutputs out;
  if (keep_texts)
    out.ir_before_opt = print_module(*m);
  {
    StageTimer t(times ? &times->optimize : nullptr);
    optimize(*m, *tm, opt_level);
  }
  if (keep_texts) {
    out.ir_after_opt = print_module(*m);
    // Codegen rewrites the module: print the assembly from a copy.
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*m);
    out.assembly = codegen(*copy, *tm, llvm::CodeGenFileType::AssemblyFile);
  }
  {
    StageTimer t(times ? &times->codegen : nullptr);
    const std::string obj = codegen(*m, *tm, llvm::CodeGenFileType::ObjectFile);
    out.object.assign(obj.begin(), obj.end());
  }
  StageTimer t(times ? &times->link : nullptr);
  out.code_object = link_code_object_in_process(out.object);
  return out;
}

std::string emit_llvm_ir(const ir::Kernel& kernel, Arch arch, bool optimized, int opt_level) {
  check_opt_level(opt_level);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> m = build_llvm_module(kernel, arch, context);
  llvm::TargetMachine& tm = target_machine(arch, opt_level);
  m->setDataLayout(tm.createDataLayout());
  if (optimized)
    optimize(*m, tm, opt_level);
  return print_module(*m);
}

} // namespace tw::emit
