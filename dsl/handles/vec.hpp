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

// Element-wise arithmetic on whole vectors (one IR op for the vector).
template <ElemType T, int N>
Vec<T, N> operator+(const Vec<T, N>& a, const Vec<T, N>& b) {
  return Vec<T, N>(KernelBuilder::current("add").ops().add(a.ir(), b.ir()));
}
template <ElemType T, int N>
Vec<T, N> operator*(const Vec<T, N>& a, const Vec<T, N>& b) {
  return Vec<T, N>(KernelBuilder::current("mul").ops().mul(a.ir(), b.ir()));
}

} // namespace tw::dsl
