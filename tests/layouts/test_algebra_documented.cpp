// Every algebra function against the results CuTe documents. Sources:
//   [LA]  cutlass media/docs/cpp/cute/02_layout_algebra.md
//   [OPS] cutlass media/docs/cutlass_compiler/cute_concepts/02_layout_algebra/core_ops.rst
//   [PD]  cutlass
//   media/docs/cutlass_compiler/cute_concepts/02_layout_algebra/products_and_divides.rst
// Each case runs twice: through the run-time expression evaluator (the path of
// `tilewave layout`) and, where marked, through the typed static API, which must give the
// same text and be usable in constant expressions.
#include <layouts/expression.hpp>
#include <layouts/layouts.hpp>

#include <doctest/doctest.h>

using namespace tw;

namespace {
std::string eval(const char* expr) {
  return to_string(evaluate_layout_expression(expr));
}

template <int64_t... N>
constexpr auto S() {
  return make_shape(Int<N>{}...);
}
} // namespace

TEST_CASE("coalesce") {
  CHECK(eval("coalesce((2,(1,6)):(1,(6,2)))") == "12:1");                // [LA]
  CHECK(eval("coalesce((2,(1,6)):(1,(6,2)), (1,1))") == "(2,6):(1,2)");  // [LA] by-mode
  CHECK(eval("coalesce((3,(4,5)):(8,(1,4)), (1,1))") == "(3,20):(8,1)"); // [OPS]
  CHECK(eval("coalesce((2,4):(1,2))") == "8:1"); // [LA] (_2,_4):(_1,_2) ~ _8:_1
  constexpr auto a = make_layout(make_shape(Int<2>{}, S<1, 6>()), make_stride(Int<1>{}, S<6, 2>()));
  constexpr auto r = coalesce(a);
  static_assert(std::is_same_v<std::remove_cv_t<decltype(r)>, Layout<Int<12>, Int<1>>>);
  CHECK(to_string(coalesce(a, S<1, 1>())) == "(2,6):(1,2)");
}

TEST_CASE("composition") {
  // [LA] A = (6,2):(8,2), B = (4,3):(3,1), R = ((2,2),3):((24,2),8) with the listed R(i).
  CHECK(eval("composition((6,2):(8,2), (4,3):(3,1))") == "((2,2),3):((24,2),8)");
  CHECK(eval("(6,2):(8,2) o (4,3):(3,1)") == "((2,2),3):((24,2),8)");
  constexpr auto A = make_layout(S<6, 2>(), S<8, 2>());
  constexpr auto B = make_layout(S<4, 3>(), S<3, 1>());
  constexpr auto R = composition(A, B);
  constexpr int64_t documented[12] = {0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42};
  static_assert(R(0) == 0 && R(1) == 24 && R(11) == 42);
  for (int i = 0; i < 12; ++i)
    CHECK(R(i) == documented[i]);
  CHECK(to_string(R) == "((2,2),3):((24,2),8)");
  // [LA] examples 2 and 3 (3 prints (_5,(_2,_2)):(_16,(_80,_4)) with static integers).
  CHECK(eval("composition(20:2, (5,4):(4,1))") == "(5,4):(8,2)");
  CHECK(eval("composition((10,2):(16,4), (5,4):(1,5))") == "(5,(2,2)):(16,(80,4))");
  CHECK(to_string(composition(make_layout(S<10, 2>(), S<16, 4>()),
                              make_layout(S<5, 4>(), S<1, 5>()))) == "(5,(2,2)):(16,(80,4))");
  // [LA] (3,6,2,8):(w,x,y,z) o 16:9 = (1,2,2,4):(9w,3x,y,z); with w,x,y,z = 2,7,50,300
  // (no neighbours merge) the size-1 mode is dropped: (2,2,4):(21,50,300).
  CHECK(eval("composition((3,6,2,8):(2,7,50,300), 16:9)") == "(2,2,4):(21,50,300)");
  // [LA] by-mode composition with a tiler <3:4, 8:2>, and with the shape (3,8).
  CHECK(eval("composition((12,(4,8)):(59,(13,1)), <3:4, 8:2>)") == "(3,(2,4)):(236,(26,1))");
  CHECK(eval("composition((12,(4,8)):(59,(13,1)), (3,8))") == "(3,(4,2)):(59,(13,1))");
  auto a2 = make_layout(make_shape(12, make_shape(4, 8)), make_stride(59, make_stride(13, 1)));
  CHECK(to_string(composition(
            a2, make_tile(make_layout(Int<3>{}, Int<4>{}), make_layout(Int<8>{}, Int<2>{})))) ==
        "(3,(2,4)):(236,(26,1))");
  // [OPS] shape and tile right operands.
  CHECK(eval("composition((4,8):(1,4), (2,4))") == "(2,4):(1,4)");
  CHECK(eval("composition((6,4):(4,1), <(2):(1), (2):(1)>)") == "((2),(2)):((4),(1))");
}

