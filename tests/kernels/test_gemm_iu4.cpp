// iu4_gemm (16x16x32 iu4 WMMA, packed int4 / uint4 operands, i32 out) through the host API on
// the emulator with memcheck on, through both emitters, compared exactly with the oracle:
// signed, unsigned and mixed operands, ragged shapes, odd K (the high nibble of each row's
// last byte is filled with garbage: the kernel must not count it), K = 0.
#include "gemm_harness.hpp"

#include <kernels/gemm/gemm_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;

namespace {

struct Iu4Case {
  int64_t m, n, k;
  DType a = DType::int4, b = DType::int4;
  int64_t ld_pad = 0; // extra nibbles (even) of leading stride beyond K rounded up to even
};

// A K-contiguous packed operand: `rows` runs of k nibbles, leading stride even. Every nibble
// of the stride that lies past K (the odd-K high nibble, the padding) is set to 0xA / 0xB so
// that a kernel which reads it gets a wrong sum.
HostTensor packed_operand(DType t, int64_t rows, int64_t k, int64_t ld, bool row_major,
                          uint64_t seed) {
  const kernels::Extents shape = row_major ? kernels::Extents{rows, k} : kernels::Extents{k, rows};
  const kernels::Extents strides = row_major ? kernels::Extents{ld, 1} : kernels::Extents{1, ld};
  HostTensor h = random_tensor(t, shape, seed, std::nullopt, strides);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t kk = k; kk < ld && r * ld + kk < int64_t(h.bytes().size()) * 2; ++kk) {
      uint8_t& byte = h.bytes()[size_t((r * ld + kk) / 2)];
      byte = (kk % 2) ? uint8_t((byte & 0x0F) | 0xB0) : uint8_t((byte & 0xF0) | 0x0A);
    }
  return h;
}

void run_iu4(const Iu4Case& c, uint64_t seed) {
  CAPTURE(c.m);
  CAPTURE(c.n);
  CAPTURE(c.k);
  CAPTURE(kernels::dtype_name(c.a));
  CAPTURE(kernels::dtype_name(c.b));
  const int64_t ld = std::max<int64_t>(2, (c.k + 1) / 2 * 2 + c.ld_pad); // even, >= 1
  const HostTensor a = packed_operand(c.a, c.m, c.k, ld, true, seed);
  const HostTensor b = packed_operand(c.b, c.n, c.k, ld, false, seed + 1);
  const HostTensor host_out(DType::i32, {c.m, c.n});
  const Reference want = iu4_gemm(kernels::Iu4GemmArgs{a.view(), b.view(), host_out.view()});
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& dev = emu_device();
    DeviceTensors d(dev);
    HostTensor out(DType::i32, {c.m, c.n});
    // Garbage in the output: every element must be written.
    for (uint8_t& byte : out.bytes())
      byte = 0x5C;
    kernels::Iu4GemmArgs args{d.upload(a), d.upload(b), d.upload(out)};
    kernels::iu4_gemm(dev, args);
    const Matrix got = DeviceTensors::download(dev, args.out, out);
    int64_t mismatches = 0;
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j)
        if (got.at(i, j) != want.value.at(i, j)) {
          if (mismatches++ < 5)
            INFO("out[" << i << ", " << j << "] = " << got.at(i, j) << ", expected "
                        << want.value.at(i, j));
        }
    CHECK(mismatches == 0);
  });
}

} // namespace

TEST_CASE("iu4_gemm: signed int4, exact, ragged shapes and odd K") {
  run_iu4({129, 41, 96}, 31);
  run_iu4({17, 7, 33}, 32);
  run_iu4({1, 129, 13, DType::int4, DType::int4, 2}, 33);
  run_iu4({41, 17, 7}, 34);
  run_iu4({7, 1, 300}, 35);
}

TEST_CASE("iu4_gemm: unsigned and mixed signedness") {
  run_iu4({96, 41, 129, DType::uint4, DType::uint4}, 41);
  run_iu4({7, 17, 13, DType::uint4, DType::uint4, 4}, 42);
  run_iu4({41, 7, 33, DType::int4, DType::uint4}, 43);
  run_iu4({17, 41, 17, DType::uint4, DType::int4}, 44);
}

TEST_CASE("iu4_gemm: K = 0 gives zeros and a full 128 x 128 tile with 16-byte aligned rows") {
  run_iu4({17, 7, 0}, 51);
  run_iu4({128, 128, 256}, 52);
  run_iu4({1, 1, 1, DType::uint4, DType::uint4}, 53);
}
