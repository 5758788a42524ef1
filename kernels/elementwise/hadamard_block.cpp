// The Hadamard block (see hadamard_block.hpp).
#include <kernels/elementwise/hadamard_block.hpp>

#include <stdexcept>

namespace tw::kernels::elementwise {

using namespace tw::dsl;

void hadamard_segments(const RowSlice& slice, std::vector<Values>& v) {
  const RowPlan& plan = slice.plan();
  if (!plan.segmented())
    throw std::logic_error("hadamard_segments: the slice's plan has no segments");
  const int vec = plan.vec, lanes = plan.lanes, runs = plan.segment_runs;
  const auto at = [&](int k, int j) -> Float32& { return v[std::size_t(k)][std::size_t(j)]; };
  // Position in the segment: (r * lanes + lane) * vec + j; stage m pairs i with i ^ m, the
  // upper one (bit m set) becomes partner - self, the lower self + partner.
  for (int64_t m = 1; m < plan.segment_columns(); m *= 2) {
    if (m < vec) {
      for (int k = 0; k < plan.runs; ++k)
        for (int j = 0; j < vec; ++j)
          if ((j & m) == 0) {
            const Float32 a = at(k, j), b = at(k, j + int(m));
            at(k, j) = a + b;
            at(k, j + int(m)) = a - b;
          }
    } else if (m < int64_t(lanes) * vec) {
      const int mask = int(m / vec);
      const Bool upper = (slice.segment_lane() & Int32(mask)) != Int32(0);
      for (int k = 0; k < plan.runs; ++k)
        for (int j = 0; j < vec; ++j) {
          const Float32 self = at(k, j), partner = shuffle_xor(self, mask);
          at(k, j) = select(upper, partner - self, self + partner);
        }
    } else {
      const int rm = int(m / (int64_t(lanes) * vec));
      for (int p = 0; p < plan.passes(); ++p)
        for (int r = 0; r < runs; ++r)
          if ((r & rm) == 0)
            for (int j = 0; j < vec; ++j) {
              const int k1 = p * runs + r, k2 = p * runs + (r | rm);
              const Float32 a = at(k1, j), b = at(k2, j);
              at(k1, j) = a + b;
              at(k2, j) = a - b;
            }
    }
  }
}

} // namespace tw::kernels::elementwise