TEST_CASE("complement") {
  // [LA] complement examples (static integers).
  CHECK(eval("complement(4:1, 24)") == "6:4");
  CHECK(eval("complement(6:4, 24)") == "4:1");
  CHECK(eval("complement((4,6):(1,4), 24)") == "1:0");
  CHECK(eval("complement(4:2, 24)") == "(2,3):(1,8)");
  CHECK(eval("complement((2,4):(1,6), 24)") == "3:2");
  CHECK(eval("complement((2,2):(1,6), 24)") == "(3,2):(2,12)");
  // [LA] / [OPS] product example: complement((2,2):(4,1), 24) = (2,3):(2,8).
  CHECK(eval("complement((2,2):(4,1), 24)") == "(2,3):(2,8)");
  CHECK(eval("complement((2,2):(4,1), (4,6))") == "(2,3):(2,8)"); // a shape bound: its size
  // [OPS] without a bound: (2,1):(2,8), which the C++ CuTe coalesces to 2:2.
  CHECK(eval("complement((2,2):(4,1))") == "2:2");
  CHECK(eval("coalesce((2,1):(2,8))") == eval("complement((2,2):(4,1))"));
  constexpr auto c = complement(make_layout(S<2, 2>(), S<1, 6>()), Int<24>{});
  static_assert(size(c) == 6 && c(1) == 2 && c(3) == 12);
  CHECK(to_string(c) == "(3,2):(2,12)");
}

TEST_CASE("right_inverse and left_inverse") {
  // [OPS]
  CHECK(eval("right_inverse((2,4,6):(4,1,8))") == "(4,2,6):(2,1,8)");
  CHECK(eval("left_inverse((2,4,6):(4,1,8))") == "(4,2,6):(2,1,8)");
  CHECK(eval("right_inverse((2,4):(4,1))") == "(4,2):(2,1)");
  CHECK(eval("left_inverse((2,4):(4,1))") == "(4,2):(2,1)");
  // [OPS] worked example: A(c) = 0 4 1 5 2 6 3 7, inverse(c) = 0 2 4 6 1 3 5 7.
  constexpr auto A = make_layout(S<2, 4>(), S<4, 1>());
  constexpr auto inv = right_inverse(A);
  const int64_t a_row[8] = {0, 4, 1, 5, 2, 6, 3, 7}, inv_row[8] = {0, 2, 4, 6, 1, 3, 5, 7};
  for (int i = 0; i < 8; ++i) {
    CHECK(A(i) == a_row[i]);
    CHECK(inv(i) == inv_row[i]);
  }
  static_assert(A(inv(5)) == 5);
  CHECK(to_string(left_inverse(A)) == "(4,2):(2,1)");
}

