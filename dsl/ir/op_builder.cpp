#include <dsl/ir/op_builder.hpp>
#include <dsl/ir/verify.hpp>
#include <utility>

namespace tw::ir {

OpBuilder::OpBuilder(Kernel& k) : kernel_(&k) {
  // Values already in the kernel (e.g. arguments added before the builder) stay usable.
  visible_.assign(k.value_types.size(), 1);
  frames_.push_back({&k.body, nullptr, 0, 0, 0});
}

Value OpBuilder::new_value(Type t) {
  kernel_->value_types.push_back(t);
  visible_.push_back(1);
  const auto id = static_cast<std::uint32_t>(kernel_->value_types.size() - 1);
  scope_.push_back(id);
  return Value{id};
}

void OpBuilder::open_region(Region* r, Op* owner, int idx, std::uint32_t op_number) {
  frames_.push_back({r, owner, idx, scope_.size(), op_number});
}

void OpBuilder::close_scope() {
  const std::size_t mark = frames_.back().scope_mark;
  while (scope_.size() > mark) {
    visible_[scope_.back()] = 0;
    scope_.pop_back();
  }
}

Value OpBuilder::arg(std::string name, Type t) {
  const Value v = new_value(t);
  kernel_->args.push_back({std::move(name), t, v});
  return v;
}

std::vector<Value> OpBuilder::append(Opcode opcode, std::vector<Value> operands,
                                     std::vector<Type> results, Attrs attrs) {
  Op op;
  op.opcode = opcode;
  op.operands = std::move(operands);
  op.attrs = std::move(attrs);
  for (Type t : results)
    op.results.push_back(new_value(t));
  for (std::size_t i = 0; i < op.operands.size(); ++i) {
    const Value v = op.operands[i];
    if (v.id < visible_.size() && !visible_[v.id])
      throw VerifyError("ir.verify: op #" + std::to_string(op_count_) + " '" + op_label(op) +
                        "': operand " + std::to_string(i) + " (%" + std::to_string(v.id) +
                        ") is used outside the region that defines it");
  }
  if (opcode == Opcode::for_)
    op.regions.resize(1);
  else if (opcode == Opcode::if_)
    op.regions.resize(2);
  // for_ / if_ are checked when they are closed (their regions are not built yet).
  if (opcode != Opcode::for_ && opcode != Opcode::if_ && opcode != Opcode::yield) {
    if (std::string why = check_op(*kernel_, op); !why.empty())
      throw VerifyError("ir.verify: op #" + std::to_string(op_count_) + " '" + op_label(op) +
                        "': " + why);
  }
  ++op_count_;
  Region& r = *frames_.back().region;
  r.ops.push_back(std::move(op));
  return r.ops.back().results;
}

Value OpBuilder::single(Opcode op, std::vector<Value> operands, Type result, Attrs attrs) {
  return append(op, std::move(operands), {result}, std::move(attrs)).front();
}

// --- constants ----------------------------------------------------------------------------
Value OpBuilder::const_int(Type t, std::int64_t v) {
  Attrs a;
  a.int_value = v;
  return single(Opcode::const_int, {}, t, a);
}
Value OpBuilder::const_float(Type t, double v) {
  Attrs a;
  a.float_value = v;
  return single(Opcode::const_float, {}, t, a);
}

// --- arithmetic ---------------------------------------------------------------------------
Value OpBuilder::unary(Opcode op, Value a) {
  return single(op, {a}, type_of(a));
}
Value OpBuilder::binary(Opcode op, Value a, Value b) {
  return single(op, {a, b}, type_of(a));
}
Value OpBuilder::fma(Value a, Value b, Value c) {
  return single(Opcode::fma, {a, b, c}, type_of(a));
}

Value OpBuilder::cmp(CmpPred p, Value a, Value b) {
  Attrs at;
  at.pred = p;
  return single(Opcode::cmp, {a, b}, Type::i1(), at);
}
Value OpBuilder::select(Value c, Value t, Value f) {
  return single(Opcode::select, {c, t, f}, type_of(t));
}

// --- conversions --------------------------------------------------------------------------
Value OpBuilder::trunc(Type to, Value a) {
  return single(Opcode::trunc, {a}, to);
}
Value OpBuilder::zext(Type to, Value a) {
  return single(Opcode::zext, {a}, to);
}
Value OpBuilder::sext(Type to, Value a) {
  return single(Opcode::sext, {a}, to);
}
Value OpBuilder::bitcast(Type to, Value a) {
  return single(Opcode::bitcast, {a}, to);
}
Value OpBuilder::cvt(Type to, Value a, Rounding r, bool saturate) {
  Attrs at;
  at.rounding = r;
  at.saturate = saturate;
  return single(Opcode::cvt, {a}, to, at);
}
Value OpBuilder::cvt_unsigned(Type to, Value a, Rounding r) {
  Attrs at;
  at.rounding = r;
  at.is_unsigned = true;
  return single(Opcode::cvt, {a}, to, at);
}
Value OpBuilder::cvt_stochastic(Type to, Value a, Value random_bits, bool saturate) {
  Attrs at;
  at.rounding = Rounding::stochastic;
  at.saturate = saturate;
  return single(Opcode::cvt, {a, random_bits}, to, at);
}

// --- vectors ------------------------------------------------------------------------------
Value OpBuilder::splat(Value s, int lanes) {
  return single(Opcode::splat, {s}, Type::vec(type_of(s), lanes));
}
Value OpBuilder::build_vector(std::span<const Value> elems) {
  const Type elem = elems.empty() ? Type{} : type_of(elems.front());
  return single(Opcode::build_vector, {elems.begin(), elems.end()},
                Type::vec(elem, static_cast<int>(elems.size())));
}
Value OpBuilder::extract(Value vec, int index) {
  Attrs at;
  at.index = index;
  return single(Opcode::extract, {vec}, type_of(vec).element(), at);
}
Value OpBuilder::insert(Value vec, Value scalar, int index) {
  Attrs at;
  at.index = index;
  return single(Opcode::insert, {vec, scalar}, type_of(vec), at);
}
Value OpBuilder::slice(Value vec, int first, int lanes) {
  Attrs at;
  at.index = first;
  return single(Opcode::slice, {vec}, Type::vec(type_of(vec).element(), lanes), at);
}
Value OpBuilder::concat(std::span<const Value> vecs) {
  int lanes = 0;
  for (Value v : vecs)
    lanes += type_of(v).lanes();
  const Type elem = vecs.empty() ? Type{} : type_of(vecs.front()).element();
  return single(Opcode::concat, {vecs.begin(), vecs.end()}, Type::vec(elem, lanes));
}

// --- memory -------------------------------------------------------------------------------
Value OpBuilder::ptr_add(Value p, Value off) {
  return single(Opcode::ptr_add, {p, off}, type_of(p));
}
Value OpBuilder::int_to_ptr(Value address) {
  return single(Opcode::int_to_ptr, {address}, Type::ptr(AddrSpace::global));
}
Value OpBuilder::load(Type t, Value p, std::uint32_t align) {
  Attrs at;
  at.align = align;
  return single(Opcode::load, {p}, t, at);
}
Value OpBuilder::global_load_tr(Type t, Value p) {
  return single(Opcode::global_load_tr, {p}, t);
}
void OpBuilder::store(Value p, Value v, std::uint32_t align) {
  Attrs at;
  at.align = align;
  append(Opcode::store, {p, v}, {}, at);
}
Value OpBuilder::lds_ptr(std::int64_t byte_offset) {
  Attrs at;
  at.index = byte_offset;
  return single(Opcode::lds_ptr, {}, Type::ptr(AddrSpace::lds), at);
}
Value OpBuilder::buffer_rsrc(Value base, Value num_records) {
  return single(Opcode::buffer_rsrc, {base, num_records}, Type::buffer_rsrc());
}
Value OpBuilder::buffer_load(Type t, Value rsrc, Value off) {
  return single(Opcode::buffer_load, {rsrc, off}, t);
}
Value OpBuilder::buffer_load(Type t, Value rsrc, Value off, Value soff) {
  return single(Opcode::buffer_load, {rsrc, off, soff}, t);
}
void OpBuilder::buffer_store(Value rsrc, Value off, Value v) {
  append(Opcode::buffer_store, {rsrc, off, v}, {});
}

// --- ids ----------------------------------------------------------------------------------
static Attrs dim_attrs(Dim d) {
  Attrs a;
  a.dim = d;
  return a;
}
Value OpBuilder::workitem_id(Dim d) {
  return single(Opcode::workitem_id, {}, Type::i32(), dim_attrs(d));
}
Value OpBuilder::workgroup_id(Dim d) {
  return single(Opcode::workgroup_id, {}, Type::i32(), dim_attrs(d));
}
Value OpBuilder::workgroup_size(Dim d) {
  return single(Opcode::workgroup_size, {}, Type::i32(), dim_attrs(d));
}
Value OpBuilder::lane_id() {
  return single(Opcode::lane_id, {}, Type::i32());
}
Value OpBuilder::wave_id() {
  return single(Opcode::wave_id, {}, Type::i32());
}

// --- lane ops -----------------------------------------------------------------------------
Value OpBuilder::bpermute(Value addr, Value v) {
  return single(Opcode::bpermute, {addr, v}, type_of(v));
}
Value OpBuilder::permlane16(Value v, Value lo, Value hi) {
  return single(Opcode::permlane16, {v, lo, hi}, type_of(v));
}
Value OpBuilder::permlanex16(Value v, Value lo, Value hi) {
  return single(Opcode::permlanex16, {v, lo, hi}, type_of(v));
}
Value OpBuilder::dpp(Value old, Value src, DppCtrl ctrl, int row_mask, int bank_mask,
                     bool bound_ctrl) {
  Attrs at;
  at.dpp = ctrl;
  at.row_mask = static_cast<std::uint8_t>(row_mask);
  at.bank_mask = static_cast<std::uint8_t>(bank_mask);
  at.bound_ctrl = bound_ctrl;
  return single(Opcode::dpp, {old, src}, type_of(src), at);
}
Value OpBuilder::readfirstlane(Value v) {
  return single(Opcode::readfirstlane, {v}, type_of(v));
}

// --- matrix -------------------------------------------------------------------------------
Value OpBuilder::wmma(std::string_view atom, Value a, Value b, Value c, MmaMods mods) {
  Attrs at;
  at.atom = std::string(atom);
  at.mma = mods;
  return single(Opcode::wmma, {a, b, c}, type_of(c), at);
}
Value OpBuilder::swmmac(std::string_view atom, Value a, Value b, Value c, Value index,
                        MmaMods mods) {
  Attrs at;
  at.atom = std::string(atom);
  at.mma = mods;
  return single(Opcode::swmmac, {a, b, c, index}, type_of(c), at);
}

void OpBuilder::barrier(bool lds_only) {
  Attrs at;
  at.lds_only = lds_only;
  append(Opcode::barrier, {}, {}, at);
}

void OpBuilder::sched_barrier(std::uint32_t mask) {
  Attrs at;
  at.int_value = mask;
  append(Opcode::sched_barrier, {}, {}, at);
}

void OpBuilder::wait_lds(int count) {
  Attrs at;
  at.int_value = count;
  append(Opcode::wait_lds, {}, {}, at);
}

void OpBuilder::wait_global(int count) {
  Attrs at;
  at.int_value = count;
  append(Opcode::wait_global, {}, {}, at);
}

// --- control flow -------------------------------------------------------------------------
OpBuilder::ForScope OpBuilder::begin_for(Value lb, Value ub, Value step, std::vector<Value> inits) {
  std::vector<Value> operands{lb, ub, step};
  operands.insert(operands.end(), inits.begin(), inits.end());
  append(Opcode::for_, std::move(operands), {});
  Op& op = frames_.back().region->ops.back();
  ForScope scope;
  Region& body = op.regions[0];
  open_region(&body, &op, 0, op_count_ - 1);
  scope.iv = new_value(type_of(lb));
  body.args.push_back(scope.iv);
  for (Value init : inits) {
    const Value c = new_value(type_of(init));
    body.args.push_back(c);
    scope.carried.push_back(c);
  }
  return scope;
}

void OpBuilder::close_region(std::vector<Value> yields) {
  if (frames_.size() < 2)
    throw VerifyError("ir.verify: OpBuilder: end_for / begin_else / end_if without an open for "
                      "or if");
  Frame& f = frames_.back();
  Op y;
  y.opcode = Opcode::yield;
  y.operands = std::move(yields);
  for (std::size_t i = 0; i < y.operands.size(); ++i) {
    const Value v = y.operands[i];
    if (!v.valid() || v.id >= visible_.size() || !visible_[v.id])
      throw VerifyError("ir.verify: op #" + std::to_string(op_count_) + " 'yield': operand " +
                        std::to_string(i) + " is not a value visible in this region");
  }
  f.region->ops.push_back(std::move(y));
  ++op_count_;
  close_scope();
}

std::vector<Value> OpBuilder::end_for(std::vector<Value> next) {
  if (frames_.size() < 2 || frames_.back().owner->opcode != Opcode::for_)
    throw VerifyError("ir.verify: OpBuilder::end_for: the innermost open construct is not a for");
  Op* op = frames_.back().owner;
  const std::uint32_t number = frames_.back().op_number;
  close_region(std::move(next));
  frames_.pop_back();
  for (std::size_t i = 1; i < op->regions[0].args.size(); ++i)
    op->results.push_back(new_value(type_of(op->regions[0].args[i])));
  if (std::string why = check_op(*kernel_, *op); !why.empty())
    throw VerifyError("ir.verify: op #" + std::to_string(number) + " 'for': " + why);
  return op->results;
}

std::vector<Value> OpBuilder::for_(Value lb, Value ub, Value step, std::vector<Value> inits,
                                   const ForBody& body) {
  ForScope s = begin_for(lb, ub, step, std::move(inits));
  return end_for(body(s.iv, s.carried));
}

void OpBuilder::begin_if(Value cond, std::vector<Type> result_types) {
  append(Opcode::if_, {cond}, {});
  Op& op = frames_.back().region->ops.back();
  // Results are created when the if closes (they are not visible inside its regions).
  pending_if_results_.push_back(std::move(result_types));
  open_region(&op.regions[0], &op, 0, op_count_ - 1);
}

void OpBuilder::begin_else(std::vector<Value> then_results) {
  if (frames_.size() < 2 || frames_.back().owner->opcode != Opcode::if_ ||
      frames_.back().region_idx != 0)
    throw VerifyError("ir.verify: OpBuilder::begin_else: the innermost open construct is not "
                      "the then-region of an if");
  close_region(std::move(then_results));
  Frame& f = frames_.back();
  f.region = &f.owner->regions[1];
  f.region_idx = 1;
  f.scope_mark = scope_.size();
}

std::vector<Value> OpBuilder::end_if(std::vector<Value> results) {
  if (frames_.size() < 2 || frames_.back().owner->opcode != Opcode::if_)
    throw VerifyError("ir.verify: OpBuilder::end_if: the innermost open construct is not an if");
  if (frames_.back().region_idx == 0) {
    // No else written: only valid without results (checked below); the else region is empty.
    close_region(std::move(results));
    Frame& f = frames_.back();
    f.region = &f.owner->regions[1];
    f.region_idx = 1;
    f.scope_mark = scope_.size();
    close_region({});
  } else {
    close_region(std::move(results));
  }
  Op* op = frames_.back().owner;
  const std::uint32_t number = frames_.back().op_number;
  frames_.pop_back();
  for (Type t : pending_if_results_.back())
    op->results.push_back(new_value(t));
  pending_if_results_.pop_back();
  if (std::string why = check_op(*kernel_, *op); !why.empty())
    throw VerifyError("ir.verify: op #" + std::to_string(number) + " 'if': " + why);
  return op->results;
}

std::vector<Value> OpBuilder::if_(Value cond, std::vector<Type> result_types,
                                  const IfBody& then_body, const IfBody& else_body) {
  begin_if(cond, std::move(result_types));
  std::vector<Value> t = then_body ? then_body() : std::vector<Value>{};
  begin_else(std::move(t));
  std::vector<Value> e = else_body ? else_body() : std::vector<Value>{};
  return end_if(std::move(e));
}

} // namespace tw::ir
