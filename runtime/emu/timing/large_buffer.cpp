#include <runtime/emu/timing/large_buffer.hpp>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tw::emu::timing::large_buffer {

namespace {
constexpr std::size_t kHuge = std::size_t(2) << 20;
}

void* allocate(std::size_t bytes) {
#if defined(__linux__)
  if (bytes >= kHuge) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      throw std::bad_alloc();
    (void)madvise(p, bytes, MADV_HUGEPAGE); // advice only: without it, 4 KiB pages
    return p;
  }
#endif
  return ::operator new(bytes);
}

void deallocate(void* p, std::size_t bytes) noexcept {
#if defined(__linux__)
  if (bytes >= kHuge) {
    munmap(p, bytes);
    return;
  }
#endif
  ::operator delete(p, bytes);
}

} // namespace tw::emu::timing::large_buffer