TEST_CASE("logical_divide") {
  // [LA] 1-D: A = (4,2,3):(2,1,8), B = 4:2.
  CHECK(eval("logical_divide((4,2,3):(2,1,8), 4:2)") == "((2,2),(2,3)):((4,1),(2,8))");
  // [LA] 2-D: the tile mode of each mode is (3,(2,4)):(177,(13,2)) = composition(A, B).
  const std::string ld = eval("logical_divide((9,(4,8)):(59,(13,1)), <3:3, (2,4):(1,8)>)");
  CHECK(ld == "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
  CHECK(eval("composition((9,(4,8)):(59,(13,1)), <3:3, (2,4):(1,8)>)") == "(3,(2,4)):(177,(13,2))");
  // [PD] shape, tile and layout tilers.
  CHECK(eval("logical_divide((6,8):(8,1), (3,4))") == "((3,2),(4,2)):((8,24),(1,4))");
  CHECK(eval("logical_divide((6,8):(8,1), <(3):(1), (4):(1)>)") ==
        "(((3),2),((4),2)):(((8),24),((1),4))");
  CHECK(eval("logical_divide((6,8):(8,1), (3,4):(1,3))") == "((3,(2,2)),4):((8,(24,1)),2)");
  // The example.
  CHECK(eval("logical_divide((8,8):(1,8), (2,4):(1,2))") == "((2,4),8):((1,2),8)");
  // Static: the [LA] 2-D case through the typed API.
  constexpr auto A =
      make_layout(make_shape(Int<9>{}, S<4, 8>()), make_stride(Int<59>{}, S<13, 1>()));
  constexpr auto T = make_tile(make_layout(Int<3>{}, Int<3>{}), make_layout(S<2, 4>(), S<1, 8>()));
  constexpr auto r = logical_divide(A, T);
  static_assert(size(r) == 288 && rank(r) == 2);
  CHECK(to_string(r) == ld);
}

TEST_CASE("zipped_divide, tiled_divide, flat_divide") {
  // [PD]
  CHECK(eval("zipped_divide((6,8):(8,1), (3,4))") == "((3,4),(2,2)):((8,1),(24,4))");
  CHECK(eval("tiled_divide((6,8):(8,1), (3,4))") == "((3,4),2,2):((8,1),24,4)");
  CHECK(eval("flat_divide((6,8):(8,1), (3,4))") == "(3,4,2,2):(8,1,24,4)");
  // [LA] zipped_divide of (9,(4,8)) by <3:3,(2,4):(1,8)> has shape ((3,8),(3,4)) and its
  // mode 0 is composition(a, b).
  constexpr auto A =
      make_layout(make_shape(Int<9>{}, S<4, 8>()), make_stride(Int<59>{}, S<13, 1>()));
  constexpr auto T = make_tile(make_layout(Int<3>{}, Int<3>{}), make_layout(S<2, 4>(), S<1, 8>()));
  constexpr auto zd = zipped_divide(A, T);
  static_assert(size(get<0>(zd)) == 24 && size(get<1>(zd)) == 12);
  CHECK(to_string(get<0>(zd)) == to_string(composition(A, T)));
  CHECK(to_string(zd) == "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
  // Extra modes of the layout go to the rest.
  CHECK(eval("zipped_divide((6,8,2):(8,1,48), (3,4))") == "((3,4),(2,2,2)):((8,1),(24,4,48))");
  CHECK(eval("tiled_divide((6,8,2):(8,1,48), (3,4))") == "((3,4),2,2,2):((8,1),24,4,48)");
}

TEST_CASE("logical_product") {
  // [LA] 1-D: (2,2):(4,1) reproduced by 6:1.
  CHECK(eval("logical_product((2,2):(4,1), 6:1)") == "((2,2),(2,3)):((4,1),(2,8))");
  // [PD]
  CHECK(eval("logical_product((2,2):(4,1), (3,2):(2,1))") == "((2,2),(3,2)):((4,1),(8,2))");
  CHECK(eval("logical_product((3,4):(4,1), (2,5):(1,2))") == "((3,4),(2,5)):((4,1),(12,24))");
  CHECK(eval("zipped_product((3,4):(4,1), (2,5):(1,2))") == "((3,4),(2,5)):((4,1),(12,24))");
  CHECK(eval("tiled_product((3,4):(4,1), (2,5):(1,2))") == "((3,4),2,5):((4,1),12,24)");
  CHECK(eval("flat_product((3,4):(4,1), (2,5):(1,2))") == "(3,4,2,5):(4,1,12,24)");
  constexpr auto p =
      logical_product(make_layout(S<2, 2>(), S<4, 1>()), make_layout(Int<6>{}, Int<1>{}));
  static_assert(size(p) == 24);
  CHECK(to_string(p) == "((2,2),(2,3)):((4,1),(2,8))");
}

TEST_CASE("blocked_product and raked_product") {
  // [PD] raked_product((3,4):(4,1), (2,5):(1,2)) = ((2,3),(5,4)):((12,4),(24,1)).
  CHECK(eval("raked_product((3,4):(4,1), (2,5):(1,2))") == "((2,3),(5,4)):((12,4),(24,1))");
  // [PD] prints blocked_product as ((3,2),(4,5)):((4,12),(1,24)); the C++ CuTe definition
  // coalesces each mode ([LA]: "blocked_product went ahead and coalesced mode-0"), and
  // (3,2):(4,12) coalesces to 6:4.
  CHECK(eval("blocked_product((3,4):(4,1), (2,5):(1,2))") == "(6,(4,5)):(4,(1,24))");
  CHECK(eval("coalesce(((3,2),(4,5)):((4,12),(1,24)), (1,1))") == "(6,(4,5)):(4,(1,24))");
  // [LA] figure: a 2x5 row-major block over a 3x4 column-major arrangement. Derived from
  // the definition by hand: complement((2,5):(5,1), 120) = 12:10, 12:10 o (3,4):(1,3) =
  // (3,4):(10,30); zipped and coalesced per mode: (6,(5,4)):(5,(1,30)).
  CHECK(eval("blocked_product((2,5):(5,1), (3,4):(1,3))") == "(6,(5,4)):(5,(1,30))");
  constexpr auto b =
      blocked_product(make_layout(S<2, 5>(), S<5, 1>()), make_layout(S<3, 4>(), S<1, 3>()));
  static_assert(b(1, 0) == 5 && b(2, 0) == 10 && b(0, 5) == 30);
  CHECK(to_string(b) == "(6,(5,4)):(5,(1,30))");
  // Ranks differ: the smaller operand is padded with 1:0 modes.
  CHECK(eval("blocked_product(4:1, (2,3):(1,2))") == "(8,3):(1,8)");
}

TEST_CASE("swizzle") {
  // Sw<3,3,3> XORs bits [3,6) with bits [6,9): x ^ ((x & 0b111000000) >> 3).
  constexpr Swizzle<3, 3, 3> sw;
  static_assert(sw(0) == 0 && sw(7) == 7 && sw(64) == 64 + 8 && sw(448) == 448 + 56);
  static_assert(sw(64 + 8) == 64); // bit 6 flips bit 3 back
  constexpr auto c = composition(sw, make_layout(S<8, 64>(), S<64, 1>()));
  CHECK(to_string(c) == "Sw<3,3,3> o (8,64):(64,1)");
  static_assert(c(1, 0) == 64 + 8); // row 1 starts at 64, swizzled to 72
  CHECK(c(2, 3) == ((128 + 3) ^ 16));
  CHECK(eval("Sw<3,3,3> o (8,64):(64,1)") == "Sw<3,3,3> o (8,64):(64,1)");
  // Right compositions act on the inner layout.
  CHECK(eval("composition(Sw<3,3,3> o (8,64):(64,1), (4,8))") == "Sw<3,3,3> o (4,8):(64,1)");
  CHECK(to_string(logical_divide(c, S<4, 8>())) == "Sw<3,3,3> o ((4,2),(8,8)):((64,256),(1,8))");
  // A negative shift moves the low bits up: Sw<2,0,-2> XORs bits [0,2) into bits [2,4).
  const DynSwizzle up{2, 0, -2};
  CHECK(up(0b0001) == 0b0101);
  CHECK(up(0b0010) == 0b1010);
  CHECK(up(0b0100) == 0b0100);
  CHECK(check_swizzle(3, 3, 2) == Status::bad_swizzle);
}
