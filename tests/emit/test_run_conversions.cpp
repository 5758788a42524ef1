// Numeric conversions of the DSL on the gfx12 emulator through both backends:
// round_half_even (dsl/handles/convert.hpp) against the host's nearbyint (halves, signed
// zeros, the 2^22 .. 2^23 range where a 1.5 * 2^23 trick fails, large values, inf, NaN),
// fp8 constants (the zero code of masked fp8 loads, codes of other exact values),
// convert_stochastic (hand-computed codes for given random bits), and to_bf16_rne_nan_unchecked
// against a host rounding that picks the nearer of the two bf16 neighbours (ties, subnormals,
// overflow to inf, signed zeros), and to_bf16_rne_quiet_nan against the same rounding, with
// every NaN (payloads whose rounding carry reaches the exponent or sign) giving 0x7fc0.
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

namespace {
// The bf16 magnitude grid as doubles: bits h (sign cleared) -> value, with h = 0x7f80 read as
// 2^128 (the step past the largest finite bf16, where nearest-even overflows to inf).
double bf16_grid(std::uint32_t h) {
  const int e = int(h >> 7), m = int(h & 0x7f);
  return e == 0 ? std::ldexp(double(m), -133) : std::ldexp(1.0 + m / 128.0, e - 127);
}
// Nearest-even bf16 of a non-NaN f32 by comparing the distances to its two neighbours.
std::uint16_t bf16_nearest_even(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t sign = u & 0x80000000u, mag = u & 0x7fffffffu;
  if (mag >= 0x7f800000u) // inf
    return static_cast<std::uint16_t>(u >> 16);
  const std::uint32_t lo = mag >> 16, hi = lo + 1;
  const double a = std::fabs(double(x)), dlo = a - bf16_grid(lo), dhi = bf16_grid(hi) - a;
  const std::uint32_t pick = dlo < dhi ? lo : dhi < dlo ? hi : (lo % 2 == 0 ? lo : hi);
  return static_cast<std::uint16_t>((sign >> 16) | pick);
}

// dst[i] = convert(src[i]) over `in` (a multiple of 64 values), compiled through `backend` and
// run on the emulator: the bf16 bits each lane wrote.
template <class Convert>
std::vector<std::uint16_t> run_bf16_conversion(const char* name, Convert convert,
                                               const std::vector<float>& in,
                                               emit::Backend backend) {
  KernelBuilder kb(name, {64, 1, 1});
  auto [src, dst] = kb.args(gptr<f32>("src"), gptr<bf16>("dst"));
  const Int64 i = cast<i64>(block_id(ir::Dim::x)) * Int64(64) + cast<i64>(thread_id());
  dst.store(i, convert(src.load(i)));
  const ir::Kernel k = kb.finish();
  std::unique_ptr<runtime::Device> dev = runtime::make_device(runtime::DeviceKind::Emu);
  const runtime::DevicePtr ds = dev->allocate(in.size() * 4), dd = dev->allocate(in.size() * 2);
  dev->copy_to_device(ds, in.data(), in.size() * 4);
  emit::CompileOptions o;
  o.use_cache = false;
  const emit::CodeObject co = emit::compile(k, backend, Arch::gfx1201, o);
  const runtime::ModuleHandle m = dev->load_code_object(co.elf);
  const runtime::KernelArgs args = runtime::KernelArgs().ptr(ds).ptr(dd);
  dev->launch(dev->get_kernel(m, co.kernel_name), {uint32_t(in.size() / 64), 1, 1}, {64, 1, 1},
              args.span());
  dev->synchronize();
  std::vector<std::uint16_t> out(in.size());
  dev->copy_to_host(out.data(), dd, in.size() * 2);
  dev->free(ds);
  dev->free(dd);
  return out;
}
} // namespace

