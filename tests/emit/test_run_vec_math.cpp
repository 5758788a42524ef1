// Element-wise Vec math on f16 and bf16 (dsl/handles/vec.hpp, the vec_math sample) on the gfx12
// emulator through both backends, against host references with the IR's rounding:
//  f16: each op on the exact (double) value, rounded once RNE to f16 (the inputs are normal
//       numbers of modest range, so a * b + c is exact in double and fma rounds once);
//  bf16: widen to f32, the f32 op with f32 rounding, then RNE to bf16 (the IR's definition);
//  exp2 / rcp: the emulator rounds the exact value (the hardware is within about 1 ulp), so
//       f16 is exp2 / rcp of the f16 input rounded to f16, bf16 is the f32 result rounded again.
// Also checks the instructions: f16 uses the packed forms and v_exp_f16 / v_rcp_f16.
#include "dsl_emu_run.hpp"

#include <atoms/formats/bf16.hpp>
#include <atoms/formats/f16.hpp>
#include <dsl/samples/vec_math.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace tw;

namespace {

constexpr int kGroups = 2;
constexpr std::int64_t kN = kGroups * samples::vec_math_block * samples::vec_math_width;
constexpr const char* kOpNames[samples::vec_math_results] = {"add", "sub", "mul",  "fma",
                                                             "max", "min", "exp2", "rcp"};

// Deterministic normal values with |x| in [1/64, 8) and both signs.
std::vector<float> inputs(std::uint32_t seed, bool positive) {
  std::vector<float> v(kN);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    const double mag = std::ldexp(1.0 + (seed >> 20) / 4096.0, static_cast<int>(seed >> 8) % 9 - 6);
    x = static_cast<float>((positive || (seed & 1)) ? mag : -mag);
  }
  return v;
}

double f16_ref(int op, double a, double b, double c) {
  switch (op) {
  case 0:
    return a + b;
  case 1:
    return a - b;
  case 2:
    return a * b;
  case 3:
    return a * b + c; // exact in double for these inputs: one rounding below
  case 4:
    return std::fmax(a, b);
  case 5:
    return std::fmin(a, b);
  case 6:
    return std::exp2(a);
  default:
    return 1.0 / a;
  }
}

float bf16_ref_f32(int op, float a, float b, float c) {
  switch (op) {
  case 0:
    return a + b;
  case 1:
    return a - b;
  case 2:
    return a * b;
  case 3:
    return std::fmaf(a, b, c);
  case 4:
    return std::fmax(a, b);
  case 5:
    return std::fmin(a, b);
  case 6:
    return static_cast<float>(std::exp2(static_cast<double>(a))); // f32 exp2, rounded once
  default:
    return static_cast<float>(1.0 / static_cast<double>(a));
  }
}

template <class T>
void run_case(bool is_f16) {
  const ir::Kernel k = samples::build_vec_math<T>();
  // rcp and exp2 read a: keep it positive-or-negative but away from 0 (inputs never are 0).
  const std::vector<float> fa = inputs(1, false), fb = inputs(2, false), fc = inputs(3, false);
  auto encode = [&](const std::vector<float>& f) {
    std::vector<std::uint16_t> bits;
    for (float x : f)
      bits.push_back(is_f16 ? num::f32_to_f16(x) : num::f32_to_bf16(x));
    return bits;
  };
  auto decode = [&](std::uint16_t bits) {
    return is_f16 ? num::f16_to_f32(bits) : num::bf16_to_f32(bits);
  };
  const std::vector<std::uint16_t> a = encode(fa), b = encode(fb), c = encode(fc);
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    if (is_f16) {
      INFO("assembly:\n" << run.art.assembly);
      for (const char* m : {"v_pk_add_f16", "v_pk_mul_f16", "v_pk_fma_f16", "v_pk_max_num_f16",
                            "v_pk_min_num_f16", "v_exp_f16", "v_rcp_f16"})
        CHECK_MESSAGE(run.uses(m), m);
    }
    const runtime::DevicePtr da = run.upload(a), db = run.upload(b), dc = run.upload(c),
                             dout = run.alloc<std::uint16_t>(samples::vec_math_results * kN);
    run.launch({kGroups, 1, 1}, {samples::vec_math_block, 1, 1},
               runtime::KernelArgs().ptr(da).ptr(db).ptr(dc).ptr(dout).add<std::int64_t>(kN));
    const std::vector<std::uint16_t> out =
        run.download<std::uint16_t>(dout, samples::vec_math_results * kN);
    for (int op = 0; op < samples::vec_math_results; ++op) {
      CAPTURE(kOpNames[op]);
      int bad = 0;
      for (std::int64_t i = 0; i < kN; ++i) {
        const float x = decode(a[i]), y = decode(b[i]), z = decode(c[i]);
        const std::uint16_t want = is_f16 ? num::f64_to_f16(f16_ref(op, x, y, z))
                                          : num::f32_to_bf16(bf16_ref_f32(op, x, y, z));
        const std::uint16_t got = out[op * kN + i];
        if (got != want && ++bad <= 4) {
          CAPTURE(i);
          CAPTURE(x);
          CAPTURE(y);
          CAPTURE(z);
          CHECK(got == want);
        }
      }
      CHECK(bad == 0);
    }
  }
}

} // namespace

TEST_CASE("Vec<f16, 8> add, sub, mul, fma, max, min, exp2, rcp: packed forms, both backends") {
  run_case<dsl::f16>(true);
}

TEST_CASE("Vec<bf16, 8> add, sub, mul, fma, max, min, exp2, rcp through f32, both backends") {
  run_case<dsl::bf16>(false);
}
