// The sample kernels' code objects from BOTH backends, run on the gfx12 emulator and compared
// with host references written here (sequential f32 sums, hand-indexed reversals, ...): the
// emitted code computes what the IR says, not merely something that assembles.
#include <emit/compile.hpp>
#include <emit/sample_kernels.hpp>

#include <atoms/formats/f16.hpp>
#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include "shared_emulator.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

using namespace tw;
using namespace tw::emit;

using namespace tw::test;

namespace {

// Deterministic values in [-1, 1).
std::vector<float> values(std::size_t n, std::uint32_t seed) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / 8388608.0f - 1.0f;
  }
  return v;
}

} // namespace

TEST_CASE("run: vector add (width 1 and 4) writes a + b below n and nothing past it") {
  for (int width : {1, 4}) {
    CAPTURE(width);
    const int n = 1001, block = 64, groups = 4; // 256 threads x width elements cover > n
    const std::size_t len = static_cast<std::size_t>(block * groups * width);
    const auto a = values(len, 1), b = values(len, 2);
    for_both_backends(samples::vector_add(block, width), [&](const CodeObject& co) {
      const auto da = upload(a), db = upload(b), dc = upload(std::vector<float>(len, -7.0f));
      run(co, groups, block, runtime::KernelArgs().ptr(da).ptr(db).ptr(dc).add<std::int32_t>(n));
      const auto c = download<float>(dc, len);
      const std::size_t written = static_cast<std::size_t>(n / width * width);
      for (std::size_t i = 0; i < len; ++i) {
        CAPTURE(i);
        CHECK(c[i] == (i < written ? a[i] + b[i] : -7.0f));
      }
    });
  }
}

TEST_CASE("run: loop with a carried sum equals the sequential f32 sum") {
  const int block = 64, groups = 2, len = 7;
  const std::size_t rows = block * groups;
  const auto x = values(rows * len, 3);
  std::vector<float> want(rows, 0.0f);
  for (std::size_t r = 0; r < rows; ++r)
    for (int k = 0; k < len; ++k)
      want[r] += x[r * len + static_cast<std::size_t>(k)];
  for_both_backends(samples::loop_sum(block), [&](const CodeObject& co) {
    const auto dx = upload(x), dout = upload(std::vector<float>(rows, 0.0f));
    run(co, groups, block, runtime::KernelArgs().ptr(dx).ptr(dout).add<std::int32_t>(len));
    CHECK(download<float>(dout, rows) == want);
  });
}

TEST_CASE("run: nested if and if/else with a result") {
  const int block = 256, n = 300;
  const auto x = values(512, 4);
  for_both_backends(samples::if_else(block), [&](const CodeObject& co) {
    const auto dx = upload(x), dout = upload(std::vector<float>(512, 5.0f));
    run(co, 2, block, runtime::KernelArgs().ptr(dx).ptr(dout).add<std::int32_t>(n));
    const auto out = download<float>(dout, 512);
    for (int i = 0; i < 512; ++i) {
      CAPTURE(i);
      const float v = x[static_cast<std::size_t>(i)];
      if (i >= n)
        CHECK(out[static_cast<std::size_t>(i)] == 5.0f);
      else if (v > 0)
        CHECK(out[static_cast<std::size_t>(i)] == std::sqrt(v)); // correctly rounded sqrt
      else
        CHECK(out[static_cast<std::size_t>(i)] == -v * 2.0f);
    }
  });
}

TEST_CASE("run: LDS reversal across a 256-thread workgroup (barrier orders the exchange)") {
  const int block = 256, groups = 3;
  const auto in = values(block * groups, 5);
  for (bool lds_only : {false, true}) {
    CAPTURE(lds_only);
    for_both_backends(samples::lds_reverse(block, lds_only), [&](const CodeObject& co) {
      const auto din = upload(in), dout = upload(std::vector<float>(in.size(), 0.0f));
      run(co, groups, block, runtime::KernelArgs().ptr(din).ptr(dout));
      const auto out = download<float>(dout, in.size());
      for (int g = 0; g < groups; ++g)
        for (int t = 0; t < block; ++t)
          CHECK(out[static_cast<std::size_t>(g * block + t)] ==
                in[static_cast<std::size_t>(g * block + block - 1 - t)]);
    });
  }
}

