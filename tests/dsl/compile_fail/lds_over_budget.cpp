// Must NOT compile: a 256 x 256 f16 buffer (128 KiB) cannot fit in a workgroup's 64 KiB.
#include <dsl/lds/lds_plan.hpp>

using namespace tw::dsl;

constexpr auto plan = lds_plan(lds_buffer<f16>("too_big", 256, 256));
constexpr auto bytes = checked_lds_plan<plan>.bytes();
int main() {
  return static_cast<int>(bytes);
}
