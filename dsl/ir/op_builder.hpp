#pragma once
// OpBuilder: the low-level way to write IR. It appends ops at an insertion point (the kernel
// body, or the region of an open for / if), allocates result values with their types, and
// checks every op as it is built (the same rules as ir::verify), so a malformed op throws
// ir::VerifyError at the line that built it.
#include <cstdint>
#include <dsl/ir/kernel.hpp>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tw::ir {

class OpBuilder {
public:
  // Appends to k.body. The Kernel must outlive the builder.
  explicit OpBuilder(Kernel& k);

  Kernel& kernel() { return *kernel_; }
  Type type_of(Value v) const { return kernel_->type_of(v); }

  // A new kernel argument (appended to kernel().args) and its value.
  Value arg(std::string name, Type t);

  // --- constants ---------------------------------------------------------------------------
  Value const_int(Type t, std::int64_t v);
  Value const_float(Type t, double v);
  Value i32(std::int64_t v) { return const_int(Type::i32(), v); }
  Value i64(std::int64_t v) { return const_int(Type::i64(), v); }
  Value f32(double v) { return const_float(Type::f32(), v); }
  Value boolean(bool b) { return const_int(Type::i1(), b ? 1 : 0); }

  // --- arithmetic (result has the operand type) --------------------------------------------
  Value unary(Opcode op, Value a);
  Value binary(Opcode op, Value a, Value b);
  Value add(Value a, Value b) { return binary(Opcode::add, a, b); }
  Value sub(Value a, Value b) { return binary(Opcode::sub, a, b); }
  Value mul(Value a, Value b) { return binary(Opcode::mul, a, b); }
  Value div(Value a, Value b) { return binary(Opcode::div, a, b); }
  Value div_s(Value a, Value b) { return binary(Opcode::div_s, a, b); }
  Value div_u(Value a, Value b) { return binary(Opcode::div_u, a, b); }
  Value rem_s(Value a, Value b) { return binary(Opcode::rem_s, a, b); }
  Value rem_u(Value a, Value b) { return binary(Opcode::rem_u, a, b); }
  Value min(Value a, Value b) { return binary(Opcode::min, a, b); }
  Value max(Value a, Value b) { return binary(Opcode::max, a, b); }
  Value min_u(Value a, Value b) { return binary(Opcode::min_u, a, b); }
  Value max_u(Value a, Value b) { return binary(Opcode::max_u, a, b); }
  Value and_(Value a, Value b) { return binary(Opcode::and_, a, b); }
  Value or_(Value a, Value b) { return binary(Opcode::or_, a, b); }
  Value xor_(Value a, Value b) { return binary(Opcode::xor_, a, b); }
  Value shl(Value a, Value b) { return binary(Opcode::shl, a, b); }
  Value shr_u(Value a, Value b) { return binary(Opcode::shr_u, a, b); }
  Value shr_s(Value a, Value b) { return binary(Opcode::shr_s, a, b); }
  Value mul_hi_u(Value a, Value b) { return binary(Opcode::mul_hi_u, a, b); }
  Value neg(Value a) { return unary(Opcode::neg, a); }
  Value abs(Value a) { return unary(Opcode::abs, a); }
  Value not_(Value a) { return unary(Opcode::not_, a); }
  Value fma(Value a, Value b, Value c);

  // --- math (f32; exp2 / rcp also f16) ------------------------------------------------------
  Value exp2(Value a) { return unary(Opcode::exp2, a); }
  Value log2(Value a) { return unary(Opcode::log2, a); }
  Value rcp(Value a) { return unary(Opcode::rcp, a); }
  Value rsqrt(Value a) { return unary(Opcode::rsqrt, a); }
  Value sqrt(Value a) { return unary(Opcode::sqrt, a); }
  Value tanh(Value a) { return unary(Opcode::tanh, a); }

  // --- comparisons, select -----------------------------------------------------------------
  Value cmp(CmpPred p, Value a, Value b);
  Value select(Value cond, Value if_true, Value if_false);

  // --- conversions -------------------------------------------------------------------------
  Value trunc(Type to, Value a);
  Value zext(Type to, Value a);
  Value sext(Type to, Value a);
  Value bitcast(Type to, Value a);
  Value cvt(Type to, Value a, Rounding r = Rounding::rne, bool saturate = false);
  // int <-> float conversions treating the int as unsigned.
  Value cvt_unsigned(Type to, Value a, Rounding r = Rounding::rne);
  // Stochastic rounding to e4m3 / e5m2: `random_bits` (i32, or a vector of i32 per lane)
  // supplies the rounding noise.
  Value cvt_stochastic(Type to, Value a, Value random_bits, bool saturate = false);

  // --- vectors -----------------------------------------------------------------------------
  Value splat(Value scalar, int lanes);
  Value build_vector(std::span<const Value> elems);
  Value extract(Value vec, int index);
  Value insert(Value vec, Value scalar, int index);
  Value slice(Value vec, int first, int lanes);
  Value concat(std::span<const Value> vecs);

