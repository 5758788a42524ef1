// c = a + b over n floats, 256 threads per workgroup, any n: the threads of the last workgroup
// past n neither read nor write (the ragged tail). Builds the kernel with the DSL, prints its
// IR, compiles it with both backends and runs both code objects on the default device.
// The kernel is tw::samples::build_vector_add (dsl/samples/vector_add.hpp), also `tilewave emit
// vector_add`.
#include <dsl/samples/vector_add.hpp>
#include <tilewave.hpp>

#include "example_support.hpp"

using tw::samples::build_vector_add;

int main() {
  return tw::examples::guarded([] {
    namespace ex = tw::examples;
    const tw::ir::Kernel kernel = build_vector_add();
    const auto code_objects = ex::compile_both(kernel, /*print_ir=*/true);
    const std::int64_t n = 1000;  // 3 full workgroups and a ragged one of 232 threads
    const std::size_t guard = 16; // elements past n that must stay untouched
    const std::vector<float> a = ex::random_values(n, 1), b = ex::random_values(n, 2);
    int failures = 0;
    for (const auto& co : code_objects) {
      std::vector<float> c(n + guard, 7.0f);
      const auto da = ex::upload(a), db = ex::upload(b), dc = ex::upload(c);
      tw::runtime::KernelArgs args;
      args.ptr(da).ptr(db).ptr(dc).add<std::int64_t>(n);
      ex::launch(co, {static_cast<std::uint32_t>((n + 255) / 256)}, {256}, args);
      c = ex::download<float>(dc, n + guard);
      double err = 0;
      for (std::int64_t i = 0; i < n; ++i)
        err = std::max(err, std::abs(double(c[i]) - double(a[i] + b[i])));
      bool tail_untouched = true;
      for (std::size_t i = n; i < n + guard; ++i)
        tail_untouched = tail_untouched && c[i] == 7.0f;
      std::printf("%s: elements past n untouched: %s\n",
                  std::string(tw::emit::backend_name(co.backend)).c_str(),
                  tail_untouched ? "yes" : "NO");
      failures += !tail_untouched;
      failures +=
          ex::check(std::string(tw::emit::backend_name(co.backend)) + " vector_add", err, 0.0);
      for (auto p : {da, db, dc})
        ex::device().free(p);
    }
    return failures == 0 ? 0 : 1;
  });
}
