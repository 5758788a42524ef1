// Small kernels with known timing for the timing model's tests
// (tests/runtime/emu/timing/): instruction sequences fixed with inline assembly so the
// compiler cannot reorder or remove what the test counts.
#include "hip_min.h"

typedef float v8f __attribute__((ext_vector_type(8)));
typedef _Float16 v8h __attribute__((ext_vector_type(8)));
typedef int v2i __attribute__((ext_vector_type(2)));
typedef int v8i __attribute__((ext_vector_type(8)));

#define REPEAT(n, text) ".rept " #n "\n" text "\n.endr\n"

// A chain of N dependent VALU ops (each reads the previous result).
#define VALU_CHAIN(N)                                                                              \
  extern "C" __global__ void valu_chain_##N(const float* in, float* out) {                         \
    float x = in[tid_x()];                                                                         \
    asm volatile(REPEAT(N, "v_add_f32 %0, %0, %0") : "+v"(x));                                     \
    out[tid_x()] = x;                                                                              \
  }
VALU_CHAIN(64)
VALU_CHAIN(128)

// N groups of 5 independent VALU ops (five chains interleaved).
#define VALU_INDEPENDENT(N)                                                                        \
  extern "C" __global__ void valu_independent_##N(const float* in, float* out) {                   \
    float a = in[tid_x()], b = a + 1, c = a + 2, d = a + 3, e = a + 4;                             \
    asm volatile(REPEAT(N, "v_add_f32 %0, %0, %0\nv_add_f32 %1, %1, %1\nv_add_f32 %2, %2, %2\n"    \
                           "v_add_f32 %3, %3, %3\nv_add_f32 %4, %4, %4")                           \
                 : "+v"(a), "+v"(b), "+v"(c), "+v"(d), "+v"(e));                                   \
    out[tid_x()] = a + b + c + d + e;                                                              \
  }
VALU_INDEPENDENT(64)
VALU_INDEPENDENT(128)

// N WMMAs accumulating into one tile (a D -> C chain), f16 and iu8.
#define WMMA_F16_CHAIN(N)                                                                          \
  extern "C" __global__ void wmma_f16_chain_##N(const v8h* ab, v8f* out) {                         \
    v8f acc = {};                                                                                  \
    v8h a = ab[tid_x()], b = ab[tid_x() + 32];                                                     \
    asm volatile(REPEAT(N, "v_wmma_f32_16x16x16_f16 %0, %1, %2, %0")                               \
                 : "+v"(acc)                                                                       \
                 : "v"(a), "v"(b));                                                                \
    out[tid_x()] = acc;                                                                            \
  }
WMMA_F16_CHAIN(32)
WMMA_F16_CHAIN(64)

#define WMMA_IU8_CHAIN(N)                                                                          \
  extern "C" __global__ void wmma_iu8_chain_##N(const v2i* ab, v8i* out) {                         \
    v8i acc = {};                                                                                  \
    v2i a = ab[tid_x()], b = ab[tid_x() + 32];                                                     \
    asm volatile(REPEAT(N, "v_wmma_i32_16x16x16_iu8 %0, %1, %2, %0")                               \
                 : "+v"(acc)                                                                       \
                 : "v"(a), "v"(b));                                                                \
    out[tid_x()] = acc;                                                                            \
  }
WMMA_IU8_CHAIN(32)
WMMA_IU8_CHAIN(64)

// N dependent cross-lane swizzles, each waited for before the next (the pattern of the
// row max / sum reductions in the flash-attention calibration kernels): an LDS round trip each.
#define SWIZZLE_CHAIN(N)                                                                           \
  extern "C" __global__ void swizzle_chain_##N(const float* in, float* out) {                      \
    float x = in[tid_x()];                                                                         \
    asm volatile(REPEAT(N, "ds_swizzle_b32 %0, %0 offset:0x41f\ns_wait_dscnt 0x0") : "+v"(x));     \
    out[tid_x()] = x;                                                                              \
  }
SWIZZLE_CHAIN(32)
SWIZZLE_CHAIN(64)

// One LDS store and 16 loads per lane at word index lane * stride of the dynamic LDS
// (launch with 4 KiB): stride 1 gives every lane its own bank, stride 32 puts all in one.
extern "C" __global__ void lds_stride(const float* in, float* out, int stride) {
  const unsigned t = tid_x(), addr = t * unsigned(stride) * 4u;
  float v = in[t], acc = 0;
  asm volatile("ds_store_b32 %0, %1\ns_wait_dscnt 0x0" : : "v"(addr), "v"(v) : "memory");
  for (int i = 0; i < 16; ++i) {
    asm volatile("ds_load_b32 %0, %1\ns_wait_dscnt 0x0" : "=v"(v) : "v"(addr) : "memory");
    acc += v;
  }
  out[t] = acc;
}

