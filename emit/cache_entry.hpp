#pragma once
// The payload of a compile-cache entry: the code object's description (what
// describe_code_object reads from the ELF's metadata note, kernarg names included) followed by
// the ELF. A disk hit then needs no ELF or msgpack parsing, which in a new process cost
// 0.25-0.30 ms of a ~1.3 ms hit (docs/compile.md, issue 16).
//
// Format (little endian): "TWCODE1\0" | u8 backend | u8 arch | string kernel_name |
// i64 vgprs, sgprs, lds_bytes, scratch_bytes, workgroup_size, vgpr_spills, sgpr_spills,
// kernarg_size, max_flat_workgroup_size | u64 arg count | per arg: string name, value_kind,
// address_space, i64 offset, size | u64 ELF size | ELF. A string is u64 length + bytes.
// Occupancy is not stored: it is recomputed from the stored resources (atoms/occupancy.hpp).
//
// The artifacts entry (compile_with_artifacts): "TWARTS1\0" | string ir, hip_source,
// llvm_ir_before_opt, llvm_ir_after_opt, assembly | u64 size | the code object entry above.
#include <emit/code_object.hpp>
#include <emit/compile.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tw::emit {

std::vector<std::uint8_t> encode_cache_entry(const CodeObject& co);

// The code object an entry holds. Throws std::runtime_error, naming what is wrong, when the
// payload is not a whole entry of this format or describes another backend, arch or kernel
// (an entry of an older format included): the caller then rebuilds it.
CodeObject decode_cache_entry(const std::vector<std::uint8_t>& payload, Backend backend, Arch arch,
                              const std::string& kernel_name);

std::vector<std::uint8_t> encode_artifacts_entry(const CompileArtifacts& artifacts);

// The texts and code object an artifacts entry holds; throws like decode_cache_entry.
CompileArtifacts decode_artifacts_entry(const std::vector<std::uint8_t>& payload, Backend backend,
                                        Arch arch, const std::string& kernel_name);

} // namespace tw::emit
