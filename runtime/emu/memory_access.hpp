#pragma once
// Checked memory accesses of the core handlers (global / LDS / scratch / flat), with
// memcheck reports and byte statistics. Internal to runtime/emu.
#include <runtime/emu/code_object.hpp>
#include <runtime/emu/global_memory.hpp>
#include <runtime/emu/handlers.hpp>
#include <runtime/emu/stats.hpp>
#include <runtime/emu/workgroup.hpp>

#include <cstdint>

namespace tw::emu {

// Host pointer for a global access of `n` bytes at `addr`, or nullptr when the access is
// outside every allocation (memcheck on: throws a report; off: the caller reads zeros /
// drops the store).
uint8_t* global_ptr(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, uint32_t n,
                    bool write);
void global_read(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, void* dst,
                 uint32_t n);
void global_write(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, const void* src,
                  uint32_t n);

// LDS (byte address within the workgroup's allocation). Reads of bytes never written in
// this workgroup are memcheck errors.
uint8_t* lds_ptr(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, uint32_t n,
                 bool write);
void lds_read(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, void* dst,
              uint32_t n);
void lds_write(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, const void* src,
               uint32_t n);

// Scratch: per-lane private memory, `addr` is the offset within the lane's segment.
uint8_t* scratch_ptr(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, uint32_t n);

// Flat: dispatches on the shared / private apertures, else global.
uint8_t* flat_ptr(WaveContext& c, const DecodedInstr& in, int lane, uint64_t addr, uint32_t n,
                  bool write);

// Read-modify-write of a 32/64-bit value (ds_* / global_* / buffer_* atomics). `op` is the
// operation part of the mnemonic (add, sub, min_i32, ..., cmpswap). Returns the old value.
// `p` is a pointer into shared host memory; global atomics are host atomics.
uint64_t atomic_rmw(WaveContext& c, const DecodedInstr& in, std::string_view op, uint8_t* p,
                    int bytes, uint64_t data, uint64_t cmp, bool host_atomic);

} // namespace tw::emu