// A global load of word lane * stride: stride 1 coalesces into one 128-byte line.
extern "C" __global__ void global_stride(const float* in, float* out, int stride) {
  out[tid_x()] = in[tid_x() * stride];
}

// A copy of one 128-byte line per 32-lane workgroup: workgroup b reads and writes words
// 32 b .. 32 b + 31, so a grid of n workgroups touches every line of two n x 128-byte buffers
// (the cache-residency tests).
extern "C" __global__ void stream_copy(const float* in, float* out) {
  const unsigned long long i = bid_x() * 32ull + tid_x();
  out[i] = in[i];
}

// Two waves take turns: wave 0 runs a dependent chain while wave 1 waits at a barrier,
// then the other way round, `rounds` times.
extern "C" __global__ void barrier_ping_pong(float* out, int rounds) {
  float x = out[tid_x()];
  const bool first = tid_x() < 32;
  for (int r = 0; r < rounds; ++r) {
    if (first)
      asm volatile(REPEAT(32, "v_add_f32 %0, %0, %0") : "+v"(x));
    __builtin_amdgcn_s_barrier();
    if (!first)
      asm volatile(REPEAT(32, "v_add_f32 %0, %0, %0") : "+v"(x));
    __builtin_amdgcn_s_barrier();
  }
  out[tid_x()] = x;
}

// The same work with no barrier: both waves run their chains at once.
extern "C" __global__ void no_barrier_pair(float* out, int rounds) {
  float x = out[tid_x()];
  for (int r = 0; r < rounds; ++r)
    asm volatile(REPEAT(32, "v_add_f32 %0, %0, %0") : "+v"(x));
  out[tid_x()] = x;
}

// Occupancy: VGPR pressure forced by clobbers, LDS by static arrays (compared against the
// "; Occupancy:" LLVM prints in timing.gfx1201.O3.s).
#define OCCUPANCY_KERNEL(name, bounds, lds_words, clobber)                                         \
  extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(1, bounds)))               \
  name(float* out) {                                                                               \
    __shared__ float s[lds_words];                                                                 \
    s[tid_x()] = out[tid_x()];                                                                     \
    sync_threads();                                                                                \
    asm volatile("" ::: clobber);                                                                  \
    out[tid_x()] = s[(tid_x() + 1) % (bounds)];                                                    \
  }
OCCUPANCY_KERNEL(occupancy_v100, 256, 256, "v100")
OCCUPANCY_KERNEL(occupancy_v200, 256, 256, "v200")
OCCUPANCY_KERNEL(occupancy_v255, 256, 256, "v255")
OCCUPANCY_KERNEL(occupancy_lds40k, 128, 10240, "v10")
OCCUPANCY_KERNEL(occupancy_lds20k, 256, 5120, "v10")
OCCUPANCY_KERNEL(occupancy_lds64k, 512, 16384, "v10")

// Each lane follows its own chain of word indices through `next` for `steps` dependent
// loads, starting at word lane * 32 (its own 128-byte line). The host lays the chains out
// so that a lap touches a chosen number of lines, to place the re-read laps in L0, L2, the
// Infinity Cache or DRAM.
extern "C" __global__ void pointer_chase(const unsigned* next, unsigned* out, int steps) {
  unsigned i = tid_x() * 32u;
#pragma clang loop unroll(disable)
  for (int s = 0; s < steps; ++s)
    i = next[i];
  out[tid_x()] = i;
}

// `rounds` times: two LDS loads (a WMMA's A and B, from alternating halves of the 2 KiB of
// dynamic LDS: the stages of a double-buffered loop), waited for, then a WMMA accumulating
// into one tile (the steady-state fast-forward's tests; one wave, launch with 2 KiB).
extern "C" __global__ void wmma_lds_loop(const v8h* ab, v8f* out, int rounds) {
  const unsigned addr = tid_x() * 16u;
  const v8h x = ab[tid_x()], y = ab[tid_x() + 32];
  asm volatile("ds_store_b128 %0, %1\nds_store_b128 %0, %2 offset:512\n"
               "ds_store_b128 %0, %1 offset:1024\nds_store_b128 %0, %2 offset:1536\n"
               "s_wait_dscnt 0x0"
               :
               : "v"(addr), "v"(x), "v"(y)
               : "memory");
  v8f acc = {};
#pragma clang loop unroll(disable)
  for (int r = 0; r < rounds; ++r) {
    const unsigned stage = addr + (unsigned(r) & 1u) * 1024u;
    v8h a, b;
    asm volatile("ds_load_b128 %0, %2\nds_load_b128 %1, %2 offset:512\ns_wait_dscnt 0x0"
                 : "=&v"(a), "=&v"(b) // early clobber: not in the address register
                 : "v"(stage)
                 : "memory");
    asm volatile("v_wmma_f32_16x16x16_f16 %0, %1, %2, %0" : "+v"(acc) : "v"(a), "v"(b));
  }
  out[tid_x()] = acc;
}
