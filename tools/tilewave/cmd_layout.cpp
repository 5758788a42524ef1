// `tilewave layout EXPR`: evaluates layout algebra in CuTe notation (layouts/expression.hpp)
// and prints the result as the last line; --table and --svg show a rank-2 result.
#include "tilewave/command.hpp"

#include <layouts/expression.hpp>
#include <layouts/render.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <string>

namespace {

struct LayoutOptions {
  std::string expression;
  bool table = false;
  std::string svg;
};

tw::IndexGrid grid_of(const tw::LayoutValue& v) {
  if (!v.is_layout())
    throw std::invalid_argument("--table and --svg need a layout, not " + tw::to_string(v));
  const bool swizzled = v.kind == tw::LayoutValue::Kind::composed;
  return tw::index_grid(v.layout, swizzled ? &v.swizzle : nullptr, tw::to_string(v));
}

int run_layout(const LayoutOptions& o) {
  tw::LayoutValue v;
  try {
    v = tw::evaluate_layout_expression(o.expression);
  } catch (const tw::ExpressionError& e) {
    std::cerr << "tilewave layout: error " << e.what() << "\n  " << o.expression << "\n  "
              << std::string(e.position(), ' ') << "^\n";
    return 2;
  }
  if (o.table)
    std::cout << tw::index_table(grid_of(v));
  if (!o.svg.empty()) {
    std::ofstream out(o.svg);
    if (!out)
      throw std::runtime_error("--svg: cannot write '" + o.svg + "'");
    out << tw::index_svg(grid_of(v));
    std::cout << "wrote " << o.svg << "\n";
  }
  std::cout << tw::to_string(v) << "\n";
  return 0;
}

const tw::tool::Command layout_command{
    "layout",
    "Evaluate layout algebra in CuTe notation, e.g. 'composition((4,2):(2,1), (2,2):(1,2))'",
    [](CLI::App& sub) {
      auto o = std::make_shared<LayoutOptions>();
      sub.add_option(
             "expression", o->expression,
             "a layout expression: (4,2):(2,1), logical_divide(L, tiler), Sw<3,3,3> o L, ...")
          ->required();
      sub.add_flag("--table", o->table, "print a rank-2 result as a grid of indices");
      sub.add_option("--svg", o->svg, "draw a rank-2 result into this SVG file");
      return [o] { return run_layout(*o); };
    }};

} // namespace
