// Vector ALU handlers (VOP1/VOP2/VOP3/VOPC/VOP3P/VOPD/DPP/permlane/conversions/WMMA).
// OWNED BY THE VALU ENGINEER: this empty definition only keeps the build linking until
// runtime/emu/valu/ lands; replace it (see /work/notes/emu_interface.md).
#include <runtime/emu/handlers.hpp>

namespace tw::emu {

void register_valu_handlers(HandlerTable&) {}

} // namespace tw::emu
