#include <dsl/ir/op.hpp>

namespace tw::ir {

std::string_view opcode_name(Opcode op) {
  switch (op) {
  case Opcode::const_int:
    return "const_int";
  case Opcode::const_float:
    return "const_float";
  case Opcode::add:
    return "add";
  case Opcode::sub:
    return "sub";
  case Opcode::mul:
    return "mul";
  case Opcode::div:
    return "div";
  case Opcode::div_s:
    return "div_s";
  case Opcode::div_u:
    return "div_u";
  case Opcode::rem_s:
    return "rem_s";
  case Opcode::rem_u:
    return "rem_u";
  case Opcode::neg:
    return "neg";
  case Opcode::abs:
    return "abs";
  case Opcode::min:
    return "min";
  case Opcode::max:
    return "max";
  case Opcode::min_u:
    return "min_u";
  case Opcode::max_u:
    return "max_u";
  case Opcode::and_:
    return "and";
  case Opcode::or_:
    return "or";
  case Opcode::xor_:
    return "xor";
  case Opcode::not_:
    return "not";
  case Opcode::shl:
    return "shl";
  case Opcode::shr_u:
    return "shr_u";
  case Opcode::shr_s:
    return "shr_s";
  case Opcode::fma:
    return "fma";
  case Opcode::mul_hi_u:
    return "mul_hi_u";
  case Opcode::exp2:
    return "exp2";
  case Opcode::log2:
    return "log2";
  case Opcode::rcp:
    return "rcp";
  case Opcode::rsqrt:
    return "rsqrt";
  case Opcode::sqrt:
    return "sqrt";
  case Opcode::tanh:
    return "tanh";
  case Opcode::cmp:
    return "cmp";
  case Opcode::select:
    return "select";
  case Opcode::trunc:
    return "trunc";
  case Opcode::zext:
    return "zext";
  case Opcode::sext:
    return "sext";
  case Opcode::cvt:
    return "cvt";
  case Opcode::bitcast:
    return "bitcast";
  case Opcode::splat:
    return "splat";
  case Opcode::build_vector:
    return "build_vector";
  case Opcode::extract:
    return "extract";
  case Opcode::insert:
    return "insert";
  case Opcode::slice:
    return "slice";
  case Opcode::concat:
    return "concat";
  case Opcode::ptr_add:
    return "ptr_add";
  case Opcode::int_to_ptr:
    return "int_to_ptr";
  case Opcode::global_load_tr:
    return "global_load_tr";
  case Opcode::load:
    return "load";
  case Opcode::store:
    return "store";
  case Opcode::lds_ptr:
    return "lds_ptr";
  case Opcode::buffer_rsrc:
    return "buffer_rsrc";
  case Opcode::buffer_load:
    return "buffer_load";
  case Opcode::buffer_store:
    return "buffer_store";
  case Opcode::workitem_id:
    return "workitem_id";
  case Opcode::workgroup_id:
    return "workgroup_id";
  case Opcode::workgroup_size:
    return "workgroup_size";
  case Opcode::lane_id:
    return "lane_id";
  case Opcode::wave_id:
    return "wave_id";
  case Opcode::bpermute:
    return "bpermute";
  case Opcode::permlane16:
    return "permlane16";
  case Opcode::permlanex16:
    return "permlanex16";
  case Opcode::dpp:
    return "dpp";
  case Opcode::readfirstlane:
    return "readfirstlane";
  case Opcode::wmma:
    return "wmma";
  case Opcode::swmmac:
    return "swmmac";
  case Opcode::barrier:
    return "barrier";
  case Opcode::sched_barrier:
    return "sched_barrier";
  case Opcode::wait_lds:
    return "wait_lds";
  case Opcode::wait_global:
    return "wait_global";
  case Opcode::for_:
    return "for";
  case Opcode::if_:
    return "if";
  case Opcode::yield:
    return "yield";
  }
  return "?";
}

std::string_view to_string(CmpPred p) {
  switch (p) {
  case CmpPred::eq:
    return "eq";
  case CmpPred::ne:
    return "ne";
  case CmpPred::lt:
    return "lt";
  case CmpPred::le:
    return "le";
  case CmpPred::gt:
    return "gt";
  case CmpPred::ge:
    return "ge";
  case CmpPred::ult:
    return "ult";
  case CmpPred::ule:
    return "ule";
  case CmpPred::ugt:
    return "ugt";
  case CmpPred::uge:
    return "uge";
  }
  return "?";
}

std::string_view to_string(Rounding r) {
  switch (r) {
  case Rounding::rne:
    return "rne";
  case Rounding::rtz:
    return "rtz";
  case Rounding::stochastic:
    return "stochastic";
  }
  return "?";
}

std::string_view to_string(Dim d) {
  switch (d) {
  case Dim::x:
    return "x";
  case Dim::y:
    return "y";
  case Dim::z:
    return "z";
  }
  return "?";
}

// DPP16 dpp_ctrl field values (the ISA's encoding; LLVM's llvm.amdgcn.update.dpp takes the same).
int dpp_ctrl_encoding(DppCtrl c) {
  switch (c.kind) {
  case DppKind::quad_perm:
    return c.arg;
  case DppKind::row_shl:
    return 0x100 | c.arg;
  case DppKind::row_shr:
    return 0x110 | c.arg;
  case DppKind::row_ror:
    return 0x120 | c.arg;
  case DppKind::row_mirror:
    return 0x140;
  case DppKind::row_half_mirror:
    return 0x141;
  case DppKind::row_share:
    return 0x150 | c.arg;
  case DppKind::row_xmask:
    return 0x160 | c.arg;
  }
  return -1;
}

std::string to_string(DppCtrl c) {
  const std::string n = std::to_string(c.arg);
  switch (c.kind) {
  case DppKind::quad_perm:
    return "quad_perm[" + std::to_string(c.arg & 3) + "," + std::to_string(c.arg >> 2 & 3) + "," +
           std::to_string(c.arg >> 4 & 3) + "," + std::to_string(c.arg >> 6 & 3) + "]";
  case DppKind::row_shl:
    return "row_shl(" + n + ")";
  case DppKind::row_shr:
    return "row_shr(" + n + ")";
  case DppKind::row_ror:
    return "row_ror(" + n + ")";
  case DppKind::row_mirror:
    return "row_mirror";
  case DppKind::row_half_mirror:
    return "row_half_mirror";
  case DppKind::row_share:
    return "row_share(" + n + ")";
  case DppKind::row_xmask:
    return "row_xmask(" + n + ")";
  }
  return "?";
}

} // namespace tw::ir
