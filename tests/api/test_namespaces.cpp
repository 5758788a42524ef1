// The namespace layout of docs/guide.md: `using namespace tw::dsl;` brings the kernel
// vocabulary into scope but not the operations named like common identifiers (tw::dsl::ops),
// so a program's own `copy`, `max`, `min`, `map` and `select` stay unambiguous, while calls on
// DSL values still find the operations by argument-dependent lookup. Includes only the
// umbrella header: this file also proves that <tilewave.hpp> compiles on its own.
#include <tilewave.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace tw::dsl;

// A user's globals named like DSL operations: every use below must mean these.
int copy = 3;
double max = 2.5;
const char* map = "map";
int min(int a, int b) {
  return a < b ? a : b;
}

namespace {

int count(const tw::ir::Region& b, tw::ir::Opcode op) {
  int n = 0;
  for (const tw::ir::Op& o : b.ops) {
    n += o.opcode == op;
    for (const tw::ir::Region& inner : o.regions)
      n += count(inner, op);
  }
  return n;
}

} // namespace

TEST_CASE("the user's copy, max and map are not ambiguous with the DSL's under using namespace") {
  CHECK(copy == 3);
  CHECK(max == 2.5);
  CHECK(std::string(map) == "map");
  CHECK(min(4, 2) == 2); // the user's min: an int overload, not the DSL's on handles
  copy = copy + 1;
  CHECK(::copy == 4);
}

TEST_CASE("with a user's copy and max in scope, the DSL's are reached qualified") {
  KernelBuilder kb("ops_qualified", {128, 1, 1});
  auto [G, out] = kb.args(gtensor<f16>(row_major, "g", 16), gptr<f32>("out"));
  constexpr auto plan = lds_plan(lds_buffer<f16>("s", 16, 64));
  auto lds = use_lds<plan>(kb);
  constexpr auto cp = make_tiled_copy<f16>(tw::atoms::global_load_b128{}, thread_layout<16, 8>);
  tw::dsl::ops::copy(cp, local_tile<16, 64>(G.shape(16, 64), 0, 0), lds.tile<"s">());
  const Float32 x = cast<f32>(thread_id());
  const Float32 y = tw::dsl::ops::max(x, 1.0f);
  // `min` names the user's int function here too, but a function does not stop argument-
  // dependent lookup: the DSL's min on handles is found from the Float32 arguments.
  out.store(thread_id(), min(sqrt(y), Float32(8.0f)));
  const tw::ir::Kernel k = kb.finish();
  CHECK(count(k.body, tw::ir::Opcode::max) == 1);
  CHECK(count(k.body, tw::ir::Opcode::min) == 1);
  CHECK(count(k.body, tw::ir::Opcode::sqrt) == 1);
  CHECK(count(k.body, tw::ir::Opcode::lds_ptr) == 1); // the copy's destination
}
