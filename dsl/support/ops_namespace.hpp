#pragma once
// tw::dsl::ops holds the operations on DSL values whose names are common identifiers (copy,
// gemm, store, map, min, max, abs, select and the math functions). They are not members of
// tw::dsl, so `using namespace tw::dsl;` does not bring them into scope and a user's own
// variable or function named `copy` or `max` stays unambiguous. Calls still read `copy(tc, g,
// s)` or `max(x, y)`: every DSL type they take derives from ops::adl_anchor, which makes
// tw::dsl::ops an associated namespace of its arguments (argument-dependent lookup).
// Qualified: tw::dsl::ops::copy(...). The layout is documented in docs/guide.md.

namespace tw::dsl::ops {

// Empty base of Scalar, MmaFragment, TiledMma and TiledCopy: no state, no cost (empty base).
struct adl_anchor {};

} // namespace tw::dsl::ops
