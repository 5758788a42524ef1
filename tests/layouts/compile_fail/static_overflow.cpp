// Must not compile: the size of a static layout overflows 64-bit integers.
#include <layouts/layouts.hpp>

using namespace tw;
constexpr auto layout = make_layout(make_shape(Int<(int64_t(1) << 62)>{}, Int<4>{}));
constexpr int64_t n = size(layout);
