#pragma once
// The memories a copy atom moves data through, numbered as LLVM's AMDGPU address spaces
// (AMDGPUUsage "Address Spaces"), so the emitters can use the value directly.
#include <string_view>

namespace tw::atoms {

enum class AddressSpace : unsigned {
  global = 1,          // device memory through a 64-bit pointer (ptr addrspace(1))
  lds = 3,             // the workgroup's local data share (ptr addrspace(3), 32-bit offsets)
  buffer_resource = 8, // device memory through a 128-bit buffer descriptor (ptr addrspace(8))
};

constexpr unsigned llvm_address_space(AddressSpace s) {
  return static_cast<unsigned>(s);
}

// What a value in that space is, with its article, for error sentences.
constexpr std::string_view address_space_name(AddressSpace s) {
  switch (s) {
  case AddressSpace::global:
    return "a global pointer (addrspace 1)";
  case AddressSpace::lds:
    return "an LDS pointer (addrspace 3)";
  case AddressSpace::buffer_resource:
    return "a buffer resource (addrspace 8)";
  }
  return "?";
}

} // namespace tw::atoms
