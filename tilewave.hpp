#pragma once
// Umbrella header: everything a kernel author needs.
#include <layouts/layouts.hpp>
#if __has_include(<atoms/atoms.hpp>)
#include <atoms/atoms.hpp>
#endif
#if __has_include(<dsl/dsl.hpp>)
#include <dsl/dsl.hpp>
#endif
