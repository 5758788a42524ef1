#pragma once
// A loadable gfx12 code object (ELF, AMDHSA) and what its metadata note says about its kernel.
#include <atoms/arch.hpp>
#include <emit/backend.hpp>
#include <emit/resources.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tw::emit {

// One entry of the kernel's kernarg segment, as the code object's metadata lists it
// (both backends produce the same list for one IR kernel: ir::kernarg_layout).
struct KernargEntry {
  std::string name;          // .name when the compiler recorded it, else "arg<N>"
  std::string value_kind;    // "global_buffer", "by_value", "hidden_*", ...
  std::string address_space; // "global", "local", "constant" for pointers, else empty
  std::int64_t offset = 0;
  std::int64_t size = 0;
};

// The metadata of one kernel in a code object's NT_AMDGPU_METADATA note.
struct KernelMetadata {
  std::string name;   // .name: the kernel's symbol
  std::string symbol; // .symbol: the kernel descriptor, "<name>.kd"
  std::string target; // amdhsa.target, e.g. "amdgcn-amd-amdhsa--gfx1201"
  ResourceReport resources;
  std::int64_t kernarg_size = 0;
  std::int64_t kernarg_align = 0;
  int max_flat_workgroup_size = 0;
  int wavefront_size = 0;
  std::vector<KernargEntry> args;
};

struct CodeObject {
  std::vector<std::uint8_t> elf; // the .hsaco bytes
  std::string kernel_name;       // symbol to look up (hipModuleGetFunction)
  Backend backend = Backend::llvm;
  Arch arch = Arch::gfx1201;
  ResourceReport resources;
  std::int64_t kernarg_size = 0;
  std::vector<KernargEntry> args;
  int max_flat_workgroup_size = 0;
};

// Every kernel's metadata in `elf`. Throws std::runtime_error (naming what is missing) when
// the bytes are not a gfx12 AMDHSA code object with a readable metadata note.
std::vector<KernelMetadata> read_code_object_metadata(std::span<const std::uint8_t> elf);

// The code object as a CodeObject for the (single) kernel it holds, or for `kernel_name`.
CodeObject describe_code_object(std::vector<std::uint8_t> elf, Backend backend, Arch arch,
                                const std::string& kernel_name = {});

} // namespace tw::emit
