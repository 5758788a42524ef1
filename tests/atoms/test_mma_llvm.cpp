// The instruction table against LLVM itself: every clang builtin of the table compiles for
// gfx1201 with clang-22, calls exactly the table's intrinsic with the table's signature, and
// selects the table's mnemonic.
#include <atoms/mma/gfx12_instrs.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using tw::atoms::MmaInstrInfo;

// The C vector type for an LLVM type in a signature ("<8 x half>" -> "_Float16 ...(8)").
std::string c_type(std::string t) {
  if (t.rfind(" immarg") != std::string::npos)
    t = t.substr(0, t.rfind(" immarg"));
  if (t == "i1")
    return "bool";
  if (t == "i32")
    return "int";
  const size_t x = t.find(" x ");
  const std::string n = t.substr(1, x - 1), e = t.substr(x + 3, t.size() - x - 4);
  const std::string scalar = e == "half"    ? "_Float16"
                             : e == "float" ? "float"
                             : e == "i16"   ? "short"
                                            : "int";
  return scalar + " __attribute__((ext_vector_type(" + n + ")))";
}

std::vector<std::string> split_args(const std::string& list) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : list) {
    if (ch == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (!(ch == ' ' && cur.empty())) {
      cur += ch;
    }
  }
  out.push_back(cur);
  return out;
}

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    out.append(buf, n);
  const int status = pclose(p);
  REQUIRE_MESSAGE(status == 0, (cmd + "\n" + out));
  return out;
}

} // namespace

TEST_CASE("mma table matches clang-22 / LLVM 22 (builtins, intrinsics, signatures, mnemonics)") {
  if (!std::filesystem::exists(TILEWAVE_CLANG)) {
    MESSAGE("clang-22 not found at " TILEWAVE_CLANG);
    REQUIRE(std::filesystem::exists(TILEWAVE_CLANG));
  }
  std::ostringstream src;
  int k = 0;
  for (const MmaInstrInfo& in : tw::atoms::all_mma_instrs()) {
    const std::string sig(in.signature);
    const std::string ret = sig.substr(0, sig.find(" ("));
    const auto args = split_args(sig.substr(sig.find('(') + 1, sig.size() - sig.find('(') - 2));
    // The integer forms once more with every immarg true: A and B signed, clamp on.
    const bool integer = (in.modifiers & tw::atoms::kMmaSignedness) != 0;
    for (const char* immarg :
         integer ? std::vector<const char*>{"false", "true"} : std::vector<const char*>{"false"}) {
      src << "__attribute__((global)) void k" << k++ << "(" << c_type(ret) << "* out";
      std::string call;
      // The f16 / bf16-accumulate builtins have no argument for the intrinsic's trailing
      // `i1 immarg` (op_sel, must be 0 on gfx12): clang supplies it.
      const bool hidden_op_sel =
          tw::atoms::elem_bits(in.cd_type) == 16 && args.back() == "i1 immarg";
      for (size_t i = 0; i < args.size(); ++i) {
        if (hidden_op_sel && i + 1 == args.size())
          break;
        if (args[i].find("immarg") != std::string::npos) {
          call += std::string(call.empty() ? "" : ", ") + immarg;
        } else {
          src << ", " << c_type(args[i]) << " a" << i;
          call += std::string(call.empty() ? "" : ", ") + "a" + std::to_string(i);
        }
      }
      src << ") { *out = " << in.builtin << "(" << call << "); }\n";
    }
  }
  const auto dir =
      std::filesystem::temp_directory_path() / ("tw_mma_llvm_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto hip = dir / "mma.hip";
  std::ofstream(hip) << src.str();
  const std::string base = std::string(TILEWAVE_CLANG) +
                           " -x hip --offload-arch=gfx1201 --offload-device-only -nogpuinc "
                           "-nogpulib -O1 -S " +
                           hip.string();
  run(base + " -emit-llvm -o " + (dir / "mma.ll").string());
  run(base + " -o " + (dir / "mma.s").string());
  std::ifstream ll_in(dir / "mma.ll"), s_in(dir / "mma.s");
  const std::string ll((std::istreambuf_iterator<char>(ll_in)), {});
  const std::string asm_text((std::istreambuf_iterator<char>(s_in)), {});
  std::filesystem::remove_all(dir);
  for (const MmaInstrInfo& in : tw::atoms::all_mma_instrs()) {
    CAPTURE(std::string(in.mnemonic));
    const std::string sig(in.signature);
    const size_t paren = sig.find(" (");
    std::string decl = "declare ";
    decl.append(sig, 0, paren).append(" @").append(in.intrinsic).append(sig, paren + 1).append(" ");
    CHECK_MESSAGE(ll.find(decl) != std::string::npos, decl);
    std::string mnemonic = "\t";
    mnemonic.append(in.mnemonic).append(" ");
    CHECK(asm_text.find(mnemonic) != std::string::npos);
    if (in.modifiers & tw::atoms::kMmaSignedness) {
      // LLVM encodes "A signed, B signed" as neg_lo:[1,1,0] (RDNA4.md) and clamp as clamp.
      bool found = false;
      for (size_t at = asm_text.find(mnemonic); at != std::string::npos;
           at = asm_text.find(mnemonic, at + 1)) {
        const std::string line = asm_text.substr(at, asm_text.find('\n', at) - at);
        found = found || line.find("neg_lo:[1,1,0] clamp") != std::string::npos;
      }
      CHECK(found);
    }
  }
}
