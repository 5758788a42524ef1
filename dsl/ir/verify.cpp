#include <atoms/mma/gfx12_instrs.hpp>
#include <dsl/ir/verify.hpp>
#include <dsl/ir/wmma_types.hpp>

#include <cctype>
#include <string_view>
#include <vector>

namespace tw::ir {

std::string op_label(const Op& op) {
  std::string s(opcode_name(op.opcode));
  if (op.opcode == Opcode::wmma || op.opcode == Opcode::swmmac)
    s += " " + op.attrs.atom;
  return s;
}

namespace {

std::string ty(Type t) {
  return to_string(t);
}

bool is_arith(Type t) {
  return t.valid() && (t.is_int() || t.is_float()) && type_error(t).empty();
}
bool is_32bit_scalar(Type t) {
  return t.is_scalar() && (t.is_int(32) || t.kind() == TypeKind::f32);
}
bool is_memory_value(Type t) {
  if (!t.valid() || !type_error(t).empty() || t.is_ptr() || t.is_buffer_rsrc() || t.is_bool())
    return false;
  if (t.is_vector() && t.is_int(1))
    return false;
  const int b = t.bits();
  return b == 8 || b == 16 || b == 32 || b == 64 || b == 96 || b == 128;
}

// Checks one op; a returned non-empty string is the reason it is malformed.
class OpChecker {
public:
  OpChecker(const Kernel& k, const Op& op) : k_(k), op_(op) {}

  std::string run() {
    for (std::size_t i = 0; i < op_.operands.size(); ++i)
      if (!op_.operands[i].valid() || op_.operands[i].id >= k_.value_types.size())
        return "operand " + std::to_string(i) + " is not a value of kernel '" + k_.name + "'";
    for (std::size_t i = 0; i < op_.results.size(); ++i) {
      if (op_.results[i].id >= k_.value_types.size())
        return "result " + std::to_string(i) + " is not a value of kernel '" + k_.name + "'";
      if (std::string e = type_error(res(i)); !e.empty())
        return "result " + std::to_string(i) + ": " + e;
    }
    if (std::string e = check_restricted_types(); !e.empty())
      return e;
    return check();
  }

private:
  Type opd(std::size_t i) const { return k_.type_of(op_.operands[i]); }
  Type res(std::size_t i = 0) const { return k_.type_of(op_.results[i]); }

  std::string counts(std::size_t n_operands, std::size_t n_results) const {
    if (op_.operands.size() != n_operands)
      return "takes " + std::to_string(n_operands) + " operand(s), got " +
             std::to_string(op_.operands.size());
    if (op_.results.size() != n_results)
      return "has " + std::to_string(n_results) + " result(s), got " +
             std::to_string(op_.results.size());
    return "";
  }
  std::string result_is(Type expected) const {
    if (res() != expected)
      return "result has type " + ty(res()) + ", expected " + ty(expected);
    return "";
  }
  std::string same_operand_types() const {
    for (std::size_t i = 1; i < op_.operands.size(); ++i)
      if (opd(i) != opd(0))
        return "operand " + std::to_string(i) + " has type " + ty(opd(i)) + ", expected " +
               ty(opd(0)) + " (the type of operand 0)";
    return "";
  }

  // Elementwise op over operands of one type accepted by `ok`; result of the same type.
  template <class Pred>
  std::string elementwise(std::size_t n, Pred ok, const char* what) const {
    if (auto e = counts(n, 1); !e.empty())
      return e;
    if (!ok(opd(0)))
      return "operand 0 has type " + ty(opd(0)) + ", expected " + what;
    if (auto e = same_operand_types(); !e.empty())
      return e;
    return result_is(opd(0));
  }

