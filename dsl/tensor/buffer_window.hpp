#pragma once
// BufferWindow<T, R, C>: reads of an R x C window of a global tensor through a buffer
// descriptor at the window's origin (a wave-uniform value: SGPRs) and 32-bit per-lane byte
// offsets. A loop over tiles (a GEMM's K loop) then moves only the descriptor's base with
// scalar adds, and each lane's offsets stay the same from tile to tile: no 64-bit VALU address
// math (v_add_co / v_add_co_ci) per access. GlobalTile::window() makes one for a tile whose
// span fits (GlobalTile::window_reaches()); reads past the window's bytes return 0 (the
// descriptor's num_records bound), so a run can be masked by moving its offset out of range
// (load_run_or_zero); load_run itself masks nothing: its caller reads only elements that exist.
#include <dsl/builder/control.hpp>

#include <dsl/handles/vec.hpp>
#include <limits>

namespace tw::dsl {

template <ElemType T, int R, int C>
class BufferWindow {
public:
  // `rsrc`: the descriptor at element (0, 0); strides in bytes (each < 2^31); `align`: the byte
  // alignment of every row start; `rows_contiguous`: the column stride is one element.
  BufferWindow(ir::Value rsrc, const Int32& row_stride_bytes, const Int32& col_stride_bytes,
               int align, bool rows_contiguous)
      : rsrc_(rsrc), row_stride_(row_stride_bytes), col_stride_(col_stride_bytes), align_(align),
        rows_contiguous_(rows_contiguous) {}

  Scalar<T> load(const Int32& r, const Int32& c) const {
    return Scalar<T>(ops().buffer_load(ir_type<T>(), rsrc_, offset(r, c).ir()));
  }
  // N elements (r, c .. c + N - 1) of one row: one N-element access when the row is contiguous
  // and the run is aligned to its size, else N element reads.
  template <int N>
  Vec<T, N> load_run(const Int32& r, const Int32& c) const {
    const Int32 o = offset(r, c);
    if (N > 1 && rows_contiguous_ && align_ % (N * elem_bytes<T>()) == 0)
      return Vec<T, N>(ops().buffer_load(Vec<T, N>::type(), rsrc_, o.ir()));
    std::array<Scalar<T>, N> e;
    for (int j = 0; j < N; ++j)
      e[j] = Scalar<T>(ops().buffer_load(ir_type<T>(), rsrc_, (o + col_stride_ * j).ir()));
    return Vec<T, N>::from(e);
  }

  // As load_run, but a run whose `valid` is false reads 0 without touching memory: its offset
  // is moved past the descriptor's bound (2^31 >= num_records), which costs one select of a
  // lane's offset, and none in a loop when `valid` does not change from tile to tile.
  template <int N>
  Vec<T, N> load_run_or_zero(const Int32& r, const Int32& c, const Bool& valid) const {
    const Int32 past(std::numeric_limits<std::int32_t>::min()); // 2^31 as an unsigned offset
    const Int32 o = select(valid, offset(r, c), past);
    if (N > 1 && rows_contiguous_ && align_ % (N * elem_bytes<T>()) == 0)
      return Vec<T, N>(ops().buffer_load(Vec<T, N>::type(), rsrc_, o.ir()));
    std::array<Scalar<T>, N> e;
    for (int j = 0; j < N; ++j)
      e[j] = Scalar<T>(
          ops().buffer_load(ir_type<T>(), rsrc_, select(valid, o + col_stride_ * j, past).ir()));
    return Vec<T, N>::from(e);
  }

private:
  static ir::OpBuilder& ops() { return KernelBuilder::current("buffer window").ops(); }
  Int32 offset(const Int32& r, const Int32& c) const { return r * row_stride_ + c * col_stride_; }

  ir::Value rsrc_;
  Int32 row_stride_, col_stride_;
  int align_;
  bool rows_contiguous_;
};

} // namespace tw::dsl
