// Must not compile: the stride nests differently from the shape.
#include <layouts/layouts.hpp>

using namespace tw;
constexpr auto bad = make_layout(make_shape(Int<2>{}, Int<3>{}), make_stride(Int<1>{}));
