// A user's program, built against the installed tilewave.
#include <tilewave.hpp>

#include <iostream>

int main() {
  using namespace tw;
  constexpr auto layout = make_layout(make_shape(Int<4>{}, Int<8>{}), make_stride(Int<8>{}, Int<1>{}));
  static_assert(size(layout) == 32);
  static_assert(layout(1, 2) == 10);
  std::cout << layout << "\nconsumer ok\n";
  return 0;
}