TEST_CASE("to_bf16_rne_nan_unchecked rounds every non-NaN f32 to the nearest bf16, ties to even") {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> in;
  for (std::uint32_t u :
       {0x3f808000u, 0x3f818000u, 0x3f808001u, 0x3f807fffu, 0x3f80ffffu, 0x7f7f7fffu, 0x7f7f8000u,
        0x7f7fffffu, 0x7f7effffu, 0x00008000u, 0x00018000u, 0x00000001u, 0x007fffffu, 0x00800000u,
        0x80008000u, 0xbf818000u, 0xff7f8000u, 0x80000000u, 0x00000000u, 0x4b7fffffu})
    in.push_back(std::bit_cast<float>(u));
  for (float f : {inf, -inf, 1.0f, -1.0f, 0.1f, 3.14159265f, 1e-40f, -2.5e-39f, 65504.0f})
    in.push_back(f);
  std::uint32_t seed = 12345;
  while (in.size() % 64 || in.size() < 256) { // random bit patterns that are not NaN
    seed = seed * 1664525u + 1013904223u;
    if ((seed & 0x7fffffffu) <= 0x7f800000u)
      in.push_back(std::bit_cast<float>(seed));
  }
  for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
    CAPTURE(emit::backend_name(b));
    const std::vector<std::uint16_t> out = run_bf16_conversion(
        "to_bf16_rne_nan_unchecked_test",
        [](const Scalar<f32>& x) { return to_bf16_rne_nan_unchecked(x); }, in, b);
    for (size_t j = 0; j < in.size(); ++j) {
      CAPTURE(std::bit_cast<std::uint32_t>(in[j]));
      CHECK(out[j] == bf16_nearest_even(in[j]));
    }
  }
}

