// Every gfx12 WMMA / SWMMAC builtin (wave32), with the signedness / clamp variants of the
// integer forms. Each kernel runs one wave: operand VGPR v of lane l is word v*32 + l of its
// buffer; D is written the same way (test_valu_wmma.cpp packs and checks).
#include "hip_min.h"

typedef _Float16 half;
typedef half v8h __attribute__((ext_vector_type(8)));
typedef half v16h __attribute__((ext_vector_type(16)));
typedef short v8s __attribute__((ext_vector_type(8)));
typedef short v16s __attribute__((ext_vector_type(16)));
typedef float v8f __attribute__((ext_vector_type(8)));
typedef int v8i __attribute__((ext_vector_type(8)));
typedef int v4i __attribute__((ext_vector_type(4)));
typedef int v2i __attribute__((ext_vector_type(2)));

template <class V, int N>
__device__ __forceinline__ V load(const unsigned* p) {
  const unsigned l = tid_x();
  unsigned w[N];
  for (int v = 0; v < N; ++v)
    w[v] = p[v * 32 + l];
  V r;
  __builtin_memcpy(&r, w, sizeof(r));
  return r;
}
template <class V, int N>
__device__ __forceinline__ void store(unsigned* p, V x) {
  const unsigned l = tid_x();
  unsigned w[N];
  __builtin_memcpy(w, &x, sizeof(x));
  for (int v = 0; v < N; ++v)
    p[v * 32 + l] = w[v];
}
__device__ __forceinline__ int load1(const unsigned* p) { return (int)p[tid_x()]; }

#define ARGS const unsigned *a, const unsigned *b, const unsigned *c, const unsigned *idx, unsigned *d

// Dense float forms.
extern "C" __global__ void wmma_f32_f16(ARGS) {
  store<v8f, 8>(d, __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(load<v8h, 4>(a), load<v8h, 4>(b), load<v8f, 8>(c)));
}
extern "C" __global__ void wmma_f32_bf16(ARGS) {
  store<v8f, 8>(d, __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(load<v8s, 4>(a), load<v8s, 4>(b), load<v8f, 8>(c)));
}
extern "C" __global__ void wmma_f16_f16(ARGS) {
  store<v8h, 4>(d, __builtin_amdgcn_wmma_f16_16x16x16_f16_w32_gfx12(load<v8h, 4>(a), load<v8h, 4>(b), load<v8h, 4>(c)));
}
extern "C" __global__ void wmma_bf16_bf16(ARGS) {
  store<v8s, 4>(d, __builtin_amdgcn_wmma_bf16_16x16x16_bf16_w32_gfx12(load<v8s, 4>(a), load<v8s, 4>(b), load<v8s, 4>(c)));
}
#define WMMA_F8(name, builtin)                                                                      \
  extern "C" __global__ void name(ARGS) {                                                           \
    store<v8f, 8>(d, builtin(load<v2i, 2>(a), load<v2i, 2>(b), load<v8f, 8>(c)));                  \
  }
WMMA_F8(wmma_fp8_fp8, __builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w32_gfx12)
WMMA_F8(wmma_fp8_bf8, __builtin_amdgcn_wmma_f32_16x16x16_fp8_bf8_w32_gfx12)
WMMA_F8(wmma_bf8_fp8, __builtin_amdgcn_wmma_f32_16x16x16_bf8_fp8_w32_gfx12)
WMMA_F8(wmma_bf8_bf8, __builtin_amdgcn_wmma_f32_16x16x16_bf8_bf8_w32_gfx12)

// Dense integer forms: <name>_<A signed><B signed><clamp>.
#define WMMA_IU8(sa, sb, cl)                                                                        \
  extern "C" __global__ void wmma_iu8_##sa##sb##cl(ARGS) {                                          \
    store<v8i, 8>(d, __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(sa, load<v2i, 2>(a), sb,     \
                                                                      load<v2i, 2>(b), load<v8i, 8>(c), cl)); \
  }
#define WMMA_IU4(sa, sb, cl)                                                                        \
  extern "C" __global__ void wmma_iu4_##sa##sb##cl(ARGS) {                                          \
    store<v8i, 8>(d, __builtin_amdgcn_wmma_i32_16x16x16_iu4_w32_gfx12(sa, load1(a), sb, load1(b),  \
                                                                      load<v8i, 8>(c), cl));        \
  }
#define WMMA_IU4K32(sa, sb, cl)                                                                     \
  extern "C" __global__ void wmma_iu4k32_##sa##sb##cl(ARGS) {                                       \
    store<v8i, 8>(d, __builtin_amdgcn_wmma_i32_16x16x32_iu4_w32_gfx12(sa, load<v2i, 2>(a), sb,     \
                                                                      load<v2i, 2>(b), load<v8i, 8>(c), cl)); \
  }
