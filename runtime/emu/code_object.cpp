// Loading a gfx12 code object: ELF segments, dynamic relocations, kernel descriptors,
// AMDHSA metadata (msgpack note) and the decoded .text.
#include <runtime/emu/code_object.hpp>
#include <runtime/emu/code_object_checks.hpp>
#include <runtime/emu/decode_cache.hpp>
#include <runtime/emu/handlers.hpp>

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/Object/ELF.h>
#include <llvm/Support/Error.h>

#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

namespace tw::emu {
namespace {

using Elf = llvm::object::ELF64LEFile;

template <class T>
T unwrap(llvm::Expected<T> v, std::string_view what) {
  if (!v)
    throw CodeObjectError(fmt::format("code object: {}: {}", what, llvm::toString(v.takeError())));
  return std::move(*v);
}

uint32_t bits(uint32_t word, int shift, int width) {
  return (word >> shift) & ((1u << width) - 1u);
}

void decode_descriptor(KernelInfo& k) {
  using namespace llvm::amdhsa;
  const auto& d = k.kd;
  const uint32_t r1 = d.compute_pgm_rsrc1, r2 = d.compute_pgm_rsrc2;
  const uint16_t p = d.kernel_code_properties;
  k.group_segment_size = d.group_segment_fixed_size;
  k.private_segment_size = d.private_segment_fixed_size;
  k.vgpr_granules = bits(r1, 0, 6);
  const uint32_t round32 = bits(r1, 12, 2), round16 = bits(r1, 14, 2);
  const uint32_t denorm32 = bits(r1, 16, 2), denorm16 = bits(r1, 18, 2);
  k.initial_mode = round32 | (round16 << 2) | (denorm32 << 4) | (denorm16 << 6);
  k.private_segment = bits(r2, 0, 1);
  k.user_sgpr_count = bits(r2, 1, 5);
  k.sgpr_workgroup_id[0] = bits(r2, 7, 1);
  k.sgpr_workgroup_id[1] = bits(r2, 8, 1);
  k.sgpr_workgroup_id[2] = bits(r2, 9, 1);
  k.sgpr_workgroup_info = bits(r2, 10, 1);
  k.workitem_id_dims = static_cast<int>(bits(r2, 11, 2)) + 1;
  k.sgpr_private_segment_buffer = p & (1u << 0);
  k.sgpr_dispatch_ptr = p & (1u << 1);
  k.sgpr_queue_ptr = p & (1u << 2);
  k.sgpr_kernarg_ptr = p & (1u << 3);
  k.sgpr_dispatch_id = p & (1u << 4);
  k.sgpr_flat_scratch_init = p & (1u << 5);
  k.sgpr_private_segment_size = p & (1u << 6);
  k.wave32 = p & (1u << 10);
  k.uses_dynamic_stack = p & (1u << 11);
  if (!k.wave32)
    throw CodeObjectError(
        fmt::format("code object: kernel '{}' is wave64; the emulator runs wave32 only", k.name));
  if (k.private_segment_size > kMaxPrivateSegmentBytesPerLane)
    throw CodeObjectError(fmt::format("code object: kernel '{}' descriptor "
                                      "private_segment_fixed_size {} exceeds the emulator's {} "
                                      "bytes per lane",
                                      k.name, k.private_segment_size,
                                      kMaxPrivateSegmentBytesPerLane));
  if (k.kernarg_size > kMaxKernargSegmentBytes)
    throw CodeObjectError(fmt::format("code object: kernel '{}' kernarg segment size {} exceeds "
                                      "{} bytes",
                                      k.name, k.kernarg_size, kMaxKernargSegmentBytes));
  for (const auto& a : k.args)
    if (a.offset > kMaxKernargSegmentBytes || a.size > kMaxKernargSegmentBytes - a.offset)
      throw CodeObjectError(fmt::format("code object: kernel '{}' argument '{}' .offset {} + "
                                        ".size {} exceeds the {}-byte kernarg segment limit",
                                        k.name, a.name, a.offset, a.size, kMaxKernargSegmentBytes));
  if (bits(d.kernarg_preload, 0, 7) != 0)
    throw CodeObjectError(
        fmt::format("code object: kernel '{}' uses kernarg preloading (not on gfx12)", k.name));
}

std::string str_of(llvm::msgpack::DocNode n) {
  return n.getKind() == llvm::msgpack::Type::String ? n.getString().str() : std::string();
}
uint32_t u32_of(llvm::msgpack::DocNode n) {
  switch (n.getKind()) {
  case llvm::msgpack::Type::UInt:
    return static_cast<uint32_t>(n.getUInt());
  case llvm::msgpack::Type::Int:
    return static_cast<uint32_t>(n.getInt());
  default:
    return 0;
  }
}

struct Metadata {
  std::string target;
  std::vector<KernelInfo> kernels; // name, sizes, args (descriptor fields filled later)
  std::vector<std::string> symbols;
};

Metadata parse_metadata(llvm::StringRef blob) {
  Metadata md;
  check_metadata_msgpack(std::string_view(blob.data(), blob.size()));
  llvm::msgpack::Document doc;
  if (!doc.readFromBlob(blob, false))
    throw CodeObjectError("code object: the AMDGPU metadata note is not valid msgpack");
  auto root = doc.getRoot();
  if (root.getKind() != llvm::msgpack::Type::Map)
    throw CodeObjectError("code object: the AMDGPU metadata is not a map");
  auto& map = root.getMap();
  auto get = [&](llvm::msgpack::MapDocNode& m, const char* key) -> llvm::msgpack::DocNode {
    auto it = m.find(doc.getNode(key));
    return it == m.end() ? doc.getEmptyNode() : it->second;
  };
  md.target = str_of(get(map, "amdhsa.target"));
  auto kernels = get(map, "amdhsa.kernels");
  if (kernels.getKind() != llvm::msgpack::Type::Array)
    return md;
  for (auto& kn : kernels.getArray()) {
    if (kn.getKind() != llvm::msgpack::Type::Map)
      continue;
    auto& km = kn.getMap();
    KernelInfo k;
    k.name = str_of(get(km, ".name"));
    md.symbols.push_back(str_of(get(km, ".symbol")));
    k.kernarg_size = u32_of(get(km, ".kernarg_segment_size"));
    k.metadata_vgpr_count = u32_of(get(km, ".vgpr_count"));
    k.metadata_sgpr_count = u32_of(get(km, ".sgpr_count"));
    k.max_flat_workgroup_size = u32_of(get(km, ".max_flat_workgroup_size"));
    k.wavefront_size = u32_of(get(km, ".wavefront_size"));
    auto args = get(km, ".args");
    if (args.getKind() == llvm::msgpack::Type::Array) {
      for (auto& an : args.getArray()) {
        if (an.getKind() != llvm::msgpack::Type::Map)
          continue;
        auto& am = an.getMap();
        KernelArgMeta a;
        a.name = str_of(get(am, ".name"));
        a.value_kind = str_of(get(am, ".value_kind"));
        a.address_space = str_of(get(am, ".address_space"));
        a.offset = u32_of(get(am, ".offset"));
        a.size = u32_of(get(am, ".size"));
        k.args.push_back(std::move(a));
      }
    }
    md.kernels.push_back(std::move(k));
  }
  return md;
}

} // namespace

CodeObject::~CodeObject() {
  std::free(image_);
}

std::shared_ptr<CodeObject> CodeObject::load(std::span<const uint8_t> bytes) {
  const uint64_t image_size = check_elf_layout(bytes);
  llvm::StringRef data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  Elf elf = unwrap(Elf::create(data), "cannot parse the ELF");
  const auto& hdr = elf.getHeader();
  std::shared_ptr<CodeObject> co(new CodeObject());
  const int abi = hdr.e_ident[llvm::ELF::EI_ABIVERSION];
  co->version_ = abi + 2; // ELFABIVERSION_AMDGPU_HSA_V5 = 3, V6 = 4
  if (co->version_ < 5 || co->version_ > 6)
    throw CodeObjectError(
        fmt::format("code object: version {} is not supported (need v5 or v6)", co->version_));

  // Segments -> image.
  auto phdrs = unwrap(elf.program_headers(), "program headers");
  co->image_size_ = image_size; // segments checked against the file and the size cap
  co->image_ = static_cast<uint8_t*>(std::aligned_alloc(4096, co->image_size_));
  if (!co->image_)
    throw CodeObjectError(
        fmt::format("code object: cannot allocate its {}-byte image", co->image_size_));
  std::memset(co->image_, 0, co->image_size_);
  for (const auto& ph : phdrs)
    if (ph.p_type == llvm::ELF::PT_LOAD)
      std::memcpy(co->image_ + ph.p_vaddr, bytes.data() + ph.p_offset, ph.p_filesz);
  const uint64_t base = co->image_base();

  // Sections: .text, notes, symbols, relocations.
  auto sections = unwrap(elf.sections(), "section headers");
  Metadata md;
  struct Sym {
    std::string name;
    uint64_t value;
    uint8_t type;
  };
  std::vector<Sym> syms;
  for (const auto& sec : sections) {
    auto name = unwrap(elf.getSectionName(sec), "section name");
    if (name == ".text") {
      if (sec.sh_addr > co->image_size_ || sec.sh_size > co->image_size_ - sec.sh_addr)
        throw CodeObjectError(fmt::format("code object: .text sh_addr {:#x} + sh_size {:#x} lies "
                                          "outside the {}-byte loaded image",
                                          sec.sh_addr, sec.sh_size, co->image_size_));
      co->text_begin_ = base + sec.sh_addr;
      co->text_size_ = sec.sh_size;
    }
    if (sec.sh_type == llvm::ELF::SHT_NOTE) {
      llvm::Error err = llvm::Error::success();
      for (const auto& note : elf.notes(sec, err)) {
        if (note.getName() == "AMDGPU" && note.getType() == llvm::ELF::NT_AMDGPU_METADATA) {
          auto desc = note.getDesc(sec.sh_addralign);
          md = parse_metadata(
              llvm::StringRef(reinterpret_cast<const char*>(desc.data()), desc.size()));
        }
      }
      if (err)
        throw CodeObjectError("code object: bad note: " + llvm::toString(std::move(err)));
    }
    if (sec.sh_type == llvm::ELF::SHT_SYMTAB || sec.sh_type == llvm::ELF::SHT_DYNSYM) {
      auto strtab = unwrap(elf.getStringTableForSymtab(sec), "symbol string table");
      for (const auto& s : unwrap(elf.symbols(&sec), "symbols")) {
        auto n = s.getName(strtab);
        if (n)
          syms.push_back({n->str(), s.st_value, s.getType()});
        else
          llvm::consumeError(n.takeError());
      }
    }
  }
  for (const auto& sec : sections) {
    if (sec.sh_type != llvm::ELF::SHT_RELA)
      continue;
    const auto* symtab = unwrap(elf.getSection(sec.sh_link), "relocation symbol table");
    for (const auto& r : unwrap(elf.relas(sec), "relocations")) {
      const uint32_t type = r.getType(false);
      uint64_t sym_value = 0;
      if (uint32_t si = r.getSymbol(false)) {
        auto s = unwrap(elf.getRelocationSymbol(r, symtab), "relocation symbol");
        if (s)
          sym_value = s->st_value;
        (void)si;
      }
      if (co->image_size_ < 8 || r.r_offset > co->image_size_ - 8)
        throw CodeObjectError(fmt::format(
            "code object: relocation r_offset {:#x} lies outside the {}-byte loaded image",
            r.r_offset, co->image_size_));
      uint8_t* where = co->image_ + r.r_offset;
      if (type == llvm::ELF::R_AMDGPU_RELATIVE64) {
        uint64_t v = base + r.r_addend;
        std::memcpy(where, &v, 8);
      } else if (type == llvm::ELF::R_AMDGPU_ABS64) {
        uint64_t v = base + sym_value + r.r_addend;
        std::memcpy(where, &v, 8);
      } else if (type == llvm::ELF::R_AMDGPU_ABS32 || type == llvm::ELF::R_AMDGPU_ABS32_LO) {
        uint32_t v = static_cast<uint32_t>(base + sym_value + r.r_addend);
        std::memcpy(where, &v, 4);
      } else if (type == llvm::ELF::R_AMDGPU_ABS32_HI) {
        uint32_t v = static_cast<uint32_t>((base + sym_value + r.r_addend) >> 32);
        std::memcpy(where, &v, 4);
      } else if (type != llvm::ELF::R_AMDGPU_NONE) {
        throw CodeObjectError(fmt::format("code object: unsupported relocation type {}", type));
      }
    }
  }
  if (co->text_size_ == 0)
    throw CodeObjectError("code object: no .text section");

  // Target.
  if (auto pos = md.target.rfind("--"); pos != std::string::npos)
    co->target_ = md.target.substr(pos + 2);
  if (auto colon = co->target_.find(':'); colon != std::string::npos)
    co->target_ = co->target_.substr(0, colon); // drop feature flags (":xnack-")
  if (co->target_.empty())
    co->target_ = "gfx1201";
  if (co->target_ != "gfx1200" && co->target_ != "gfx1201")
    throw CodeObjectError(fmt::format("code object: target '{}' is not gfx12 (the emulator runs "
                                      "gfx1200 / gfx1201 code)",
                                      co->target_));

  // Kernels: metadata + descriptor symbol "<name>.kd".
  for (size_t i = 0; i < md.kernels.size(); ++i) {
    KernelInfo k = std::move(md.kernels[i]);
    const std::string kd_name = md.symbols[i].empty() ? k.name + ".kd" : md.symbols[i];
    const Sym* kd = nullptr;
    for (const auto& s : syms)
      if (s.name == kd_name)
        kd = &s;
    if (!kd)
      throw CodeObjectError(
          fmt::format("code object: kernel '{}' has no descriptor symbol '{}'", k.name, kd_name));
    if (kd->value > co->image_size_ - sizeof(k.kd))
      throw CodeObjectError(fmt::format("code object: descriptor symbol '{}' value {:#x} lies "
                                        "outside the {}-byte loaded image",
                                        kd_name, kd->value, co->image_size_));
    std::memcpy(&k.kd, co->image_ + kd->value, sizeof(k.kd));
    k.descriptor_address = base + kd->value;
    k.image_base = base;
    k.entry = k.descriptor_address + static_cast<uint64_t>(k.kd.kernel_code_entry_byte_offset);
    if (k.kernarg_size == 0)
      k.kernarg_size = k.kd.kernarg_size;
    decode_descriptor(k);
    co->kernels_.push_back(std::move(k));
  }

  co->program_ = decode_text_cached(co->image_ + (co->text_begin_ - base), co->text_size_,
                                    co->text_begin_, co->target_);
  co->index_.assign((co->text_size_ + 3) / 4, -1);
  for (size_t i = 0; i < co->program_.size(); ++i)
    co->index_[(co->program_[i].pc - co->text_begin_) >> 2] = static_cast<int32_t>(i);
  co->bind_handlers();
  return co;
}

const KernelInfo& CodeObject::kernel(std::string_view name) const {
  for (const auto& k : kernels_)
    if (k.name == name)
      return k;
  std::string list;
  for (const auto& k : kernels_)
    list += (list.empty() ? "" : ", ") + k.name;
  throw CodeObjectError(fmt::format("code object has no kernel '{}' (kernels: {})", name,
                                    list.empty() ? "none" : list));
}

std::vector<std::string> CodeObject::kernel_names() const {
  std::vector<std::string> r;
  for (const auto& k : kernels_)
    r.push_back(k.name);
  return r;
}

} // namespace tw::emu
