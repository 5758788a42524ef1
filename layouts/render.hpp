#pragma once
// Pictures of rank-2 layouts: a text grid of indices (like CuTe's print_layout) and an SVG
// drawing whose cells are labelled with their index and coloured by it. A rank-1 layout
// draws as a single row.
#include <layouts/layout.hpp>
#include <layouts/swizzle.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace tw {

// A table or drawing larger than this is unreadable and would exhaust memory.
inline constexpr int64_t kMaxGridCells = int64_t(1) << 20;

// The indices of a rank-2 layout at every (row, column), row-major.
struct IndexGrid {
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> index;
  std::string title;
  int64_t at(int64_t m, int64_t n) const { return index[size_t(m * cols + n)]; }
};

inline IndexGrid index_grid(const DynLayout& l, const DynSwizzle* sw = nullptr,
                            const std::string& title = "") {
  if (l.rank() > 2)
    throw LayoutError(Status::coordinate_rank,
                      ": a table or drawing needs a rank-2 (or rank-1) layout, not " +
                          to_string(l));
  IndexGrid g;
  g.title = title.empty() ? to_string(l) : title;
  const bool one_row = l.rank() == 1;
  g.rows = one_row ? 1 : l.mode(0).size();
  g.cols = one_row ? l.size() : l.mode(1).size();
  int64_t cells = 0;
  if (__builtin_mul_overflow(g.rows, g.cols, &cells) || cells > kMaxGridCells)
    throw LayoutError(Status::too_many_elements,
                      ": a table or drawing of " + std::to_string(g.rows) + " x " +
                          std::to_string(g.cols) + " cells (at most " +
                          std::to_string(kMaxGridCells) + ") of " + to_string(l));
  g.index.reserve(size_t(g.rows * g.cols));
  for (int64_t m = 0; m < g.rows; ++m)
    for (int64_t n = 0; n < g.cols; ++n) {
      const int64_t i = one_row ? l(n) : l(dyn_tuple({dyn_int(m), dyn_int(n)}));
      g.index.push_back(sw ? (*sw)(i) : i);
    }
  return g;
}

template <AnyLayout L>
IndexGrid index_grid(const L& l, const std::string& title = "") {
  return index_grid(to_dyn(l), nullptr, title);
}
template <ComposedLayoutLike C>
IndexGrid index_grid(const C& c, const std::string& title = "") {
  const DynSwizzle sw = to_dyn_swizzle(c.swizzle);
  return index_grid(to_dyn(c.layout), &sw, title.empty() ? to_string(c) : title);
}

// The grid as text: column numbers on top, row numbers on the left.
inline std::string index_table(const IndexGrid& g) {
  int64_t hi = 1;
  for (int64_t v : g.index)
    hi = std::max(hi, v < 0 ? -10 * v : v);
  const int w = int(std::to_string(hi).size()) + 1;
  std::ostringstream os;
  auto cell = [&](int64_t v) {
    std::string s = std::to_string(v);
    return std::string(size_t(std::max(0, w - int(s.size()))), ' ') + s;
  };
  os << std::string(4, ' ');
  for (int64_t n = 0; n < g.cols; ++n)
    os << ' ' << cell(n) << ' ';
  os << '\n';
  std::string rule = std::string(4, ' ');
  for (int64_t n = 0; n < g.cols; ++n)
    rule.append(1, '+').append(size_t(w + 1), '-');
  rule += "+\n";
  for (int64_t m = 0; m < g.rows; ++m) {
    os << rule;
    std::string label = std::to_string(m);
    os << std::string(size_t(std::max(0, 3 - int(label.size()))), ' ') << label << ' ';
    for (int64_t n = 0; n < g.cols; ++n)
      os << '|' << cell(g.at(m, n)) << ' ';
    os << "|\n";
  }
  os << rule;
  return os.str();
}

// The grid as an SVG picture.
inline std::string index_svg(const IndexGrid& g) {
  int64_t lo = 0, hi = 0;
  for (int64_t v : g.index) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const int digits = int(std::max(std::to_string(hi).size(), std::to_string(lo).size()));
  const int cw = std::max(28, 9 * digits + 10), ch = 24; // cell size in px
  const int left = 36, top = 56;
  const int64_t width = left + cw * g.cols + 10, height = top + ch * g.rows + 10;
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
     << "\" font-family=\"monospace\" font-size=\"12\">\n";
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  std::string title;
  for (char c : g.title) {
    if (c == '<')
      title.append("&lt;");
    else if (c == '>')
      title.append("&gt;");
    else
      title.push_back(c);
  }
  os << "<text x=\"" << left << "\" y=\"20\" font-size=\"14\">" << title << "</text>\n";
  for (int64_t n = 0; n < g.cols; ++n)
    os << "<text x=\"" << left + cw * n + cw / 2 << "\" y=\"" << top - 8
       << "\" text-anchor=\"middle\" fill=\"#555\">" << n << "</text>\n";
  for (int64_t m = 0; m < g.rows; ++m)
    os << "<text x=\"" << left - 6 << "\" y=\"" << top + ch * m + ch / 2 + 4
       << "\" text-anchor=\"end\" fill=\"#555\">" << m << "</text>\n";
  const double span = double(std::max<int64_t>(1, hi - lo + 1));
  for (int64_t m = 0; m < g.rows; ++m)
    for (int64_t n = 0; n < g.cols; ++n) {
      const int64_t v = g.at(m, n);
      // Hue follows the index, so neighbouring indices get neighbouring colours.
      const int hue = int(300.0 * double(v - lo) / span);
      const int64_t x = left + cw * n, y = top + ch * m;
      os << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cw << "\" height=\"" << ch
         << "\" fill=\"hsl(" << hue << ",70%,80%)\" stroke=\"#333\" stroke-width=\"0.5\"/>"
         << "<text x=\"" << x + cw / 2 << "\" y=\"" << y + ch / 2 + 4
         << "\" text-anchor=\"middle\">" << v << "</text>\n";
    }
  os << "</svg>\n";
  return os.str();
}

} // namespace tw
