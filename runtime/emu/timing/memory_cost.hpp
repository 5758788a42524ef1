#pragma once
// The cost of one wave's memory instruction from the addresses its lanes touched: how many
// cache lines a global access coalesces into, and how many cycles an LDS access needs
// with its bank conflicts.
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

namespace tw::emu::timing {

struct LaneAccess {
  int lane = 0;
  uint64_t addr = 0;
  uint32_t bytes = 0;
};

// The distinct `line_bytes` lines of one instruction's lane accesses, gathered as the lanes
// access memory (no per-lane buffer): a line equal to the previous one is not stored again,
// and the list is sorted only when the lanes did not walk memory upwards (its ascending runs
// merged; a comparison sort past 8 runs).
class LineCoalescer {
public:
  explicit LineCoalescer(uint32_t line_bytes)
      : line_bytes_(line_bytes),
        line_shift_(std::has_single_bit(line_bytes) ? std::countr_zero(line_bytes) : -1) {}
  void add(uint64_t addr, uint32_t bytes) { add_run(addr, bytes, 1); }
  // `units` accesses of `unit` bytes, one after the other from addr (the components of one
  // lane's access): the same lines and address count as that many add() calls.
  void add_run(uint64_t addr, uint32_t unit, uint32_t units) {
    addresses_ += units;
    const uint64_t last = addr + uint64_t(unit ? unit : 1) * units - 1;
    // A shift for the usual power-of-two line (a division per lane access costs more than
    // the rest of the recording of it).
    const uint64_t lo = line_shift_ >= 0 ? addr >> line_shift_ : addr / line_bytes_;
    const uint64_t hi = line_shift_ >= 0 ? last >> line_shift_ : last / line_bytes_;
    for (uint64_t l = lo; l <= hi; ++l)
      if (lines_.empty() || lines_.back() != l) { // neighbouring lanes share lines
        sorted_ = sorted_ && (lines_.empty() || lines_.back() < l);
        lines_.push_back(l);
      }
  }
  // The accesses of a whole wave instruction, as the executor's fast paths report them: for
  // each lane of `exec` (lowest first), add_run(addr[lane], unit, units); the same lines()
  // and address count, without a call and a vector append per lane, and without a sort
  // when the lanes read the same lines again in order (a transposed load's halves).
  void add_lanes(const std::array<uint64_t, 32>& addr, uint32_t exec, uint32_t unit,
                 uint32_t units);
  uint32_t addresses() const { return addresses_; }
  // The distinct lines, sorted (valid until the next add / clear).
  const std::vector<uint64_t>& lines();
  void clear() {
    lines_.clear();
    addresses_ = 0;
    sorted_ = true;
  }

private:
  uint32_t line_bytes_;
  int line_shift_; // log2(line_bytes_), or -1
  uint32_t addresses_ = 0;
  bool sorted_ = true;
  std::vector<uint64_t> lines_;
  std::vector<uint64_t> merged_; // merge_runs' other buffer
  void merge_runs();
};

// Distinct `line_bytes` lines the accesses touch (appended to `lines`, which the caller
// may reuse); returns their count.
uint32_t coalesced_lines(std::span<const LaneAccess> accesses, uint32_t line_bytes,
                         std::vector<uint64_t>& lines);

// LDS cycles: the lanes are served in phases of `banks * 4` bytes (32 lanes of 4 bytes,
// 16 of 8, 8 of 16); within a phase each 4-byte bank delivers one dword per cycle, so a
// phase takes as many cycles as the most distinct dwords any one bank holds (lanes that
// read the same dword share it). At least 1 for any access.
uint32_t lds_cycles(std::span<const LaneAccess> accesses, int banks);

} // namespace tw::emu::timing
