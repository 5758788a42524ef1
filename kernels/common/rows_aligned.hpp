#pragma once
// Whether a view's start and every row start lie on a `bytes` boundary: the condition for
// the vector (16-byte) and transpose loads the attention kernels pick on the host.
#include <kernels/common/tensor.hpp>

namespace tw::kernels {

// The start address and the byte stride of every dimension from `first_dim` up to the
// next-to-last (the innermost is the row itself) are multiples of `bytes`.
inline bool rows_aligned(const TensorView& t, int64_t bytes, int first_dim = 0) {
  if (t.address() % uint64_t(bytes) != 0)
    return false;
  for (int d = first_dim; d + 1 < t.rank(); ++d)
    if (dtype_storage_bytes(t.dtype, t.strides[size_t(d)]) % bytes != 0)
      return false;
  return true;
}

} // namespace tw::kernels
