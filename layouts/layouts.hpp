#pragma once
// Umbrella header of the layout algebra.
#include <layouts/dyn_layout.hpp>
#include <layouts/int_tuple.hpp>
#include <layouts/layout.hpp>
#include <layouts/status.hpp>
