#pragma once
// The kernel IR (umbrella header): types, values, ops and regions, kernels and their kernarg
// layout, the OpBuilder, the verifier and the canonical printer. Semantics: dsl/ir/README.md.
#include <dsl/ir/kernel.hpp>
#include <dsl/ir/op.hpp>
#include <dsl/ir/op_builder.hpp>
#include <dsl/ir/print.hpp>
#include <dsl/ir/type.hpp>
#include <dsl/ir/value.hpp>
#include <dsl/ir/verify.hpp>
#include <dsl/ir/wmma_types.hpp>
