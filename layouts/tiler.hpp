#pragma once
// Tilers: the right operand of by-mode composition, divides and products (CuTe's Tiler).
// A tiler is a layout, or a tuple of tilers applied mode by mode; a shape counts as the
// tuple of its entries as stride-1 layouts, so (3,8) means <3:1, 8:1>.
// DynTiler stores the nesting as a tree whose leaf k is the layout leaf[k].
#include <layouts/layout.hpp>

#include <initializer_list>
#include <string>

namespace tw {

inline constexpr int kMaxTilerLeaves = 8;

struct DynTiler {
  detail::Tree structure; // leaf k of the tree stands for leaf[k]
  DynLayout leaf[kMaxTilerLeaves]{};
  int nleaf = 0;
  bool overflow = false;

  constexpr bool is_layout() const { return detail::is_leaf_at(structure, 0); }
  constexpr int rank() const { return detail::rank_at(structure, 0); }
};

constexpr void push_tiler_leaf(DynTiler& t, const DynLayout& l) {
  if (t.nleaf >= kMaxTilerLeaves) {
    t.overflow = true;
    return;
  }
  detail::leaf(t.structure, t.nleaf);
  t.leaf[t.nleaf++] = l;
}

// Appends the tiler node at `pos` of `src` to `dst`.
constexpr void append_tiler(DynTiler& dst, const DynTiler& src, int pos = 0) {
  const int end = detail::end_of(src.structure, pos);
  for (int i = pos; i < end; ++i) {
    if (src.structure.tok[i] == detail::kLeaf)
      push_tiler_leaf(dst, src.leaf[detail::leaf_index(src.structure, i)]);
    else
      detail::push_token(dst.structure, src.structure.tok[i]);
  }
  dst.overflow = dst.overflow || src.overflow || src.structure.overflow;
}

constexpr DynTiler subtiler(const DynTiler& t, int pos) {
  DynTiler r;
  append_tiler(r, t, pos);
  return r;
}

// One layout as a tiler.
constexpr DynTiler layout_tiler(const DynLayout& l) {
  DynTiler t;
  push_tiler_leaf(t, l);
  return t;
}

// A shape as a tiler: each entry s becomes the layout s:1, tuples stay by-mode.
constexpr DynTiler shape_tiler(const DynTuple& s) {
  DynTiler t;
  int k = 0;
  for (int i = 0; i < s.t.ntok; ++i) {
    if (s.t.tok[i] == detail::kLeaf) {
      DynLayout l;
      detail::leaf(l.t, s.t.a[k++], 1);
      push_tiler_leaf(t, l);
    } else {
      detail::push_token(t.structure, s.t.tok[i]);
    }
  }
  return t;
}

// The by-mode tiler <parts...>.
constexpr DynTiler tuple_tiler(std::initializer_list<DynTiler> parts) {
  DynTiler t;
  detail::open(t.structure);
  for (const DynTiler& p : parts)
    append_tiler(t, p);
  detail::close(t.structure);
  return t;
}

// A typed tiler: the tuple of layouts (or shapes) to apply mode by mode.
template <class... T>
constexpr auto make_tile(const T&... parts) {
  return hana::make_tuple(parts...);
}

template <class T>
constexpr DynTiler to_tiler(const T& x) {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::same_as<U, DynTiler>)
    return x;
  else if constexpr (AnyLayout<U>)
    return layout_tiler(to_dyn(x));
  else if constexpr (std::same_as<U, DynTuple>)
    return shape_tiler(x);
  else if constexpr (IntTuple<U> || std::is_integral_v<U> || detail::IntegralConstantLike<U>)
    return shape_tiler(to_dyn_tuple(to_int_tuple(x)));
  else if constexpr (HanaTuple<U>)
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return tuple_tiler({to_tiler(hana::at_c<I>(x))...});
    }
  (std::make_index_sequence<decltype(hana::size(x))::value>{});
  else static_assert(AnyLayout<U>, "tw: a tiler is a layout, a shape, or a tuple of tilers");
}

inline std::string to_string(const DynTiler& t, int pos = 0) {
  if (detail::is_leaf_at(t.structure, pos))
    return to_string(t.leaf[detail::leaf_index(t.structure, pos)]);
  std::string s = "<";
  detail::Children c = detail::children_of(t.structure, pos);
  for (int i = 0; i < c.n; ++i)
    s.append(i ? "," : "").append(to_string(t, c.pos[i]));
  return s + ">";
}

} // namespace tw