  // --- memory ------------------------------------------------------------------------------
  Value ptr_add(Value ptr, Value byte_offset);
  Value int_to_ptr(Value address); // i64 -> ptr<global>
  // align = 0: the natural alignment of `t` (README); widths: 8, 16, 32, 64, 96, 128 bits.
  Value load(Type t, Value ptr, std::uint32_t align = 0);
  void store(Value ptr, Value value, std::uint32_t align = 0);
  Value lds_ptr(std::int64_t byte_offset);
  Value buffer_rsrc(Value base, Value num_records);
  // The transpose load (README): t is <8 x f16 / bf16 / i16> or <8 x i8 / e4m3 / e5m2>.
  Value global_load_tr(Type t, Value ptr);
  Value buffer_load(Type t, Value rsrc, Value byte_offset);
  // With a wave-uniform scalar byte offset (the instruction's soffset, README).
  Value buffer_load(Type t, Value rsrc, Value byte_offset, Value scalar_offset);
  void buffer_store(Value rsrc, Value byte_offset, Value value);

  // --- ids ---------------------------------------------------------------------------------
  Value workitem_id(Dim d = Dim::x);
  Value workgroup_id(Dim d = Dim::x);
  Value workgroup_size(Dim d = Dim::x);
  Value lane_id();
  Value wave_id();

  // --- lane ops ----------------------------------------------------------------------------
  Value bpermute(Value byte_addr, Value value);
  Value permlane16(Value value, Value sel_lo, Value sel_hi);
  Value permlanex16(Value value, Value sel_lo, Value sel_hi);
  Value dpp(Value old, Value src, DppCtrl ctrl, int row_mask = 0xF, int bank_mask = 0xF,
            bool bound_ctrl = true);
  Value readfirstlane(Value value);

  // --- matrix (atom by mnemonic, e.g. "v_wmma_f32_16x16x16_f16"; result type = type of c) ---
  Value wmma(std::string_view atom, Value a, Value b, Value c, MmaMods mods = {});
  Value swmmac(std::string_view atom, Value a, Value b, Value c, Value index, MmaMods mods = {});

  // --- synchronisation ---------------------------------------------------------------------
  // lds_only: the fences order only LDS accesses (what an LDS stage exchange needs); without
  // it they order every address space, which costs a global_inv (L0 invalidate) on gfx12.
  void barrier(bool lds_only = false);
  // A scheduling fence for the compilers (no machine code): only the instruction kinds in
  // `mask` (SchedKind bits, README) may be moved across it; 0 keeps everything on its side.
  void sched_barrier(std::uint32_t mask = 0);
  // Waits of this wave until at most `count` (0..63) of its earlier LDS accesses (wait_lds:
  // s_wait_dscnt) / global and buffer loads (wait_global: s_wait_loadcnt) are outstanding.
  void wait_lds(int count);
  void wait_global(int count);

  // --- structured control flow -------------------------------------------------------------
  // for (iv = lb; iv < ub; iv += step) with loop-carried values. Either the scoped form:
  //   auto loop = b.begin_for(lb, ub, step, {acc0});   // loop.iv, loop.carried[0]
  //   ... build the body ...
  //   auto finals = b.end_for({next_acc});
  // or the callback form for_(...), whose body returns the next carried values.
  struct ForScope {
    Value iv;
    std::vector<Value> carried;
  };
  ForScope begin_for(Value lb, Value ub, Value step, std::vector<Value> inits = {});
  std::vector<Value> end_for(std::vector<Value> next = {});
  using ForBody = std::function<std::vector<Value>(Value iv, std::span<const Value> carried)>;
  std::vector<Value> for_(Value lb, Value ub, Value step, std::vector<Value> inits,
                          const ForBody& body);

  // if (cond) { then } else { else } with results of `result_types`:
  //   b.begin_if(c, {Type::f32()});  ...  b.begin_else({then_value});  ...
  //   auto r = b.end_if({else_value});
  // Without results, begin_else() may be skipped (the else region then holds only a yield).
  void begin_if(Value cond, std::vector<Type> result_types = {});
  void begin_else(std::vector<Value> then_results = {});
  std::vector<Value> end_if(std::vector<Value> results = {});
  using IfBody = std::function<std::vector<Value>()>;
  std::vector<Value> if_(Value cond, std::vector<Type> result_types, const IfBody& then_body,
                         const IfBody& else_body = {});

  // The generic form under every helper above: appends one op, creates its results.
  std::vector<Value> append(Opcode op, std::vector<Value> operands, std::vector<Type> results,
                            Attrs attrs = {});

  // True when no for / if is open (the kernel body is the insertion point).
  bool at_top_level() const { return frames_.size() == 1; }

private:
  struct Frame {
    Region* region;
    Op* owner;               // the open for_ / if_ (nullptr for the kernel body)
    int region_idx;          // which region of owner
    std::size_t scope_mark;  // scope_.size() when the region was opened
    std::uint32_t op_number; // number of the owner op in error messages
  };
  Value new_value(Type t); // a value visible in the current region
  void open_region(Region* r, Op* owner, int idx, std::uint32_t op_number);
  void close_scope(); // values of the innermost region stop being visible
  Value single(Opcode op, std::vector<Value> operands, Type result, Attrs attrs = {});
  void close_region(std::vector<Value> yields);

  Kernel* kernel_;
  std::vector<Frame> frames_;
  std::uint32_t op_count_ = 0; // ops built so far (numbering of error messages)
  std::vector<char> visible_;  // by value id: usable at the insertion point
  std::vector<std::uint32_t> scope_;
  std::vector<std::vector<Type>> pending_if_results_; // result types of the open ifs
};

} // namespace tw::ir
