#pragma once
// Ops of the kernel IR. An Op has an opcode, operands, results (fresh SSA values), a few
// attributes and, for control flow, nested regions. The exact semantics of every opcode (what
// both emitters must produce) is in dsl/ir/README.md; the one-line summaries here are reminders.
#include <cstdint>
#include <dsl/ir/type.hpp>
#include <dsl/ir/value.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tw::ir {

enum class Opcode : std::uint16_t {
  // --- constants -------------------------------------------------------------------------
  const_int,   // result int scalar = attrs.int_value (truncated to the width)
  const_float, // result float scalar = attrs.float_value rounded RNE to the type
  // --- integer and float arithmetic (operands and result of one type; vectors elementwise) --
  add,   // int: wrapping; float: IEEE, RNE (bf16: computed in f32, rounded RNE)
  sub,   //
  mul,   //
  div,   // float only
  div_s, // int signed, rounds toward zero; division by zero / INT_MIN / -1 is unspecified
  div_u, // int unsigned
  rem_s, // int signed remainder (sign of the dividend)
  rem_u, //
  neg,   // int: 0 - x; float: sign flip
  abs,   // float: clear sign; int: |x| (INT_MIN stays INT_MIN)
  min,   // float: IEEE minNum (a NaN operand yields the other); int: signed
  max,   //
  min_u, // int unsigned
  max_u, //
  and_,  // int bitwise
  or_,   //
  xor_,  //
  not_,  // int bitwise complement
  shl,   // int; the shift amount is taken modulo the bit width
  shr_u, // logical right shift
  shr_s, // arithmetic right shift
  fma,   // float a * b + c with one rounding
  // i32 only: the high 32 bits of the unsigned 64-bit product (v_mul_hi_u32)
  mul_hi_u,
  // --- math (f32; exp2 / rcp also f16; the gfx12 hardware approximations, see README) ------
  exp2,
  log2,
  rcp,
  rsqrt,
  sqrt,
  tanh, // defined by the formula in README (built from exp2 / rcp), identical in both emitters
  // --- comparisons and select --------------------------------------------------------------
  cmp,    // attrs.pred; scalar operands -> i1
  select, // select(i1 cond, a, b): cond ? a : b (a, b of any one type)
  // --- conversions -------------------------------------------------------------------------
  trunc,   // int -> narrower int (keeps the low bits)
  zext,    // int -> wider int, zero-filled
  sext,    // int -> wider int, sign-filled
  cvt,     // numeric conversion with attrs.rounding / attrs.saturate (table in README)
  bitcast, // same total bits, reinterpret
  // --- vectors ---------------------------------------------------------------------------
  splat,        // scalar -> <N x scalar>
  build_vector, // N scalars -> <N x scalar>
  extract,      // element attrs.index of a vector
  insert,       // vector with element attrs.index replaced
  slice,        // lanes [attrs.index, attrs.index + N) of a vector (N from the result type)
  concat,       // vectors of one element type -> their concatenation
  // --- memory ------------------------------------------------------------------------------
  ptr_add,      // ptr + signed byte offset (i32 or i64; LDS pointers: i32) -> same pointer type
  int_to_ptr,   // i64 address -> ptr<global> (pointer tables: grouped GEMM problem lists)
  load,         // load(ptr) -> result type; attrs.align (bytes)
  store,        // store(ptr, value); attrs.align
  lds_ptr,      // pointer to byte attrs.index of the kernel's static LDS block -> ptr<lds>
  buffer_rsrc,  // buffer_rsrc(ptr<global> base, i32 num_records) -> buffer_rsrc
  buffer_load,  // buffer_load(rsrc, i32 byte_offset[, i32 scalar_offset]) -> result; 0 when out
                // of range
  buffer_store, // buffer_store(rsrc, i32 byte_offset, value); dropped when out of range
  // global_load_tr(ptr<global>) -> <8 x 16-bit> (b128) or <8 x 8-bit> (b64): the wave-wide
  // transpose load (README: the lane exchange; EXEC must be all ones)
  global_load_tr,
  // --- ids -------------------------------------------------------------------------------
  workitem_id,    // attrs.dim; i32 thread index within the workgroup
  workgroup_id,   // attrs.dim; i32
  workgroup_size, // attrs.dim; i32, the kernel's static workgroup size
  lane_id,        // i32 0..31
  wave_id,        // i32 flat workitem id / 32 (wave-uniform)
  // --- lane ops (32-bit scalar values; see README for the inactive-lane rule) --------------
  bpermute,      // bpermute(i32 byte_addr, v): lane l gets v of lane (byte_addr / 4) % 32
  permlane16,    // permlane16(v, i32 sel_lo, i32 sel_hi): v_permlane16_b32
  permlanex16,   // permlanex16(v, i32 sel_lo, i32 sel_hi): v_permlanex16_b32
  dpp,           // dpp(old, src): DPP16 move, attrs.dpp / row_mask / bank_mask / bound_ctrl
  readfirstlane, // value of the first active lane, broadcast
  // --- matrix ----------------------------------------------------------------------------
  wmma,   // wmma(a, b, c) -> d, attrs.atom (mnemonic) + attrs.mma modifiers
  swmmac, // swmmac(a, b, c, i32 index) -> d, attrs.atom + attrs.mma (index_key)
  // --- synchronisation ---------------------------------------------------------------------
  barrier, // workgroup fence(release) + s_barrier + workgroup fence(acquire); attrs.lds_only
  // a compilers' scheduling fence (no machine code): only the instruction kinds in the mask
  // attrs.int_value (README; 0: none) may be moved across it
  sched_barrier,
  // waits of this wave (no fence, no barrier): until at most attrs.int_value (0..63) of its
  // earlier LDS accesses (wait_lds: s_wait_dscnt) / global and buffer loads (wait_global:
  // s_wait_loadcnt) are outstanding (README: the compilers' own waits still follow)
  wait_lds,
  wait_global,
  // --- structured control flow -------------------------------------------------------------
  for_,  // for(lb, ub, step, inits...) { ^(iv, carried...) ... yield(next...) } -> finals
  if_,   // if(i1 cond) { then ... yield(r...) } else { ... yield(r...) } -> r...
  yield, // terminator of for_ / if_ regions
};