#define INT_VARIANTS(M) M(0, 0, 0) M(1, 1, 0) M(1, 0, 1) M(0, 1, 1)
INT_VARIANTS(WMMA_IU8)
INT_VARIANTS(WMMA_IU4)
INT_VARIANTS(WMMA_IU4K32)

// Sparse forms: the index VGPR comes from idx; D accumulates in place over C.
extern "C" __global__ void swmmac_f32_f16(ARGS) {
  store<v8f, 8>(d, __builtin_amdgcn_swmmac_f32_16x16x32_f16_w32(load<v8h, 4>(a), load<v16h, 8>(b), load<v8f, 8>(c), load1(idx)));
}
extern "C" __global__ void swmmac_f32_bf16(ARGS) {
  store<v8f, 8>(d, __builtin_amdgcn_swmmac_f32_16x16x32_bf16_w32(load<v8s, 4>(a), load<v16s, 8>(b), load<v8f, 8>(c), load1(idx)));
}
extern "C" __global__ void swmmac_f16_f16(ARGS) {
  store<v8h, 4>(d, __builtin_amdgcn_swmmac_f16_16x16x32_f16_w32(load<v8h, 4>(a), load<v16h, 8>(b), load<v8h, 4>(c), load1(idx)));
}
extern "C" __global__ void swmmac_bf16_bf16(ARGS) {
  store<v8s, 4>(d, __builtin_amdgcn_swmmac_bf16_16x16x32_bf16_w32(load<v8s, 4>(a), load<v16s, 8>(b), load<v8s, 4>(c), load1(idx)));
}
#define SWMMAC_F8(name, builtin)                                                                    \
  extern "C" __global__ void name(ARGS) {                                                           \
    store<v8f, 8>(d, builtin(load<v2i, 2>(a), load<v4i, 4>(b), load<v8f, 8>(c), load1(idx)));      \
  }
SWMMAC_F8(swmmac_fp8_fp8, __builtin_amdgcn_swmmac_f32_16x16x32_fp8_fp8_w32)
SWMMAC_F8(swmmac_fp8_bf8, __builtin_amdgcn_swmmac_f32_16x16x32_fp8_bf8_w32)
SWMMAC_F8(swmmac_bf8_fp8, __builtin_amdgcn_swmmac_f32_16x16x32_bf8_fp8_w32)
SWMMAC_F8(swmmac_bf8_bf8, __builtin_amdgcn_swmmac_f32_16x16x32_bf8_bf8_w32)
#define SWMMAC_IU8(sa, sb, cl)                                                                      \
  extern "C" __global__ void swmmac_iu8_##sa##sb##cl(ARGS) {                                        \
    store<v8i, 8>(d, __builtin_amdgcn_swmmac_i32_16x16x32_iu8_w32(sa, load<v2i, 2>(a), sb, load<v4i, 4>(b), \
                                                                  load<v8i, 8>(c), load1(idx), cl)); \
  }
#define SWMMAC_IU4(sa, sb, cl)                                                                      \
  extern "C" __global__ void swmmac_iu4_##sa##sb##cl(ARGS) {                                        \
    store<v8i, 8>(d, __builtin_amdgcn_swmmac_i32_16x16x32_iu4_w32(sa, load1(a), sb, load<v2i, 2>(b),    \
                                                                  load<v8i, 8>(c), load1(idx), cl)); \
  }
#define SWMMAC_IU4K64(sa, sb, cl)                                                                   \
  extern "C" __global__ void swmmac_iu4k64_##sa##sb##cl(ARGS) {                                     \
    store<v8i, 8>(d, __builtin_amdgcn_swmmac_i32_16x16x64_iu4_w32(sa, load<v2i, 2>(a), sb, load<v4i, 4>(b), \
                                                                  load<v8i, 8>(c), load1(idx), cl)); \
  }
INT_VARIANTS(SWMMAC_IU8)
INT_VARIANTS(SWMMAC_IU4)
INT_VARIANTS(SWMMAC_IU4K64)
// The high 16-bit index set: LLVM folds the shift into index_key:1.
extern "C" __global__ void swmmac_f32_f16_key1(ARGS) {
  store<v8f, 8>(d, __builtin_amdgcn_swmmac_f32_16x16x32_f16_w32(load<v8h, 4>(a), load<v16h, 8>(b), load<v8f, 8>(c),
                                                                (int)((unsigned)load1(idx) >> 16)));
}
