// GlobalMemory: allocation map of the emulator's device memory.
#include <runtime/emu/global_memory.hpp>

#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <new>
#include <stdexcept>

namespace tw::emu {

GlobalMemory::~GlobalMemory() {
  for (auto& [base, r] : regions_)
    if (r.owned)
      std::free(reinterpret_cast<void*>(base));
}

uint64_t GlobalMemory::allocate(uint64_t bytes, std::string label) {
  const uint64_t rounded = std::max<uint64_t>((bytes + 255) & ~uint64_t(255), 256);
  void* p = std::aligned_alloc(256, rounded);
  if (!p)
    throw std::bad_alloc();
  std::memset(p, 0, rounded);
  const uint64_t base = reinterpret_cast<uint64_t>(p);
  std::lock_guard lock(mutex_);
  // The requested size (not the rounded one) is the bound memcheck enforces.
  regions_[base] = Region{base, bytes, std::move(label), true};
  return base;
}

void GlobalMemory::free(uint64_t base) {
  std::lock_guard lock(mutex_);
  auto it = regions_.find(base);
  if (it == regions_.end() || !it->second.owned)
    throw std::invalid_argument(fmt::format("0x{:x} is not the start of a live allocation", base));
  std::free(reinterpret_cast<void*>(base));
  regions_.erase(it);
}

void GlobalMemory::add_region(uint64_t base, uint64_t size, std::string label) {
  std::lock_guard lock(mutex_);
  regions_[base] = Region{base, size, std::move(label), false};
}

void GlobalMemory::remove_region(uint64_t base) {
  std::lock_guard lock(mutex_);
  regions_.erase(base);
}

const GlobalMemory::Region* GlobalMemory::find(uint64_t addr, uint64_t bytes) const {
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin())
    return nullptr;
  --it;
  const Region& r = it->second;
  if (addr >= r.base && addr - r.base + bytes <= r.size && addr + bytes >= addr)
    return &r;
  return nullptr;
}

std::string GlobalMemory::describe_near(uint64_t addr) const {
  auto it = regions_.upper_bound(addr);
  std::string s;
  if (it != regions_.begin()) {
    auto prev = std::prev(it);
    const Region& r = prev->second;
    s += fmt::format("'{}' [0x{:x}, 0x{:x}) ends {} bytes before", r.label, r.base, r.base + r.size,
                     addr >= r.base + r.size ? addr - (r.base + r.size) : 0);
  }
  if (it != regions_.end()) {
    const Region& r = it->second;
    s += fmt::format("{}'{}' [0x{:x}, 0x{:x}) starts {} bytes after", s.empty() ? "" : "; ",
                     r.label, r.base, r.base + r.size, r.base - addr);
  }
  return s.empty() ? "no allocations" : s;
}

} // namespace tw::emu
