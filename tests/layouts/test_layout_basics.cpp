// Layout construction, queries, evaluation and printing (CuTe's 01_layout.md semantics).
#include <layouts/layouts.hpp>

#include <doctest/doctest.h>

#include <sstream>

using namespace tw;

namespace {
constexpr auto row_4x8 =
    make_layout(make_shape(Int<4>{}, Int<8>{}), make_stride(Int<8>{}, Int<1>{}));
constexpr auto nested =
    make_layout(make_shape(make_shape(Int<2>{}, Int<2>{}), Int<4>{})); // ((2,2),4):((1,2),4)
} // namespace

// Static queries are constant expressions and static integers.
static_assert(size(row_4x8) == 32);
static_assert(cosize(row_4x8) == 32);
static_assert(rank(row_4x8) == 2);
static_assert(depth(row_4x8) == 1);
static_assert(depth(nested) == 2);
static_assert(row_4x8(1, 2) == 10);
static_assert(row_4x8(9) == 1 * 8 + 2); // index 9 = coordinate (1, 2) colexicographically
static_assert(nested(make_coord(make_coord(1, 1), 2)) == 11);
static_assert(nested(3, 2) == 11); // 3 covers the whole first mode (2,2)
static_assert(std::is_same_v<decltype(size(row_4x8)), const Int<32>> ||
              std::is_same_v<decltype(size(row_4x8)), Int<32>>);

TEST_CASE("printing uses CuTe notation") {
  CHECK(to_string(row_4x8) == "(4,8):(8,1)");
  CHECK(to_string(nested) == "((2,2),4):((1,2),4)");
  std::ostringstream os;
  os << row_4x8;
  CHECK(os.str() == "(4,8):(8,1)");
  CHECK(to_string(make_layout(Int<8>{})) == "8:1");
}

TEST_CASE("column-major default and ordered strides") {
  // 01_layout.md: make_layout(make_shape(2, make_shape(2, 2))) is (2,(2,2)):(1,(2,4)).
  CHECK(to_string(make_layout(make_shape(2, make_shape(2, 2)))) == "(2,(2,2)):(1,(2,4))");
  CHECK(to_string(make_ordered_layout(make_shape(Int<2>{}, Int<3>{}, Int<4>{}),
                                      make_shape(Int<1>{}, Int<2>{}, Int<0>{}))) ==
        "(2,3,4):(4,8,1)");
  // Row-major 2x3 is the ordered layout with order (1, 0).
  CHECK(to_string(make_ordered_layout(make_shape(2, 3), make_shape(1, 0))) == "(2,3):(3,1)");
}

TEST_CASE("get, shape and stride") {
  CHECK(to_string(get<0>(nested)) == "(2,2):(1,2)");
  CHECK(to_string(get<1>(nested)) == "4:4");
  CHECK(to_string(shape(nested)) == "((2,2),4)");
  CHECK(to_string(stride(nested)) == "((1,2),4)");
  CHECK(to_string(get<1>(shape(row_4x8))) == "8");
}

TEST_CASE("dynamic values give the same results at run time") {
  int64_t m = 4, n = 8;
  auto l = make_layout(make_shape(m, n), make_stride(n, Int<1>{}));
  CHECK(size(l) == 32);
  CHECK(cosize(l) == 32);
  CHECK(l(1, 2) == 10);
  CHECK(to_string(l) == "(4,8):(8,1)");
  DynLayout d = to_dyn(l);
  CHECK(d(1, 2) == 10);
  CHECK(d(Int<1>{}, Int<2>{}) == 10);
  CHECK(d.rank() == 2);
}

TEST_CASE("crd2idx and idx2crd") {
  auto s = make_shape(make_shape(2, 3), 4);
  auto d = make_stride(make_stride(1, 2), 6);
  // Every index round-trips through its coordinate for a compact layout.
  for (int64_t i = 0; i < 24; ++i)
    CHECK(crd2idx(idx2crd(i, s), s, d) == i);
  CHECK(to_string(idx2crd(7, make_shape(2, make_shape(2, 3)))) == "(1,(1,1))");
  CHECK(crd2idx(make_coord(1, 2), make_shape(4, 8), make_stride(8, 1)) == 10);
}

TEST_CASE("dynamic errors print both operands") {
  DynTuple shape = dyn_tuple({dyn_int(2), dyn_int(3)});
  DynTuple stride = dyn_tuple({dyn_int(1), dyn_tuple({dyn_int(2), dyn_int(2)})});
  CHECK_THROWS_WITH_AS(
      make_layout(shape, stride),
      doctest::Contains(
          "not congruent (they must nest the same way): shape (2,3) with stride (1,(2,2))"),
      LayoutError);
  DynLayout l = make_layout(shape);
  CHECK_THROWS_WITH_AS(l(1, 1, 1), doctest::Contains("(2,3):(1,2)"), LayoutError);
}

TEST_CASE("make_layout of layouts concatenates modes") {
  constexpr auto lanes =
      make_layout(make_shape(Int<16>{}, Int<2>{}), make_stride(Int<16>{}, Int<8>{}));
  constexpr auto vgprs = make_layout(Int<8>{}, Int<1>{});
  constexpr auto tv = make_layout(lanes, vgprs);
  static_assert(rank(tv) == 2 && size(tv) == 256);
  CHECK(to_string(tv) == "((16,2),8):((16,8),1)");
  const DynLayout d = make_layout(to_dyn(lanes), to_dyn(vgprs));
  CHECK(d == to_dyn(tv));
}
