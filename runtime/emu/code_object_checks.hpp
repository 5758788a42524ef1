#pragma once
// Validation of a code object before the loader trusts it: the ELF header and every
// program-header, section and note field it reads (offsets, counts, sizes, alignment)
// against the file, the loaded image size, and the msgpack shape of the AMDHSA metadata.
// Everything a hostile or damaged file can get wrong ends in one CodeObjectError sentence
// "code object: <field> <value> <rule>" instead of a crash, a hang or a huge allocation.
#include <runtime/emu/handlers.hpp>

#include <cstdint>
#include <span>
#include <string_view>

namespace tw::emu {

// The error of the code-object layer (a kind of EmuError, so launch paths still catch it).
class CodeObjectError : public EmuError {
public:
  using EmuError::EmuError;
};

// A clang-built gfx12 code object loads into a few hundred KiB; the cap keeps a bad p_memsz
// from asking for gigabytes.
inline constexpr uint64_t kMaxCodeObjectImageBytes = uint64_t(64) << 20;
// Scratch is allocated per lane for every wave of a workgroup; the cap keeps a bad
// private_segment_fixed_size from asking for gigabytes.
inline constexpr uint32_t kMaxPrivateSegmentBytesPerLane = 256u << 10;
// The kernel argument segment (a bad .kernarg_segment_size or .offset would size it).
inline constexpr uint32_t kMaxKernargSegmentBytes = 64u << 10;

// Checks the ELF identification (ELF64, little-endian, EM_AMDGPU), the header and the
// program-header and section-header tables; each PT_LOAD segment lies in the file and in an
// image of at most kMaxCodeObjectImageBytes; each section with contents lies in the file,
// has a power-of-two alignment, and symbol / relocation tables have the standard entry size.
// Returns the image size the PT_LOAD segments need (rounded up to 4 KiB).
uint64_t check_elf_layout(std::span<const uint8_t> file);

// Checks that `blob` is one well-formed msgpack value whose map keys are all scalars (the
// llvm::msgpack::Document reader aborts on an array or map used as a key), nested at most
// 64 deep.
void check_metadata_msgpack(std::string_view blob);

} // namespace tw::emu
