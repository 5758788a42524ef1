// Must not compile: a 128-bit global load at a static offset of 8 bytes.
#include <atoms/copy.hpp>

static_assert(tw::atoms::global_load_b128::check<tw::atoms::AddressSpace::global, 8>());