  // i1 is a boolean and packed int4 vectors are register / memory containers: both accept only
  // a few ops (this keeps the two emitters' meanings identical without odd-width arithmetic).
  std::string check_restricted_types() const {
    const Opcode o = op_.opcode;
    auto any_is = [&](auto pred) {
      for (std::size_t i = 0; i < op_.operands.size(); ++i)
        if (pred(opd(i)))
          return true;
      for (std::size_t i = 0; i < op_.results.size(); ++i)
        if (pred(res(i)))
          return true;
      return false;
    };
    const bool packed_ok = o == Opcode::bitcast || o == Opcode::load || o == Opcode::store ||
                           o == Opcode::buffer_load || o == Opcode::buffer_store ||
                           o == Opcode::select || o == Opcode::wmma || o == Opcode::swmmac ||
                           o == Opcode::for_ || o == Opcode::if_ || o == Opcode::yield;
    if (!packed_ok && any_is([](Type t) { return t.is_vector() && t.is_int(4); }))
      return "packed int4 vectors only take part in bitcast, load / store, buffer load / store, "
             "select, for / if values and wmma / swmmac operands (bitcast to i32 lanes to "
             "compute on them)";
    const bool arith =
        o == Opcode::add || o == Opcode::sub || o == Opcode::mul || o == Opcode::div_s ||
        o == Opcode::div_u || o == Opcode::rem_s || o == Opcode::rem_u || o == Opcode::neg ||
        o == Opcode::abs || o == Opcode::min || o == Opcode::max || o == Opcode::min_u ||
        o == Opcode::max_u || o == Opcode::shl || o == Opcode::shr_u || o == Opcode::shr_s;
    if (!op_.operands.empty() && opd(0).is_bool()) {
      if (arith)
        return "i1 is a boolean: it takes and, or, xor, not, select and cmp eq / ne, not " +
               std::string(opcode_name(o));
      if (o == Opcode::cmp && op_.attrs.pred != CmpPred::eq && op_.attrs.pred != CmpPred::ne)
        return "i1 is a boolean: cmp on i1 takes eq or ne only";
    }
    if (o == Opcode::bitcast) {
      auto odd = [](Type t) {
        return t.is_int() && !t.is_vector() && t.elem_bits() != 8 && t.elem_bits() != 16 &&
               t.elem_bits() != 32 && t.elem_bits() != 64;
      };
      if (odd(opd(0)) || odd(res()))
        return "bitcast takes types of 8, 16, 32 or 64-bit elements (or packed int4 vectors), "
               "got " +
               ty(opd(0)) + " -> " + ty(res());
    }
    return "";
  }

