// The RoPE block (see rope_block.hpp).
#include <kernels/elementwise/rope_block.hpp>

#include <dsl/ops/trig.hpp>

namespace tw::kernels::elementwise {

using namespace tw::dsl;

Int64 RopeAngles::position(const Int64& token) const {
  Int64 p =
      positions ? cast<i64>(GlobalPtr<i32>(positions->base).load(token)) : position_offset + token;
  if (cos_cache)
    p = min(max(p, Int64(0)), max_pos - Int64(1));
  return p;
}

std::pair<Values, Values> RopeAngles::cos_sin(const Int64& pos, const Int64& first,
                                              int count) const {
  if (cos_cache) {
    const Int64 row = pos * half;
    return {load_run_or_tail(*cos_cache, row + first, count, row + half),
            load_run_or_tail(*sin_cache, row + first, count, row + half)};
  }
  Values c, s;
  const Float32 p = cast<f32>(pos);
  for (int j = 0; j < count; ++j) {
    const Float32 theta = p * exp2(cast<f32>(first + Int64(j)) * freq_exponent);
    const SinCos sc = sincos(theta);
    c.push_back(sc.cos);
    s.push_back(sc.sin);
  }
  return {c, s};
}

} // namespace tw::kernels::elementwise
