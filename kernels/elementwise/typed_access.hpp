#pragma once
// Runs of consecutive elements of any library dtype moved between global memory and f32
// registers, with the dtype chosen when the kernel is traced (so the skeletons and the kernels
// built on them are plain functions, not one template per dtype combination).
//
// A run of V elements (V a power of two) is moved in pieces of at most 16 bytes (128-bit
// accesses when V * size >= 16); the run's start must be aligned to min(16, V * size) bytes,
// which the host proves before it picks V (kernels/elementwise/launch.hpp). A tail is the
// first `count` (< V) elements of a run: one masked scalar access each, nothing past it.
//
// Conversions: loads decode exactly to f32; stores round to nearest even (fp8 saturating);
// integer outputs expect an integer-valued f32 in the type's range (the op rounds and clamps).
#include <dsl/dsl.hpp>
#include <kernels/common/dtype.hpp>

#include <vector>

namespace tw::kernels::elementwise {

using Values = std::vector<dsl::Float32>;

// A kernel pointer argument whose element dtype is known at trace time.
struct AnyPtr {
  ir::Value base;
  DType dtype = DType::f32;

  int elem_bytes() const { return static_cast<int>(dtype_storage_bytes(dtype, 1)); }
  // The pointer advanced by `elems` elements.
  AnyPtr offset(const dsl::Int64& elems) const;
};

// The argument `name` as an AnyPtr of `dtype` (declares it in the current KernelBuilder).
AnyPtr any_ptr_arg(dsl::KernelBuilder& kb, const char* name, DType dtype);

// Elements [off, off + v) (run start aligned to min(16, v * size) bytes).
Values load_run(const AnyPtr& p, const dsl::Int64& off, int v);
void store_run(const AnyPtr& p, const dsl::Int64& off, const Values& x);
// The first `count` elements of [off, off + v); the others read 0 and are not written.
Values load_tail(const AnyPtr& p, const dsl::Int64& off, int v, const dsl::Int64& count);
void store_tail(const AnyPtr& p, const dsl::Int64& off, const Values& x, const dsl::Int64& count);
// One element.
dsl::Float32 load_one(const AnyPtr& p, const dsl::Int64& off);
void store_one(const AnyPtr& p, const dsl::Int64& off, const dsl::Float32& x);

// x (f32) as stored in `dtype` and read back: rounded to nearest even (fp8 saturating), the
// value a store then a load of that dtype gives. Quantizers use it to compute with a scale as
// stored (a bf16 group scale, an e4m3 relative scale) rather than the f32 one.
dsl::Float32 round_to(DType dtype, const dsl::Float32& x);

// A run when it is whole (off + v <= end), else its tail up to `end` (v = 1: one masked access).
Values load_run_or_tail(const AnyPtr& p, const dsl::Int64& off, int v, const dsl::Int64& end);
void store_run_or_tail(const AnyPtr& p, const dsl::Int64& off, const Values& x,
                       const dsl::Int64& end);

} // namespace tw::kernels::elementwise