  std::string check() const {
    const Attrs& a = op_.attrs;
    auto any_arith = [](Type t) { return is_arith(t); };
    auto int_only = [](Type t) { return is_arith(t) && t.is_int(); };
    auto float_only = [](Type t) { return is_arith(t) && t.is_float(); };
    auto f32_only = [](Type t) { return t.kind() == TypeKind::f32 && type_error(t).empty(); };
    auto i32_only = [](Type t) { return is_arith(t) && t.is_int(32); };
    auto f32_or_f16 = [](Type t) {
      return (t.kind() == TypeKind::f32 || t.kind() == TypeKind::f16) && type_error(t).empty();
    };
    switch (op_.opcode) {
    case Opcode::const_int:
      if (auto e = counts(0, 1); !e.empty())
        return e;
      if (!res().is_scalar() || !res().is_int())
        return "result has type " + ty(res()) + ", expected a scalar integer";
      return "";
    case Opcode::const_float:
      if (auto e = counts(0, 1); !e.empty())
        return e;
      if (res().is_scalar() && res().is_fp8()) { // a storage code: the value must be one
        if (!fp8_constant(res(), op_.attrs.float_value).exact)
          return "value " + std::to_string(op_.attrs.float_value) +
                 " is not exactly representable as " + ty(res());
        return "";
      }
      if (!res().is_scalar() || !res().is_float())
        return "result has type " + ty(res()) + ", expected f16, bf16, f32, e4m3 or e5m2";
      return "";
    case Opcode::add:
    case Opcode::sub:
    case Opcode::mul:
    case Opcode::min:
    case Opcode::max:
      return elementwise(2, any_arith, "an integer or float (scalar or vector)");
    case Opcode::div:
      return elementwise(2, float_only, "a float (f16, bf16, f32, scalar or vector)");
    case Opcode::div_s:
    case Opcode::div_u:
    case Opcode::rem_s:
    case Opcode::rem_u:
    case Opcode::min_u:
    case Opcode::max_u:
    case Opcode::and_:
    case Opcode::or_:
    case Opcode::xor_:
    case Opcode::shl:
    case Opcode::shr_u:
    case Opcode::shr_s:
      return elementwise(2, int_only, "an integer (scalar or vector)");
    case Opcode::neg:
    case Opcode::abs:
      return elementwise(1, any_arith, "an integer or float (scalar or vector)");
    case Opcode::not_:
      return elementwise(1, int_only, "an integer (scalar or vector)");
    case Opcode::mul_hi_u:
      return elementwise(2, i32_only, "i32 (scalar or vector)");
    case Opcode::fma:
      return elementwise(3, float_only, "a float (f16, bf16, f32, scalar or vector)");
    case Opcode::exp2:
    case Opcode::rcp:
      return elementwise(1, f32_or_f16, "f32 or f16 (scalar or vector; bf16 goes through f32)");
    case Opcode::log2:
    case Opcode::rsqrt:
    case Opcode::sqrt:
    case Opcode::tanh:
      return elementwise(1, f32_only, "f32 (scalar or vector)");
    case Opcode::cmp: {
      if (auto e = counts(2, 1); !e.empty())
        return e;
      if (!opd(0).is_scalar() || !is_arith(opd(0)))
        return "operand 0 has type " + ty(opd(0)) + ", expected a scalar integer or float";
      if (auto e = same_operand_types(); !e.empty())
        return e;
      const bool unsigned_pred = a.pred == CmpPred::ult || a.pred == CmpPred::ule ||
                                 a.pred == CmpPred::ugt || a.pred == CmpPred::uge;
      if (unsigned_pred && !opd(0).is_int())
        return std::string("predicate ") + std::string(to_string(a.pred)) +
               " is unsigned and needs integer operands, got " + ty(opd(0));
      return result_is(Type::i1());
    }
    case Opcode::select:
      if (auto e = counts(3, 1); !e.empty())
        return e;
      if (opd(0) != Type::i1())
        return "condition (operand 0) has type " + ty(opd(0)) + ", expected i1";
      if (opd(1) != opd(2))
        return "operands 1 and 2 differ: " + ty(opd(1)) + " vs " + ty(opd(2));
      return result_is(opd(1));
    case Opcode::trunc:
    case Opcode::zext:
    case Opcode::sext: {
      if (auto e = counts(1, 1); !e.empty())
        return e;
      const Type from = opd(0), to = res();
      if (!from.is_int() || !to.is_int() || from.lanes() != to.lanes())
        return "converts " + ty(from) + " to " + ty(to) +
               ": both must be integers with the same lane count";
      const bool narrower = to.elem_bits() < from.elem_bits();
      if (op_.opcode == Opcode::trunc ? !narrower : to.elem_bits() <= from.elem_bits())
        return "converts " + ty(from) + " to " + ty(to) + ": the result must be " +
               (op_.opcode == Opcode::trunc ? "narrower" : "wider") + " than the operand";
      return "";
    }
    case Opcode::bitcast:
      if (auto e = counts(1, 1); !e.empty())
        return e;
      if (opd(0).is_ptr() || opd(0).is_buffer_rsrc() || res().is_ptr() || res().is_buffer_rsrc())
        return "cannot bitcast " + ty(opd(0)) + " to " + ty(res()) +
               " (pointers and buffer resources are not bit patterns here)";
      if (opd(0).bits() != res().bits())
        return "cannot bitcast " + ty(opd(0)) + " (" + std::to_string(opd(0).bits()) +
               " bits) to " + ty(res()) + " (" + std::to_string(res().bits()) + " bits)";
      return "";
    case Opcode::cvt:
      return check_cvt();
    case Opcode::splat:
      if (auto e = counts(1, 1); !e.empty())
        return e;
      if (!opd(0).is_scalar() || opd(0).is_ptr() || opd(0).is_buffer_rsrc())
        return "operand has type " + ty(opd(0)) + ", expected a scalar int, float or fp8";
      if (!res().is_vector() || res().element() != opd(0))
        return "result has type " + ty(res()) + ", expected a vector of " + ty(opd(0));
      return "";
    case Opcode::build_vector:
      if (op_.operands.size() < 2 || op_.results.size() != 1)
        return "takes at least 2 scalar operands and has 1 result";
      if (!opd(0).is_scalar() || opd(0).is_ptr() || opd(0).is_buffer_rsrc())
        return "operand 0 has type " + ty(opd(0)) + ", expected a scalar int, float or fp8";
      if (auto e = same_operand_types(); !e.empty())
        return e;
      return result_is(Type::vec(opd(0), static_cast<int>(op_.operands.size())));
    case Opcode::extract:
    case Opcode::insert: {
      const bool ins = op_.opcode == Opcode::insert;
      if (auto e = counts(ins ? 2 : 1, 1); !e.empty())
        return e;
      if (!opd(0).is_vector())
        return "operand 0 has type " + ty(opd(0)) + ", expected a vector";
      if (a.index < 0 || a.index >= opd(0).lanes())
        return "index " + std::to_string(a.index) + " is outside 0.." +
               std::to_string(opd(0).lanes() - 1) + " of " + ty(opd(0));
      if (ins && opd(1) != opd(0).element())
        return "inserted value has type " + ty(opd(1)) + ", expected " + ty(opd(0).element());
      return result_is(ins ? opd(0) : opd(0).element());
    }
    case Opcode::slice:
      if (auto e = counts(1, 1); !e.empty())
        return e;
      if (!opd(0).is_vector())
        return "operand 0 has type " + ty(opd(0)) + ", expected a vector";
      if (res().element() != opd(0).element())
        return "result has type " + ty(res()) + ", expected elements of " + ty(opd(0).element());
      if (a.index < 0 || a.index + res().lanes() > opd(0).lanes())
        return "lanes [" + std::to_string(a.index) + ", " +
               std::to_string(a.index + res().lanes()) + ") are outside " + ty(opd(0));
      return "";
    case Opcode::concat: {
      if (op_.operands.size() < 2 || op_.results.size() != 1)
        return "takes at least 2 operands and has 1 result";
      int lanes = 0;
      for (std::size_t i = 0; i < op_.operands.size(); ++i) {
        if (opd(i).element() != opd(0).element() || opd(i).is_ptr() || opd(i).is_buffer_rsrc())
          return "operand " + std::to_string(i) + " has type " + ty(opd(i)) +
                 ", expected elements of " + ty(opd(0).element());
        lanes += opd(i).lanes();
      }
      return result_is(Type::vec(opd(0).element(), lanes));
    }
    case Opcode::ptr_add:
      if (auto e = counts(2, 1); !e.empty())
        return e;
      if (!opd(0).is_ptr())
        return "operand 0 has type " + ty(opd(0)) + ", expected a pointer";
      if (!opd(1).is_scalar() ||
          (opd(0).is_ptr(AddrSpace::lds) ? !opd(1).is_int(32)
                                         : !(opd(1).is_int(32) || opd(1).is_int(64))))
        return "byte offset has type " + ty(opd(1)) + ", expected " +
               (opd(0).is_ptr(AddrSpace::lds) ? "i32 (LDS pointers are 32-bit)" : "i32 or i64");
      return result_is(opd(0));
    case Opcode::int_to_ptr:
      if (auto e = counts(1, 1); !e.empty())
        return e;
      if (!opd(0).is_scalar() || !opd(0).is_int(64))
        return "address has type " + ty(opd(0)) + ", expected i64";
      return result_is(Type::ptr(AddrSpace::global));
    case Opcode::load:
    case Opcode::store: {
      const bool st = op_.opcode == Opcode::store;
      if (auto e = counts(st ? 2 : 1, st ? 0 : 1); !e.empty())
        return e;
      if (!opd(0).is_ptr())
        return "address has type " + ty(opd(0)) + ", expected a pointer";
      if (st && opd(0).is_ptr(AddrSpace::constant))
        return "cannot store through ptr<constant> (the constant address space is read-only)";
      const Type v = st ? opd(1) : res();
      if (!is_memory_value(v))
        return std::string(st ? "stored value" : "loaded type") + " " + ty(v) +
               " is not a memory value: widths are 8, 16, 32, 64, 96 or 128 bits of ints, "
               "floats or fp8 (no i1)";
      if (a.align != 0 && ((a.align & (a.align - 1)) != 0 || a.align > 16))
        return "align " + std::to_string(a.align) + " must be 0 (natural) or a power of two <= 16";
      return "";
    }
    case Opcode::global_load_tr: {
      if (auto e = counts(1, 1); !e.empty())
        return e;
      if (!opd(0).is_ptr(AddrSpace::global))
        return "address has type " + ty(opd(0)) +
               ", expected ptr<global> (the transpose loads "
               "are global_load_tr_b64 / _b128)";
      const Type r = res();
      if (r.lanes() != 8 || r.is_bool() || !(r.elem_bits() == 16 || r.elem_bits() == 8) ||
          !type_error(r).empty())
        return "loaded type " + ty(r) +
               " must be 8 elements of 16 bits (global_load_tr_b128: "
               "f16, bf16, i16) or of 8 bits (global_load_tr_b64: i8, e4m3, e5m2)";
      return "";
    }
    case Opcode::lds_ptr:
      if (auto e = counts(0, 1); !e.empty())
        return e;
      if (a.index < 0 || a.index >= k_.lds_bytes)
        return "byte offset " + std::to_string(a.index) + " is outside the kernel's LDS block of " +
               std::to_string(k_.lds_bytes) + " bytes (set Kernel::lds_bytes)";
      return result_is(Type::ptr(AddrSpace::lds));
    case Opcode::buffer_rsrc:
      if (auto e = counts(2, 1); !e.empty())
        return e;
      if (!opd(0).is_ptr(AddrSpace::global))
        return "base has type " + ty(opd(0)) + ", expected ptr<global>";
      if (opd(1) != Type::i32())
        return "num_records has type " + ty(opd(1)) + ", expected i32 (bytes)";
      return result_is(Type::buffer_rsrc());
    case Opcode::buffer_load:
    case Opcode::buffer_store: {
      const bool st = op_.opcode == Opcode::buffer_store;
      // A load takes an optional third operand, the scalar (soffset) byte offset.
      const bool scalar_offset = !st && op_.operands.size() == 3;
      if (!st && op_.operands.size() != 2 && op_.operands.size() != 3)
        return "takes 2 operands (rsrc, byte offset) or 3 (and a scalar byte offset), got " +
               std::to_string(op_.operands.size());
      if (auto e = counts(st || scalar_offset ? 3 : 2, st ? 0 : 1); !e.empty())
        return e;
      if (!opd(0).is_buffer_rsrc())
        return "operand 0 has type " + ty(opd(0)) + ", expected buffer_rsrc";
      if (opd(1) != Type::i32())
        return "byte offset has type " + ty(opd(1)) + ", expected i32";
      if (scalar_offset && opd(2) != Type::i32())
        return "scalar byte offset has type " + ty(opd(2)) + ", expected i32";
      const Type v = st ? opd(2) : res();
      if (!is_memory_value(v))
        return std::string(st ? "stored value" : "loaded type") + " " + ty(v) +
               " is not a memory value: widths are 8, 16, 32, 64, 96 or 128 bits of ints, "
               "floats or fp8 (no i1)";
      return "";
    }
    case Opcode::workitem_id:
    case Opcode::workgroup_id:
    case Opcode::workgroup_size:
    case Opcode::lane_id:
    case Opcode::wave_id:
      if (auto e = counts(0, 1); !e.empty())
        return e;
      return result_is(Type::i32());
    case Opcode::bpermute:
      if (auto e = counts(2, 1); !e.empty())
        return e;
      if (opd(0) != Type::i32())
        return "byte address has type " + ty(opd(0)) + ", expected i32";
      if (!is_32bit_scalar(opd(1)))
        return "value has type " + ty(opd(1)) + ", expected i32 or f32 (lane ops move 32 bits)";
      return result_is(opd(1));
    case Opcode::permlane16:
    case Opcode::permlanex16:
      if (auto e = counts(3, 1); !e.empty())
        return e;
      if (!is_32bit_scalar(opd(0)))
        return "value has type " + ty(opd(0)) + ", expected i32 or f32 (lane ops move 32 bits)";
      if (opd(1) != Type::i32() || opd(2) != Type::i32())
        return "lane selects (operands 1, 2) must be i32, got " + ty(opd(1)) + ", " + ty(opd(2));
      return result_is(opd(0));
    case Opcode::dpp: {
      if (auto e = counts(2, 1); !e.empty())
        return e;
      if (!is_32bit_scalar(opd(1)))
        return "value has type " + ty(opd(1)) + ", expected i32 or f32 (lane ops move 32 bits)";
      if (opd(0) != opd(1))
        return "old (operand 0) has type " + ty(opd(0)) + ", expected " + ty(opd(1));
      const DppCtrl c = a.dpp;
      const bool shift =
          c.kind == DppKind::row_shl || c.kind == DppKind::row_shr || c.kind == DppKind::row_ror;
      if (shift && (c.arg < 1 || c.arg > 15))
        return to_string(c) + ": the shift must be 1..15";
      if ((c.kind == DppKind::row_share || c.kind == DppKind::row_xmask) && c.arg > 15)
        return to_string(c) + ": the lane / mask must be 0..15";
      if (a.row_mask > 0xF || a.bank_mask > 0xF)
        return "row_mask / bank_mask must be 4-bit masks, got " + std::to_string(a.row_mask) +
               " / " + std::to_string(a.bank_mask);
      return result_is(opd(1));
    }
    case Opcode::readfirstlane:
      if (auto e = counts(1, 1); !e.empty())
        return e;
      if (!is_32bit_scalar(opd(0)))
        return "value has type " + ty(opd(0)) + ", expected i32 or f32 (lane ops move 32 bits)";
      return result_is(opd(0));
    case Opcode::wmma:
    case Opcode::swmmac:
      return check_mma();
    case Opcode::barrier:
      return counts(0, 0);
    case Opcode::sched_barrier:
      if (op_.attrs.int_value < 0 || op_.attrs.int_value > sched_barrier_mask_all)
        return "mask " + std::to_string(op_.attrs.int_value) +
               " has bits outside 0x7ff (the instruction kinds of dsl/ir/README.md)";
      return counts(0, 0);
    case Opcode::wait_lds:
    case Opcode::wait_global:
      if (op_.attrs.int_value < 0 || op_.attrs.int_value > wait_count_max)
        return "count " + std::to_string(op_.attrs.int_value) +
               " is outside 0..63 (the gfx12 DScnt / LOADcnt range)";
      return counts(0, 0);
    case Opcode::for_:
      return check_for();
    case Opcode::if_:
      return check_if();
    case Opcode::yield:
      return op_.results.empty() ? "" : "a yield has no results";
    }
    return "unknown opcode " + std::to_string(static_cast<int>(op_.opcode));
  }

