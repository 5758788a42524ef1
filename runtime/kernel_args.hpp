#pragma once
// Packs explicit kernel arguments with their natural alignment, the layout clang uses for
// the kernarg segment (pointers 8, int/float 4, ...).
#include <runtime/device.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace tw::runtime {

class KernelArgs {
public:
  template <class T>
  requires std::is_trivially_copyable_v<T> KernelArgs& add(const T& v, size_t align = alignof(T)) {
    const size_t off = (bytes_.size() + align - 1) / align * align;
    bytes_.resize(off + sizeof(T), 0);
    std::memcpy(bytes_.data() + off, &v, sizeof(T));
    return *this;
  }
  KernelArgs& ptr(DevicePtr p) { return add<uint64_t>(p, 8); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  std::span<const uint8_t> span() const { return bytes_; }

private:
  std::vector<uint8_t> bytes_;
};

} // namespace tw::runtime
