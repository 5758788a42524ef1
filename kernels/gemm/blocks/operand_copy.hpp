#pragma once
// The global-memory copy of a GEMM operand tile (rows x cols elements of E, a K tile wide or a
// block tile wide) by all `threads` threads of the workgroup: the widest access of 128, 64 or
// 32 bits with which the threads cover the tile in whole passes. 128 bits for every operand of
// the square and small-M tiles; 64 bits where a 128-bit layout has more thread rows than the
// tile has rows (W8A16's int8 weights, 32 bytes a K tile, in the 32-column skinny-N tile:
// 2 threads a row would need 64 rows).
#include <dsl/dsl.hpp>

namespace tw::kernels::gemm_kernel {

constexpr int operand_copy_bits(int threads, int rows, int cols, int elem_bits) {
  for (int width : {128, 64, 32}) {
    if (width % elem_bits != 0 || (cols * elem_bits) % width != 0)
      continue;
    const int per_row = cols * elem_bits / width;
    if (threads % per_row == 0 && rows % (threads / per_row) == 0)
      return width;
  }
  return 0;
}

template <class E, int threads, int rows, int cols>
constexpr auto operand_copy() {
  constexpr int width = operand_copy_bits(threads, rows, cols, E::bits);
  static_assert(width != 0, "operand_copy: no access of 128, 64 or 32 bits lets the workgroup's "
                            "threads cover the operand tile in whole passes");
  constexpr int per_row = cols * E::bits / width;
  return dsl::make_tiled_copy<E>(
      atoms::CopyAtom<atoms::CopyPath::global, atoms::CopyDir::load, width>{},
      dsl::thread_layout<threads / per_row, per_row>);
}

} // namespace tw::kernels::gemm_kernel
