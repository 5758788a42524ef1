// Runs of elements between global memory and f32 registers (see typed_access.hpp).
#include <kernels/common/elem_dispatch.hpp>
#include <kernels/elementwise/typed_access.hpp>

#include <dsl/handles/convert.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tw::kernels::elementwise {

using namespace tw::dsl;

namespace {

// fn(Tag<E>{}) with the DSL element type of a dtype that moves as a whole byte or more.
template <class F>
decltype(auto) with_elem(DType t, F&& fn) {
  return with_elem_among<f32, f16, bf16, e4m3, e5m2, i8, u8, i32>(
      t, std::forward<F>(fn), [](DType d) {
        return "elementwise: dtype " + std::string(dtype_name(d)) +
               " cannot be moved as whole elements";
      });
}

template <class T>
Float32 to_f32(const Scalar<T>& v) {
  if constexpr (std::same_as<T, f32>)
    return v;
  else
    return cast<f32>(v);
}

template <class T>
Scalar<T> from_f32(const Float32& v) {
  if constexpr (std::same_as<T, f32>)
    return v;
  else if constexpr (std::same_as<T, e4m3> || std::same_as<T, e5m2>)
    return convert_rne<T>(v, /*saturate=*/true);
  else if constexpr (FloatElem<T>)
    return convert_rne<T>(v);
  else
    return cast<T>(cast<i32>(v));
}

template <class T>
GlobalPtr<T> typed(const AnyPtr& p) {
  return GlobalPtr<T>(p.base, elem_bytes<T>());
}

// Elements of one piece (the widest access of at most 16 bytes within a run of v).
int piece_elems(int v, int bytes) {
  return std::min(v, 16 / bytes);
}

template <class T, int P>
void load_piece(const GlobalPtr<T>& g, const Int64& off, Values& out) {
  if constexpr (P == 1) {
    out.push_back(to_f32(g.load(off)));
  } else if constexpr (T::bits == 8 && P % 4 == 0) {
    // Bytes move as 32-bit words: LLVM splits a byte vector's load into byte loads, and may sink
    // one of them into the block it shares with the run's masked tail path, which then reads
    // that byte a second time.
    const GlobalPtr<u32> words(g.address(off), P);
    const Vec<u32, P / 4> w = words.template load_vec<P / 4>(Int64(0), P);
    for (int j = 0; j < P; ++j) {
      const Scalar<u8> byte = cast<u8>(w[j / 4] >> UInt32(8 * (j % 4)));
      if constexpr (std::same_as<T, u8>)
        out.push_back(to_f32(byte));
      else
        out.push_back(to_f32(bit_cast<T>(byte)));
    }
  } else {
    const Vec<T, P> v = g.template load_vec<P>(off, P * elem_bytes<T>());
    for (int j = 0; j < P; ++j)
      out.push_back(to_f32(v[j]));
  }
}

template <class T, int P>
void store_piece(const GlobalPtr<T>& g, const Int64& off, const Values& x, std::size_t first) {
  if constexpr (P == 1) {
    g.store(off, from_f32<T>(x[first]));
  } else {
    std::array<Scalar<T>, P> e;
    for (int j = 0; j < P; ++j)
      e[j] = from_f32<T>(x[first + j]);
    g.template store_vec<P>(off, Vec<T, P>::from(e), P * elem_bytes<T>());
  }
}

// fn(std::integral_constant<int, P>) for the piece sizes 1 .. 16.
template <class F>
void with_piece(int p, F&& fn) {
  switch (p) {
  case 1:
    return fn(std::integral_constant<int, 1>{});
  case 2:
    return fn(std::integral_constant<int, 2>{});
  case 4:
    return fn(std::integral_constant<int, 4>{});
  case 8:
    return fn(std::integral_constant<int, 8>{});
  case 16:
    return fn(std::integral_constant<int, 16>{});
  default:
    throw std::invalid_argument("elementwise: a run of " + std::to_string(p) +
                                " elements is not a power of two up to 16");
  }
}

} // namespace

AnyPtr AnyPtr::offset(const Int64& elems) const {
  if (is_packed_int4(dtype))
    throw std::logic_error("AnyPtr::offset: packed int4 is addressed in bytes");
  const Int64 bytes = elems * Int64(elem_bytes());
  if (bytes.is_constant() && bytes.constant_value() == 0)
    return *this;
  return {KernelBuilder::current("AnyPtr::offset").ops().ptr_add(base, bytes.ir()), dtype};
}

AnyPtr any_ptr_arg(KernelBuilder& kb, const char* name, DType dtype) {
  return {kb.add_arg(name, ir::Type::ptr(ir::AddrSpace::global)), dtype};
}

