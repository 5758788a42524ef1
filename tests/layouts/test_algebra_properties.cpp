// Property tests over many random small layouts (fixed seed): the algebra's post-conditions
// checked element by element, independently of how the results are computed.
#include <layouts/layouts.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace tw;

namespace {

struct Rng {
  uint64_t state;
  uint64_t next() { // splitmix64
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int below(int n) { return int(next() % uint64_t(n)); }
};

DynLayout from_modes(const std::vector<std::pair<int64_t, int64_t>>& modes, bool group_first) {
  DynLayout l;
  if (modes.size() == 1) {
    detail::leaf(l.t, modes[0].first, modes[0].second);
    return l;
  }
  detail::open(l.t);
  size_t i = 0;
  if (group_first && modes.size() >= 3) {
    detail::open(l.t);
    detail::leaf(l.t, modes[0].first, modes[0].second);
    detail::leaf(l.t, modes[1].first, modes[1].second);
    detail::close(l.t);
    i = 2;
  }
  for (; i < modes.size(); ++i)
    detail::leaf(l.t, modes[i].first, modes[i].second);
  detail::close(l.t);
  return l;
}

// A random injective layout: the modes of a compact space of `total` elements (factors
// 2, 3, 4 with strides in a random order), of which a random non-empty subset is kept and
// shuffled; with holes = false every mode is kept (a bijection onto [0, total)).
DynLayout random_injective(Rng& rng, int64_t& total, bool holes = true) {
  const int k = 1 + rng.below(4);
  std::vector<int64_t> f(static_cast<size_t>(k)), stride(static_cast<size_t>(k));
  std::vector<int> order(static_cast<size_t>(k));
  total = 1;
  for (int j = 0; j < k; ++j) {
    f[size_t(j)] = 2 + rng.below(3);
    order[size_t(j)] = j;
    total *= f[size_t(j)];
  }
  for (int j = k - 1; j > 0; --j)
    std::swap(order[size_t(j)], order[size_t(rng.below(j + 1))]);
  int64_t running = 1;
  for (int j : order) {
    stride[size_t(j)] = running;
    running *= f[size_t(j)];
  }
  std::vector<std::pair<int64_t, int64_t>> modes;
  for (int j = 0; j < k; ++j)
    if (!holes || rng.below(3) != 0)
      modes.push_back({f[size_t(j)], stride[size_t(j)]});
  if (modes.empty())
    modes.push_back({f[0], stride[0]});
  for (size_t j = modes.size() - 1; j > 0; --j)
    std::swap(modes[j], modes[size_t(rng.below(int(j) + 1))]);
  return from_modes(modes, rng.below(3) == 0);
}

// Any small layout: ranks 1-3, sizes 1-4, strides 0-9, some nesting.
DynLayout random_layout(Rng& rng) {
  const int r = 1 + rng.below(3);
  std::vector<std::pair<int64_t, int64_t>> modes;
  for (int i = 0; i < r; ++i)
    modes.push_back({1 + rng.below(4), rng.below(10)});
  return from_modes(modes, rng.below(3) == 0);
}

std::vector<int64_t> image(const DynLayout& l) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < l.size(); ++i)
    v.push_back(l(i));
  std::sort(v.begin(), v.end());
  return v;
}

bool injective(const DynLayout& l) {
  std::vector<int64_t> v = image(l);
  return std::adjacent_find(v.begin(), v.end()) == v.end();
}

// Injective once its broadcast (stride-0) modes are ignored: the composition's right operand
// must be like that for A o B to distribute over B's modes (CuTe's left-distributivity).
bool injective_but_broadcast(const DynLayout& l) {
  DynLayout f = l;
  for (int k = 0; k < f.t.nleaf; ++k)
    if (f.t.b[k] == 0)
      f.t.a[k] = 1;
  return injective(f);
}

constexpr int kCases = 400;

} // namespace

