#pragma once
// The LDS planner: named LDS buffers laid out at compile time (or at run time when a shape is
// only known then) inside the 64 KiB a gfx12 workgroup may allocate.
//
//   constexpr auto plan = lds_plan(lds_buffer<f16>("sA", 128, 32, stages(2), swizzle(3, 3, 3)),
//                                  lds_buffer<f16>("sB", 128, 32, stages(2), pad(8)));
//   constexpr auto& lds = checked_lds_plan<plan>;   // static_assert sentence when over budget
//
// Each buffer is a row-major rows x cols tile of one element type with
//  - stages: multi-buffering (double buffer = 2 copies, used round-robin by a pipeline),
//  - pad: extra elements at the end of each row (breaks LDS bank conflicts of column walks),
//  - swizzle: an XOR swizzle of the element offset (same purpose, no extra bytes),
//  - align: the byte alignment of the buffer and of each stage (16 = one 128-bit access),
//  - chunked(granule): the rows may be split into chunks of a multiple of `granule` rows that
//    the kernel loops over when the whole plan does not fit (attention's K/V prefetch).
// Every chunked buffer of a plan is split into the same number of chunks, the smallest number
// that makes the plan fit.
#include <array>
#include <concepts>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <dsl/types/elem.hpp>

namespace tw::dsl {

// gfx12: 64 KiB of LDS per workgroup (128 KiB per WGP, shared by its workgroups).
inline constexpr std::int64_t kLdsBytesPerWorkgroup = 64 * 1024;

// A buffer name that can live inside a structural (template-argument) value.
struct LdsName {
  static constexpr int kCapacity = 31;
  char text[kCapacity + 1]{};

  constexpr LdsName() = default;
  constexpr LdsName(const char* s) { // NOLINT: implicit from a string literal on purpose
    int i = 0;
    for (; s[i] != '\0'; ++i) {
      if (i == kCapacity)
        throw std::length_error("an LDS buffer name has at most 31 characters");
      text[i] = s[i];
    }
    if (i == 0)
      throw std::invalid_argument("an LDS buffer needs a non-empty name");
  }
  constexpr std::string_view view() const { return std::string_view(text); }
  constexpr bool operator==(std::string_view other) const { return view() == other; }
};

// XOR swizzle of an element offset (CuTe's Swizzle<bits, base, shift> semantics): the `bits`
// bits starting at bit base + shift are XORed into the bits starting at bit `base`.
// bits = 0 is the identity.
struct LdsSwizzle {
  int bits = 0, base = 0, shift = 0;

