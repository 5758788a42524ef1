#include <runtime/emu/timing/large_buffer.hpp>

#include <bit>
#include <cstddef>
#include <mutex>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tw::emu::timing::large_buffer {

namespace {
constexpr std::size_t kHuge = std::size_t(2) << 20;
constexpr std::size_t kMapped = std::size_t(256) << 10; // mapped and pooled from this size

#if defined(__linux__)
// Released mappings kept for the next workgroup's or launch's recording (same sizes: the
// per-wave reserve, the reuse tables),
// so its buffers are not faulted in and zeroed again; at most kPoolBytes are kept.
constexpr std::size_t kPoolBytes = std::size_t(128) << 20;
struct Pool {
  struct Buffer {
    void* p;
    std::size_t bytes, kind;
  };
  std::mutex mu;
  std::vector<Buffer> free;
  std::size_t bytes = 0;
};
Pool& pool() {
  static Pool* p = new Pool; // never destroyed: buffers may be released during exit
  return *p;
}
#endif
} // namespace

#if defined(__linux__)
// A mapping's size: a power of two from kMapped, so buffers of neighbouring sizes (the per-wave
// reserves of two kernels) share a pool entry; the pages past the requested size are never
// touched, so they cost address space only.
std::size_t mapped_size(std::size_t bytes) {
  return std::bit_ceil(bytes);
}
#endif

void* allocate(std::size_t bytes, std::size_t kind) {
#if defined(__linux__)
  if (bytes >= kMapped) {
    bytes = mapped_size(bytes);
    {
      Pool& pl = pool();
      std::lock_guard lock(pl.mu);
      for (size_t i = pl.free.size(); i-- > 0;) // the latest released first
        if (pl.free[i].bytes == bytes && pl.free[i].kind == kind) {
          void* p = pl.free[i].p;
          pl.bytes -= bytes;
          pl.free.erase(pl.free.begin() + static_cast<std::ptrdiff_t>(i));
          return p;
        }
    }
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      throw std::bad_alloc();
    if (bytes >= kHuge)
      (void)madvise(p, bytes, MADV_HUGEPAGE); // advice only: without it, 4 KiB pages
    return p;
  }
#endif
  return ::operator new(bytes);
}

void deallocate(void* p, std::size_t bytes, std::size_t kind) noexcept {
#if defined(__linux__)
  if (bytes >= kMapped) {
    bytes = mapped_size(bytes);
    Pool& pl = pool();
    std::lock_guard lock(pl.mu);
    if (pl.bytes + bytes <= kPoolBytes) {
      try {
        pl.free.push_back({p, bytes, kind});
        pl.bytes += bytes;
        return;
      } catch (...) { // no room to remember it: unmap
      }
    }
    munmap(p, bytes);
    return;
  }
#endif
  ::operator delete(p, bytes);
}

} // namespace tw::emu::timing::large_buffer
