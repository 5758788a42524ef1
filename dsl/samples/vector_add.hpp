#pragma once
// Sample DSL kernel (examples/02_vector_add.cpp, `tilewave emit vector_add`): c = a + b over n
// floats, 256 threads per workgroup, any n. The threads of the last workgroup past n neither
// read nor write (the ragged tail). Launch with ceil(n / 256) workgroups of 256 threads.
// Arguments: a, b, c (f32 pointers), n (i64).
#include <dsl/dsl.hpp>

namespace tw::samples {

inline constexpr int vector_add_block = 256;

inline ir::Kernel build_vector_add() {
  using namespace tw::dsl;
  KernelBuilder kb("vector_add", {vector_add_block, 1, 1});
  auto [a, b, c, n] = kb.args(gptr<f32>("a"), gptr<f32>("b"), gptr<f32>("c"), scalar<i64>("n"));
  const Int64 i = cast<i64>(block_id()) * cast<i64>(block_dim()) + cast<i64>(thread_id());
  if_(i < n, [&] { c.store(i, a.load(i) + b.load(i)); });
  return kb.finish();
}

} // namespace tw::samples
