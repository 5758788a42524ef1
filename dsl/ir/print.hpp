#pragma once
// The canonical text of a kernel: stable across runs and platforms (its hash is the compile
// cache key), one op per line, values as %N, nested regions indented. Example:
//   kernel @vadd(%0: ptr<global> a, %1: ptr<global> b, %2: i32 n) workgroup(256, 1, 1) lds(0) {
//     %3 = workitem_id x : i32
//     %4 = load %0 align(16) : ptr<global> -> <4 x f32>
//     ...
//   }
// The full grammar is in dsl/ir/README.md. Parsing it back is not supported.
#include <dsl/ir/kernel.hpp>
#include <string>

namespace tw::ir {

std::string print(const Kernel& k);

struct PrintOptions {
  bool op_numbers = false; // append "  // #N" to each op's line (the verifier's op numbers)
};
// The canonical text with options (with default options identical to print(k)).
std::string print(const Kernel& k, const PrintOptions& options);

} // namespace tw::ir
