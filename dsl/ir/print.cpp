#include <dsl/ir/print.hpp>

#include <cstdio>
#include <string_view>

namespace tw::ir {

namespace {

// Concatenation without g++-12's false -Wrestrict on `"literal" + std::string&&`.
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string r;
  (r.append(parts), ...);
  return r;
}

class Printer {
public:
  Printer(const Kernel& k, const PrintOptions& o) : k_(k), opts_(o) {}

  std::string run() {
    out_ += "kernel @" + k_.name + "(";
    for (std::size_t i = 0; i < k_.args.size(); ++i) {
      const KernelArg& a = k_.args[i];
      out_.append(i ? ", " : "").append(val(a.value)).append(": ").append(to_string(a.type));
      out_.append(" ").append(a.name);
    }
    out_ += ") workgroup(" + std::to_string(k_.workgroup_size[0]) + ", " +
            std::to_string(k_.workgroup_size[1]) + ", " + std::to_string(k_.workgroup_size[2]) +
            ") lds(" + std::to_string(k_.lds_bytes) + ") {\n";
    region_ops(k_.body, 1);
    out_ += "}\n";
    return std::move(out_);
  }

private:
  static std::string val(Value v) { return std::string("%").append(std::to_string(v.id)); }
  std::string typed(Value v) const { return val(v) + ": " + to_string(k_.type_of(v)); }

  void indent(int depth) { out_.append(static_cast<std::size_t>(depth) * 2, ' '); }

  void region_ops(const Region& r, int depth) {
    for (const Op& op : r.ops)
      print_op(op, depth);
  }

  std::string list(const std::vector<Value>& vs, std::size_t from = 0) const {
    std::string s;
    for (std::size_t i = from; i < vs.size(); ++i)
      s.append(i > from ? ", " : "").append(val(vs[i]));
    return s;
  }

  // Attributes in a fixed order per opcode, each as " name(value)".
  std::string attrs(const Op& op) const {
    const Attrs& a = op.attrs;
    switch (op.opcode) {
    case Opcode::const_int:
      return cat(" ", std::to_string(a.int_value));
    case Opcode::const_float: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", a.float_value);
      return std::string(" ") + buf;
    }
    case Opcode::cmp:
      return cat(" ", std::string(to_string(a.pred)));
    case Opcode::cvt: {
      std::string s = cat(" ", std::string(to_string(a.rounding)));
      if (a.saturate)
        s += " saturate";
      if (a.is_unsigned)
        s += " unsigned";
      return s;
    }
    case Opcode::extract:
    case Opcode::insert:
    case Opcode::slice:
      return cat(" [", std::to_string(a.index), "]");
    case Opcode::lds_ptr:
      return cat(" +", std::to_string(a.index));
    case Opcode::load:
    case Opcode::store:
      return a.align ? cat(" align(", std::to_string(a.align), ")") : std::string();
    case Opcode::workitem_id:
    case Opcode::workgroup_id:
    case Opcode::workgroup_size:
      return cat(" ", std::string(to_string(a.dim)));
    case Opcode::barrier:
      return a.lds_only ? std::string(" lds_only") : std::string();
    case Opcode::sched_barrier:
      return cat(" mask(", std::to_string(a.int_value), ")");
    case Opcode::wait_lds:
    case Opcode::wait_global:
      return cat(" ", std::to_string(a.int_value));
    case Opcode::dpp:
      return cat(" ", to_string(a.dpp), " row_mask(", std::to_string(a.row_mask), ") bank_mask(",
                 std::to_string(a.bank_mask), ")", a.bound_ctrl ? " bound_ctrl" : "");
    case Opcode::wmma:
    case Opcode::swmmac: {
      const MmaMods& m = a.mma;
      std::string s = cat(" ", a.atom);
      if (m.a_signed)
        s += " a_signed";
      if (m.b_signed)
        s += " b_signed";
      if (m.clamp)
        s += " clamp";
      if (m.neg_lo)
        s += cat(" neg_lo(", std::to_string(m.neg_lo), ")");
      if (m.neg_hi)
        s += cat(" neg_hi(", std::to_string(m.neg_hi), ")");
      if (m.index_key)
        s += cat(" index_key(", std::to_string(m.index_key), ")");
      return s;
    }
    default:
      return "";
    }
  }

  // " // #N" after an op's first line when op numbers are asked for (verifier numbering).
  std::string number() {
    const std::size_t n = counter_++;
    return opts_.op_numbers ? cat("  // #", std::to_string(n)) : std::string();
  }

  void print_op(const Op& op, int depth) {
    indent(depth);
    if (!op.results.empty())
      out_ += list(op.results) + " = ";
    out_ += std::string(opcode_name(op.opcode));
    if (op.opcode == Opcode::for_) {
      // for %lb to %ub step %s iter(%init...) { ^(%iv: T, %c: T...): ... }
      out_ +=
          cat(" ", val(op.operands[0]), " to ", val(op.operands[1]), " step ", val(op.operands[2]));
      if (op.operands.size() > 3)
        out_ += cat(" iter(", list(op.operands, 3), ")");
      out_ += cat(result_types(op), " {", number(), "\n");
      const Region& body = op.regions.at(0);
      indent(depth);
      out_ += "^(";
      for (std::size_t i = 0; i < body.args.size(); ++i)
        out_.append(i ? ", " : "").append(typed(body.args[i]));
      out_ += "):\n";
      region_ops(body, depth + 1);
      indent(depth);
      out_ += "}\n";
      return;
    }
    if (op.opcode == Opcode::if_) {
      out_ += cat(" ", list(op.operands), result_types(op), " {", number(), "\n");
      region_ops(op.regions.at(0), depth + 1);
      indent(depth);
      out_ += "} else {\n";
      region_ops(op.regions.at(1), depth + 1);
      indent(depth);
      out_ += "}\n";
      return;
    }
    out_ += attrs(op);
    if (!op.operands.empty())
      out_ += cat(" ", list(op.operands));
    // Operand types are printed for ops whose result type does not tell them.
    if (op.opcode == Opcode::cvt || op.opcode == Opcode::bitcast || op.opcode == Opcode::trunc ||
        op.opcode == Opcode::zext || op.opcode == Opcode::sext || op.opcode == Opcode::store ||
        op.opcode == Opcode::buffer_store || op.opcode == Opcode::cmp ||
        op.opcode == Opcode::load || op.opcode == Opcode::global_load_tr ||
        op.opcode == Opcode::ptr_add) {
      out_ += " (";
      for (std::size_t i = 0; i < op.operands.size(); ++i)
        out_.append(i ? ", " : "").append(to_string(k_.type_of(op.operands[i])));
      out_ += ")";
    }
    out_ += cat(result_types(op), number(), "\n");
  }

  std::string result_types(const Op& op) const {
    if (op.results.empty())
      return "";
    std::string s = " : ";
    for (std::size_t i = 0; i < op.results.size(); ++i)
      s.append(i ? ", " : "").append(to_string(k_.type_of(op.results[i])));
    return s;
  }

  const Kernel& k_;
  PrintOptions opts_;
  std::size_t counter_ = 0;
  std::string out_;
};

} // namespace

std::string print(const Kernel& k) {
  return Printer(k, PrintOptions{}).run();
}

std::string print(const Kernel& k, const PrintOptions& options) {
  return Printer(k, options).run();
}

} // namespace tw::ir
