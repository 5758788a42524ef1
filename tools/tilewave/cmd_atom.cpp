// `tilewave atom NAME [--operand A|B|C] [--matrix]` and `tilewave atom --list`: the gfx12
// WMMA / SWMMAC atoms and which matrix entry every lane, VGPR and element holds.
#include "tilewave/command.hpp"

#include <atoms/mma/describe.hpp>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

namespace tw::tool {
namespace {

const atoms::MmaInstrInfo& find_atom(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char ch) { return char(std::tolower(ch)); });
  if (const atoms::MmaInstrInfo* in = atoms::find_mma_instr(name))
    return *in;
  throw std::invalid_argument(atoms::detail::cat(
      "unknown atom '", name,
      "': expected a gfx12 WMMA / SWMMAC mnemonic such as v_wmma_f32_16x16x16_f16 (`tilewave "
      "atom --list` shows all)"));
}

Command atom_command{
    "atom", "Show a gfx12 WMMA / SWMMAC atom: shape, types, registers and lane layouts",
    [](CLI::App& sub) -> Command::Action {
      struct Options {
        std::string name, operand;
        bool list = false, matrix = false;
      };
      auto opts = std::make_shared<Options>();
      sub.add_option("name", opts->name, "instruction mnemonic, e.g. v_wmma_i32_16x16x32_iu4");
      sub.add_option("--operand", opts->operand,
                     "print only this operand's lines: A, B or C (C and D share one layout)");
      sub.add_flag("--list", opts->list, "list every atom with shape, types and VGPR counts");
      sub.add_flag("--matrix", opts->matrix,
                   "print each operand's matrix as a Markdown table of lane:vgpr.element");
      sub.footer("Each line: lane L vG[hi:lo] -> X[row][col], the bits [hi:lo] of VGPR G of the "
                 "operand in lane L. SWMMAC A entries are kept values: A[row][4q + index[b+1:b]] "
                 "is k-group q at the 2-bit position in bits [b+1:b] of the lane's index set.");
      return [opts]() {
        if (opts->list) {
          if (!opts->name.empty() || !opts->operand.empty() || opts->matrix)
            throw std::invalid_argument("atom --list takes no NAME, --operand or --matrix");
          for (const atoms::MmaInstrInfo& in : atoms::all_mma_instrs())
            std::cout << atoms::mma_list_line(in) << '\n';
          return 0;
        }
        if (opts->name.empty())
          throw std::invalid_argument("atom: give an instruction mnemonic (NAME) or --list");
        const atoms::MmaInstrInfo& in = find_atom(opts->name);
        std::vector<atoms::MmaOperand> operands{atoms::MmaOperand::A, atoms::MmaOperand::B,
                                                atoms::MmaOperand::C};
        if (!opts->operand.empty())
          operands = {atoms::parse_mma_operand(opts->operand)};
        else
          for (const std::string& line : atoms::mma_summary_lines(in))
            std::cout << line << '\n';
        for (atoms::MmaOperand op : operands) {
          if (opts->matrix) {
            std::cout << atoms::mma_matrix_markdown(in, op);
            continue;
          }
          for (const std::string& line : atoms::mma_operand_lines(in, op))
            std::cout << line << '\n';
        }
        return 0;
      };
    }};

} // namespace
} // namespace tw::tool
