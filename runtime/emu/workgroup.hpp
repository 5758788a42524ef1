#pragma once
// State shared by the waves of one workgroup: LDS (with the memcheck "written" map),
// per-wave scratch (private segment), and the workgroup barrier.
#include <array>
#include <cstdint>
#include <vector>

namespace tw::emu {

class Workgroup {
public:
  std::array<uint32_t, 3> id{};
  uint32_t lds_size = 0;            // static group segment + dynamic LDS
  std::vector<uint8_t> lds;         // lds_size bytes
  std::vector<uint8_t> lds_written; // 1 per byte once written (memcheck)
  uint32_t scratch_per_lane = 0;
  std::vector<std::vector<uint8_t>> scratch; // per wave: 32 * scratch_per_lane bytes
  int num_waves = 0;

  void reset(std::array<uint32_t, 3> wg_id, int waves, uint32_t lds_bytes, uint32_t scratch_bytes);

  // Barrier: a wave signals, then waits until every live (not ended) wave has signaled.
  // Returns true if this wave is the first to signal the current barrier.
  bool barrier_signal(int wave) {
    const bool first = arrived_ == 0;
    if (!signaled_[wave]) {
      signaled_[wave] = 1;
      ++arrived_;
    }
    return first;
  }
  // Returns true if the wave must block (it signaled and the barrier is not complete).
  void barrier_wait(int wave) {
    if (signaled_[wave])
      waiting_[wave] = 1;
  }
  bool waiting(int wave) const { return waiting_[wave]; }
  void wave_ended(int wave);
  // Called when no wave can run: releases the barrier if all live waves arrived.
  bool try_release(int live_waves);

private:
  std::vector<uint8_t> signaled_, waiting_;
  int arrived_ = 0;
};

} // namespace tw::emu
