// Registration of the emulator core's handlers (one function per instruction family).
#include <runtime/emu/handlers.hpp>

namespace tw::emu {

void register_core_handlers(HandlerTable&) {}

} // namespace tw::emu