TEST_CASE("coalesce preserves the function and the size") {
  Rng rng{1};
  for (int c = 0; c < kCases; ++c) {
    const DynLayout l = random_layout(rng);
    const core::Outcome r = core::coalesce(l);
    REQUIRE(r.ok());
    CHECK(r.layout.size() == l.size());
    CHECK(r.layout.depth() <= 1);
    for (int64_t i = 0; i < l.size(); ++i)
      CHECK_MESSAGE(r.layout(i) == l(i), to_string(l), " -> ", to_string(r.layout), " at ", i);
    // By-mode coalesce keeps the rank and each mode's function.
    const core::Outcome bm = core::coalesce_by(l, to_dyn_tuple(make_shape(1, 1, 1)));
    if (l.rank() == 3) {
      REQUIRE(bm.ok());
      CHECK(bm.layout.rank() == 3);
      for (int m = 0; m < 3; ++m)
        for (int64_t i = 0; i < l.mode(m).size(); ++i)
          CHECK(bm.layout.mode(m)(i) == l.mode(m)(i));
    }
  }
}

TEST_CASE("composition evaluates as function composition at every index") {
  Rng rng{2};
  int admissible = 0;
  for (int c = 0; c < 4 * kCases; ++c) {
    const DynLayout a = c % 2 ? random_layout(rng) : make_layout(dyn_int(1 + rng.below(24)));
    const DynLayout b = random_layout(rng);
    if (!injective_but_broadcast(b))
      continue;
    const core::Outcome r = core::composition(a, b);
    if (!r.ok()) {
      // The only reasons are CuTe's divisibility conditions.
      CHECK((r.status == Status::stride_not_divisible || r.status == Status::shape_not_divisible));
      continue;
    }
    ++admissible;
    CHECK(r.layout.size() == b.size());
    for (int64_t i = 0; i < b.size(); ++i) {
      CHECK_MESSAGE(r.layout(i) == a(b(i)), to_string(a), " o ", to_string(b), " = ",
                    to_string(r.layout), " at ", i);
      // B's coordinates are coordinates of the result (compatible shapes).
      const DynTuple crd = idx2crd(i, b.shape());
      CHECK(r.layout(crd) == a(b(crd)));
    }
  }
  CHECK(admissible > kCases / 2); // many random pairs are admissible
}

TEST_CASE("complement is disjoint from the layout and together they fill the bound") {
  Rng rng{3};
  for (int c = 0; c < kCases; ++c) {
    int64_t total = 0;
    const DynLayout a = random_injective(rng, total);
    const int64_t bound = total * (1 + rng.below(3));
    const core::Outcome r = core::complement(a, bound);
    REQUIRE(r.ok());
    const DynLayout& comp = r.layout;
    CHECK(a.size() * comp.size() == bound);
    // Ordered: strictly increasing.
    for (int64_t i = 1; i < comp.size(); ++i)
      CHECK(comp(i - 1) < comp(i));
    // (A, complement) is a bijection onto [0, bound), so the images meet only at 0.
    const std::vector<int64_t> both = image(core::concat(a, comp));
    std::vector<int64_t> expected(static_cast<size_t>(bound));
    for (int64_t i = 0; i < bound; ++i)
      expected[size_t(i)] = i;
    CHECK_MESSAGE(both == expected, to_string(a), " complement ", to_string(comp));
    const std::vector<int64_t> img = image(a);
    for (int64_t i = 1; i < comp.size(); ++i)
      CHECK(!std::binary_search(img.begin(), img.end(), comp(i)));
  }
}

