#pragma once
// Kernel argument specs for KernelBuilder::args:
//   gptr<T>("name")                 -> GlobalPtr<T>      (a pointer argument)
//   gtensor<T>(row_major, "name")   -> TensorArg<T>      (a pointer whose tensor gets its
//                                                         run-time shape with .shape(rows, cols))
//   scalar<T>("name") or T()        -> Scalar<T>         (a by-value argument, e.g. i64())
// Unnamed arguments are called arg<position>.
#include <string>

#include <dsl/tensor/global_tensor.hpp>

namespace tw::dsl {

namespace detail {
inline std::string arg_name(const char* name, int position) {
  return name && *name ? std::string(name) : "arg" + std::to_string(position);
}
} // namespace detail

template <ElemType T>
struct PtrArgSpec {
  const char* name = nullptr;
  int align = elem_bytes<T>(); // byte alignment the host guarantees
};
template <ElemType T>
constexpr PtrArgSpec<T> gptr(const char* name = nullptr, int align = elem_bytes<T>()) {
  return {name, align};
}

// A global tensor argument before its shape is known.
template <ElemType T>
class TensorArg {
public:
  TensorArg(GlobalPtr<T> ptr, Major major) : ptr_(ptr), major_(major) {}
  const GlobalPtr<T>& ptr() const { return ptr_; }
  Major major() const { return major_; }
  // The compact rows x cols tensor (leading dimension from the storage order), or with an
  // explicit leading dimension `ld`.
  GlobalTensor<T> shape(const Int64& rows, const Int64& cols) const {
    return make_tensor(ptr_, major_, rows, cols);
  }
  GlobalTensor<T> shape(const Int64& rows, const Int64& cols, const Int64& ld) const {
    return make_tensor(ptr_, major_, rows, cols, ld);
  }

private:
  GlobalPtr<T> ptr_;
  Major major_;
};

template <ElemType T>
struct TensorArgSpec {
  Major major = Major::row;
  const char* name = nullptr;
  int align = elem_bytes<T>();
};
template <ElemType T, class MajorTag>
constexpr TensorArgSpec<T> gtensor(MajorTag, const char* name = nullptr,
                                   int align = elem_bytes<T>()) {
  static_assert(std::same_as<MajorTag, RowMajorTag> || std::same_as<MajorTag, ColMajorTag>,
                "gtensor: the first argument is the storage order, row_major or col_major");
  return {MajorTag::major, name, align};
}

template <ElemType T>
struct ScalarArgSpec {
  const char* name = nullptr;
};
template <ElemType T>
constexpr ScalarArgSpec<T> scalar(const char* name) {
  return {name};
}

// ----- make_arg overloads (KernelBuilder::args) -----
template <ElemType T>
GlobalPtr<T> make_arg(KernelBuilder& kb, const PtrArgSpec<T>& s, int position) {
  return GlobalPtr<T>(
      kb.add_arg(detail::arg_name(s.name, position), ir::Type::ptr(ir::AddrSpace::global)),
      s.align);
}
template <ElemType T>
TensorArg<T> make_arg(KernelBuilder& kb, const TensorArgSpec<T>& s, int position) {
  return TensorArg<T>(GlobalPtr<T>(kb.add_arg(detail::arg_name(s.name, position),
                                              ir::Type::ptr(ir::AddrSpace::global)),
                                   s.align),
                      s.major);
}
template <ElemType T>
Scalar<T> make_arg(KernelBuilder& kb, const ScalarArgSpec<T>& s, int position) {
  static_assert(T::bits >= 8, "kernel arguments cannot be Bool (pass an i32 flag)");
  return Scalar<T>(kb.add_arg(detail::arg_name(s.name, position), ir_type<T>()));
}
template <ElemType T>
Scalar<T> make_arg(KernelBuilder& kb, const T&, int position) {
  return make_arg(kb, ScalarArgSpec<T>{}, position);
}

} // namespace tw::dsl