// Name used by the printer and in verifier messages, e.g. "add", "for", "buffer_load".
std::string_view opcode_name(Opcode op);

// Comparison predicates (as C++ operators on the values): for ints eq..ge are signed and u* are
// unsigned (ints only); for floats eq, lt, le, gt, ge are false when an operand is NaN and ne is
// true when an operand is NaN.
enum class CmpPred : std::uint8_t { eq, ne, lt, le, gt, ge, ult, ule, ugt, uge };
std::string_view to_string(CmpPred p);

// Rounding of a cvt: round to nearest even, toward zero, or stochastic (fp8 targets only; the
// op then takes an extra i32 operand of random bits).
enum class Rounding : std::uint8_t { rne, rtz, stochastic };
std::string_view to_string(Rounding r);

enum class Dim : std::uint8_t { x, y, z };
std::string_view to_string(Dim d);

// DPP16 controls valid on gfx12 (no row_bcast / wave_* of gfx9).
enum class DppKind : std::uint8_t {
  quad_perm,       // arg = 4 x 2-bit lane selects within each quad, element 0 in bits 1:0
  row_shl,         // arg 1..15: lane l reads lane l + arg of its row of 16
  row_shr,         // arg 1..15: lane l reads lane l - arg of its row
  row_ror,         // arg 1..15: rotate right within the row
  row_mirror,      // lane 15 - l within the row
  row_half_mirror, // lane 7 - l within each half row
  row_share,       // arg 0..15: every lane reads lane arg of its row (broadcast)
  row_xmask,       // arg 0..15: lane l reads lane l ^ arg of its row
};
struct DppCtrl {
  DppKind kind = DppKind::quad_perm;
  std::uint8_t arg = 0xE4; // quad_perm [0,1,2,3]: identity

