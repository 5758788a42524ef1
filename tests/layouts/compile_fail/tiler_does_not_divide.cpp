// Must not compile: a 3-element tile does not divide 8 elements.
#include <layouts/layouts.hpp>

using namespace tw;
constexpr auto bad = logical_divide(make_layout(Int<8>{}), make_layout(Int<3>{}));
