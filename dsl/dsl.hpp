#pragma once
// The tilewave DSL (umbrella): KernelBuilder and typed handles, control flow, tensors in
// global memory / LDS / registers, the LDS planner, tiled MMA and tiled copy, reductions.
#include <dsl/builder/control.hpp>
#include <dsl/builder/ids.hpp>
#include <dsl/builder/kernel_builder.hpp>
#include <dsl/copy/tiled_copy.hpp>
#include <dsl/handles/scalar.hpp>
#include <dsl/handles/scalar_ops.hpp>
#include <dsl/handles/vec.hpp>
#include <dsl/lds/lds_plan.hpp>
#include <dsl/mma/accumulator_operand.hpp>
#include <dsl/mma/accumulator_visit.hpp>
#include <dsl/mma/fragment.hpp>
#include <dsl/mma/mma_atom.hpp>
#include <dsl/mma/row_reduce.hpp>
#include <dsl/mma/tiled_mma.hpp>
#include <dsl/ops/pipeline.hpp>
#include <dsl/ops/reduce.hpp>
#include <dsl/tensor/args.hpp>
#include <dsl/tensor/global_tensor.hpp>
#include <dsl/tensor/global_tile.hpp>
#include <dsl/tensor/lds_tile.hpp>
#include <dsl/tensor/partition.hpp>
#include <dsl/types/elem.hpp>
#include <dsl/types/ir_type.hpp>
