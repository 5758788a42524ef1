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
#include <utility>

namespace tw::emu::timing {

namespace large_buffer {
// `kind`: a released buffer is reused only for the same kind (the allocator's element size),
// so that a buffer its last owner wrote in full (a reuse table) and one it wrote only in part
// (a wave's words) are not handed to each other's uses: the second would fault in the pages
// the first never touched.
void* allocate(std::size_t bytes, std::size_t kind);
void deallocate(void* p, std::size_t bytes, std::size_t kind) noexcept;
} // namespace large_buffer

template <class T>
struct LargeBufferAllocator {
  using value_type = T;
  LargeBufferAllocator() = default;
  template <class U>
  LargeBufferAllocator(const LargeBufferAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(large_buffer::allocate(n * sizeof(T), sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    large_buffer::deallocate(p, n * sizeof(T), sizeof(T));
  }
  template <class U>
  bool operator==(const LargeBufferAllocator<U>&) const noexcept {
    return true;
  }
};

// The same, except that a default-constructed element (vector::resize) is left
// uninitialised: for a buffer of a trivial type that its owner fills through a raw cursor
// (TraceWords), so that growing it touches no page.
template <class T>
struct UninitLargeBufferAllocator : LargeBufferAllocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = UninitLargeBufferAllocator<U>;
  };
  UninitLargeBufferAllocator() = default;
  template <class U>
  UninitLargeBufferAllocator(const UninitLargeBufferAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

} // namespace tw::emu::timing
