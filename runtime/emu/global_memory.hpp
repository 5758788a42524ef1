#pragma once
// Device memory of the emulator: every allocation is host memory whose host address is the
// device address, so loads and stores are plain copies after a bounds check. The map of
// allocations is what memcheck checks global accesses against.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace tw::emu {

class GlobalMemory {
public:
  struct Region {
    uint64_t base = 0;
    uint64_t size = 0;
    std::string label;
    bool owned = false; // allocated (and freed) by this object
  };

  GlobalMemory() = default;
  GlobalMemory(const GlobalMemory&) = delete;
  GlobalMemory& operator=(const GlobalMemory&) = delete;
  ~GlobalMemory();

  // Zero-filled, 256-byte aligned. Throws std::bad_alloc on exhaustion.
  uint64_t allocate(uint64_t bytes, std::string label = "allocation");
  // Throws std::invalid_argument if `base` is not the start of a live allocation.
  void free(uint64_t base);
  // Memory owned elsewhere (a loaded code object image) that kernels may read.
  void add_region(uint64_t base, uint64_t size, std::string label);
  void remove_region(uint64_t base);

  // The region containing all of [addr, addr + bytes), or nullptr.
  const Region* find(uint64_t addr, uint64_t bytes) const;
  // A description of the regions nearest to addr (for error messages).
  std::string describe_near(uint64_t addr) const;
  size_t region_count() const { return regions_.size(); }

private:
  // Launches only read the map; allocate/free happen between launches.
  std::map<uint64_t, Region> regions_;
  mutable std::mutex mutex_;
};

} // namespace tw::emu
