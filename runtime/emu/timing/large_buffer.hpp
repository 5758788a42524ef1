#pragma once
// An allocator for the timing model's large buffers (the recorded instruction stream of a
// wave: a GEMM workgroup's is several MB; a workgroup's line reuse table: 0.5-1 MiB).
// Allocations of 256 KiB or more are mapped on their own, those of 2 MiB or more marked for
// transparent huge pages, so writing them takes one page fault per 2 MiB instead of one per
// 4 KiB (page faults dominated the recording's cost on a virtual machine); smaller ones come
// from operator new. Released mappings (up to 128 MiB) are kept for reuse: the next
// workgroup's or launch's recording finds its buffers already faulted in (about 2 us a page
// fault on this project's host).
#include <cstddef>
#include <new>

namespace tw::emu::timing {

namespace large_buffer {
void* allocate(std::size_t bytes);
void deallocate(void* p, std::size_t bytes) noexcept;
} // namespace large_buffer

template <class T>
struct LargeBufferAllocator {
  using value_type = T;
  LargeBufferAllocator() = default;
  template <class U>
  LargeBufferAllocator(const LargeBufferAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(large_buffer::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { large_buffer::deallocate(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const LargeBufferAllocator<U>&) const noexcept {
    return true;
  }
};

} // namespace tw::emu::timing
