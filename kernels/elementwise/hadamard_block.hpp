#pragma once
// The Hadamard block: rotates every segment of a row held by a segmented RowSlice
// (row_skeleton.hpp) by the unnormalized Sylvester Hadamard matrix of the segment's size n,
//   y_i = sum_k (-1)^popcount(i & k) x_k      (i, k: positions in the segment),
// as log2(n) butterfly stages: partners inside a run are added in registers, partners in
// other lanes of the segment come through shuffle_xor, partners in other runs of the same
// thread again in registers. No LDS; the segment must be held by one wave (it is, by
// segmented_row_plan).
#include <kernels/elementwise/row_skeleton.hpp>

namespace tw::kernels::elementwise {

// v: the values of the slice (load's shape), rotated in place.
void hadamard_segments(const RowSlice& slice, std::vector<Values>& v);

} // namespace tw::kernels::elementwise
