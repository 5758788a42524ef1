#pragma once
// The data of the clipped-load tests (test_run_buffer_clipped_tile.cpp / _walk.cpp): a padded
// row-major matrix, and the check of its compact copy, whose elements outside the matrix must
// read 0 whatever lies in memory there.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tw::test {

// m x n elements of Raw in rows of lda: element (r, c) = val(r, c), the row padding `pad`.
template <class Raw, class Val>
std::vector<Raw> padded_matrix(std::int64_t m, std::int64_t n, std::int64_t lda, Raw pad, Val val) {
  std::vector<Raw> a(static_cast<std::size_t>(m * lda));
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < lda; ++c)
      a[static_cast<std::size_t>(r * lda + c)] = c < n ? val(r, c) : pad;
  return a;
}

// `o`, om x on in rows of on, holds the m x n matrix val(r, c) at its origin and 0 elsewhere.
template <class Raw, class Val>
void check_zero_outside(const std::vector<Raw>& o, std::int64_t m, std::int64_t n, std::int64_t om,
                        std::int64_t on, Val val) {
  int wrong_inside = 0, wrong_outside = 0;
  for (std::int64_t r = 0; r < om; ++r)
    for (std::int64_t c = 0; c < on; ++c) {
      const Raw got = o[static_cast<std::size_t>(r * on + c)];
      if (r < m && c < n)
        wrong_inside += got != val(r, c);
      else
        wrong_outside += got != Raw(0);
    }
  CHECK(wrong_inside == 0);
  CHECK(wrong_outside == 0);
}

} // namespace tw::test