  constexpr std::int64_t apply(std::int64_t offset) const {
    if (bits == 0)
      return offset;
    const std::int64_t mask = ((std::int64_t{1} << bits) - 1) << (base + shift);
    return offset ^ ((offset & mask) >> shift);
  }
  constexpr bool operator==(const LdsSwizzle&) const = default;
};

// What the author asks for, before placement.
struct LdsBufferSpec {
  LdsName name;
  int elem_bytes = 0;
  int rows = 0, cols = 0;
  int elem_id = 0; // the DSL element tag's id (0: a plain C++ type)
  int stages = 1;
  int pad = 0; // elements appended to each row
  LdsSwizzle swizzle{};
  int align = 16;        // bytes, a power of two
  int chunk_granule = 0; // 0: never split; else chunks hold a multiple of this many rows
};

// ----- buffer options (each modifies one field of the spec) -----
struct LdsStages {
  int n;
  constexpr void apply(LdsBufferSpec& s) const { s.stages = n; }
};
struct LdsPad {
  int elems;
  constexpr void apply(LdsBufferSpec& s) const { s.pad = elems; }
};
struct LdsSwizzleOpt {
  LdsSwizzle sw;
  constexpr void apply(LdsBufferSpec& s) const { s.swizzle = sw; }
};
struct LdsAlign {
  int bytes;
  constexpr void apply(LdsBufferSpec& s) const { s.align = bytes; }
};
struct LdsChunked {
  int granule;
  constexpr void apply(LdsBufferSpec& s) const { s.chunk_granule = granule; }
};
constexpr LdsStages stages(int n) {
  return {n};
}
constexpr LdsPad pad(int elems) {
  return {elems};
}
constexpr LdsSwizzleOpt swizzle(int bits, int base, int shift) {
  return {{bits, base, shift}};
}
constexpr LdsAlign align(int bytes) {
  return {bytes};
}
constexpr LdsChunked chunked(int granule_rows) {
  return {granule_rows};
}

template <class O>
concept LdsBufferOption = requires(const O& o, LdsBufferSpec& s) {
  o.apply(s);
};

namespace detail {
// Sentences for bad buffer specs; thrown (so a constant evaluation fails on that line, and a
// run-time plan throws them as messages).
constexpr void check_spec(const LdsBufferSpec& s) {
  if (s.rows <= 0 || s.cols <= 0)
    throw std::invalid_argument("an LDS buffer needs rows > 0 and cols > 0");
  if (s.elem_bytes <= 0)
    throw std::invalid_argument("an LDS buffer needs an element type of at least one byte");
  if (s.stages < 1)
    throw std::invalid_argument("an LDS buffer needs stages >= 1");
  if (s.pad < 0)
    throw std::invalid_argument("LDS row padding cannot be negative");
  if (s.align <= 0 || (s.align & (s.align - 1)) != 0)
    throw std::invalid_argument("LDS buffer alignment must be a power of two");
  if (s.chunk_granule < 0)
    throw std::invalid_argument("LDS chunk granule cannot be negative");
  if (s.swizzle.bits < 0 || s.swizzle.base < 0 || s.swizzle.shift < s.swizzle.bits)
    throw std::invalid_argument(
        "LDS swizzle needs bits >= 0, base >= 0 and shift >= bits (source and target bits "
        "must not overlap)");
}
constexpr std::int64_t round_up(std::int64_t v, std::int64_t a) {
  return (v + a - 1) / a * a;
}
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}
} // namespace detail

// lds_buffer<T>(name, rows, cols, options...): a buffer of element type T.
template <class T, LdsBufferOption... Options>
constexpr LdsBufferSpec lds_buffer(LdsName name, int rows, int cols, Options... options) {
  LdsBufferSpec s{name, elem_bytes<T>(), rows, cols};
  if constexpr (ElemType<T>)
    s.elem_id = T::id;
  (options.apply(s), ...);
  detail::check_spec(s);
  return s;
}

// One placed buffer. Addresses are bytes from the start of the kernel's LDS.
struct LdsBuffer {
  LdsBufferSpec spec{};
  int chunk_rows = 0; // rows resident at once (== spec.rows unless chunked)
  int num_chunks = 1; // how many chunks the kernel loops over
  std::int64_t row_pitch_bytes = 0;
  std::int64_t stage_bytes = 0; // one stage of one chunk, rounded up to the alignment
  std::int64_t offset = 0;

  constexpr std::int64_t bytes() const { return stage_bytes * spec.stages; }
  constexpr std::int64_t stage_offset(int stage) const { return offset + stage * stage_bytes; }
  constexpr int row_pitch_elems() const { return spec.cols + spec.pad; }
  // Byte address of element (row, col) of `stage` (row within the resident chunk).
  constexpr std::int64_t element_address(int stage, int row, int col) const {
    const std::int64_t elem = std::int64_t{row} * row_pitch_elems() + col;
    return stage_offset(stage) + spec.swizzle.apply(elem) * spec.elem_bytes;
  }
  constexpr bool is_chunked() const { return num_chunks > 1; }
};

// A placed set of buffers.
template <int N>
struct LdsPlan {
  std::array<LdsBuffer, N> buffers{};
  std::int64_t total_bytes = 0;
  std::int64_t budget = kLdsBytesPerWorkgroup;
  int num_chunks = 1; // chunks of every chunked buffer (1: nothing is split)

  constexpr std::int64_t bytes() const { return total_bytes; }
  constexpr bool fits() const { return total_bytes <= budget; }
  static constexpr int size() { return N; }

  constexpr const LdsBuffer& operator[](std::string_view name) const {
    for (const LdsBuffer& b : buffers)
      if (b.spec.name == name)
        return b;
    throw std::out_of_range("the LDS plan has no buffer named '" + std::string(name) + "'");
  }

