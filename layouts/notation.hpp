#pragma once
// CuTe notation for trees: an int tuple prints as ((2,2),4), a layout as shape:stride,
// e.g. ((2,2),4):((1,2),4). Static and dynamic integers print alike.
#include <layouts/tree.hpp>

#include <string>

namespace tw {

// The values of one side of the tree (a when !use_b, b otherwise) in tuple notation.
inline std::string tree_values_to_string(const detail::Tree& t, bool use_b) {
  std::string s;
  int k = 0;
  for (int i = 0; i < t.ntok; ++i) {
    char c = t.tok[i];
    if (c == detail::kLeaf) {
      if (i > 0 && t.tok[i - 1] != detail::kOpen)
        s += ',';
      s += std::to_string(use_b ? t.b[k] : t.a[k]);
      ++k;
    } else if (c == detail::kOpen) {
      if (i > 0 && t.tok[i - 1] != detail::kOpen)
        s += ',';
      s += '(';
    } else {
      s += ')';
    }
  }
  return s;
}

inline std::string to_string(const detail::Tree& t, bool with_stride) {
  if (!with_stride)
    return tree_values_to_string(t, false);
  return tree_values_to_string(t, false) + ":" + tree_values_to_string(t, true);
}

} // namespace tw