TEST_CASE("divides preserve size and the set of indices") {
  Rng rng{4};
  int divided = 0;
  for (int c = 0; c < kCases; ++c) {
    int64_t total = 0;
    const DynLayout tile = random_injective(rng, total);
    // A data layout over `total` elements: compact, or a permuted bijection.
    int64_t t2 = 0;
    const DynLayout a = rng.below(2) ? make_layout(dyn_int(total)) : DynLayout{};
    const DynLayout data = a.t.ntok ? a : random_injective(rng, t2, /*holes=*/false);
    if (data.size() % tile.size() != 0)
      continue;
    const core::Outcome ld = core::logical_divide(data, layout_tiler(tile));
    if (!ld.ok()) {
      CHECK(ld.status == Status::tiler_does_not_divide);
      continue;
    }
    ++divided;
    CHECK(ld.layout.size() == data.size());
    CHECK(image(ld.layout) == image(data));
    // Mode 0 is the tile: composition(data, tile).
    const core::Outcome comp = core::composition(data, tile);
    REQUIRE(comp.ok());
    for (int64_t i = 0; i < tile.size(); ++i)
      CHECK(ld.layout.mode(0)(i) == comp.layout(i));
    for (auto op : {core::zipped_divide, core::tiled_divide, core::flat_divide}) {
      const core::Outcome g = op(data, layout_tiler(tile));
      REQUIRE(g.ok());
      CHECK(g.layout.size() == data.size());
      CHECK(image(g.layout) == image(data));
    }
  }
  CHECK(divided > kCases / 4);
  // By-mode: a 2-D compact layout divided by a shape keeps every index.
  for (int c = 0; c < kCases / 4; ++c) {
    const int64_t tm = 1 + rng.below(4), tn = 1 + rng.below(4);
    const int64_t m = tm * (1 + rng.below(3)), n = tn * (1 + rng.below(3));
    const DynLayout data = make_layout(dyn_tuple({dyn_int(m), dyn_int(n)}));
    const DynTiler t = shape_tiler(dyn_tuple({dyn_int(tm), dyn_int(tn)}));
    const core::Outcome z = core::zipped_divide(data, t);
    REQUIRE(z.ok());
    CHECK(z.layout.mode(0).size() == tm * tn);
    CHECK(z.layout.mode(1).size() == (m / tm) * (n / tn));
    CHECK(image(z.layout) == image(data));
  }
}

TEST_CASE("products preserve size and stay injective") {
  Rng rng{5};
  int multiplied = 0;
  for (int c = 0; c < kCases; ++c) {
    int64_t ta = 0, tb = 0;
    // With holes in A, its complement has several modes and B's strides must divide them.
    const DynLayout a = random_injective(rng, ta, /*holes=*/c % 2 == 1);
    const DynLayout b = random_injective(rng, tb);
    const core::Outcome p = core::logical_product(a, layout_tiler(b));
    if (!p.ok()) {
      CHECK(c % 2 == 1);
      CHECK((p.status == Status::stride_not_divisible || p.status == Status::shape_not_divisible));
      continue;
    }
    ++multiplied;
    CHECK(p.layout.size() == a.size() * b.size());
    CHECK_MESSAGE(injective(p.layout), to_string(a), " x ", to_string(b), " = ",
                  to_string(p.layout));
    // Mode 0 is A itself.
    CHECK(p.layout.mode(0) == a);
    for (auto op : {core::blocked_product, core::raked_product}) {
      const core::Outcome q = op(a, b);
      REQUIRE(q.ok());
      CHECK(q.layout.size() == a.size() * b.size());
      CHECK(injective(q.layout));
    }
  }
  CHECK(multiplied > kCases / 2);
}

TEST_CASE("inverses invert") {
  Rng rng{6};
  for (int c = 0; c < kCases; ++c) {
    int64_t total = 0;
    const bool holes = c % 2 == 1;
    const DynLayout a = random_injective(rng, total, holes);
    const core::Outcome r = core::right_inverse(a);
    REQUIRE(r.ok());
    for (int64_t i = 0; i < r.layout.size(); ++i)
      CHECK_MESSAGE(a(r.layout(i)) == i, to_string(a), " right inverse ", to_string(r.layout));
    if (!holes) // a bijection: the right inverse covers everything
      CHECK(r.layout.size() == a.size());
    const core::Outcome l = core::left_inverse(a);
    REQUIRE(l.ok());
    for (int64_t i = 0; i < a.size(); ++i)
      CHECK_MESSAGE(l.layout(a(i)) == i, to_string(a), " left inverse ", to_string(l.layout));
  }
}

TEST_CASE("static and dynamic inputs give the same layouts") {
  // The typed API with dynamic integers runs the same core as with static ones.
  const auto s =
      composition(make_layout(make_shape(Int<6>{}, Int<2>{}), make_stride(Int<8>{}, Int<2>{})),
                  make_layout(make_shape(Int<4>{}, Int<3>{}), make_stride(Int<3>{}, Int<1>{})));
  const int64_t six = 6, eight = 8;
  const auto d = composition(make_layout(make_shape(six, 2), make_stride(eight, 2)),
                             make_layout(make_shape(4, 3), make_stride(3, 1)));
  static_assert(std::is_same_v<std::remove_cv_t<decltype(d)>, DynLayout>);
  CHECK(to_string(s) == to_string(d));
  CHECK(to_dyn(s) == d);
}
