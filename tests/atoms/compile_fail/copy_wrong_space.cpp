// Must not compile: an LDS load through a global pointer.
#include <atoms/copy.hpp>

static_assert(tw::atoms::ds_load_b64::check<tw::atoms::AddressSpace::global, 0>());
