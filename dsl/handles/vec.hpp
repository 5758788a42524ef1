#pragma once
// Vec<T, N>: N elements of T in one SSA value (<N x T>; N == 1 is the scalar itself). What a
// vector load returns, what a WMMA operand is, and what fragments are made of.
#include <array>

#include <dsl/handles/scalar_ops.hpp>

namespace tw::dsl {

template <ElemType T, int N>
class Vec {
  static_assert(N >= 1 && N <= 64, "Vec: a vector has 1 to 64 elements");

public:
  using elem_type = T;
  static constexpr int size = N;
  static constexpr ir::Type type() { return ir_vec_type<T>(N); }

  Vec() = default;
  explicit Vec(ir::Value v) : value_(v) {}

  static Vec splat(const Scalar<T>& s) {
    if constexpr (N == 1)
      return Vec(s.ir());
    else
      return Vec(KernelBuilder::current("splat").ops().splat(s.ir(), N));
  }
  static Vec zeros() { return splat(Scalar<T>(0)); }
  static Vec from(const std::array<Scalar<T>, N>& elems) {
    if constexpr (N == 1)
      return Vec(elems[0].ir());
    else {
      std::array<ir::Value, N> vals;
      for (int i = 0; i < N; ++i)
        vals[i] = elems[i].ir();
      return Vec(KernelBuilder::current("build_vector").ops().build_vector(vals));
    }
  }

  ir::Value ir() const {
    if (!value_.valid())
      throw std::logic_error("tw::dsl: an empty Vec handle was used");
    return value_;
  }
  Scalar<T> operator[](int i) const {
    if (i < 0 || i >= N)
      throw std::out_of_range("Vec: element " + std::to_string(i) + " of a " + std::to_string(N) +
                              "-element vector");
    if constexpr (N == 1)
      return Scalar<T>(ir());
    else
      return Scalar<T>(KernelBuilder::current("extract").ops().extract(ir(), i));
  }
  Vec with(int i, const Scalar<T>& s) const {
    if constexpr (N == 1)
      return Vec(s.ir());
    else
      return Vec(KernelBuilder::current("insert").ops().insert(ir(), s.ir(), i));
  }

  // Carried protocol.
  void flatten_into(std::vector<ir::Value>& out) const { out.push_back(ir()); }
  static Vec rebuild(std::span<const ir::Value> vals, std::size_t& pos) { return Vec(vals[pos++]); }
  static void append_types(std::vector<ir::Type>& out) { out.push_back(type()); }

private:
  ir::Value value_{};
};

// Element-wise arithmetic on whole vectors (one IR op for the vector). On f16 vectors the
// backends pair elements into packed VOP3P instructions (v_pk_add_f16, v_pk_mul_f16,
// v_pk_fma_f16, v_pk_max_num_f16, v_pk_min_num_f16: two f16 per VGPR per instruction), so a
// Vec<f16, 2k> costs k instructions per op. gfx12 has no packed (or any) bf16 arithmetic:
// bf16 ops widen each element to f32 (exact), compute in f32 and round back RNE (one f32
// instruction per element plus the conversions). f32 vectors are one instruction per element.
namespace detail {
template <ElemType T>
constexpr void require_arith_elem() {
  static_assert(T::kind != ElemKind::boolean, "Vec: arithmetic is not defined on Bool elements");
  static_assert(!std::same_as<T, e4m3> && !std::same_as<T, e5m2>,
                "Vec: fp8 elements are storage only; convert to f16 / bf16 / f32 to compute");
}
} // namespace detail

template <ElemType T, int N>
Vec<T, N> operator+(const Vec<T, N>& a, const Vec<T, N>& b) {
  detail::require_arith_elem<T>();
  return Vec<T, N>(KernelBuilder::current("add").ops().add(a.ir(), b.ir()));
}
template <ElemType T, int N>
Vec<T, N> operator-(const Vec<T, N>& a, const Vec<T, N>& b) {
  detail::require_arith_elem<T>();
  return Vec<T, N>(KernelBuilder::current("sub").ops().sub(a.ir(), b.ir()));
}
template <ElemType T, int N>
Vec<T, N> operator*(const Vec<T, N>& a, const Vec<T, N>& b) {
  detail::require_arith_elem<T>();
  return Vec<T, N>(KernelBuilder::current("mul").ops().mul(a.ir(), b.ir()));
}
// Floats: IEEE maxNum / minNum (a NaN operand yields the other); ints: signed (unsigned for
// unsigned element types).
template <ElemType T, int N>
Vec<T, N> max(const Vec<T, N>& a, const Vec<T, N>& b) {
  detail::require_arith_elem<T>();
  ir::OpBuilder& ob = KernelBuilder::current("max").ops();
  return Vec<T, N>(T::kind == ElemKind::uint ? ob.max_u(a.ir(), b.ir()) : ob.max(a.ir(), b.ir()));
}
template <ElemType T, int N>
Vec<T, N> min(const Vec<T, N>& a, const Vec<T, N>& b) {
  detail::require_arith_elem<T>();
  ir::OpBuilder& ob = KernelBuilder::current("min").ops();
  return Vec<T, N>(T::kind == ElemKind::uint ? ob.min_u(a.ir(), b.ir()) : ob.min(a.ir(), b.ir()));
}
// a * b + c with one rounding (bf16: one f32 rounding, then RNE to bf16).
template <FloatElem T, int N>
Vec<T, N> fma(const Vec<T, N>& a, const Vec<T, N>& b, const Vec<T, N>& c) {
  detail::require_arith_elem<T>();
  return Vec<T, N>(KernelBuilder::current("fma").ops().fma(a.ir(), b.ir(), c.ir()));
}

// Element type conversion of a whole vector, rounding to nearest even (float -> float).
template <FloatElem U, FloatElem T, int N>
Vec<U, N> convert(const Vec<T, N>& x) {
  if constexpr (std::same_as<T, U>)
    return x;
  else
    return Vec<U, N>(KernelBuilder::current("convert").ops().cvt(Vec<U, N>::type(), x.ir()));
}

namespace detail {
// The hardware transcendental `op` on f32 / f16 elements (v_exp_f32 / v_exp_f16, ...), and on
// bf16 through f32: exact widening, the f32 instruction, RNE back to bf16.
template <FloatElem T, int N>
Vec<T, N> hw_math(ir::Opcode op, const Vec<T, N>& a) {
  require_arith_elem<T>();
  ir::OpBuilder& ob = KernelBuilder::current(ir::opcode_name(op).data()).ops();
  if constexpr (std::same_as<T, bf16>)
    return convert<bf16>(Vec<f32, N>(ob.unary(op, convert<f32>(a).ir())));
  else
    return Vec<T, N>(ob.unary(op, a.ir()));
}
} // namespace detail

// 2^x per element: v_exp_f32 / v_exp_f16 (about 1 ulp; the emulator rounds the exact value);
// bf16 through v_exp_f32.
template <FloatElem T, int N>
Vec<T, N> exp2(const Vec<T, N>& a) {
  return detail::hw_math(ir::Opcode::exp2, a);
}
// 1 / x per element: v_rcp_f32 / v_rcp_f16 (about 1 ulp); bf16 through v_rcp_f32.
template <FloatElem T, int N>
Vec<T, N> rcp(const Vec<T, N>& a) {
  return detail::hw_math(ir::Opcode::rcp, a);
}

} // namespace tw::dsl
