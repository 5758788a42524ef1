// Must not compile: a dense 16x16x32 WMMA exists only for iu4.
#include <atoms/mma/gfx12.hpp>

using namespace tw::atoms;
using Atom = select_mma_atom<MmaQuery{16, 16, 32, MmaElem::f16, MmaElem::f16, MmaElem::f32}>;
Atom atom;
