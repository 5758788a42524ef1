// Regression tests for issue 17 (layout algebra): 64-bit overflow is an error naming the
// operation (it was undefined behaviour and printed wrong layouts with exit 0), a tiler of 0
// is refused (it was SIGFPE), the swizzled cosize and index tables are bounded (they ran
// until killed / ran out of memory), and right_inverse refuses negative strides as
// left_inverse and complement do. Plus 3000 seeded random expressions, each of which must
// evaluate or fail with a sentence.
#include <layouts/expression.hpp>
#include <layouts/layouts.hpp>
#include <layouts/render.hpp>

#include <doctest/doctest.h>

#include <random>
#include <string>

using namespace tw;

namespace {
// The error of an expression, or its value when it evaluated.
std::string outcome(const std::string& text) {
  try {
    return to_string(evaluate_layout_expression(text));
  } catch (const ExpressionError& e) {
    return std::string("error ") + e.what();
  }
}
bool has(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}
} // namespace

TEST_CASE("hostile layouts: overflow in the algebra is an error naming the operation") {
  // Printed 65536:-4611686018427387904 with exit 0 before.
  const std::string c = outcome("composition(2147483647:2147483647, 65536:4611686018427387904)");
  CAPTURE(c);
  CHECK(has(c, "the layout arithmetic overflows 64-bit integers: composition "
               "4611686018427387904 * 2147483647 (in composition)"));
  // Printed a negative number and 0 before.
  CHECK(has(outcome("size((3037000500,3037000500))"),
            "the layout arithmetic overflows 64-bit integers: size 3037000500 * 3037000500 (in "
            "size)"));
  CHECK(has(outcome("size((4611686018427387904,4))"), "size 4611686018427387904 * 4"));
  CHECK(has(outcome("cosize((4611686018427387904,2):(2,1))"), "overflows 64-bit integers"));
  CHECK(has(outcome("complement((2,4611686018427387904):(4611686018427387904,1))"),
            "overflows 64-bit integers"));
  CHECK(has(outcome("make_layout((4611686018427387904,4,2))"), "compact strides"));
  CHECK(has(outcome("logical_product(4611686018427387904:1, 4:1)"), "logical_product"));
  CHECK(has(outcome("(4611686018427387904,4):(1,4611686018427387904)"),
            "overflows 64-bit integers") == false); // the layout itself is representable
  // The typed API throws the LayoutError directly.
  CHECK_THROWS_WITH_AS((void)size(make_layout(make_shape(int64_t(1) << 62, 4))),
                       "the layout arithmetic overflows 64-bit integers: compact strides "
                       "4611686018427387904 * 4",
                       LayoutError);
  // Values near the edge that fit are still computed.
  CHECK(outcome("size((3037000499,3037000499))") == "9223372030926249001");
}

TEST_CASE("hostile layouts: a tiler of 0 is refused, not a division by zero") {
  const std::string d = outcome("logical_divide((4,2):(2,1), 0)");
  CAPTURE(d);
  CHECK(has(d, "error at character 1: every shape entry must be positive: "
               "logical_divide((4,2):(2,1), 0)"));
  CHECK(has(outcome("composition((4,2):(2,1), 0)"), "every shape entry must be positive"));
  CHECK(has(outcome("logical_product((4,2):(2,1), 0)"), "error"));
  CHECK(has(outcome("zipped_divide((4,2):(2,1), (0,2))"), "every shape entry must be positive"));
}

TEST_CASE("hostile layouts: cosize of a huge swizzled layout is bounded, not endless") {
  const std::string c = outcome("cosize(Sw<3,3,3> o (2147483647,3):(1,0))");
  CAPTURE(c);
  CHECK(has(c, "cosize of a swizzled layout visits each of its 6442450941 elements; at most "
               "16777216 are visited"));
  CHECK(outcome("cosize(Sw<1,0,1> o 4:1)") == "4");
}

TEST_CASE("hostile layouts: a huge table is refused before it is built") {
  const LayoutValue v = evaluate_layout_expression("(100000,100000):(1,100000)");
  CHECK_THROWS_WITH_AS((void)index_grid(v.layout),
                       "the layout has too many elements to visit one by one: a table or drawing "
                       "of 100000 x 100000 cells (at most 1048576) of (100000,100000):(1,100000)",
                       LayoutError);
  CHECK(index_grid(evaluate_layout_expression("(4,2):(2,1)").layout).index.size() == 8);
}

TEST_CASE("hostile layouts: right_inverse refuses negative strides as left_inverse does") {
  const std::string r = outcome("right_inverse((4,2):(-2,1))");
  CHECK(has(r, "complement, inverses and the right operand of composition need non-negative "
               "strides: right_inverse((4,2):(-2,1))"));
  CHECK(has(outcome("left_inverse((4,2):(-2,1))"), "need non-negative strides"));
  CHECK(has(outcome("complement((4,2):(-2,1))"), "need non-negative strides"));
  CHECK(outcome("right_inverse((4,2):(2,1))") == "(2,4):(4,1)");
}

TEST_CASE("hostile layouts: 3000 seeded random expressions evaluate or fail with a sentence") {
  std::mt19937_64 rng(17);
  const auto pick = [&](std::initializer_list<const char*> xs) {
    return std::string(xs.begin()[rng() % xs.size()]);
  };
  const auto number = [&]() -> std::string {
    switch (rng() % 6) {
    case 0:
      return "0";
    case 1:
      return std::to_string(int64_t(rng() >> (1 + rng() % 63)));
    case 2:
      return std::to_string(-int64_t(rng() % 9));
    case 3:
      return pick({"2147483647", "4611686018427387904", "3037000500", "9223372036854775807"});
    default:
      return std::to_string(1 + rng() % 8);
    }
  };
  const auto tuple = [&](int n) {
    std::string t = n == 1 ? "" : "(";
    for (int i = 0; i < n; ++i) {
      if (i)
        t.push_back(',');
      t.append(number());
    }
    if (n != 1)
      t.push_back(')');
    return t;
  };
  const auto layout = [&]() {
    const int n = 1 + int(rng() % 3);
    return tuple(n) + ":" + tuple(n);
  };
  int evaluated = 0, refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string e;
    switch (rng() % 5) {
    case 0:
      e = pick({"composition", "logical_divide", "logical_product", "zipped_divide",
                "blocked_product", "raked_product"}) +
          "(" + layout() + ", " + (rng() % 2 ? layout() : number()) + ")";
      break;
    case 1:
      e = pick({"coalesce", "right_inverse", "left_inverse", "size", "cosize", "complement"}) +
          "(" + layout() + ")";
      break;
    case 2:
      e = "complement(" + layout() + ", " + number() + ")";
      break;
    case 3:
      e = "cosize(Sw<" + std::to_string(rng() % 4) + "," + std::to_string(rng() % 4) + "," +
          std::to_string(rng() % 5) + "> o " + layout() + ")";
      break;
    default: { // byte mutation of a valid expression
      e = "logical_divide((8,4):(4,1), (2,2))";
      e[rng() % e.size()] = "0123456789(),:-x"[rng() % 16];
    }
    }
    CAPTURE(e);
    const std::string r = outcome(e);
    if (r.rfind("error at character ", 0) == 0)
      ++refused;
    else
      ++evaluated;
  }
  MESSAGE(evaluated << " evaluated, " << refused << " refused");
  CHECK(refused > 0);
  CHECK(evaluated > 0);
}
