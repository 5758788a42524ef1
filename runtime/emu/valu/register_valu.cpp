// Vector ALU handlers (VOP1/VOP2/VOP3/VOPC/VOP3P/VOPD/DPP/permlane/conversions/WMMA):
// one registration function per op family, all under runtime/emu/valu/.
#include <runtime/emu/handlers.hpp>
#include <runtime/emu/valu/vop.hpp>

namespace tw::emu {

void register_valu_handlers(HandlerTable& t) {
  valu::register_int_ops(t);
  valu::register_float_ops(t);
  valu::register_compare_ops(t);
  valu::register_convert_ops(t);
  valu::register_lane_ops(t);
  valu::register_packed_ops(t);
  valu::register_dual_issue(t);
  valu::register_matrix_ops(t);
}

} // namespace tw::emu