TEST_CASE("to_bf16_rne_quiet_nan rounds like to_bf16_rne_nan_unchecked and turns every NaN into "
          "0x7fc0") {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> in;
  // NaNs whose rounding carry would reach the exponent or the sign (low payloads give inf,
  // all-ones payloads wrap to -0), quiet and signalling, both signs
  for (std::uint32_t u : {0x7f800001u, 0x7f807fffu, 0x7f808000u, 0x7fbfffffu, 0x7fc00000u,
                          0x7fffffffu, 0x7fff8000u, 0xff800001u, 0xffffffffu, 0xffc00000u})
    in.push_back(std::bit_cast<float>(u));
  for (std::uint32_t u : {0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x7f7fffffu, 0x7f7f8000u,
                          0x00008000u, 0x00018000u, 0x80008000u, 0x80000000u, 0x00000000u})
    in.push_back(std::bit_cast<float>(u));
  for (float f : {inf, -inf, 1.0f, -1.0f, 0.1f, 3.14159265f, 1e-40f, 65504.0f})
    in.push_back(f);
  std::uint32_t seed = 777;
  while (in.size() % 64 || in.size() < 256) { // random bit patterns, NaNs included
    seed = seed * 1664525u + 1013904223u;
    in.push_back(std::bit_cast<float>(seed));
  }
  for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
    CAPTURE(emit::backend_name(b));
    const std::vector<std::uint16_t> out = run_bf16_conversion(
        "to_bf16_rne_quiet_nan_test", [](const Scalar<f32>& x) { return to_bf16_rne_quiet_nan(x); },
        in, b);
    int nans = 0;
    for (size_t j = 0; j < in.size(); ++j) {
      CAPTURE(std::bit_cast<std::uint32_t>(in[j]));
      if (std::isnan(in[j])) {
        ++nans;
        CHECK(out[j] == 0x7fc0);
      } else {
        CHECK(out[j] == bf16_nearest_even(in[j]));
      }
    }
    CHECK(nans >= 10);
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

TEST_CASE("convert_stochastic: the random bits under the discarded bits decide, both backends") {
  // dst4[i] = e4m3(src[i], bits[i]), dst5[i] = e5m2(src[i], bits[i]), saturating.
  KernelBuilder kb("convert_stochastic_test", {32, 1, 1});
  auto [src, bits, dst4, dst5] =
      kb.args(gptr<f32>("src"), gptr<u32>("bits"), gptr<e4m3>("dst4"), gptr<e5m2>("dst5"));
  const Int64 i = cast<i64>(thread_id());
  dst4.store(i, convert_stochastic<e4m3>(src.load(i), bits.load(i), true));
  dst5.store(i, convert_stochastic<e5m2>(src.load(i), bits.load(i), true));
  const ir::Kernel k = kb.finish();
  // 1.0625 = 1 + 2^-4: e4m3's ulp at 1 is 2^-3 and the f32 ulp 2^-23, so 20 bits are discarded,
  // holding 2^19 (half an ulp): up iff bits mod 2^20 >= 2^19. e5m2 (ulp 2^-2): 21 bits holding
  // 2^19, up iff bits mod 2^21 >= 2^21 - 2^19 = 0x180000. 460: e4m3 between 448 and 480 (past
  // the largest finite value: saturates to 448); e5m2 between 448 (0x5F) and 512 (0x60).
  struct Case {
    float x;
    uint32_t bits;
    uint8_t e4m3_code, e5m2_code;
  };
  const std::vector<Case> cases = {
      {1.0625f, 0x00000000u, 0x38, 0x3C},  {1.0625f, 0x0007FFFFu, 0x38, 0x3C},
      {1.0625f, 0x00080000u, 0x39, 0x3C},  {1.0625f, 0xFFF00000u, 0x38, 0x3C},
      {1.0625f, 0x0017FFFFu, 0x38, 0x3C},  {1.0625f, 0x00180000u, 0x39, 0x3D},
      {-1.0625f, 0x00080000u, 0xB9, 0xBC}, {1.0f, 0xFFFFFFFFu, 0x38, 0x3C}, // exact: never moves
      {460.0f, 0x00000000u, 0x7E, 0x5F},   {460.0f, 0xFFFFFFFFu, 0x7E, 0x60},
      {-0.0f, 0xFFFFFFFFu, 0x80, 0x80},
  };
  const size_t n = cases.size();
  std::vector<float> x(32, 0.0f);
  std::vector<uint32_t> r(32, 0u);
  for (size_t j = 0; j < n; ++j) {
    x[j] = cases[j].x;
    r[j] = cases[j].bits;
  }
  std::unique_ptr<runtime::Device> dev = runtime::make_device(runtime::DeviceKind::Emu);
  for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
    CAPTURE(emit::backend_name(b));
    const runtime::DevicePtr ds = dev->allocate(128), dr = dev->allocate(128),
                             d4 = dev->allocate(32), d5 = dev->allocate(32);
    dev->copy_to_device(ds, x.data(), 128);
    dev->copy_to_device(dr, r.data(), 128);
    emit::CompileOptions o;
    o.use_cache = false;
    const emit::CodeObject co = emit::compile(k, b, Arch::gfx1201, o);
    const runtime::ModuleHandle m = dev->load_code_object(co.elf);
    const runtime::KernelArgs args = runtime::KernelArgs().ptr(ds).ptr(dr).ptr(d4).ptr(d5);
    dev->launch(dev->get_kernel(m, co.kernel_name), {1, 1, 1}, {32, 1, 1}, args.span());
    dev->synchronize();
    std::vector<uint8_t> out4(32), out5(32);
    dev->copy_to_host(out4.data(), d4, 32);
    dev->copy_to_host(out5.data(), d5, 32);
    for (size_t j = 0; j < n; ++j) {
      CAPTURE(cases[j].x);
      CAPTURE(cases[j].bits);
      CHECK(int(out4[j]) == int(cases[j].e4m3_code));
      CHECK(int(out5[j]) == int(cases[j].e5m2_code));
    }
    for (runtime::DevicePtr p : {ds, dr, d4, d5})
      dev->free(p);
  }
}
