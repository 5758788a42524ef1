// Workgroup: LDS, scratch and barrier bookkeeping.
#include <runtime/emu/workgroup.hpp>

#include <algorithm>

namespace tw::emu {

void Workgroup::reset(std::array<uint32_t, 3> wg_id, int waves, uint32_t lds_bytes,
                      uint32_t scratch_bytes) {
  id = wg_id;
  num_waves = waves;
  lds_size = lds_bytes;
  lds.assign(lds_bytes, 0);
  lds_written.assign(lds_bytes, 0);
  scratch_per_lane = scratch_bytes;
  scratch.resize(static_cast<size_t>(waves));
  for (auto& s : scratch)
    s.assign(static_cast<size_t>(scratch_bytes) * 32, 0);
  signaled_.assign(static_cast<size_t>(waves), 0);
  waiting_.assign(static_cast<size_t>(waves), 0);
  arrived_ = 0;
}

void Workgroup::wave_ended(int wave) {
  if (signaled_[wave]) {
    signaled_[wave] = 0;
    --arrived_;
  }
  waiting_[wave] = 0;
}

bool Workgroup::try_release(int live_waves) {
  if (live_waves == 0 || arrived_ < live_waves)
    return false;
  std::fill(signaled_.begin(), signaled_.end(), 0);
  std::fill(waiting_.begin(), waiting_.end(), 0);
  arrived_ = 0;
  return true;
}

} // namespace tw::emu