  // Run-time check for plans whose shapes were only known at run time.
  void require_fits() const {
    if (fits())
      return;
    std::string msg = "LDS plan needs " + std::to_string(total_bytes) +
                      " bytes but a gfx12 workgroup has " + std::to_string(budget) + " (";
    for (int i = 0; i < N; ++i) {
      const LdsBuffer& b = buffers[i];
      msg += (i ? ", " : "") + std::string(b.spec.name.view()) + " " + std::to_string(b.bytes()) +
             " B";
    }
    msg += "); shrink a tile, use fewer stages, or mark a buffer chunked(granule)";
    throw std::length_error(msg);
  }
};

namespace detail {
template <int N>
constexpr void place(LdsPlan<N>& plan, int num_chunks) {
  std::int64_t cursor = 0;
  for (LdsBuffer& b : plan.buffers) {
    const LdsBufferSpec& s = b.spec;
    b.chunk_rows = s.rows;
    b.num_chunks = 1;
    if (s.chunk_granule > 0 && num_chunks > 1) {
      const std::int64_t rows = round_up(ceil_div(s.rows, num_chunks), s.chunk_granule);
      b.chunk_rows = static_cast<int>(rows < s.rows ? rows : s.rows);
      b.num_chunks = static_cast<int>(ceil_div(s.rows, b.chunk_rows));
    }
    b.row_pitch_bytes = std::int64_t{s.cols + s.pad} * s.elem_bytes;
    b.stage_bytes = round_up(b.row_pitch_bytes * b.chunk_rows, s.align);
    if (s.swizzle.bits > 0) {
      // The swizzle permutes offsets within blocks of 2^(bits+base+shift) elements: the stage
      // must cover whole blocks so no swizzled address leaves it.
      const std::int64_t block = std::int64_t{1}
                                 << (s.swizzle.bits + s.swizzle.base + s.swizzle.shift);
      b.stage_bytes = round_up(b.stage_bytes, block * s.elem_bytes);
    }
    cursor = round_up(cursor, s.align);
    b.offset = cursor;
    cursor += b.bytes();
  }
  plan.total_bytes = cursor;
  plan.num_chunks = num_chunks;
}
} // namespace detail

// Places the buffers in order. When they do not fit and some are chunked, splits every chunked
// buffer into the smallest common number of chunks that fits; if even the smallest chunks do
// not fit, the plan stays over budget (fits() == false) with the smallest chunks.
template <class... Specs>
requires(std::same_as<Specs, LdsBufferSpec>&&...) constexpr LdsPlan<sizeof...(Specs)> lds_plan(
    const Specs&... specs) {
  static_assert(sizeof...(Specs) > 0, "an LDS plan needs at least one lds_buffer(...)");
  LdsPlan<sizeof...(Specs)> plan;
  int i = 0;
  ((plan.buffers[i++].spec = specs), ...);
  for (std::size_t a = 0; a < plan.buffers.size(); ++a)
    for (std::size_t b = a + 1; b < plan.buffers.size(); ++b)
      if (plan.buffers[a].spec.name.view() == plan.buffers[b].spec.name.view())
        throw std::invalid_argument("two LDS buffers of one plan share a name");
  detail::place(plan, 1);
  int max_chunks = 1;
  for (const LdsBuffer& b : plan.buffers)
    if (b.spec.chunk_granule > 0) {
      const int n = static_cast<int>(detail::ceil_div(b.spec.rows, b.spec.chunk_granule));
      max_chunks = n > max_chunks ? n : max_chunks;
    }
  for (int n = 2; !plan.fits() && n <= max_chunks; ++n)
    detail::place(plan, n);
  return plan;
}

// checked_lds_plan<plan>: the plan, with the 64 KiB budget enforced while compiling.
template <auto Plan>
struct StaticLdsPlan {
  static_assert(Plan.fits(),
                "the LDS plan needs more than the 64 KiB of LDS a gfx12 workgroup can "
                "allocate: shrink a tile, use fewer stages, or mark a buffer chunked(granule)");
  static constexpr auto value = Plan;
};
template <auto Plan>
inline constexpr const auto& checked_lds_plan = StaticLdsPlan<Plan>::value;

} // namespace tw::dsl
