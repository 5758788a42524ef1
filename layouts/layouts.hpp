#pragma once
// Umbrella header of the layout algebra (see docs/layouts.md).
#include <layouts/coalesce.hpp>
#include <layouts/complement.hpp>
#include <layouts/composition.hpp>
#include <layouts/divide.hpp>
#include <layouts/dyn_layout.hpp>
#include <layouts/int_tuple.hpp>
#include <layouts/inverse.hpp>
#include <layouts/layout.hpp>
#include <layouts/product.hpp>
#include <layouts/render.hpp>
#include <layouts/status.hpp>
#include <layouts/swizzle.hpp>
#include <layouts/tiler.hpp>
