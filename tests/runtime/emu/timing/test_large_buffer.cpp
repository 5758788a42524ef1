// The timing model's large-buffer pool (runtime/emu/timing/large_buffer.hpp): a released
// mapping is handed out again only for the same size class and kind, so a buffer written in
// part (a wave's words) never serves a use that writes it in full (a reuse table).
#include <doctest/doctest.h>

#include <runtime/emu/timing/large_buffer.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

using namespace tw::emu::timing;

TEST_CASE("large buffers: a released mapping is reused for its size class and kind only") {
#if defined(__linux__)
  const std::size_t bytes = std::size_t(3) << 20; // mapped, in the 4 MiB class
  void* a = large_buffer::allocate(bytes, 4);
  std::memset(a, 1, bytes);
  large_buffer::deallocate(a, bytes, 4);
  // Another kind of the same size: not the released buffer.
  void* other = large_buffer::allocate(bytes, 16);
  CHECK(other != a);
  // The same kind and size class (3.5 MiB rounds up to 4 MiB as well): the released one,
  // with what its owner wrote.
  void* again = large_buffer::allocate((std::size_t(7) << 19), 4);
  CHECK(again == a);
  CHECK(static_cast<unsigned char*>(again)[bytes - 1] == 1);
  large_buffer::deallocate(again, std::size_t(7) << 19, 4);
  large_buffer::deallocate(other, bytes, 16);
#endif
  // Small buffers come from operator new.
  void* small = large_buffer::allocate(64, 4);
  CHECK(small != nullptr);
  large_buffer::deallocate(small, 64, 4);
}

TEST_CASE("large buffers: UninitLargeBufferAllocator resizes without writing, keeps values") {
  std::vector<uint32_t, UninitLargeBufferAllocator<uint32_t>> v;
  v.reserve(1024);
  v.resize(2);
  v[0] = 7;
  v[1] = 9;
  v.resize(1024); // new elements left as they are: the owner writes them
  v.resize(2);
  v.push_back(11);
  CHECK(v.size() == 3);
  CHECK(v[0] == 7);
  CHECK(v[1] == 9);
  CHECK(v[2] == 11);
  std::vector<uint32_t, UninitLargeBufferAllocator<uint32_t>> w(3, 5); // with a value: set
  CHECK(w == std::vector<uint32_t, UninitLargeBufferAllocator<uint32_t>>{5, 5, 5});
}
