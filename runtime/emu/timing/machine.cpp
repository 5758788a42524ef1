#include <runtime/emu/timing/machine.hpp>

#include <fmt/format.h>
#include <stdexcept>

namespace tw::emu::timing {

MachineModel machine_by_name(std::string_view name) {
  MachineModel m; // defaults: gfx1201
  if (name == "gfx1201" || name == "rx9070xt") {
    m.name = "gfx1201";
    m.product = "RX 9070 XT";
    return m;
  }
  if (name == "gfx1200" || name == "rx9060xt") {
    m.name = "gfx1200";
    m.product = "RX 9060 XT";
    m.cus = 32;
    m.clock_ghz = 3.13;
    m.sustained_clock_ghz = 3.13; // estimate: the boost clock, as fitted for gfx1201
    m.dram_gbs = 320;
    m.l2_bytes = 4u << 20;
    m.mall_bytes = 32u << 20;
    m.l2_bytes_per_clk = 1024; // estimate: half the slices of gfx1201
    return m;
  }
  throw std::invalid_argument(fmt::format(
      "timing model: machine '{}' is not known (gfx1201 = RX 9070 XT, gfx1200 = RX 9060 XT)",
      name));
}

} // namespace tw::emu::timing