  std::string check_cvt() const {
    const Attrs& a = op_.attrs;
    const bool sr = a.rounding == Rounding::stochastic;
    if (auto e = counts(sr ? 2 : 1, 1); !e.empty())
      return sr ? e + " (stochastic rounding takes the value and i32 random bits)" : e;
    const Type from = opd(0), to = res();
    const std::string conv = ty(from) + " -> " + ty(to);
    if (from.lanes() != to.lanes())
      return conv + ": operand and result must have the same lane count";
    const bool from_num = from.is_int() || from.is_float() || from.is_fp8();
    const bool to_num = to.is_int() || to.is_float() || to.is_fp8();
    if (!from_num || !to_num || from.is_int(4) || to.is_int(4) || from.is_bool() || to.is_bool())
      return conv + ": cvt converts between ints (8..64 bits), f16, bf16, f32, e4m3 and e5m2";
    if (from.is_int() && to.is_int())
      return conv + ": int to int is trunc / zext / sext, not cvt";
    if (a.is_unsigned && !from.is_int() && !to.is_int())
      return conv + ": the unsigned flag needs an integer operand or result";
    if (from == to)
      return conv + ": converts a type to itself";
    const std::string rnd(to_string(a.rounding));
    if (to.is_fp8()) {
      if (from.kind() != TypeKind::f32)
        return conv + ": fp8 results are converted from f32 only";
      if (a.rounding == Rounding::rtz)
        return conv + ": rounding rtz is not available for fp8 (use rne or stochastic)";
      if (sr && opd(1) != Type::vec(Type::i32(), from.lanes()))
        return conv + ": random bits have type " + ty(opd(1)) + ", expected " +
               ty(Type::vec(Type::i32(), from.lanes()));
      return "";
    }
    if (sr)
      return conv + ": stochastic rounding is only for e4m3 / e5m2 results";
    if (from.is_fp8() && to.kind() != TypeKind::f32)
      return conv + ": fp8 values convert to f32 only";
    if (a.saturate &&
        !(from.is_float() && (to.kind() == TypeKind::f16 || to.kind() == TypeKind::bf16)))
      return conv + ": saturate applies to float -> f16 / bf16 / fp8 conversions only";
    if (to.is_int() && a.rounding != Rounding::rtz)
      return conv + ": float -> int conversions round toward zero: use rounding rtz (got " + rnd +
             ")";
    if (from.is_int() && a.rounding != Rounding::rne)
      return conv + ": int -> float conversions round to nearest even: use rne (got " + rnd + ")";
    return "";
  }

