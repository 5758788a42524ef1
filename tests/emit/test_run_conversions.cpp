// Numeric conversions of the DSL on the gfx12 emulator through both backends:
// round_half_even (dsl/handles/convert.hpp) against the host's nearbyint (halves, signed
// zeros, the 2^22 .. 2^23 range where a 1.5 * 2^23 trick fails, large values, inf, NaN), and
// fp8 constants (the zero code of masked fp8 loads, codes of other exact values).
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

TEST_CASE("fp8 constants: masked fp8 loads read the zero code past the end, both backends") {
  // dst[i] = i < n ? src[i] : e4m3(-2) for 64 lanes, and e5m2 codes the same way.
  KernelBuilder kb("fp8_masked_copy", {64, 1, 1});
  auto [src, dst, src5, dst5, count] =
      kb.args(gptr<e4m3>("src"), gptr<e4m3>("dst"), gptr<e5m2>("src5"), gptr<e5m2>("dst5"),
              scalar<i64>("n"));
  const Int64 i = cast<i64>(thread_id());
  const Bool in = i < count;
  dst.store(i, select(in, src.load(i, in), Scalar<e4m3>(-2.0)));
  dst5.store(i, select(in, src5.load(i, in), Scalar<e5m2>(0.15625)));
  const ir::Kernel k = kb.finish();
  std::unique_ptr<runtime::Device> dev = runtime::make_device(runtime::DeviceKind::Emu);
  std::vector<uint8_t> codes(64);
  for (int j = 0; j < 64; ++j)
    codes[size_t(j)] = uint8_t(3 * j + 1);
  const int64_t n = 37;
  for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
    CAPTURE(emit::backend_name(b));
    // src holds only n codes: memcheck fails the launch if a masked lane reads past them.
    const runtime::DevicePtr s4 = dev->allocate(n), s5 = dev->allocate(n), d4 = dev->allocate(64),
                             d5 = dev->allocate(64);
    dev->copy_to_device(s4, codes.data(), n);
    dev->copy_to_device(s5, codes.data(), n);
    emit::CompileOptions o;
    o.use_cache = false;
    const emit::CodeObject co = emit::compile(k, b, Arch::gfx1201, o);
    const runtime::ModuleHandle m = dev->load_code_object(co.elf);
    const runtime::KernelArgs args =
        runtime::KernelArgs().ptr(s4).ptr(d4).ptr(s5).ptr(d5).add<int64_t>(n);
    dev->launch(dev->get_kernel(m, co.kernel_name), {1, 1, 1}, {64, 1, 1}, args.span());
    dev->synchronize();
    std::vector<uint8_t> out4(64), out5(64);
    dev->copy_to_host(out4.data(), d4, 64);
    dev->copy_to_host(out5.data(), d5, 64);
    for (int j = 0; j < 64; ++j) {
      CAPTURE(j);
      // e4m3 -2 = S.1000.000 = 0xC0; e5m2 0.15625 = 5 * 2^-5 = 1.25 * 2^-3: 0.01100.01 = 0x31.
      CHECK(out4[size_t(j)] == (j < n ? codes[size_t(j)] : 0xC0));
      CHECK(out5[size_t(j)] == (j < n ? codes[size_t(j)] : 0x31));
    }
    for (runtime::DevicePtr p : {s4, s5, d4, d5})
      dev->free(p);
  }
}
