// Must not compile: three coordinates for a rank-2 layout.
#include <layouts/layouts.hpp>

using namespace tw;
constexpr auto layout = make_layout(make_shape(Int<4>{}, Int<8>{}));
constexpr int64_t bad = layout(1, 2, 3);