  std::string check_mma() const {
    const bool sparse_op = op_.opcode == Opcode::swmmac;
    if (auto e = counts(sparse_op ? 4 : 3, 1); !e.empty())
      return e;
    const atoms::MmaInstrInfo* info = atoms::find_mma_instr(op_.attrs.atom);
    if (!info)
      return "unknown matrix atom '" + op_.attrs.atom +
             "' (expected a gfx12 WMMA / SWMMAC mnemonic such as v_wmma_f32_16x16x16_f16)";
    if (info->sparse != sparse_op)
      return "atom " + op_.attrs.atom + " is " + (info->sparse ? "a SWMMAC" : "a dense WMMA") +
             " instruction: use the " + (info->sparse ? "swmmac" : "wmma") + " op";
    const MmaOperandTypes want = mma_operand_types(*info);
    const char* names[] = {"A", "B", "C"};
    const Type wants[] = {want.a, want.b, want.cd};
    for (int i = 0; i < 3; ++i)
      if (opd(i) != wants[i])
        return std::string("operand ") + names[i] + " has type " + ty(opd(i)) + ", expected " +
               ty(wants[i]);
    if (sparse_op && opd(3) != Type::i32())
      return "operand index has type " + ty(opd(3)) + ", expected i32";
    if (res() != want.cd)
      return "result has type " + ty(res()) + ", expected " + ty(want.cd);
    const MmaMods& m = op_.attrs.mma;
    const unsigned sup = info->modifiers;
    if ((m.a_signed || m.b_signed) && !(sup & atoms::kMmaSignedness))
      return "modifier a_signed / b_signed is only for iu8 / iu4 atoms";
    if (m.clamp && !(sup & atoms::kMmaClamp))
      return "modifier clamp is only for integer (iu8 / iu4) atoms";
    if (m.neg_lo > 7 || m.neg_hi > 7)
      return "modifiers neg_lo / neg_hi are 3-bit masks";
    if ((m.neg_lo & 3) != (m.neg_hi & 3))
      return "modifiers neg_lo and neg_hi must agree in bits 0-1 (negating A or B negates whole "
             "elements, both halves)";
    if (((m.neg_lo | m.neg_hi) & 3) && !(sup & atoms::kMmaNegAB))
      return "modifier neg_lo / neg_hi bits 0-1 (negate A / B) are only for f16 / bf16 atoms";
    if (((m.neg_lo | m.neg_hi) & 4) && !(sup & atoms::kMmaNegC))
      return "modifier neg_lo / neg_hi bit 2 (negate / abs of C) is not accepted by this atom";
    if (m.index_key != 0 && (!(sup & atoms::kMmaIndexKey) || m.index_key >= info->index_keys))
      return "modifier index_key " + std::to_string(m.index_key) + " is outside 0.." +
             std::to_string(info->index_keys > 0 ? info->index_keys - 1 : 0) + " for this atom";
    return "";
  }

