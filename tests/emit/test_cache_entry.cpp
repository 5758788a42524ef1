// Compile-cache entry payloads: the description a disk hit reads back is the one the ELF's
// metadata gives, and a damaged or foreign payload is refused, never half-read.
#include <emit/cache_entry.hpp>
#include <emit/compile.hpp>
#include <emit/sample_kernels.hpp>

#include <dsl/ir/ir.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace tw;
using namespace tw::emit;

namespace {

CodeObject compiled_sample() {
  CompileOptions options;
  options.use_cache = false;
  return compile(samples::loop_sum(64), Backend::llvm, Arch::gfx1201, options);
}

void check_same(const CodeObject& a, const CodeObject& b) {
  CHECK(a.elf == b.elf);
  CHECK(a.kernel_name == b.kernel_name);
  CHECK(a.backend == b.backend);
  CHECK(a.arch == b.arch);
  CHECK(a.kernarg_size == b.kernarg_size);
  CHECK(a.max_flat_workgroup_size == b.max_flat_workgroup_size);
  const ResourceReport &r = a.resources, &s = b.resources;
  CHECK(r.vgprs == s.vgprs);
  CHECK(r.sgprs == s.sgprs);
  CHECK(r.lds_bytes == s.lds_bytes);
  CHECK(r.scratch_bytes == s.scratch_bytes);
  CHECK(r.workgroup_size == s.workgroup_size);
  CHECK(r.waves_per_simd == s.waves_per_simd);
  CHECK(r.workgroups_per_wgp == s.workgroups_per_wgp);
  CHECK(r.occupancy_limiter == s.occupancy_limiter);
  CHECK(r.vgpr_spills == s.vgpr_spills);
  CHECK(r.sgpr_spills == s.sgpr_spills);
  REQUIRE(a.args.size() == b.args.size());
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    CAPTURE(i);
    CHECK(a.args[i].name == b.args[i].name);
    CHECK(a.args[i].value_kind == b.args[i].value_kind);
    CHECK(a.args[i].address_space == b.args[i].address_space);
    CHECK(a.args[i].offset == b.args[i].offset);
    CHECK(a.args[i].size == b.args[i].size);
  }
}

} // namespace

TEST_CASE("cache entry: decoding an encoded code object gives back its description and ELF") {
  const CodeObject co = compiled_sample();
  REQUIRE(co.args.size() == 3);
  CHECK(co.args[2].name == "len");
  const CodeObject back =
      decode_cache_entry(encode_cache_entry(co), co.backend, co.arch, co.kernel_name);
  check_same(back, co);
  // The description agrees with what the ELF's own metadata says (names aside: the ELF keeps
  // the compiler's, the entry the IR's).
  CodeObject described = describe_code_object(co.elf, co.backend, co.arch, co.kernel_name);
  for (std::size_t i = 0; i < described.args.size() && i < co.args.size(); ++i)
    described.args[i].name = co.args[i].name;
  check_same(back, described);
}

TEST_CASE("cache entry: a truncated, extended, foreign or bare-ELF payload is refused") {
  const CodeObject co = compiled_sample();
  const std::vector<std::uint8_t> entry = encode_cache_entry(co);
  auto decode = [&](const std::vector<std::uint8_t>& bytes) {
    return decode_cache_entry(bytes, co.backend, co.arch, co.kernel_name);
  };
  for (std::size_t cut : {std::size_t(0), std::size_t(5), std::size_t(9), std::size_t(40),
                          entry.size() / 2, entry.size() - 1}) {
    CAPTURE(cut);
    const std::vector<std::uint8_t> truncated(entry.begin(),
                                              entry.begin() + static_cast<std::ptrdiff_t>(cut));
    CHECK_THROWS_AS(decode(truncated), std::runtime_error);
  }
  std::vector<std::uint8_t> longer = entry;
  longer.push_back(0);
  CHECK_THROWS_WITH_AS(decode(longer), doctest::Contains("bytes after the ELF"),
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(decode(co.elf), doctest::Contains("older format"), std::runtime_error);
  CHECK_THROWS_AS(decode_cache_entry(entry, Backend::hip, co.arch, co.kernel_name),
                  std::runtime_error);
  CHECK_THROWS_AS(decode_cache_entry(entry, co.backend, Arch::gfx1200, co.kernel_name),
                  std::runtime_error);
  CHECK_THROWS_WITH_AS(decode_cache_entry(entry, co.backend, co.arch, "other"),
                       doctest::Contains("holds kernel"), std::runtime_error);
  std::vector<std::uint8_t> huge_length = entry; // the kernel name's length field
  huge_length[10 + 7] = 0x7f;
  CHECK_THROWS_WITH_AS(decode(huge_length), doctest::Contains("runs past the entry"),
                       std::runtime_error);
}

TEST_CASE("cache entry: an artifacts entry gives back every text and the code object") {
  CompileOptions options;
  options.use_cache = false;
  const CompileArtifacts a =
      compile_with_artifacts(samples::loop_sum(64), Backend::llvm, Arch::gfx1201, options);
  REQUIRE(!a.assembly.empty());
  REQUIRE(!a.llvm_ir_before_opt.empty());
  const std::vector<std::uint8_t> entry = encode_artifacts_entry(a);
  const CompileArtifacts back =
      decode_artifacts_entry(entry, Backend::llvm, Arch::gfx1201, a.code_object.kernel_name);
  CHECK(back.ir == a.ir);
  CHECK(back.hip_source == a.hip_source);
  CHECK(back.llvm_ir_before_opt == a.llvm_ir_before_opt);
  CHECK(back.llvm_ir_after_opt == a.llvm_ir_after_opt);
  CHECK(back.assembly == a.assembly);
  check_same(back.code_object, a.code_object);

  auto decode = [&](const std::vector<std::uint8_t>& bytes) {
    return decode_artifacts_entry(bytes, Backend::llvm, Arch::gfx1201, a.code_object.kernel_name);
  };
  for (std::size_t cut :
       {std::size_t(0), std::size_t(7), std::size_t(12), entry.size() / 2, entry.size() - 1}) {
    CAPTURE(cut);
    CHECK_THROWS_AS(decode(std::vector<std::uint8_t>(
                        entry.begin(), entry.begin() + static_cast<std::ptrdiff_t>(cut))),
                    std::runtime_error);
  }
  std::vector<std::uint8_t> longer = entry;
  longer.push_back(0);
  CHECK_THROWS_WITH_AS(decode(longer), doctest::Contains("bytes after the code object entry"),
                       std::runtime_error);
  // A code object entry is not an artifacts entry, and the reverse.
  CHECK_THROWS_WITH_AS(decode(encode_cache_entry(a.code_object)), doctest::Contains("TWARTS1"),
                       std::runtime_error);
  CHECK_THROWS_AS(
      decode_cache_entry(entry, Backend::llvm, Arch::gfx1201, a.code_object.kernel_name),
      std::runtime_error);
  CHECK_THROWS_WITH_AS(decode_artifacts_entry(entry, Backend::llvm, Arch::gfx1201, "other"),
                       doctest::Contains("holds kernel"), std::runtime_error);
}
