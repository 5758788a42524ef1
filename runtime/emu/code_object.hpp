#pragma once
// A loaded gfx12 HSA code object (ELF, code object v5 or v6): the loaded image (segments
// placed in host memory, dynamic relocations applied), the decoded .text, and for each
// kernel its descriptor and AMDHSA metadata.
#include <runtime/emu/decoded_instr.hpp>

#include <llvm/Support/AMDHSAKernelDescriptor.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tw::emu {

struct KernelArgMeta {
  std::string name;       // may be empty
  std::string value_kind; // by_value, global_buffer, hidden_block_count_x, ...
  std::string address_space;
  uint32_t offset = 0, size = 0;
};

struct KernelInfo {
  std::string name;
  uint64_t descriptor_address = 0; // in the loaded image
  uint64_t entry = 0;              // address of the first instruction
  uint64_t image_base = 0;         // load address of the code object (pc - image_base =
                                   // the address llvm-objdump prints)
  llvm::amdhsa::kernel_descriptor_t kd{};
  // Decoded descriptor fields.
  uint32_t group_segment_size = 0;   // static LDS bytes
  uint32_t private_segment_size = 0; // scratch bytes per lane
  uint32_t kernarg_size = 0;         // metadata .kernarg_segment_size (or descriptor)
  uint32_t user_sgpr_count = 0;
  bool sgpr_private_segment_buffer = false, sgpr_dispatch_ptr = false, sgpr_queue_ptr = false,
       sgpr_kernarg_ptr = false, sgpr_dispatch_id = false, sgpr_flat_scratch_init = false,
       sgpr_private_segment_size = false;
  bool sgpr_workgroup_id[3] = {false, false, false};
  bool sgpr_workgroup_info = false;
  bool private_segment = false; // ENABLE_PRIVATE_SEGMENT
  int workitem_id_dims = 1;     // ENABLE_VGPR_WORKITEM_ID + 1
  bool wave32 = true;
  bool uses_dynamic_stack = false;
  uint32_t vgpr_granules = 0; // GRANULATED_WORKITEM_VGPR_COUNT
  uint32_t initial_mode = 0;  // MODE register value from the FLOAT_* fields
  // Metadata (0 when absent).
  uint32_t metadata_vgpr_count = 0, metadata_sgpr_count = 0, max_flat_workgroup_size = 0;
  uint32_t wavefront_size = 32;
  std::vector<KernelArgMeta> args;
};

class CodeObject {
public:
  // Parses and loads the ELF; throws EmuError naming the problem.
  static std::shared_ptr<CodeObject> load(std::span<const uint8_t> elf);
  ~CodeObject();
  CodeObject(const CodeObject&) = delete;
  CodeObject& operator=(const CodeObject&) = delete;

  const KernelInfo& kernel(std::string_view name) const; // throws listing the kernels
  std::vector<std::string> kernel_names() const;
  const std::string& target() const { return target_; } // e.g. "gfx1201"
  int code_object_version() const { return version_; }

  // The loaded image (registered as a global allocation by the device).
  uint64_t image_base() const { return reinterpret_cast<uint64_t>(image_); }
  size_t image_size() const { return image_size_; }

  // Decoded instructions; at(pc) is nullptr if pc is not the start of an instruction.
  const std::vector<DecodedInstr>& program() const { return program_; }
  const DecodedInstr* at(uint64_t pc) const {
    uint64_t off = pc - text_begin_;
    if (pc < text_begin_ || off >= text_size_ || (off & 3))
      return nullptr;
    int32_t i = index_[off >> 2];
    return i < 0 ? nullptr : &program_[static_cast<size_t>(i)];
  }
  // Resolves every instruction's handler from the table (unknown -> error at execution).
  void bind_handlers();

private:
  CodeObject() = default;
  uint8_t* image_ = nullptr;
  size_t image_size_ = 0;
  uint64_t text_begin_ = 0, text_size_ = 0;
  std::vector<DecodedInstr> program_;
  std::vector<int32_t> index_;
  std::vector<KernelInfo> kernels_;
  std::string target_;
  int version_ = 0;
};

} // namespace tw::emu