  // A region's terminator: the yield whose operand types must be `want`.
  std::string check_yield(const Region& r, const std::vector<Type>& want, const char* where) const {
    if (r.ops.empty() || r.ops.back().opcode != Opcode::yield)
      return std::string(where) + " does not end with a yield";
    const Op& y = r.ops.back();
    if (y.operands.size() != want.size())
      return std::string(where) + " yields " + std::to_string(y.operands.size()) +
             " value(s), expected " + std::to_string(want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
      if (k_.type_of(y.operands[i]) != want[i])
        return std::string(where) + " yield " + std::to_string(i) + " has type " +
               ty(k_.type_of(y.operands[i])) + ", expected " + ty(want[i]);
    return "";
  }

  std::string check_for() const {
    if (op_.operands.size() < 3)
      return "takes lb, ub, step and the initial carried values";
    if (op_.regions.size() != 1)
      return "has one region (the body), got " + std::to_string(op_.regions.size());
    const Type iv = opd(0);
    if (!(iv == Type::i32() || iv == Type::i64()))
      return "lb has type " + ty(iv) + ", expected i32 or i64";
    if (opd(1) != iv || opd(2) != iv)
      return "lb, ub and step must have one type, got " + ty(opd(0)) + ", " + ty(opd(1)) + ", " +
             ty(opd(2));
    const std::size_t n = op_.operands.size() - 3;
    const Region& body = op_.regions[0];
    if (body.args.size() != n + 1)
      return "the body has " + std::to_string(body.args.size()) + " argument(s), expected " +
             std::to_string(n + 1) + " (induction variable + carried values)";
    if (k_.type_of(body.args[0]) != iv)
      return "the induction variable has type " + ty(k_.type_of(body.args[0])) + ", expected " +
             ty(iv);
    std::vector<Type> carried;
    for (std::size_t i = 0; i < n; ++i) {
      carried.push_back(opd(3 + i));
      if (k_.type_of(body.args[1 + i]) != carried.back())
        return "carried value " + std::to_string(i) + " has type " +
               ty(k_.type_of(body.args[1 + i])) + ", expected " + ty(carried.back());
    }
    if (op_.results.size() != n)
      return "has " + std::to_string(op_.results.size()) + " result(s), expected " +
             std::to_string(n) + " (one per carried value)";
    for (std::size_t i = 0; i < n; ++i)
      if (res(i) != carried[i])
        return "result " + std::to_string(i) + " has type " + ty(res(i)) + ", expected " +
               ty(carried[i]);
    return check_yield(body, carried, "the body");
  }

  std::string check_if() const {
    if (op_.operands.size() != 1)
      return "takes one operand (the i1 condition), got " + std::to_string(op_.operands.size());
    if (opd(0) != Type::i1())
      return "condition has type " + ty(opd(0)) + ", expected i1";
    if (op_.regions.size() != 2)
      return "has two regions (then, else), got " + std::to_string(op_.regions.size());
    std::vector<Type> want;
    for (std::size_t i = 0; i < op_.results.size(); ++i)
      want.push_back(res(i));
    if (!op_.regions[0].args.empty() || !op_.regions[1].args.empty())
      return "if regions take no arguments";
    if (auto e = check_yield(op_.regions[0], want, "the then-region"); !e.empty())
      return e;
    return check_yield(op_.regions[1], want, "the else-region");
  }

  const Kernel& k_;
  const Op& op_;
};

// The kernel name becomes a C++ function name in the HIP source and a code object symbol.
bool is_cpp_keyword(std::string_view n) {
  static constexpr std::string_view words[] = {
      "alignas",      "alignof",      "asm",         "auto",
      "bool",         "break",        "case",        "catch",
      "char",         "class",        "const",       "consteval",
      "constexpr",    "constinit",    "continue",    "decltype",
      "default",      "delete",       "do",          "double",
      "else",         "enum",         "explicit",    "export",
      "extern",       "false",        "float",       "for",
      "friend",       "goto",         "if",          "inline",
      "int",          "long",         "mutable",     "namespace",
      "new",          "noexcept",     "nullptr",     "operator",
      "private",      "protected",    "public",      "register",
      "requires",     "return",       "short",       "signed",
      "sizeof",       "static",       "struct",      "switch",
      "template",     "this",         "throw",       "true",
      "try",          "typedef",      "typeid",      "typename",
      "union",        "unsigned",     "using",       "virtual",
      "void",         "volatile",     "while",       "char8_t",
      "char16_t",     "char32_t",     "wchar_t",     "concept",
      "co_await",     "co_return",    "co_yield",    "static_assert",
      "thread_local", "dynamic_cast", "static_cast", "reinterpret_cast",
      "const_cast"};
  for (std::string_view w : words)
    if (n == w)
      return true;
  return false;
}

// Walks the kernel in print order: numbers ops, checks each, and checks that every operand is
// defined before it is used in an enclosing scope and that every value is defined once.
class Walker {
public:
  explicit Walker(const Kernel& k) : k_(k), defined_(k.value_types.size(), 0) {}

