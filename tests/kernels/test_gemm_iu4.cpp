// iu4_gemm (16x16x32 iu4 WMMA, packed int4 / uint4 operands, i32 out) through the host API on
// the emulator with memcheck on, through both emitters, compared exactly with the oracle:
// signed, unsigned and mixed operands, ragged shapes, odd K (the high nibble of each row's
// last byte is filled with garbage: the kernel must not count it), K = 0.
#include "gemm_cases.hpp"

using namespace tw;
using namespace tw::oracle;
using kernels::DType;

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
