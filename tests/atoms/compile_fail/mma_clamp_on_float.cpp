// Must not compile: gfx12 float WMMA has no clamp.
#include <atoms/mma/gfx12.hpp>

static_assert(
    tw::atoms::wmma_f32_16x16x16_bf16::require_modifiers<tw::atoms::MmaModifiers{.clamp = true}>());