Values load_run(const AnyPtr& p, const Int64& off, int v) {
  Values out;
  with_elem(p.dtype, [&]<class E>(Tag<E>) {
    using T = typename Tag<E>::type;
    const GlobalPtr<T> g = typed<T>(p);
    const int pe = piece_elems(v, elem_bytes<T>());
    with_piece(pe, [&]<int P>(std::integral_constant<int, P>) {
      for (int i = 0; i < v; i += P)
        load_piece<T, P>(g, off + Int64(i), out);
    });
  });
  return out;
}

void store_run(const AnyPtr& p, const Int64& off, const Values& x) {
  const int v = static_cast<int>(x.size());
  with_elem(p.dtype, [&]<class E>(Tag<E>) {
    using T = typename Tag<E>::type;
    const GlobalPtr<T> g = typed<T>(p);
    with_piece(piece_elems(v, elem_bytes<T>()), [&]<int P>(std::integral_constant<int, P>) {
      for (int i = 0; i < v; i += P)
        store_piece<T, P>(g, off + Int64(i), x, static_cast<std::size_t>(i));
    });
  });
}

Values load_tail(const AnyPtr& p, const Int64& off, int v, const Int64& count) {
  Values out;
  with_elem(p.dtype, [&]<class E>(Tag<E>) {
    using T = typename Tag<E>::type;
    for (int j = 0; j < v; ++j) {
      const Bool in_range = Int64(j) < count;
      if constexpr (std::same_as<T, e4m3> || std::same_as<T, e5m2>) {
        // fp8 reads its code as a byte (the masked zero is the code 0, i.e. +0).
        const Scalar<u8> code = typed<u8>(p).load(off + Int64(j), in_range);
        out.push_back(to_f32(bit_cast<T>(code)));
      } else {
        out.push_back(to_f32(typed<T>(p).load(off + Int64(j), in_range)));
      }
    }
  });
  return out;
}

void store_tail(const AnyPtr& p, const Int64& off, const Values& x, const Int64& count) {
  with_elem(p.dtype, [&]<class E>(Tag<E>) {
    using T = typename Tag<E>::type;
    const GlobalPtr<T> g = typed<T>(p);
    for (std::size_t j = 0; j < x.size(); ++j)
      g.store(off + Int64(static_cast<std::int64_t>(j)), from_f32<T>(x[j]),
              Int64(static_cast<std::int64_t>(j)) < count);
  });
}

Float32 load_one(const AnyPtr& p, const Int64& off) {
  Float32 r;
  with_elem(p.dtype,
            [&]<class E>(Tag<E>) { r = to_f32(typed<typename Tag<E>::type>(p).load(off)); });
  return r;
}

void store_one(const AnyPtr& p, const Int64& off, const Float32& x) {
  with_elem(p.dtype, [&]<class E>(Tag<E>) {
    using T = typename Tag<E>::type;
    typed<T>(p).store(off, from_f32<T>(x));
  });
}

Float32 round_to(DType dtype, const Float32& x) {
  Float32 r;
  with_elem(dtype, [&]<class E>(Tag<E>) {
    using T = typename Tag<E>::type;
    if constexpr (!FloatElem<T>)
      throw std::invalid_argument("round_to: dtype " + std::string(dtype_name(dtype)) +
                                  " is not a float format");
    else
      r = to_f32(from_f32<T>(x));
  });
  return r;
}

namespace {
struct ValuesCarrier { // Values as if_ results: one Float32 per element
  static Values as_values(const std::vector<ir::Value>& v) {
    Values out;
    for (ir::Value x : v)
      out.push_back(Float32(x));
    return out;
  }
};
} // namespace

Values load_run_or_tail(const AnyPtr& p, const Int64& off, int v, const Int64& end) {
  if (v == 1)
    return load_tail(p, off, 1, end - off);
  ir::OpBuilder& ob = KernelBuilder::current("load_run_or_tail").ops();
  const auto flatten = [](const Values& x) {
    std::vector<ir::Value> out;
    for (const Float32& f : x)
      out.push_back(f.ir());
    return out;
  };
  const Bool whole = off + Int64(v) <= end;
  const std::vector<ir::Value> r = ob.if_(
      whole.ir(), std::vector<ir::Type>(static_cast<std::size_t>(v), ir::Type::f32()),
      [&] { return flatten(load_run(p, off, v)); },
      [&] { return flatten(load_tail(p, off, v, end - off)); });
  return ValuesCarrier::as_values(r);
}

void store_run_or_tail(const AnyPtr& p, const Int64& off, const Values& x, const Int64& end) {
  const int v = static_cast<int>(x.size());
  if (v == 1)
    return store_tail(p, off, x, end - off);
  if_(
      off + Int64(v) <= end, [&] { store_run(p, off, x); },
      [&] { store_tail(p, off, x, end - off); });
}

} // namespace tw::kernels::elementwise
