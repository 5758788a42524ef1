#pragma once
// Tensors in LDS. A kernel reserves its LDS plan once, then cuts tiles out of its buffers:
//   constexpr auto plan = lds_plan(lds_buffer<f16>("sA", 128, 32, stages(2), pad(8)), ...);
//   auto lds = use_lds<plan>(kb);                 // budget checked at compile time
//   LdsTile<f16, 128, 32> a = lds.tile<"sA">(stage);  // stage may be a run-time Int32
// Element (r, c) of a tile lives at the buffer's (padded, swizzled) row-major address.
#include <numeric>
#include <stdexcept>

#include <dsl/lds/lds_plan.hpp>
#include <dsl/support/fixed_string.hpp>
#include <dsl/tensor/global_tensor.hpp>

namespace tw::dsl {

template <ElemType T, int R, int C>
class LdsTile {
public:
  using elem_type = T;
  static constexpr int rows = R, cols = C;
  static constexpr bool is_lds = true;

  // `base`: ptr<lds> of element (0, 0) before swizzling; `base_align`: its byte alignment.
  LdsTile(ir::Value base, int pitch_elems, LdsSwizzle swizzle, int base_align)
      : base_(base), pitch_(pitch_elems), swizzle_(swizzle), base_align_(base_align) {}

  int pitch() const { return pitch_; }
  const LdsSwizzle& swizzle() const { return swizzle_; }
  int base_align() const { return base_align_; }
  bool rows_contiguous() const { return true; }

  // The element offset of (r, c) after the swizzle.
  Int32 element_offset(const Int32& r, const Int32& c) const {
    if (const int row_shift = swizzle_row_to_column_shift(); row_shift >= 0) {
      // The swizzle reads row bits only and writes column bits only: XOR the column with bits
      // of r, so the row term stays r * pitch (row steps of a fragment fold into immediate
      // offsets) and bits of r that a constant row step does not reach simplify away.
      const Int32 flip = ((r >> row_shift) & ((1 << swizzle_.bits) - 1)) << swizzle_.base;
      return r * pitch_ + (c ^ flip);
    }
    Int32 off = r * pitch_ + c;
    if (swizzle_.bits > 0) {
      const std::int32_t mask = ((1 << swizzle_.bits) - 1) << (swizzle_.base + swizzle_.shift);
      off = off ^ ((off & mask) >> swizzle_.shift);
    }
    return off;
  }
  ir::Value address(const Int32& r, const Int32& c) const {
    const Int32 bytes = element_offset(r, c) * elem_bytes<T>();
    if (bytes.is_constant() && bytes.constant_value() == 0)
      return base_;
    return ops().ptr_add(base_, bytes.ir());
  }

  Scalar<T> load(const Int32& r, const Int32& c) const {
    return Scalar<T>(ops().load(ir_type<T>(), address(r, c)));
  }
  void store(const Int32& r, const Int32& c, const Scalar<T>& v) const {
    ops().store(address(r, c), v.ir());
  }
  // N elements of one row starting at column c (a multiple of N): one ds_load / ds_store.
  template <int N>
  Vec<T, N> load_run(const Int32& r, const Int32& c) const {
    check_run<N>();
    return Vec<T, N>(ops().load(Vec<T, N>::type(), address(r, c), run_align<N>()));
  }
  template <int N>
  void store_run(const Int32& r, const Int32& c, const Vec<T, N>& v) const {
    check_run<N>();
    ops().store(address(r, c), v.ir(), run_align<N>());
  }

  // Constant steps from a lane's address (an unswizzled tile only): `at` = address(r, c), and
  // the run at (r + dr, c + dc) for constants dr, dc is `at` plus the constant dr * pitch + dc
  // elements. A fragment or copy that computes its lane's address once and reaches every value
  // by such steps gets one address per lane and ds_load / ds_store immediate offsets, instead
  // of one VALU address per access (LLVM folds "lane part + constant" into a loop-invariant
  // VGPR per access when the constant is part of the coordinates).
  bool constant_steps() const { return swizzle_.bits == 0; }
  // Whether a step of dr rows (no column step) is the constant dr * pitch elements from every
  // (r, c): on an unswizzled tile always; on a swizzled one when the swizzle reads row bits
  // only and dr leaves those bits unchanged (a multiple of 2^(highest row bit read + 1)), e.g.
  // the 16-row steps between the row tiles of a WMMA fragment on the GEMM's operand stages.
  bool constant_row_step(int dr) const {
    if (constant_steps())
      return true;
    const int row_shift = swizzle_row_to_column_shift();
    return row_shift >= 0 && dr % (1 << (row_shift + swizzle_.bits)) == 0;
  }
  template <int N>
  Vec<T, N> load_run_at(ir::Value at, int dr, int dc) const {
    check_run<N>();
    return Vec<T, N>(ops().load(Vec<T, N>::type(), step(at, dr, dc), run_align<N>()));
  }
  template <int N>
  void store_run_at(ir::Value at, int dr, int dc, const Vec<T, N>& v) const {
    check_run<N>();
    ops().store(step(at, dr, dc), v.ir(), run_align<N>());
  }

private:
  static ir::OpBuilder& ops() { return KernelBuilder::current("LDS access").ops(); }
  ir::Value step(ir::Value at, int dr, int dc) const {
    if (!constant_steps() && !(dc == 0 && constant_row_step(dr)))
      throw std::logic_error("LdsTile: constant steps from a lane's address need an unswizzled "
                             "tile or a row step the swizzle keeps (check constant_steps() / "
                             "constant_row_step() first)");
    const int bytes = (dr * pitch_ + dc) * elem_bytes<T>();
    return bytes == 0 ? at : ops().ptr_add(at, Int32(bytes).ir());
  }
  // For a power-of-two pitch 2^p with the swizzle's source bits at or above p and its target
  // bits below p (and c < pitch): the right shift from r to the source bits; else -1.
  int swizzle_row_to_column_shift() const {
    if (swizzle_.bits <= 0 || pitch_ <= 0 || (pitch_ & (pitch_ - 1)) != 0 || C > pitch_)
      return -1;
    int p = 0;
    while ((1 << p) < pitch_)
      ++p;
    const int source = swizzle_.base + swizzle_.shift;
    if (source < p || swizzle_.base + swizzle_.bits > p)
      return -1;
    return source - p;
  }
  template <int N>
  std::uint32_t run_align() const {
    const int run = N * elem_bytes<T>();
    return static_cast<std::uint32_t>(
        std::gcd(std::gcd(run, base_align_), pitch_ * elem_bytes<T>()));
  }
  // A run must stay contiguous through the swizzle: the swizzle may only move whole runs.
  template <int N>
  void check_run() const {
    static_assert((N & (N - 1)) == 0, "LDS runs are a power-of-two number of elements");
    if (swizzle_.bits > 0 && (1 << swizzle_.base) % N != 0)
      throw std::invalid_argument("LdsTile: a run of " + std::to_string(N) +
                                  " elements would be split by the swizzle (base " +
                                  std::to_string(swizzle_.base) +
                                  "): use a swizzle base of at least log2(run)");
  }

