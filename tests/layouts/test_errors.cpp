// Run-time errors: a LayoutError whose message states the rule and prints the operands.
#include <layouts/expression.hpp>
#include <layouts/layouts.hpp>

#include <doctest/doctest.h>

using namespace tw;

namespace {
DynLayout L(const char* text) {
  return evaluate_layout_expression(text).layout;
}

std::string message_of(auto&& f) {
  try {
    f();
  } catch (const LayoutError& e) {
    return e.what();
  }
  return "no LayoutError";
}
} // namespace

TEST_CASE("a tiler that does not divide names both layouts") {
  const std::string m = message_of([] { (void)logical_divide(L("8:1"), L("3:1")); });
  CHECK(m == "the tiler does not divide the layout: logical_divide(8:1, 3:1)");
  CHECK(message_of([] { (void)zipped_divide(L("(6,8):(8,1)"), make_shape(4, 4)); }) ==
        "the tiler does not divide the layout: zipped_divide((6,8):(8,1), (4,4))");
  // Dynamic integers in the typed API take the same path.
  const int64_t n = 8;
  CHECK_THROWS_AS((void)logical_divide(make_layout(n), make_layout(3)), LayoutError);
}

TEST_CASE("composition divisibility conditions") {
  CHECK(message_of([] { (void)composition(L("(3,4):(1,10)"), L("2:2")); }) ==
        "composition A o B: a stride of B does not divide the shape of A (stride divisibility "
        "condition): composition((3,4):(1,10), 2:2)");
  CHECK(message_of([] { (void)composition(L("(4,3):(1,10)"), L("6:1")); }) ==
        "composition A o B: a shape of B does not divide the shape of A (shape divisibility "
        "condition): composition((4,3):(1,10), 6:1)");
}

TEST_CASE("shape and stride must be congruent") {
  auto bad = [] {
    (void)make_layout(dyn_tuple({dyn_int(2), dyn_int(3)}), dyn_tuple({dyn_int(1)}));
  };
  CHECK(message_of(bad) == "shape and stride are not congruent (they must nest the same way): "
                           "shape (2,3) with stride (1)");
  CHECK(message_of([] {
          (void)make_layout(make_shape(int64_t(0), 2));
        }).find("every shape entry must be positive") != std::string::npos);
}

TEST_CASE("coordinates of the wrong rank") {
  const DynLayout l = L("(4,8):(8,1)");
  CHECK(message_of([&] { (void)l(1, 2, 3); }) ==
        "the coordinate does not match the rank of the layout: 3 coordinates for the layout "
        "(4,8):(8,1)");
  CHECK(message_of([&] {
          (void)l(dyn_tuple({dyn_int(1), dyn_tuple({dyn_int(0), dyn_int(1)})}));
        }).find("coordinate (1,(0,1)) for the layout (4,8):(8,1)") != std::string::npos);
}

TEST_CASE("complement and inverses need injective layouts") {
  CHECK(message_of([] { (void)complement(L("(2,2):(1,1)"), 8); }) ==
        "the layout is not injective (two coordinates map to the same index): "
        "complement((2,2):(1,1), 8)");
  CHECK(message_of([] { (void)left_inverse(L("(4,2):(1,0)")); }).find("not injective") !=
        std::string::npos);
  CHECK(message_of([] { (void)complement(L("4:-1")); }).find("non-negative strides") !=
        std::string::npos);
}

TEST_CASE("tilers with too many modes") {
  CHECK(message_of([] { (void)logical_divide(L("8:1"), make_shape(2, 2)); }) ==
        "the tiler has more modes than the layout: logical_divide(8:1, (2,2))");
}

TEST_CASE("expressions report the character position") {
  auto position = [](const char* text) {
    try {
      (void)evaluate_layout_expression(text);
    } catch (const ExpressionError& e) {
      return int(e.position());
    }
    return -1;
  };
  CHECK(position("(4,2):(2") == 8);
  CHECK(position("(4,2):(2,1) junk") == 12);
  CHECK(position("logical_divide(8:1, 3:1)") == 0);
  CHECK(position("complement(4:2, 24, 3)") == 0);
  CHECK(position("coalesce(4:2, x)") == 14);
  CHECK(position("Sw<3,3,2> o 8:1") == 0);
  CHECK(position("(2,3):(1,(2,2))") == 6);
  // Absurd nesting is an error, not a stack overflow.
  const std::string deep = std::string(5000, '(') + "1" + std::string(5000, ')');
  const int at = position(deep.c_str());
  CHECK((at > 0 && at <= 64));
}
