#pragma once
// How IR types are spelled in the emitted HIP source. Integers are stored unsigned (signed
// meaning is applied by casts at the ops that need it, so wrap-around is never undefined
// behaviour); fp8 values are their bit patterns (unsigned char); packed int4 vectors are
// 32-bit words; vectors are clang ext_vector_type typedefs named tw_<elem>x<N>.
#include <dsl/ir/type.hpp>
#include <map>
#include <string>

namespace tw::emit::hip {

class HipTypes {
public:
  // The C type that holds a value of `t` (registers the typedef it needs).
  std::string storage(ir::Type t);
  // Like storage(), with the byte alignment lowered to `align` (for under-aligned accesses).
  std::string storage_aligned(ir::Type t, int align);
  // Signed counterpart of an integer storage type (scalar or vector).
  std::string signed_of(ir::Type t);
  // The unsigned type integer arithmetic on `t` is done in: unsigned int for 8..32-bit scalars
  // (no promotion to signed int), unsigned long long for 64-bit, the storage type otherwise.
  std::string arith_unsigned(ir::Type t);
  // A named ext_vector typedef of `lanes` elements of C type `elem` (spelled `short_name`),
  // optionally with a reduced alignment.
  std::string vector_typedef(const std::string& elem, const std::string& short_name, int lanes,
                             int align = 0);
  // Pointer spelling for an address space: `unsigned char` pointer with address_space(N).
  static std::string pointer(ir::AddrSpace s);
  // Pointer to `elem` in address space `s` (for typed loads / stores).
  static std::string pointer_to(const std::string& elem, ir::AddrSpace s);

  // All typedefs registered so far, one per line, in a stable order.
  std::string typedefs() const;

private:
  std::string scalar_storage(ir::Type t) const;
  std::map<std::string, std::string> typedefs_; // name -> definition line
};

} // namespace tw::emit::hip