TEST_CASE("run: bounded buffer loads read zero past n") {
  for (int width : {1, 4}) {
    CAPTURE(width);
    const int block = 64, groups = 2, n = 97;
    const std::size_t len = static_cast<std::size_t>(block * groups * width);
    const auto x = values(len, 6);
    for_both_backends(samples::buffer_copy(block, width), [&](const CodeObject& co) {
      const auto dx = upload(x), dout = upload(std::vector<float>(len, 9.0f));
      run(co, groups, block, runtime::KernelArgs().ptr(dx).ptr(dout).add<std::int32_t>(n));
      const auto out = download<float>(dout, len);
      for (std::size_t i = 0; i < len; ++i) {
        CAPTURE(i);
        CHECK(out[i] == (i < static_cast<std::size_t>(n) ? x[i] : 0.0f));
      }
    });
  }
}

TEST_CASE("run: DPP + permlanex16 wave sums and ds_bpermute lane reversal") {
  const int block = 64, groups = 2, waves = block / 32 * groups;
  const auto x = values(static_cast<std::size_t>(block * groups), 7);
  for_both_backends(samples::lane_reduce(block), [&](const CodeObject& co) {
    const auto dx = upload(x), dsum = upload(std::vector<float>(static_cast<std::size_t>(waves)));
    const auto drev = upload(std::vector<float>(x.size()));
    run(co, groups, block, runtime::KernelArgs().ptr(dx).ptr(dsum).ptr(drev));
    const auto sums = download<float>(dsum, static_cast<std::size_t>(waves));
    const auto rev = download<float>(drev, x.size());
    for (int w = 0; w < waves; ++w) {
      double want = 0;
      for (int l = 0; l < 32; ++l)
        want += x[static_cast<std::size_t>(w * 32 + l)];
      CHECK(std::fabs(sums[static_cast<std::size_t>(w)] - want) <= 1e-5);
      for (int l = 0; l < 32; ++l)
        CHECK(rev[static_cast<std::size_t>(w * 32 + l)] ==
              x[static_cast<std::size_t>(w * 32 + 31 - l)]);
    }
  });
}

TEST_CASE("run: WMMA tile and WMMA K loop against a host matrix product") {
  const int K = 48;
  // A: 16 x K row-major, B: K x 16 column-major (both f16), C: 16 x 16 row-major f32.
  const auto av = values(16 * K, 8), bv = values(16 * K, 9);
  std::vector<std::uint16_t> a16(av.size()), b16(bv.size());
  std::vector<float> ar(av.size()), br(bv.size()); // the f16-rounded values
  for (std::size_t i = 0; i < av.size(); ++i) {
    a16[i] = num::f32_to_f16(av[i]);
    b16[i] = num::f32_to_f16(bv[i]);
    ar[i] = num::f16_to_f32(a16[i]);
    br[i] = num::f16_to_f32(b16[i]);
  }
  // C[i][j] = sum_k A[i][k] * B[k][j] over the first k_len values of rows / columns of
  // leading dimension K, in f64 on the f16-rounded inputs.
  auto product = [&](int k_len) {
    std::vector<double> c(256, 0.0);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j)
        for (int k = 0; k < k_len; ++k)
          c[static_cast<std::size_t>(i * 16 + j)] +=
              double(ar[static_cast<std::size_t>(i * K + k)]) *
              double(br[static_cast<std::size_t>(j * K + k)]);
    return c;
  };
  auto check_close = [](const std::vector<float>& got, const std::vector<double>& want) {
    for (std::size_t i = 0; i < want.size(); ++i) {
      CAPTURE(i);
      CHECK(std::fabs(got[i] - want[i]) <= 1e-4);
    }
  };
  // The single tile kernel reads 16 x 16 operands with leading dimension 16: the first 16 k
  // of each row of A and each column of B.
  std::vector<std::uint16_t> a_tile(256), b_tile(256);
  for (int r = 0; r < 16; ++r)
    for (int k = 0; k < 16; ++k) {
      a_tile[static_cast<std::size_t>(r * 16 + k)] = a16[static_cast<std::size_t>(r * K + k)];
      b_tile[static_cast<std::size_t>(r * 16 + k)] = b16[static_cast<std::size_t>(r * K + k)];
    }
  const auto tile_want = product(16);
  const auto loop_want = product(K);

  for_both_backends(samples::wmma_tile(), [&](const CodeObject& co) {
    const auto da = upload(a_tile), db = upload(b_tile), dc = upload(std::vector<float>(256));
    run(co, 1, 32, runtime::KernelArgs().ptr(da).ptr(db).ptr(dc));
    check_close(download<float>(dc, 256), tile_want);
  });
  for_both_backends(samples::wmma_loop(), [&](const CodeObject& co) {
    const auto da = upload(a16), db = upload(b16), dc = upload(std::vector<float>(256));
    run(co, 1, 32, runtime::KernelArgs().ptr(da).ptr(db).ptr(dc).add<std::int32_t>(K));
    check_close(download<float>(dc, 256), loop_want);
  });
}