  void run() {
    check_kernel();
    for (const KernelArg& a : k_.args)
      define(a.value, "kernel argument '" + a.name + "'");
    region(k_.body, /*top=*/true);
  }

private:
  [[noreturn]] void fail_kernel(const std::string& why) const {
    throw VerifyError("ir.verify: kernel '" + k_.name + "': " + why);
  }
  [[noreturn]] void fail_op(std::size_t n, const Op& op, const std::string& why) const {
    throw VerifyError("ir.verify: op #" + std::to_string(n) + " '" + op_label(op) + "': " + why);
  }

  void check_kernel() const {
    if (k_.name.empty())
      fail_kernel("the kernel has no name");
    for (char c : k_.name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
        fail_kernel("the name must be a C identifier (letters, digits, _)");
    if (std::isdigit(static_cast<unsigned char>(k_.name[0])))
      fail_kernel("the name must not start with a digit");
    if (k_.name.rfind("__", 0) == 0 || is_cpp_keyword(k_.name))
      fail_kernel("the name is reserved in C++ (a keyword or starting with __)");
    for (int d = 0; d < 3; ++d)
      if (k_.workgroup_size[d] < 1)
        fail_kernel("workgroup size " + std::to_string(k_.workgroup_size[d]) + " in dimension " +
                    std::to_string(d) + " must be >= 1");
    if (k_.flat_workgroup_size() > 1024)
      fail_kernel("workgroup of " + std::to_string(k_.flat_workgroup_size()) +
                  " threads exceeds the gfx12 limit of 1024");
    if (k_.lds_bytes < 0 || k_.lds_bytes > 65536)
      fail_kernel("lds_bytes " + std::to_string(k_.lds_bytes) +
                  " is outside 0..65536 (64 KiB per workgroup)");
    try {
      (void)kernarg_layout(k_);
    } catch (const std::invalid_argument& e) {
      fail_kernel(e.what());
    }
    for (std::size_t i = 0; i < k_.args.size(); ++i) {
      if (k_.args[i].value.id >= k_.value_types.size())
        fail_kernel("argument '" + k_.args[i].name + "' is not a value of this kernel");
      if (k_.type_of(k_.args[i].value) != k_.args[i].type)
        fail_kernel("argument '" + k_.args[i].name + "' is declared " + to_string(k_.args[i].type) +
                    " but its value has type " + to_string(k_.type_of(k_.args[i].value)));
    }
  }

  void define(Value v, const std::string& what) {
    if (v.id >= defined_.size())
      throw VerifyError("ir.verify: kernel '" + k_.name + "': " + what +
                        " is not a value of this kernel");
    if (defined_[v.id])
      throw VerifyError("ir.verify: kernel '" + k_.name + "': value %" + std::to_string(v.id) +
                        " (" + what + ") is defined twice");
    defined_[v.id] = 1;
    scope_.push_back(v.id);
  }

  void region(const Region& r, bool top) {
    const std::size_t mark = scope_.size();
    for (Value a : r.args)
      define(a, "region argument");
    for (std::size_t i = 0; i < r.ops.size(); ++i) {
      const Op& op = r.ops[i];
      const std::size_t n = counter_++;
      if (op.opcode == Opcode::yield && (top || i + 1 != r.ops.size()))
        fail_op(n, op,
                top ? "a yield outside a for / if region"
                    : "a yield must be the last op of its region");
      if (std::string why = OpChecker(k_, op).run(); !why.empty())
        fail_op(n, op, why);
      for (std::size_t j = 0; j < op.operands.size(); ++j)
        if (!live(op.operands[j]))
          fail_op(n, op,
                  "operand " + std::to_string(j) + " (%" + std::to_string(op.operands[j].id) +
                      ") is used before its definition or outside its region");
      for (const Region& sub : op.regions)
        region(sub, false);
      for (Value res : op.results)
        define(res, "result of op #" + std::to_string(n));
    }
    // Values of this region go out of scope.
    while (scope_.size() > mark) {
      live_out_.push_back(scope_.back());
      scope_.pop_back();
    }
    for (std::uint32_t id : live_out_)
      in_scope_erase(id);
    live_out_.clear();
  }

  bool live(Value v) const { return v.id < defined_.size() && defined_[v.id] == 1; }
  // Defined values leave scope (2 = defined once, no longer visible) so a later use is an error.
  void in_scope_erase(std::uint32_t id) { defined_[id] = 2; }

  const Kernel& k_;
  std::vector<char> defined_; // 0 = not yet, 1 = visible, 2 = out of scope
  std::vector<std::uint32_t> scope_;
  std::vector<std::uint32_t> live_out_;
  std::size_t counter_ = 0;
};

} // namespace

std::string check_op(const Kernel& k, const Op& op) {
  return OpChecker(k, op).run();
}

void verify(const Kernel& k) {
  Walker(k).run();
}

} // namespace tw::ir
