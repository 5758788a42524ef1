// round_half_even (dsl/handles/convert.hpp) on the gfx12 emulator through both backends,
// against the host's nearbyint (round to nearest even): halves, signed zeros, the 2^22 .. 2^23
// range where a 1.5 * 2^23 trick would fail, large values, inf and NaN.
#include <dsl/dsl.hpp>
#include <dsl/handles/convert.hpp>
#include <emit/compile.hpp>
#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

using namespace tw;
using namespace tw::dsl;

TEST_CASE("round_half_even rounds every f32 to the nearest integer, ties to even") {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> in = {0.5f,       1.5f,        2.5f,       -0.5f,         -1.5f,
                           -2.5f,      0.4999999f,  -0.4f,      -0.0f,         0.0f,
                           126.5f,     127.5f,      -128.5f,    4194304.5f,    4194305.5f,
                           8388607.5f, -8388607.5f, 8388608.0f, 8388609.0f,    1e30f,
                           -1e30f,     inf,         -inf,       std::nanf(""), 3.0e-39f};
  while (in.size() % 64)
    in.push_back(static_cast<float>(in.size()) * 0.25f - 7.0f);
  KernelBuilder kb("round_half_even_test", {64, 1, 1});
  auto [src, dst] = kb.args(gptr<f32>("src"), gptr<f32>("dst"));
  const Int64 i = cast<i64>(block_id(ir::Dim::x)) * Int64(64) + cast<i64>(thread_id());
  dst.store(i, round_half_even(src.load(i)));
  const ir::Kernel k = kb.finish();

  std::unique_ptr<runtime::Device> dev = runtime::make_device(runtime::DeviceKind::Emu);
  const size_t bytes = in.size() * sizeof(float);
  for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
    CAPTURE(emit::backend_name(b));
    const runtime::DevicePtr ds = dev->allocate(bytes), dd = dev->allocate(bytes);
    dev->copy_to_device(ds, in.data(), bytes);
    emit::CompileOptions o;
    o.use_cache = false;
    const emit::CodeObject co = emit::compile(k, b, Arch::gfx1201, o);
    const runtime::ModuleHandle m = dev->load_code_object(co.elf);
    const runtime::KernelArgs args = runtime::KernelArgs().ptr(ds).ptr(dd);
    dev->launch(dev->get_kernel(m, co.kernel_name), {uint32_t(in.size() / 64), 1, 1}, {64, 1, 1},
                args.span());
    dev->synchronize();
    std::vector<float> out(in.size());
    dev->copy_to_host(out.data(), dd, bytes);
    REQUIRE(std::fegetround() == FE_TONEAREST);
    for (size_t j = 0; j < in.size(); ++j) {
      CAPTURE(in[j]);
      const float want = std::nearbyint(in[j]);
      if (std::isnan(want))
        CHECK(std::isnan(out[j]));
      else
        CHECK(std::bit_cast<uint32_t>(out[j]) == std::bit_cast<uint32_t>(want)); // sign of 0 too
    }
    dev->free(ds);
    dev->free(dd);
  }
}
