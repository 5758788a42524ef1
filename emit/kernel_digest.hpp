#pragma once
// The IR's part of the cache key: a BLAKE3-256 digest of every field of an ir::Kernel (name,
// arguments, workgroup size, LDS size, the value type table and every op with all of its
// attributes, in a fixed binary encoding), computed by walking the kernel, without printing it.
// Two kernels with the same digest are the same kernel, field for field: so a cache hit stands
// for a kernel that was verified when its entry was made, and compile() verifies only on a miss.
// About 0.2 ms for the library's f16 GEMM (5900 ops), where ir::print + SHA-256 took 1.4-12 ms.
#include <dsl/ir/kernel.hpp>

#include <string>

namespace tw::emit {

// Lowercase hex, 64 characters.
std::string kernel_digest(const ir::Kernel& kernel);

} // namespace tw::emit
