// Divergent control flow and per-lane loops over a multi-workgroup grid.
#include "hip_min.h"

// Collatz steps of in[i] (a data-dependent loop per lane), with an if/else on parity and a
// tail (n not a multiple of the block).
extern "C" __global__ void collatz(const unsigned* in, unsigned* out, unsigned* flags, int n) {
  const int i = int(bid_x() * 64 + tid_x());
  if (i >= n)
    return;
  unsigned v = in[i], steps = 0;
  while (v != 1 && steps < 1000) {
    if (v & 1)
      v = 3 * v + 1;
    else
      v >>= 1;
    ++steps;
  }
  out[i] = steps;
  if (steps % 3 == 0)
    flags[i] = 1;
  else if (steps % 3 == 1)
    flags[i] = 2;
  else
    flags[i] = steps * 5;
}

// 3D grid and 3D blocks: every work-item writes its flattened global index and ids.
extern "C" __global__ void ids3d(unsigned* out, int nx, int ny) {
  const unsigned bx = 4, by = 2, bz = 2; // block dims (launch must match)
  const unsigned gx = bid_x() * bx + tid_x();
  const unsigned gy = bid_y() * by + tid_y();
  const unsigned gz = bid_z() * bz + tid_z();
  const unsigned idx = (gz * unsigned(ny) + gy) * unsigned(nx) + gx;
  out[idx] = (tid_x() | (tid_y() << 4) | (tid_z() << 8)) | ((bid_x() | (bid_y() << 4) | (bid_z() << 8)) << 16);
}