  ir::Value base_;
  int pitch_;
  LdsSwizzle swizzle_;
  int base_align_;
};

// The same LDS rows seen as an R x C tile of E: a later phase of a kernel reusing a buffer with
// another element type (fp8 operand stages reused for f16 operands, or the fp8 codes of an i8
// buffer). Row r keeps its byte address; R rows of C elements of E must fit in the tile.
template <ElemType E, int R, int C, ElemType S, int SR, int SC>
LdsTile<E, R, C> lds_view(const LdsTile<S, SR, SC>& t) {
  static_assert(R <= SR && C * E::bits <= SC * S::bits,
                "lds_view: the view must fit inside the tile (no more rows, no more bytes per "
                "row)");
  const int pitch_bytes = t.pitch() * elem_bytes<S>();
  if (pitch_bytes % elem_bytes<E>() != 0)
    throw std::invalid_argument("lds_view: a row pitch of " + std::to_string(pitch_bytes) +
                                " bytes is not a whole number of " +
                                std::to_string(elem_bytes<E>()) + "-byte elements");
  if (t.swizzle().bits > 0 && E::bits != S::bits)
    throw std::invalid_argument("lds_view: a swizzled tile can only be viewed with an element "
                                "type of the same width (the swizzle counts elements)");
  return LdsTile<E, R, C>(t.address(Int32(0), Int32(0)), pitch_bytes / elem_bytes<E>(), t.swizzle(),
                          t.base_align());
}

// The kernel's LDS, laid out by `Plan` (a constexpr lds_plan(...)).
template <auto Plan>
class Lds {
public:
  static constexpr const auto& plan = checked_lds_plan<Plan>;

  template <FixedString Name>
  static constexpr int index_of() {
    for (int i = 0; i < plan.size(); ++i)
      if (plan.buffers[i].spec.name == Name.view())
        return i;
    return -1;
  }

  // The placed buffer called Name (offset, stage bytes, chunk_rows / num_chunks for a chunked
  // buffer: the kernel loops over num_chunks chunks of chunk_rows rows).
  template <FixedString Name>
  static constexpr LdsBuffer buffer() {
    constexpr int i = index_of<Name>();
    static_assert(i >= 0, "Lds::buffer: the LDS plan has no buffer of this name");
    return plan.buffers[i];
  }

  // Stage `stage` (0 .. stages-1) of the buffer called Name: an LdsTile of its resident rows
  // (chunk_rows for a chunked buffer) and its element type.
  template <FixedString Name, class S = int>
  auto tile(const S& stage = 0) const {
    constexpr int i = index_of<Name>();
    static_assert(i >= 0, "Lds::tile: the LDS plan has no buffer of this name");
    constexpr LdsBuffer b = plan.buffers[i];
    using T = elem_type_of<b.spec.elem_id>;
    static_assert(!std::is_void_v<T>,
                  "Lds::tile: the buffer was declared with a C++ type; declare it with a DSL "
                  "element type (lds_buffer<f16>, lds_buffer<f32>, ...)");
    ir::OpBuilder& ob = KernelBuilder::current("Lds::tile").ops();
    ir::Value base = ob.lds_ptr(b.offset);
    const Int32 st = Int32(stage);
    if (st.is_constant() && (st.constant_value() < 0 || st.constant_value() >= b.spec.stages))
      throw std::out_of_range("Lds::tile: stage " + std::to_string(st.constant_value()) +
                              " of a buffer with " + std::to_string(b.spec.stages) + " stages");
    const Int32 stage_bytes = st * static_cast<int>(b.stage_bytes);
    if (!(stage_bytes.is_constant() && stage_bytes.constant_value() == 0))
      base = ob.ptr_add(base, stage_bytes.ir());
    const int align =
        static_cast<int>(std::gcd(std::gcd(b.offset, b.stage_bytes), std::int64_t{16}));
    return LdsTile<T, b.chunk_rows, b.spec.cols>(base, b.row_pitch_elems(), b.spec.swizzle, align);
  }
};

// Reserves the plan's bytes in the kernel and returns the handle to its buffers.
template <auto Plan>
Lds<Plan> use_lds(KernelBuilder& kb) {
  kb.set_lds_bytes(Lds<Plan>::plan.bytes());
  return {};
}

} // namespace tw::dsl
