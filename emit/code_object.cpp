#include <emit/code_object.hpp>

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/Object/ELF.h>
#include <llvm/Support/Error.h>

#include <optional>
#include <stdexcept>

namespace tw::emit {

namespace {

using ElfFile = llvm::object::ELF64LEFile;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("not a readable gfx12 code object: " + what);
}

std::optional<std::int64_t> as_int(llvm::msgpack::DocNode& n) {
  switch (n.getKind()) {
  case llvm::msgpack::Type::Int:
    return n.getInt();
  case llvm::msgpack::Type::UInt:
    return static_cast<std::int64_t>(n.getUInt());
  default:
    return std::nullopt;
  }
}

// The integer `key` of `map`, or `fallback` when the entry is absent.
std::int64_t int_field(llvm::msgpack::MapDocNode& map, llvm::StringRef key,
                       std::optional<std::int64_t> fallback = std::nullopt) {
  auto it = map.find(key);
  if (it == map.end()) {
    if (fallback)
      return *fallback;
    fail("kernel metadata has no " + key.str());
  }
  auto v = as_int(it->second);
  if (!v)
    fail("kernel metadata field " + key.str() + " is not an integer");
  return *v;
}

std::string string_field(llvm::msgpack::MapDocNode& map, llvm::StringRef key) {
  auto it = map.find(key);
  if (it == map.end() || !it->second.isString())
    return {};
  return it->second.getString().str();
}

// The msgpack blob of the NT_AMDGPU_METADATA note ("AMDGPU" owner), from the note sections.
std::string metadata_blob(const ElfFile& elf) {
  auto sections = elf.sections();
  if (!sections)
    fail(llvm::toString(sections.takeError()));
  for (const auto& shdr : *sections) {
    if (shdr.sh_type != llvm::ELF::SHT_NOTE)
      continue;
    llvm::Error err = llvm::Error::success();
    for (const auto& note : elf.notes(shdr, err))
      if (note.getName() == "AMDGPU" && note.getType() == llvm::ELF::NT_AMDGPU_METADATA)
        return note.getDescAsStringRef(4).str();
    if (err)
      fail(llvm::toString(std::move(err)));
  }
  fail("no NT_AMDGPU_METADATA note");
}

KernargEntry read_arg(llvm::msgpack::DocNode& node, std::size_t index) {
  if (!node.isMap())
    fail(".args entry " + std::to_string(index) + " is not a map");
  auto& m = node.getMap();
  KernargEntry a;
  a.name = string_field(m, ".name");
  if (a.name.empty())
    a.name = "arg" + std::to_string(index);
  a.value_kind = string_field(m, ".value_kind");
  a.address_space = string_field(m, ".address_space");
  a.offset = int_field(m, ".offset");
  a.size = int_field(m, ".size");
  return a;
}

} // namespace

std::vector<KernelMetadata> read_code_object_metadata(std::span<const std::uint8_t> bytes) {
  auto elf =
      ElfFile::create(llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  if (!elf)
    fail(llvm::toString(elf.takeError()));
  if (elf->getHeader().e_machine != llvm::ELF::EM_AMDGPU)
    fail("ELF machine is not AMDGPU");

  const std::string blob = metadata_blob(*elf);
  llvm::msgpack::Document doc;
  if (!doc.readFromBlob(blob, /*Multi=*/false) || !doc.getRoot().isMap())
    fail("the metadata note is not a msgpack map");
  auto& root = doc.getRoot().getMap();
  const std::string target = string_field(root, "amdhsa.target");
  auto kernels = root.find("amdhsa.kernels");
  if (kernels == root.end() || !kernels->second.isArray())
    fail("the metadata has no amdhsa.kernels list");

  std::vector<KernelMetadata> result;
  for (auto& node : kernels->second.getArray()) {
    if (!node.isMap())
      fail("an amdhsa.kernels entry is not a map");
    auto& k = node.getMap();
    KernelMetadata md;
    md.name = string_field(k, ".name");
    md.symbol = string_field(k, ".symbol");
    md.target = target;
    ResourceReport& r = md.resources;
    r.vgprs = static_cast<int>(int_field(k, ".vgpr_count"));
    r.sgprs = static_cast<int>(int_field(k, ".sgpr_count"));
    r.lds_bytes = int_field(k, ".group_segment_fixed_size");
    r.scratch_bytes = int_field(k, ".private_segment_fixed_size");
    r.vgpr_spills = static_cast<int>(int_field(k, ".vgpr_spill_count", 0));
    r.sgpr_spills = static_cast<int>(int_field(k, ".sgpr_spill_count", 0));
    md.kernarg_size = int_field(k, ".kernarg_segment_size");
    md.kernarg_align = int_field(k, ".kernarg_segment_align", 0);
    md.max_flat_workgroup_size = static_cast<int>(int_field(k, ".max_flat_workgroup_size", 0));
    // LLVM sizes occupancy by the maximum flat workgroup size (1024 when a kernel names none).
    r.workgroup_size = md.max_flat_workgroup_size > 0 ? md.max_flat_workgroup_size : 1024;
    set_occupancy(r);
    md.wavefront_size = static_cast<int>(int_field(k, ".wavefront_size", 0));
    auto args = k.find(".args");
    if (args != k.end() && args->second.isArray()) {
      std::size_t i = 0;
      for (auto& a : args->second.getArray())
        md.args.push_back(read_arg(a, i++));
    }
    result.push_back(std::move(md));
  }
  if (result.empty())
    fail("the metadata lists no kernel");
  return result;
}

CodeObject describe_code_object(std::vector<std::uint8_t> elf, Backend backend, Arch arch,
                                const std::string& kernel_name) {
  std::vector<KernelMetadata> kernels = read_code_object_metadata(elf);
  const KernelMetadata* md = nullptr;
  if (kernel_name.empty()) {
    if (kernels.size() != 1)
      throw std::runtime_error("the code object holds " + std::to_string(kernels.size()) +
                               " kernels: name the one to describe");
    md = &kernels.front();
  } else {
    for (const KernelMetadata& k : kernels)
      if (k.name == kernel_name)
        md = &k;
    if (!md)
      throw std::runtime_error("the code object has no kernel named '" + kernel_name + "'");
  }
  const std::string want_target = "amdgcn-amd-amdhsa--" + std::string(arch_name(arch));
  if (md->target.rfind(want_target, 0) != 0)
    throw std::runtime_error("the code object targets '" + md->target + "', expected " +
                             want_target);
  CodeObject co;
  co.elf = std::move(elf);
  co.kernel_name = md->name;
  co.backend = backend;
  co.arch = arch;
  co.resources = md->resources;
  co.kernarg_size = md->kernarg_size;
  co.args = md->args;
  co.max_flat_workgroup_size = md->max_flat_workgroup_size;
  return co;
}

} // namespace tw::emit
