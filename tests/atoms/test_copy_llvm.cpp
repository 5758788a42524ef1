// The copy atom table against LLVM itself: each atom's IR form, put in a kernel with a
// per-lane address, is compiled by llc-22 for gfx1201 and must select exactly the atom's
// mnemonic (and, for LDS, not a split ds_*_2addr pair).
#include <atoms/copy/gfx12_copy_instrs.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <unistd.h>

namespace {

using namespace tw::atoms;

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// A value of the atom's type that differs per lane, named %v.
void write_value(std::ostream& os, const CopyInstrInfo& info) {
  const int n = info.vgprs();
  if (n == 1) {
    os << "  %v = add i32 %tid, 7\n";
    return;
  }
  os << "  %v0 = insertelement <" << n << " x i32> poison, i32 %tid, i32 0\n"
     << "  %v = shufflevector <" << n << " x i32> %v0, <" << n << " x i32> poison, <" << n
     << " x i32> zeroinitializer\n";
}

// The atom's IR form with half its alignment ("align 16" -> "align 8").
std::string half_aligned(const CopyInstrInfo& info) {
  std::ostringstream from, to;
  from << "align " << info.alignment_bytes;
  to << "align " << info.alignment_bytes / 2;
  return replace_all(std::string(info.ir_form), from.str(), to.str());
}

// One kernel k<index> that runs the atom once per lane at a lane-dependent address (so that
// LLVM cannot turn a uniform global load into a scalar one).
std::string kernel(const CopyInstrInfo& info, int index, std::string form) {
  std::ostringstream os;
  os << "define amdgpu_kernel void @k" << index
     << "(ptr addrspace(1) %g, ptr addrspace(8) inreg %rsrc, ptr addrspace(1) %out) {\n"
     << "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
     << "  %off = mul i32 %tid, " << info.bytes() << "\n";
  switch (info.path) {
  case CopyPath::global:
    os << "  %p = getelementptr i8, ptr addrspace(1) %g, i32 %off\n";
    break;
  case CopyPath::lds:
    os << "  %p = getelementptr i8, ptr addrspace(3) @lds, i32 %off\n";
    break;
  case CopyPath::buffer:
    form = replace_all(form, "%p", "%rsrc");
    break;
  }
  if (info.dir == CopyDir::store) {
    write_value(os, info);
    os << "  " << form << "\n";
  } else {
    os << "  " << form << "\n"
       << "  %o = getelementptr i8, ptr addrspace(1) %out, i32 %off\n"
       << "  store " << info.ir_type << " %r, ptr addrspace(1) %o, align " << info.bytes() << "\n";
  }
  os << "  ret void\n}\n";
  return os.str();
}

std::string run(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    out.append(buf, n);
  const int status = pclose(p);
  REQUIRE_MESSAGE(status == 0, cmd << "\n" << out);
  return out;
}

} // namespace

TEST_CASE("copy atom IR forms select their gfx12 instructions (llc-22, gfx1201)") {
  std::ostringstream dir_name;
  dir_name << "tw_copy_llvm_" << getpid();
  const auto dir = std::filesystem::temp_directory_path() / dir_name.str();
  std::filesystem::create_directories(dir);
  std::ostringstream module;
  module << "target triple = \"amdgcn-amd-amdhsa\"\n"
         << "@lds = internal addrspace(3) global [4096 x i8] poison, align 16\n"
         << "declare i32 @llvm.amdgcn.workitem.id.x()\n";
  for (size_t i = 0; i < gfx12_copy_instrs.size(); ++i)
    module << kernel(gfx12_copy_instrs[i], int(i), std::string(gfx12_copy_instrs[i].ir_form));
  // The reason for the LDS alignment rule: the same IR with half the alignment (kernels
  // k100 + i) no longer selects ds_load_b64 / b128 but a split ds_*_2addr pair.
  for (size_t i = 0; i < gfx12_copy_instrs.size(); ++i)
    if (const CopyInstrInfo& info = gfx12_copy_instrs[i];
        info.path == CopyPath::lds && info.width_bits > 32)
      module << kernel(info, 100 + int(i), half_aligned(info));
  // Intrinsic declarations, one per buffer atom.
  for (const CopyInstrInfo& info : gfx12_copy_instrs) {
    if (info.intrinsic.empty())
      continue;
    if (info.dir == CopyDir::load)
      module << "declare " << info.ir_type << " @" << info.intrinsic
             << "(ptr addrspace(8), i32, i32, i32 immarg)\n";
    else
      module << "declare void @" << info.intrinsic << "(" << info.ir_type
             << ", ptr addrspace(8), i32, i32, i32 immarg)\n";
  }
  const auto ll = dir / "copy.ll";
  std::ofstream(ll) << module.str();
  std::ostringstream cmd;
  cmd << "/usr/bin/llc-22 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx1201 -O3 " << ll.string() << " -o -";
  const std::string asm_text = run(cmd.str());
  // The assembly of kernel k<index>.
  auto body_of = [&](int index) {
    std::ostringstream label;
    label << "\nk" << index << ":";
    const size_t begin = asm_text.find(label.str());
    REQUIRE(begin != std::string::npos);
    const size_t end = asm_text.find(".Lfunc_end", begin);
    REQUIRE(end != std::string::npos);
    return asm_text.substr(begin, end - begin);
  };
  for (size_t i = 0; i < gfx12_copy_instrs.size(); ++i) {
    const CopyInstrInfo& info = gfx12_copy_instrs[i];
    INFO(info.mnemonic << "\n" << kernel(info, int(i), std::string(info.ir_form)));
    std::ostringstream instr;
    instr << "\t" << info.mnemonic << " ";
    const std::string body = body_of(int(i));
    CHECK(body.find(instr.str()) != std::string::npos);
    CHECK(body.find("2addr") == std::string::npos);
    if (info.path == CopyPath::lds && info.width_bits > 32) {
      const std::string split = body_of(100 + int(i));
      CHECK(split.find(instr.str()) == std::string::npos);
      CHECK(split.find("2addr") != std::string::npos);
    }
  }
  std::filesystem::remove_all(dir);
}
