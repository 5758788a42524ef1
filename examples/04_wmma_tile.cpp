// One wave computes D = A * B for a single 16x16x16 tile with v_wmma_f32_16x16x16_f16:
// A is 16 x 16 f16 row-major, B is 16 x 16 f16 column-major (each column's k values adjacent),
// D is 16 x 16 f32 row-major. Which element each lane loads and stores comes from the atom's
// lane maps (tw::atoms::wmma_f32_16x16x16_f16); the kernel never computes a lane index.
// The kernel is tw::samples::build_wmma_tile (dsl/samples/wmma_tile.hpp), also `tilewave emit
// wmma_tile`.
#include <dsl/samples/wmma_tile.hpp>
#include <tilewave.hpp>

#include "example_support.hpp"

using tw::samples::build_wmma_tile;

int main() {
  return tw::examples::guarded([] {
    namespace ex = tw::examples;
    const tw::ir::Kernel kernel = build_wmma_tile();
    const auto code_objects = ex::compile_both(kernel, /*print_ir=*/true);
    // f16 inputs (rounded on the host); the reference multiplies the same rounded values.
    std::vector<std::uint16_t> a(256), b(256);
    const auto ra = ex::random_values(256, 4), rb = ex::random_values(256, 5);
    for (int i = 0; i < 256; ++i) {
      a[i] = tw::num::f32_to_f16(ra[i]); // a[m * 16 + k]
      b[i] = tw::num::f32_to_f16(rb[i]); // b[n * 16 + k] (column-major K x N)
    }
    int failures = 0;
    for (const auto& co : code_objects) {
      const auto da = ex::upload(a), db = ex::upload(b);
      const auto dd = ex::upload(std::vector<float>(256, 0.0f));
      tw::runtime::KernelArgs args;
      args.ptr(da).ptr(db).ptr(dd);
      ex::launch(co, {1}, {32}, args);
      const auto d = ex::download<float>(dd, 256);
      double err = 0;
      for (int m = 0; m < 16; ++m)
        for (int n = 0; n < 16; ++n) {
          double ref = 0;
          for (int k = 0; k < 16; ++k)
            ref += double(tw::num::f16_to_f32(a[m * 16 + k])) * tw::num::f16_to_f32(b[n * 16 + k]);
          err = std::max(err, std::abs(d[m * 16 + n] - ref));
        }
      failures +=
          ex::check(std::string(tw::emit::backend_name(co.backend)) + " 16x16x16 WMMA", err, 1e-5);
      for (auto p : {da, db, dd})
        ex::device().free(p);
    }
    return failures == 0 ? 0 : 1;
  });
}
