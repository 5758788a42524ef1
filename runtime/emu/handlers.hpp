#pragma once
// The instruction dispatch table (mnemonic without encoding suffix -> handler) and the
// context a handler runs in. Registration is explicit (a static library would drop
// self-registering objects): HandlerTable::instance() calls register_core_handlers
// (SALU, SOPP, SMEM, VMEM, LDS: runtime/emu/*.cpp) and register_valu_handlers
// (VOP1/VOP2/VOP3/VOPC/VOP3P/VOPD/DPP/WMMA: runtime/emu/valu/*.cpp).
#include <runtime/emu/decoded_instr.hpp>
#include <runtime/emu/wave_observer.hpp>
#include <runtime/emu/wave_state.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tw::emu {

class Workgroup;    // LDS, barrier, workgroup ids   (runtime/emu/workgroup.hpp)
class GlobalMemory; // device allocations, memcheck (runtime/emu/global_memory.hpp)
struct LaunchStats; // per-launch statistics         (runtime/emu/stats.hpp)
struct KernelInfo;  // descriptor + metadata         (runtime/emu/code_object.hpp)

// Thrown for anything that stops a launch: unimplemented / invalid instructions,
// memcheck reports, bad kernel descriptors.
class EmuError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct WaveContext {
  WaveState& wave;
  Workgroup& group;
  GlobalMemory& memory;
  LaunchStats& stats;
  const KernelInfo& kernel;
  bool memcheck = true;
  WaveObserver* observer = nullptr; // timing-model capture of this wave, or none
  // The launch's kernel-argument segment [begin, end): scalar loads from it are counted apart.
  uint64_t kernarg_begin = 0, kernarg_end = 0;
  // The allocation the wave's last fast-path global access fell in, [base, base + size): most
  // accesses of an instruction (and of the next) hit it, so they cost one range check per lane
  // instead of a look-up in the allocation map. Allocations do not change during a launch.
  uint64_t region_base = 0, region_size = 0;
  uint64_t previous_base = 0, previous_size = 0; // the allocation cached before that one

  // Throws EmuError "<what> at pc 0x.. in kernel K (workgroup (x,y,z), wave w): <asm>".
  [[noreturn]] void fail(const DecodedInstr& in, std::string_view what) const;
  // The standard error for a form a handler does not support.
  [[noreturn]] void unimplemented(const DecodedInstr& in) const {
    fail(in, "unimplemented instruction");
  }
  // Branch: the next instruction executed is at `target` (absolute virtual address).
  // Without a call, execution continues at in.pc + in.size.
  void jump(uint64_t target) { wave.pc = target; }
};

class HandlerTable {
public:
  // Throws std::logic_error if `mnemonic` already has a handler (two owners).
  void add(std::string mnemonic, Handler h);
  // Registers the same handler under several mnemonics.
  void add_all(std::initializer_list<std::string_view> mnemonics, Handler h);
  Handler find(std::string_view mnemonic) const; // nullptr if none
  std::vector<std::string> mnemonics() const;    // sorted
  size_t size() const { return table_.size(); }

  // The complete table (core + valu), built on first use.
  static const HandlerTable& instance();

private:
  std::unordered_map<std::string, Handler> table_;
};

// The handler of the instructions without an effect the emulator models (waits, hints,
// s_nop: runtime/emu/sopp.cpp); the executor skips calling it.
void no_effect(WaveContext& c, const DecodedInstr& in);

// Defined in runtime/emu/*.cpp (emulator core: SALU, SOPP, SMEM, VMEM, LDS).
void register_core_handlers(HandlerTable& table);
// Defined in runtime/emu/valu/*.cpp (vector ALU, DPP, permlane, conversions, WMMA).
void register_valu_handlers(HandlerTable& table);

} // namespace tw::emu
