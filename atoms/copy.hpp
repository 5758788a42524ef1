#pragma once
// Copy atoms: the gfx12 per-lane loads and stores of 32 / 64 / 128 bits through global memory,
// buffer resources (zero past num_records) and LDS, with their alignment rules, LLVM / HIP
// forms, verify() and the buffer range-check semantics; the transpose loads global_load_tr_b128
// / _b64 with their lane layouts. Namespace tw::atoms.
#include <atoms/copy/address_space.hpp>
#include <atoms/copy/buffer_bounds.hpp>
#include <atoms/copy/copy_atom.hpp>
#include <atoms/copy/copy_instr_info.hpp>
#include <atoms/copy/gfx12_copy_instrs.hpp>
#include <atoms/copy/gfx12_transpose_loads.hpp>
#include <atoms/copy/verify.hpp>
