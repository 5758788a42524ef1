// Registration of the emulator core's handlers (one function per instruction family).
#include <runtime/emu/handlers.hpp>

namespace tw::emu {

void register_salu_handlers(HandlerTable& t); // salu.cpp
void register_sopp_handlers(HandlerTable& t); // sopp.cpp
void register_smem_handlers(HandlerTable& t); // smem.cpp
void register_vmem_handlers(HandlerTable& t); // vmem.cpp
void register_lds_handlers(HandlerTable& t);  // lds.cpp

void register_core_handlers(HandlerTable& t) {
  register_salu_handlers(t);
  register_sopp_handlers(t);
  register_smem_handlers(t);
  register_vmem_handlers(t);
  register_lds_handlers(t);
}

} // namespace tw::emu
