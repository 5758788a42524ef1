#pragma once
// One kernel of the IR: name, arguments, body, static LDS size and workgroup size (also its
// launch bounds), plus the table that gives every SSA value its type.
#include <array>
#include <cstdint>
#include <dsl/ir/op.hpp>
#include <dsl/ir/type.hpp>
#include <dsl/ir/value.hpp>
#include <string>
#include <vector>

namespace tw::ir {

// A kernel argument. Allowed types: i8, i16, i32, i64, f16, bf16, f32 and ptr<global> /
// ptr<constant> (LDS pointers, buffer resources, vectors and i1 are not kernel arguments).
struct KernelArg {
  std::string name;
  Type type;
  Value value;
};

struct Kernel {
  std::string name; // a C identifier; becomes the code object's kernel symbol
  std::vector<KernelArg> args;
  Region body; // no region arguments, no yield
  // Threads per workgroup in x, y, z: the launch must use exactly this size; both emitters
  // declare amdgpu-flat-work-group-size = product, product.
  std::array<int, 3> workgroup_size{64, 1, 1};
  std::int64_t lds_bytes = 0;    // static LDS block addressed by lds_ptr (<= 65536)
  std::vector<Type> value_types; // indexed by Value::id

  Type type_of(Value v) const { return v.id < value_types.size() ? value_types[v.id] : Type{}; }
  int flat_workgroup_size() const {
    return workgroup_size[0] * workgroup_size[1] * workgroup_size[2];
  }
};

// Where each explicit argument lives in the kernarg segment. The rule (the one clang applies to
// a HIP kernel and the one both emitters produce): arguments in order, each at the next offset
// aligned to its natural alignment (size of the scalar: 1, 2, 4 or 8; pointers 8); the segment
// size is the end of the last argument (not rounded up) and the segment is 8-byte aligned.
// Neither emitter uses hidden (implicit) arguments.
struct KernargSlot {
  std::string name;
  Type type;
  std::uint32_t offset = 0, size = 0, align = 0;
};
struct KernargLayout {
  std::vector<KernargSlot> slots;
  std::uint32_t size = 0;  // bytes of explicit arguments
  std::uint32_t align = 8; // alignment of the segment
};

// Throws std::invalid_argument naming the argument when its type is not a kernel argument type.
KernargLayout kernarg_layout(const Kernel& k);

} // namespace tw::ir