  static constexpr DppCtrl quad_perm(int l0, int l1, int l2, int l3) {
    return {DppKind::quad_perm, static_cast<std::uint8_t>(l0 | l1 << 2 | l2 << 4 | l3 << 6)};
  }
  static constexpr DppCtrl row_shl(int n) { return {DppKind::row_shl, std::uint8_t(n)}; }
  static constexpr DppCtrl row_shr(int n) { return {DppKind::row_shr, std::uint8_t(n)}; }
  static constexpr DppCtrl row_ror(int n) { return {DppKind::row_ror, std::uint8_t(n)}; }
  static constexpr DppCtrl row_mirror() { return {DppKind::row_mirror, 0}; }
  static constexpr DppCtrl row_half_mirror() { return {DppKind::row_half_mirror, 0}; }
  static constexpr DppCtrl row_share(int lane) { return {DppKind::row_share, std::uint8_t(lane)}; }
  static constexpr DppCtrl row_xmask(int mask) { return {DppKind::row_xmask, std::uint8_t(mask)}; }
  friend constexpr bool operator==(const DppCtrl&, const DppCtrl&) = default;
};
// The dpp_ctrl immediate of the ISA / llvm.amdgcn.update.dpp (e.g. row_shr(1) = 0x111).
int dpp_ctrl_encoding(DppCtrl c);
std::string to_string(DppCtrl c);

// WMMA / SWMMAC modifiers (same meaning as tw::atoms::MmaModifiers; kept here so the IR does
// not depend on the atom tables' layout types).
//  iu8 / iu4: a_signed, b_signed, clamp. f16 / bf16 inputs: neg_lo / neg_hi bits 0 (A), 1 (B),
//  bit 2: neg_lo negates C, neg_hi takes |C|. fp8 / bf8: none. SWMMAC: index_key.
struct MmaMods {
  bool a_signed = false, b_signed = false, clamp = false;
  std::uint8_t neg_lo = 0, neg_hi = 0, index_key = 0;
  friend constexpr bool operator==(const MmaMods&, const MmaMods&) = default;
};

// The instruction kinds of a sched_barrier mask (the bits of llvm.amdgcn.sched.barrier and
// __builtin_amdgcn_sched_barrier): the kinds that may be scheduled across the fence.
namespace sched_kind {
inline constexpr std::uint32_t none = 0, alu = 0x1, valu = 0x2, salu = 0x4, matrix = 0x8,
                               vmem = 0x10, vmem_read = 0x20, vmem_write = 0x40, lds = 0x80,
                               lds_read = 0x100, lds_write = 0x200, transcendental = 0x400;
} // namespace sched_kind
inline constexpr std::int64_t sched_barrier_mask_all = 0x7FF;
// The largest count wait_lds / wait_global take (the 6-bit DScnt / LOADcnt fields of gfx12).
inline constexpr std::int64_t wait_count_max = 63;

// Attributes: one flat struct; each opcode reads only the fields its comment names.
struct Attrs {
  std::int64_t int_value = 0;        // const_int; sched_barrier: the mask; wait_*: the count
  double float_value = 0;            // const_float
  std::int64_t index = 0;            // extract / insert / slice lane, lds_ptr byte offset
  CmpPred pred = CmpPred::eq;        // cmp
  Rounding rounding = Rounding::rne; // cvt
  bool saturate = false;             // cvt: clamp to the target's finite range
  bool is_unsigned = false;          // cvt: the int operand (or int result) is unsigned
  Dim dim = Dim::x;                  // ids
  std::uint32_t align = 0;           // load / store: byte alignment (0 = natural, see README)
  DppCtrl dpp{};                     // dpp
  std::uint8_t row_mask = 0xF, bank_mask = 0xF; // dpp
  bool bound_ctrl = true;                       // dpp: invalid source lane reads 0 (else old)
  std::string atom;                             // wmma / swmmac mnemonic
  MmaMods mma{};                                // wmma / swmmac
  bool lds_only = false; // barrier: the fences order LDS only (no L0 invalidate, global_inv)
};

struct Op;

// A list of ops with its arguments (for_: induction variable then loop-carried values;
// if_ regions have none). Regions of for_ / if_ end with a yield.
struct Region {
  std::vector<Value> args;
  std::vector<Op> ops;
};

struct Op {
  Opcode opcode{};
  std::vector<Value> operands;
  std::vector<Value> results;
  Attrs attrs;
  std::vector<Region> regions; // for_: 1 (body); if_: 2 (then, else)
};

} // namespace tw::ir
