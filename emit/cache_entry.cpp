// Compile-cache entry payloads (see cache_entry.hpp).
#include <emit/cache_entry.hpp>

#include <cstring>
#include <stdexcept>
#include <string_view>

namespace tw::emit {
namespace {

constexpr char kMagic[8] = {'T', 'W', 'C', 'O', 'D', 'E', '1', '\0'};
constexpr char kArtifactsMagic[8] = {'T', 'W', 'A', 'R', 'T', 'S', '1', '\0'};

class Writer {
public:
  void i64(std::int64_t v) { raw(&v, sizeof v); }
  void u8(std::uint8_t v) { out_.push_back(v); }
  void text(std::string_view s) {
    i64(static_cast<std::int64_t>(s.size()));
    raw(s.data(), s.size());
  }
  void raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  std::vector<std::uint8_t> take() { return std::move(out_); }

private:
  std::vector<std::uint8_t> out_;
};

class Reader {
public:
  explicit Reader(const std::vector<std::uint8_t>& in) : in_(in) {}
  const std::uint8_t* take(std::size_t n, const char* what) {
    if (n > in_.size() - at_)
      throw std::runtime_error(std::string("compile cache entry: truncated at its ") + what);
    const std::uint8_t* p = in_.data() + at_;
    at_ += n;
    return p;
  }
  std::int64_t i64(const char* what) {
    std::int64_t v;
    std::memcpy(&v, take(sizeof v, what), sizeof v);
    return v;
  }
  int small(const char* what) {
    const std::int64_t v = i64(what);
    if (v < 0 || v > (std::int64_t(1) << 30))
      throw std::runtime_error(std::string("compile cache entry: ") + what + " " +
                               std::to_string(v) + " is out of range");
    return static_cast<int>(v);
  }
  std::uint8_t u8(const char* what) { return *take(1, what); }
  std::string text(const char* what) {
    const std::size_t n = count(what);
    const auto* p = take(n, what);
    return std::string(reinterpret_cast<const char*>(p), n);
  }
  std::size_t count(const char* what) {
    const std::int64_t n = i64(what);
    if (n < 0 || static_cast<std::uint64_t>(n) > in_.size() - at_)
      throw std::runtime_error(std::string("compile cache entry: the length of its ") + what +
                               " runs past the entry");
    return static_cast<std::size_t>(n);
  }
  bool done() const { return at_ == in_.size(); }

private:
  const std::vector<std::uint8_t>& in_;
  std::size_t at_ = 0;
};

} // namespace

std::vector<std::uint8_t> encode_cache_entry(const CodeObject& co) {
  Writer w;
  w.raw(kMagic, sizeof kMagic);
  w.u8(static_cast<std::uint8_t>(co.backend));
  w.u8(static_cast<std::uint8_t>(co.arch));
  w.text(co.kernel_name);
  const ResourceReport& r = co.resources;
  for (std::int64_t v :
       {std::int64_t(r.vgprs), std::int64_t(r.sgprs), r.lds_bytes, r.scratch_bytes,
        std::int64_t(r.workgroup_size), std::int64_t(r.vgpr_spills), std::int64_t(r.sgpr_spills),
        co.kernarg_size, std::int64_t(co.max_flat_workgroup_size)})
    w.i64(v);
  w.i64(static_cast<std::int64_t>(co.args.size()));
  for (const KernargEntry& a : co.args) {
    w.text(a.name);
    w.text(a.value_kind);
    w.text(a.address_space);
    w.i64(a.offset);
    w.i64(a.size);
  }
  w.i64(static_cast<std::int64_t>(co.elf.size()));
  w.raw(co.elf.data(), co.elf.size());
  return w.take();
}

CodeObject decode_cache_entry(const std::vector<std::uint8_t>& payload, Backend backend, Arch arch,
                              const std::string& kernel_name) {
  Reader in(payload);
  if (payload.size() < sizeof kMagic || std::memcmp(payload.data(), kMagic, sizeof kMagic) != 0)
    throw std::runtime_error("compile cache entry: not a TWCODE1 entry (an older format?)");
  in.take(sizeof kMagic, "magic");
  CodeObject co;
  co.backend = static_cast<Backend>(in.u8("backend"));
  co.arch = static_cast<Arch>(in.u8("arch"));
  if (co.backend != backend || co.arch != arch)
    throw std::runtime_error("compile cache entry: made for another backend or arch");
  co.kernel_name = in.text("kernel name");
  if (co.kernel_name != kernel_name)
    throw std::runtime_error("compile cache entry: holds kernel '" + co.kernel_name + "', not '" +
                             kernel_name + "'");
  ResourceReport& r = co.resources;
  r.vgprs = in.small("vgpr count");
  r.sgprs = in.small("sgpr count");
  r.lds_bytes = in.small("LDS size");
  r.scratch_bytes = in.small("scratch size");
  r.workgroup_size = in.small("workgroup size");
  r.vgpr_spills = in.small("VGPR spill count");
  r.sgpr_spills = in.small("SGPR spill count");
  co.kernarg_size = in.small("kernarg size");
  co.max_flat_workgroup_size = in.small("max flat workgroup size");
  set_occupancy(r);
  const std::size_t args = in.count("argument count");
  co.args.resize(args);
  for (KernargEntry& a : co.args) {
    a.name = in.text("argument name");
    a.value_kind = in.text("argument kind");
    a.address_space = in.text("argument address space");
    a.offset = in.i64("argument offset");
    a.size = in.i64("argument size");
  }
  const std::size_t elf_size = in.count("ELF size");
  const std::uint8_t* elf = in.take(elf_size, "ELF");
  co.elf.assign(elf, elf + elf_size);
  if (!in.done())
    throw std::runtime_error("compile cache entry: bytes after the ELF");
  return co;
}

std::vector<std::uint8_t> encode_artifacts_entry(const CompileArtifacts& a) {
  Writer w;
  w.raw(kArtifactsMagic, sizeof kArtifactsMagic);
  for (const std::string* t :
       {&a.ir, &a.hip_source, &a.llvm_ir_before_opt, &a.llvm_ir_after_opt, &a.assembly})
    w.text(*t);
  const std::vector<std::uint8_t> co = encode_cache_entry(a.code_object);
  w.i64(static_cast<std::int64_t>(co.size()));
  w.raw(co.data(), co.size());
  return w.take();
}

CompileArtifacts decode_artifacts_entry(const std::vector<std::uint8_t>& payload, Backend backend,
                                        Arch arch, const std::string& kernel_name) {
  Reader in(payload);
  if (payload.size() < sizeof kArtifactsMagic ||
      std::memcmp(payload.data(), kArtifactsMagic, sizeof kArtifactsMagic) != 0)
    throw std::runtime_error("compile cache entry: not a TWARTS1 (artifacts) entry");
  in.take(sizeof kArtifactsMagic, "magic");
  CompileArtifacts a;
  a.ir = in.text("IR text");
  a.hip_source = in.text("HIP source");
  a.llvm_ir_before_opt = in.text("LLVM IR before optimization");
  a.llvm_ir_after_opt = in.text("LLVM IR after optimization");
  a.assembly = in.text("assembly");
  const std::size_t co_size = in.count("code object entry size");
  const std::uint8_t* co = in.take(co_size, "code object entry");
  if (!in.done())
    throw std::runtime_error("compile cache entry: bytes after the code object entry");
  a.code_object =
      decode_cache_entry(std::vector<std::uint8_t>(co, co + co_size), backend, arch, kernel_name);
  return a;
}

} // namespace tw::emit
