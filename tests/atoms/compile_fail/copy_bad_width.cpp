// Must not compile: there is no 96-bit copy atom.
#include <atoms/copy.hpp>

constexpr int width =
    tw::atoms::CopyAtom<tw::atoms::CopyPath::global, tw::atoms::CopyDir::load, 96>::width_bits;
