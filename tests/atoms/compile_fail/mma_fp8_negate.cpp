// Must not compile: fp8 / bf8 WMMA cannot negate A or B.
#include <atoms/mma/gfx12.hpp>

static_assert(tw::atoms::wmma_f32_16x16x16_fp8_fp8::require_modifiers<tw::atoms::MmaModifiers{
                  .neg_lo = 1, .neg_hi = 1}>());
