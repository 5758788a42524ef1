// The HIP emitter does what dsl/ir/README.md says: small IR kernels are emitted, compiled for
// gfx1201 and run on the gfx12 emulator; every result is compared with a host computation of
// the README's definition (bit for bit, except the hardware approximations exp2 / log2 / rcp /
// rsqrt / tanh, compared with a tolerance). Expected values come from plain C++ and tw::num
// (atoms/formats), never from the emitter.
#include "hip_toolchain.hpp"

#include <atoms/formats.hpp>
#include <atoms/mma/gfx12_instrs.hpp>
#include <doctest/doctest.h>
#include <dsl/ir/ir.hpp>
#include <emit/hip/hip_emitter.hpp>
#include <emit/llvm/llvm_backend.hpp>
#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

using namespace tw::ir;
using tw::runtime::DevicePtr;

namespace {

const Type gptr = Type::ptr(AddrSpace::global);
constexpr int kLanes = 32;

// Runs IR kernels on the emulator.
class EmuRunner {
public:
  EmuRunner() : dev_(tw::runtime::make_device(tw::runtime::DeviceKind::Emu)) {}

  template <class T>
  DevicePtr upload(const std::vector<T>& v) {
    DevicePtr p = dev_->allocate(v.size() * sizeof(T));
    dev_->copy_to_device(p, v.data(), v.size() * sizeof(T));
    return p;
  }
  DevicePtr zeros(std::size_t bytes) { return dev_->allocate(bytes); }
  template <class T>
  std::vector<T> download(DevicePtr p, std::size_t n) {
    std::vector<T> v(n);
    dev_->copy_to_host(v.data(), p, n * sizeof(T));
    return v;
  }

  void run(const Kernel& k, const tw::runtime::KernelArgs& args, unsigned workgroups = 1) {
    std::vector<std::uint8_t> elf;
    // TILEWAVE_SEMANTICS_BACKEND=llvm runs the same checks on the LLVM backend's code objects
    // (ctest emit.llvm semantics, tests/emit/CMakeLists.txt).
    if (const char* be = std::getenv("TILEWAVE_SEMANTICS_BACKEND");
        be && std::string(be) == "llvm") {
      elf = tw::emit::compile_llvm(k, tw::Arch::gfx1201, 3).code_object;
    } else {
      const std::string src = tw::emit::hip::emit_source(k);
      const tw::test::HipBuild b = tw::test::compile_hip(src, "gfx1201");
      INFO(src << "\n" << b.log);
      REQUIRE(b.ok);
      elf.assign(b.elf.begin(), b.elf.end());
    }
    const auto module = dev_->load_code_object(elf);
    const auto kernel = dev_->get_kernel(module, k.name);
    const auto& wg = k.workgroup_size;
    dev_->launch(kernel, {workgroups, 1, 1},
                 {static_cast<std::uint32_t>(wg[0]), static_cast<std::uint32_t>(wg[1]),
                  static_cast<std::uint32_t>(wg[2])},
                 args.span());
    dev_->synchronize();
  }

private:
  std::unique_ptr<tw::runtime::Device> dev_;
};

// A lane-wise kernel: lane t reads its inputs in0[t], in1[t] (32-bit each) and writes result
// slot s to out[s * 32 + t] (32 bits).
struct LaneKernel {
  Kernel k;
  OpBuilder b{k};
  Value in0, in1, out, tid, four;
  int slots = 0;
  explicit LaneKernel(const char* name) {
    k.name = name;
    k.workgroup_size = {kLanes, 1, 1};
    in0 = b.arg("in0", gptr);
    in1 = b.arg("in1", gptr);
    out = b.arg("out", gptr);
    tid = b.workitem_id();
    four = b.i32(4);
  }
  Value input(Value base, Type t) {
    Value off = b.mul(tid, four);
    Value p = b.ptr_add(base, off);
    return b.load(t, p);
  }
  // Stores a value of at most 32 bits, widened to 32 (ints zero-extended, floats as bits).
  void result(Value v) {
    const Type t = b.type_of(v);
    Value w = v;
    if (t.is_float() || t.is_fp8())
      w = t.bits() == 32 ? b.bitcast(Type::i32(), v)
                         : b.zext(Type::i32(), b.bitcast(Type::i(t.bits()), v));
    else if (t.elem_bits() < 32)
      w = b.zext(Type::i32(), v);
    Value idx = b.add(b.i32(slots * kLanes), tid);
    Value p = b.ptr_add(out, b.mul(idx, four));
    b.store(p, w);
    ++slots;
  }
};

template <class To, class From>
To bits_as(From f) {
  static_assert(sizeof(To) == sizeof(From));
  return std::bit_cast<To>(f);
}

std::vector<std::int32_t> lcg_values(std::uint32_t seed) {
  std::vector<std::int32_t> v(kLanes);
  std::uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<std::int32_t>(s);
  }
  return v;
}

} // namespace

TEST_CASE("hip semantics: integer ops wrap, shift modulo the width, divide toward zero") {
  EmuRunner emu;
  std::vector<std::int32_t> x = lcg_values(1), y = lcg_values(2);
  const std::int32_t special_x[] = {
      -7, 7, 200, -1, std::numeric_limits<std::int32_t>::min() + 1, 12345, -100000, 3, 0, 127};
  const std::int32_t special_y[] = {2, 2, 100, 33, -2, -31, 7, 64, 5, 1};
  for (int i = 0; i < 10; ++i) {
    x[i] = special_x[i];
    y[i] = special_y[i];
  }
  for (auto& v : y)
    if (v == 0 || v == -1)
      v = 3; // division by 0 and MIN / -1 are unspecified

  LaneKernel lk("int_semantics");
  OpBuilder& b = lk.b;
  Value a = lk.input(lk.in0, Type::i32()), c = lk.input(lk.in1, Type::i32());
  lk.result(b.shl(a, c));
  lk.result(b.shr_u(a, c));
  lk.result(b.shr_s(a, c));
  lk.result(b.div_s(a, c));
  lk.result(b.rem_s(a, c));
  lk.result(b.div_u(a, c));
  lk.result(b.min(a, c));
  lk.result(b.min_u(a, c));
  lk.result(b.max(a, c));
  Value a8 = b.trunc(Type::i8(), a), c8 = b.trunc(Type::i8(), c);
  lk.result(b.add(a8, c8));
  lk.result(b.sext(Type::i32(), a8));
  lk.result(b.shr_s(a8, c8));
  Value a16 = b.trunc(Type::i16(), a), c16 = b.trunc(Type::i16(), c);
  lk.result(b.mul(a16, c16));
  Value a64 = b.sext(Type::i64(), a), c64 = b.sext(Type::i64(), c);
  Value prod = b.mul(a64, c64);
  lk.result(b.trunc(Type::i32(), b.shr_s(prod, b.i64(32))));
  lk.result(b.abs(a));
  lk.result(b.neg(a));
  Value a7 = b.trunc(Type::i(7), a), c7 = b.trunc(Type::i(7), c);
  lk.result(b.add(a7, c7));
  Value lt = b.cmp(CmpPred::ult, a, c);
  lk.result(b.select(lt, a, c));
  Value slt = b.cmp(CmpPred::lt, a, c);
  lk.result(b.zext(Type::i32(), slt));

  const DevicePtr in0 = emu.upload(x), in1 = emu.upload(y);
  const DevicePtr out = emu.zeros(lk.slots * kLanes * 4);
  tw::runtime::KernelArgs args;
  args.ptr(in0).ptr(in1).ptr(out);
  emu.run(lk.k, args);
  const std::vector<std::uint32_t> got = emu.download<std::uint32_t>(out, lk.slots * kLanes);

  for (int t = 0; t < kLanes; ++t) {
    const std::int32_t xs = x[t], ys = y[t];
    const std::uint32_t xu = static_cast<std::uint32_t>(xs), yu = static_cast<std::uint32_t>(ys);
    const std::int8_t x8 = static_cast<std::int8_t>(xs), y8 = static_cast<std::int8_t>(ys);
    const std::uint32_t want[] = {
        xu << (yu & 31),
        xu >> (yu & 31),
        static_cast<std::uint32_t>(xs >> (yu & 31)),
        static_cast<std::uint32_t>(xs / ys),
        static_cast<std::uint32_t>(xs % ys),
        xu / yu,
        static_cast<std::uint32_t>(std::min(xs, ys)),
        std::min(xu, yu),
        static_cast<std::uint32_t>(std::max(xs, ys)),
        static_cast<std::uint8_t>(xu + yu),
        static_cast<std::uint32_t>(static_cast<std::int32_t>(x8)),
        static_cast<std::uint8_t>(x8 >> (static_cast<std::uint8_t>(y8) & 7)),
        static_cast<std::uint16_t>(xu * yu),
        static_cast<std::uint32_t>(static_cast<std::int64_t>(static_cast<std::int64_t>(xs) * ys) >>
                                   32),
        xs < 0 ? 0u - xu : xu,
        0u - xu,
        (xu + yu) & 0x7Fu,
        xu < yu ? xu : yu,
        xs < ys ? 1u : 0u,
    };
    REQUIRE(lk.slots == static_cast<int>(std::size(want)));
    for (int s = 0; s < lk.slots; ++s) {
      CAPTURE(t);
      CAPTURE(s);
      CAPTURE(xs);
      CAPTURE(ys);
      CHECK(got[s * kLanes + t] == want[s]);
    }
  }
}

TEST_CASE("hip semantics: float arithmetic and conversions round as the README defines") {
  EmuRunner emu;
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {
      1.0f,        -2.5f,       3.14159274f,    1e-40f,   0.0f,          -0.0f,   inf,
      -inf,        nan,         65504.0f,       70000.0f, 1e6f,          448.0f,  500.0f,
      1.00390625f, 1.01171875f, 0.1f,           -1e-8f,   5.9604645e-8f, 3e38f,   -3e38f,
      0.33333334f, 57344.0f,    60000.0f,       -465.0f,  2.0f,          1.5e-5f, -7.75f,
      1234.567f,   0.5f,        -0.0009765625f, 100.0f};
  std::vector<float> y(kLanes);
  for (int t = 0; t < kLanes; ++t)
    y[t] = 0.75f + static_cast<float>(t) * 0.3125f * (t % 2 ? -1.0f : 1.0f);
  REQUIRE(x.size() == kLanes);

  LaneKernel lk("float_semantics");
  OpBuilder& b = lk.b;
  Value a = lk.input(lk.in0, Type::f32()), c = lk.input(lk.in1, Type::f32());
  lk.result(b.add(a, c));                                         // 0
  lk.result(b.fma(a, c, a));                                      // 1
  lk.result(b.div(a, c));                                         // 2
  lk.result(b.sqrt(b.abs(a)));                                    // 3
  lk.result(b.min(a, c));                                         // 4
  lk.result(b.cvt(Type::bf16(), a));                              // 5
  lk.result(b.cvt(Type::bf16(), a, Rounding::rtz));               // 6
  lk.result(b.cvt(Type::f16(), a));                               // 7
  lk.result(b.cvt(Type::f16(), a, Rounding::rtz));                // 8
  lk.result(b.cvt(Type::f16(), a, Rounding::rne, true));          // 9
  Value q4 = b.cvt(Type::e4m3(), a, Rounding::rne, true);         //
  lk.result(q4);                                                  // 10
  lk.result(b.cvt(Type::e5m2(), a, Rounding::rne, true));         // 11
  lk.result(b.cvt(Type::f32(), q4));                              // 12
  Value ab = b.cvt(Type::bf16(), a), cb = b.cvt(Type::bf16(), c); //
  lk.result(b.add(ab, cb));                                       // 13
  Value ah = b.cvt(Type::f16(), a), ch = b.cvt(Type::f16(), c);   //
  lk.result(b.mul(ah, ch));                                       // 14
  lk.result(b.fma(ah, ch, ah));                                   // 15
  Value ne = b.cmp(CmpPred::ne, a, a);                            // true only for NaN
  lk.result(b.zext(Type::i32(), ne));                             // 16

  const DevicePtr in0 = emu.upload(x), in1 = emu.upload(y);
  const DevicePtr out = emu.zeros(lk.slots * kLanes * 4);
  tw::runtime::KernelArgs args;
  args.ptr(in0).ptr(in1).ptr(out);
  emu.run(lk.k, args);
  const std::vector<std::uint32_t> got = emu.download<std::uint32_t>(out, lk.slots * kLanes);

  namespace num = tw::num;
  auto clamp = [](float v, float m) { return v == v ? std::fmin(std::fmax(v, -m), m) : v; };
  for (int t = 0; t < kLanes; ++t) {
    const float xa = x[t], yc = y[t];
    CAPTURE(t);
    CAPTURE(xa);
    auto at = [&](int s) { return got[s * kLanes + t]; };
    const bool is_nan = std::isnan(xa);
    // f32 arithmetic: IEEE, correctly rounded (the host computes the same).
    // f32 arithmetic: IEEE, correctly rounded (the host computes the same); NaN results are
    // compared as NaN.
    auto same_float = [](std::uint32_t got_bits, float want) {
      const float g = std::bit_cast<float>(got_bits);
      return std::isnan(want) ? std::isnan(g) : got_bits == std::bit_cast<std::uint32_t>(want);
    };
    CHECK(same_float(at(0), xa + yc));
    CHECK(same_float(at(1), std::fma(xa, yc, xa)));
    CHECK(same_float(at(2), xa / yc));
    CHECK(same_float(at(3), std::sqrt(std::fabs(xa))));
    CHECK(same_float(at(4), std::fmin(xa, yc))); // minNum: a NaN operand yields the other
    // Conversions.
    const std::uint32_t bf_rtz = (bits_as<std::uint32_t>(xa) >> 16) | (is_nan ? 0x40u : 0u);
    CHECK(at(6) == bf_rtz);
    if (is_nan) {
      CHECK((at(5) & 0x7FC0u) == 0x7FC0u); // a quiet NaN
      CHECK((at(7) & 0x7E00u) == 0x7E00u);
      CHECK((at(8) & 0x7E00u) == 0x7E00u);
      CHECK((at(9) & 0x7E00u) == 0x7E00u);
      CHECK((at(10) & 0x7Fu) == 0x7Fu); // e4m3 NaN: S.1111.111
      CHECK((at(11) & 0x7Cu) == 0x7Cu);
      CHECK((at(11) & 0x03u) != 0u);
      CHECK(at(16) == 1u);
      continue;
    }
    CHECK(at(16) == 0u);
    CHECK(at(5) == num::f32_to_bf16(xa));
    CHECK(at(7) == num::f32_to_f16(xa));
    CHECK(at(8) == num::f32_to_f16_rtz(xa));
    CHECK(at(9) == num::f32_to_f16(clamp(xa, 65504.0f)));
    const std::uint8_t e4 = num::f32_to_e4m3(clamp(xa, 448.0f), num::Saturate::yes);
    CHECK(at(10) == e4);
    CHECK(at(11) == num::f32_to_e5m2(clamp(xa, 57344.0f), num::Saturate::yes));
    CHECK(at(12) == bits_as<std::uint32_t>(num::e4m3_to_f32(e4)));
    const float bsum =
        num::bf16_to_f32(num::f32_to_bf16(xa)) + num::bf16_to_f32(num::f32_to_bf16(yc));
    CHECK(at(13) == num::f32_to_bf16(bsum));
    const float hx = num::f16_to_f32(num::f32_to_f16(xa)),
                hy = num::f16_to_f32(num::f32_to_f16(yc));
    // f16 products and fma are exact in double: one rounding to f16.
    CHECK(at(14) == num::f64_to_f16(static_cast<double>(hx) * hy));
    CHECK(at(15) == num::f64_to_f16(std::fma(static_cast<double>(hx), hy, hx)));
  }
}

TEST_CASE("hip semantics: exp2, log2, rcp, rsqrt and tanh approximate within bounds") {
  EmuRunner emu;
  std::vector<float> x(kLanes);
  for (int t = 0; t < kLanes; ++t)
    x[t] = (t < 4) ? std::ldexp(1.0f, -t - 6) * (t % 2 ? -1.0f : 1.0f) // |x| < 1/16
                   : -9.0f + static_cast<float>(t) * 0.6f;
  LaneKernel lk("math_semantics");
  OpBuilder& b = lk.b;
  Value a = lk.input(lk.in0, Type::f32());
  Value pos = b.add(b.abs(a), b.f32(0.25));
  lk.result(b.exp2(a));
  lk.result(b.log2(pos));
  lk.result(b.rcp(pos));
  lk.result(b.rsqrt(pos));
  lk.result(b.tanh(a));
  const DevicePtr in0 = emu.upload(x), out = emu.zeros(lk.slots * kLanes * 4);
  tw::runtime::KernelArgs args;
  args.ptr(in0).ptr(in0).ptr(out);
  emu.run(lk.k, args);
  const std::vector<float> got = emu.download<float>(out, lk.slots * kLanes);
  for (int t = 0; t < kLanes; ++t) {
    const double v = x[t], p = std::fabs(v) + 0.25;
    CAPTURE(v);
    auto close = [](double g, double w, double rel) {
      return std::fabs(g - w) <= rel * std::fabs(w);
    };
    CHECK(close(got[0 * kLanes + t], std::exp2(v), 4e-7));
    CHECK(std::fabs(got[1 * kLanes + t] - std::log2(p)) <=
          4e-7 * std::max(1.0, std::fabs(std::log2(p))));
    CHECK(close(got[2 * kLanes + t], 1.0 / p, 4e-7));
    CHECK(close(got[3 * kLanes + t], 1.0 / std::sqrt(p), 4e-7));
    CHECK(close(got[4 * kLanes + t], std::tanh(v), 4e-6));
  }
}

TEST_CASE("hip semantics: buffer loads past num_records read 0 and stores past it are dropped") {
  EmuRunner emu;
  Kernel k;
  k.name = "buffer_bounds";
  k.workgroup_size = {kLanes, 1, 1};
  OpBuilder b(k);
  Value in = b.arg("in", gptr), out = b.arg("out", gptr), vout = b.arg("vout", gptr);
  Value nin = b.arg("n_in", Type::i32()), nout = b.arg("n_out", Type::i32());
  Value tid = b.workitem_id();
  Value rin = b.buffer_rsrc(in, nin), rout = b.buffer_rsrc(out, nout);
  Value off = b.mul(tid, b.i32(4));
  Value v = b.buffer_load(Type::i32(), rin, off);
  b.buffer_store(rout, off, b.add(v, b.i32(1000)));
  // 128-bit loads: lane t reads bytes [16 t, 16 t + 16) of `in`.
  Value off16 = b.mul(tid, b.i32(16));
  Value v4 = b.buffer_load(Type::vec(Type::i32(), 4), rin, off16);
  b.store(b.ptr_add(vout, off16), v4);

  std::vector<std::int32_t> data(4 * kLanes);
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<std::int32_t>(i * 7 + 1);
  const DevicePtr pin = emu.upload(data);
  const DevicePtr pout = emu.zeros(kLanes * 4), pvout = emu.zeros(kLanes * 16);
  tw::runtime::KernelArgs args;
  args.ptr(pin).ptr(pout).ptr(pvout).add<std::int32_t>(48).add<std::int32_t>(40);
  emu.run(k, args);
  const auto got = emu.download<std::int32_t>(pout, kLanes);
  const auto got4 = emu.download<std::int32_t>(pvout, 4 * kLanes);
  for (int t = 0; t < kLanes; ++t) {
    CAPTURE(t);
    // Store bound 40 bytes: lanes 0..9 write; load bound 48 bytes: lanes 0..11 read data.
    const std::int32_t want = t < 10 ? data[t] + 1000 : 0;
    CHECK(got[t] == want);
    for (int e = 0; e < 4; ++e)
      CHECK(got4[4 * t + e] == (t < 3 ? data[4 * t + e] : 0));
  }
}

TEST_CASE("hip semantics: lane ops move values between lanes as the README defines") {
  EmuRunner emu;
  Kernel k;
  k.name = "lane_semantics";
  k.workgroup_size = {64, 1, 1}; // two waves
  OpBuilder b(k);
  Value out = b.arg("out", gptr);
  Value tid = b.workitem_id();
  Value lane = b.lane_id();
  Value v = b.add(b.mul(lane, b.i32(10)), b.i32(1)); // v(l) = 10 l + 1
  Value zero = b.i32(0);
  std::vector<Value> results;
  Value rev_addr = b.mul(b.sub(b.i32(31), lane), b.i32(4));
  results.push_back(b.bpermute(rev_addr, v));
  results.push_back(b.dpp(zero, v, DppCtrl::row_shr(1)));
  results.push_back(b.dpp(b.i32(-5), v, DppCtrl::row_shl(2), 0xF, 0xF, false));
  results.push_back(b.dpp(zero, v, DppCtrl::row_share(3)));
  results.push_back(b.dpp(zero, v, DppCtrl::row_xmask(1)));
  results.push_back(b.dpp(zero, v, DppCtrl::quad_perm(3, 2, 1, 0)));
  results.push_back(b.dpp(zero, v, DppCtrl::row_mirror()));
  results.push_back(b.dpp(zero, v, DppCtrl::row_ror(4)));
  Value rev_lo = b.i32(static_cast<std::int32_t>(0x89ABCDEFu)), rev_hi = b.i32(0x01234567);
  results.push_back(b.permlane16(v, rev_lo, rev_hi));
  Value id_lo = b.i32(0x76543210), id_hi = b.i32(static_cast<std::int32_t>(0xFEDCBA98u));
  results.push_back(b.permlanex16(v, id_lo, id_hi));
  results.push_back(b.wave_id());
  results.push_back(lane);
  // readfirstlane in a region where lanes 0..4 are off: the first active lane is 5.
  Value active = b.cmp(CmpPred::uge, lane, b.i32(5));
  std::vector<Value> first = b.if_(
      active, {Type::i32()}, [&] { return std::vector<Value>{b.readfirstlane(v)}; },
      [&] { return std::vector<Value>{b.i32(-1)}; });
  results.push_back(first[0]);
  const int n = static_cast<int>(results.size());
  for (int s = 0; s < n; ++s) {
    Value idx = b.add(b.i32(s * 64), tid);
    b.store(b.ptr_add(out, b.mul(idx, b.i32(4))), results[s]);
  }
  const DevicePtr pout = emu.zeros(n * 64 * 4);
  tw::runtime::KernelArgs args;
  args.ptr(pout);
  emu.run(k, args);
  const auto got = emu.download<std::int32_t>(pout, n * 64);
  auto val = [](int l) { return 10 * l + 1; };
  for (int t = 0; t < 64; ++t) {
    const int l = t % 32, row = l / 16, r = l % 16;
    CAPTURE(t);
    const std::int32_t want[] = {
        val(31 - l),
        r >= 1 ? val(l - 1) : 0,
        r + 2 <= 15 ? val(l + 2) : -5,
        val(16 * row + 3),
        val(l ^ 1),
        val(4 * (l / 4) + 3 - l % 4),
        val(16 * row + 15 - r),
        val(16 * row + (r + 16 - 4) % 16),
        val(16 * row + 15 - r),
        val((l + 16) % 32),
        t / 32,
        l,
        l >= 5 ? val(5) : -1,
    };
    REQUIRE(n == static_cast<int>(std::size(want)));
    for (int s = 0; s < n; ++s) {
      CAPTURE(s);
      CHECK(got[s * 64 + t] == want[s]);
    }
  }
}

TEST_CASE("hip semantics: loops carry values (read before replaced), ifs yield per lane, LDS "
          "exchange through a barrier") {
  EmuRunner emu;
  Kernel k;
  k.name = "flow_semantics";
  k.workgroup_size = {64, 1, 1};
  k.lds_bytes = 256;
  OpBuilder b(k);
  Value out = b.arg("out", gptr);
  Value tid = b.workitem_id();
  Value lane = b.lane_id();
  // Fibonacci: (a, b) -> (b, a + b), lane-dependent trip count; a after n steps is fib(n).
  Value zero = b.i32(0), one = b.i32(1);
  Value n = b.rem_u(tid, b.i32(20));
  std::vector<Value> fib = b.for_(zero, n, one, {zero, one}, [&](Value, std::span<const Value> c) {
    return std::vector<Value>{c[1], b.add(c[0], c[1])};
  });
  // A loop that never runs returns its initial values.
  std::vector<Value> none =
      b.for_(b.i32(5), b.i32(5), one, {b.i32(77)},
             [&](Value iv, std::span<const Value>) { return std::vector<Value>{iv}; });
  // Step 3, i64 induction variable: sum of iv for iv in [2, 20) step 3 = 2+5+8+11+14+17 = 57.
  std::vector<Value> sum64 =
      b.for_(b.i64(2), b.i64(20), b.i64(3), {b.i64(0)}, [&](Value iv, std::span<const Value> c) {
        return std::vector<Value>{b.add(c[0], iv)};
      });
  // if / else with two results.
  Value odd = b.cmp(CmpPred::ne, b.and_(tid, one), zero);
  std::vector<Value> sel = b.if_(
      odd, {Type::i32(), Type::i32()},
      [&] {
        return std::vector<Value>{b.mul(tid, b.i32(3)), one};
      },
      [&] {
        return std::vector<Value>{b.sub(zero, tid), b.i32(2)};
      });
  // LDS: write tid, barrier, read the mirror lane of the other wave.
  Value l = b.ptr_add(b.lds_ptr(0), b.mul(tid, b.i32(4)));
  b.store(l, tid);
  b.barrier();
  Value mirror = b.sub(b.i32(63), tid);
  Value got_lds = b.load(Type::i32(), b.ptr_add(b.lds_ptr(0), b.mul(mirror, b.i32(4))));
  const Value results[] = {fib[0],  none[0], b.trunc(Type::i32(), sum64[0]), sel[0], sel[1],
                           got_lds, lane};
  const int count = static_cast<int>(std::size(results));
  for (int s = 0; s < count; ++s) {
    Value idx = b.add(b.i32(s * 64), tid);
    b.store(b.ptr_add(out, b.mul(idx, b.i32(4))), results[s]);
  }
  const DevicePtr pout = emu.zeros(count * 64 * 4);
  tw::runtime::KernelArgs args;
  args.ptr(pout);
  emu.run(k, args);
  const auto got = emu.download<std::int32_t>(pout, count * 64);
  auto fibn = [](int m) {
    int a = 0, c = 1;
    for (int i = 0; i < m; ++i) {
      const int next = a + c;
      a = c;
      c = next;
    }
    return a;
  };
  for (int t = 0; t < 64; ++t) {
    CAPTURE(t);
    CHECK(got[0 * 64 + t] == fibn(t % 20));
    CHECK(got[1 * 64 + t] == 77);
    CHECK(got[2 * 64 + t] == 57);
    CHECK(got[3 * 64 + t] == (t % 2 ? 3 * t : -t));
    CHECK(got[4 * 64 + t] == (t % 2 ? 1 : 2));
    CHECK(got[5 * 64 + t] == 63 - t);
    CHECK(got[6 * 64 + t] == t % 32);
  }
}

namespace {

// One WMMA of `atom` with `mods` on the emulator vs a host matrix product. A, B hold small
// integers (exact in every input format), so D is exact. Operands are laid out in the lanes by
// the atom's documented (lane, value) -> (row, col) maps.
void check_wmma(const char* atom, MmaMods mods) {
  const tw::atoms::MmaInstrInfo* info = tw::atoms::find_mma_instr(atom);
  REQUIRE(info != nullptr);
  const MmaOperandTypes t = mma_operand_types(*info);
  const int M = info->m, N = info->n, K = info->k;
  const bool int_form = t.a.element().is_int();
  const bool is_bf16 = t.a.element() == Type::bf16();
  // Host matrices (row-major), small values.
  std::vector<double> A(M * K), B(K * N), C(M * N);
  for (int i = 0; i < M * K; ++i)
    A[i] = int_form && !mods.a_signed ? (i * 5 + 3) % 16 : (i * 5 + 3) % 15 - 7;
  for (int i = 0; i < K * N; ++i)
    B[i] = int_form && !mods.b_signed ? (i * 3 + 1) % 13 : (i * 3 + 1) % 13 - 6;
  for (int i = 0; i < M * N; ++i)
    C[i] = (i * 7) % 21 - 10;
  // Per-lane operand bytes.
  const int a_elems = t.a.lanes(), b_elems = t.b.lanes(), elem_bits = t.a.elem_bits();
  std::vector<std::uint8_t> ha(32 * a_elems * elem_bits / 8), hb(32 * b_elems * elem_bits / 8);
  // Element e of a lane's vector occupies bits [elem_bits * (e + 1) - 1 : elem_bits * e] of
  // the lane's bytes (packed int4: element 2i in the low nibble of byte i).
  auto put = [&](std::vector<std::uint8_t>& dst, int lane, int v, int elems, double x) {
    const std::uint32_t bits = int_form  ? static_cast<std::uint32_t>(static_cast<int>(x))
                               : is_bf16 ? tw::num::f32_to_bf16(static_cast<float>(x))
                                         : tw::num::f32_to_f16(static_cast<float>(x));
    const int pos = (lane * elems + v) * elem_bits;
    for (int i = 0; i < elem_bits; ++i)
      if (bits >> i & 1)
        dst[(pos + i) / 8] |= static_cast<std::uint8_t>(1u << ((pos + i) % 8));
  };
  for (int lane = 0; lane < 32; ++lane) {
    for (int v = 0; v < a_elems; ++v) {
      auto [r, c] = info->a.coord(lane, v);
      put(ha, lane, v, a_elems, A[r * K + c]);
    }
    for (int v = 0; v < b_elems; ++v) {
      auto [r, c] = info->b.coord(lane, v);
      put(hb, lane, v, b_elems, B[r * N + c]);
    }
  }
  std::vector<std::uint32_t> hc(32 * 8);
  for (int lane = 0; lane < 32; ++lane)
    for (int v = 0; v < 8; ++v) {
      auto [r, c] = info->cd.coord(lane, v);
      const double x = C[r * N + c];
      hc[lane * 8 + v] = int_form ? static_cast<std::uint32_t>(static_cast<std::int32_t>(x))
                                  : std::bit_cast<std::uint32_t>(static_cast<float>(x));
    }

  Kernel k;
  k.name = "wmma_semantics";
  k.workgroup_size = {32, 1, 1};
  OpBuilder b(k);
  Value pa = b.arg("a", gptr), pb = b.arg("b", gptr), pc = b.arg("c", gptr), pd = b.arg("d", gptr);
  Value lane = b.lane_id();
  Value a = b.load(t.a, b.ptr_add(pa, b.mul(lane, b.i32(t.a.bytes()))));
  Value bv = b.load(t.b, b.ptr_add(pb, b.mul(lane, b.i32(t.b.bytes()))));
  const Type half = Type::vec(t.cd.element(), 4);
  Value c_base = b.ptr_add(pc, b.mul(lane, b.i32(32)));
  Value c_lo = b.load(half, c_base), c_hi = b.load(half, b.ptr_add(c_base, b.i32(16)));
  Value halves[] = {c_lo, c_hi};
  Value c = b.concat(halves);
  Value d = b.wmma(atom, a, bv, c, mods);
  Value d_base = b.ptr_add(pd, b.mul(lane, b.i32(32)));
  b.store(d_base, b.slice(d, 0, 4));
  b.store(b.ptr_add(d_base, b.i32(16)), b.slice(d, 4, 4));

  EmuRunner emu;
  const DevicePtr da = emu.upload(ha), db = emu.upload(hb), dc = emu.upload(hc);
  const DevicePtr dd = emu.zeros(32 * 32);
  tw::runtime::KernelArgs args;
  args.ptr(da).ptr(db).ptr(dc).ptr(dd);
  emu.run(k, args);
  const auto got = emu.download<std::uint32_t>(dd, 32 * 8);

  const double sa = (mods.neg_lo & 1) ? -1 : 1, sb = (mods.neg_lo & 2) ? -1 : 1;
  for (int lane = 0; lane < 32; ++lane)
    for (int v = 0; v < 8; ++v) {
      auto [i, j] = info->cd.coord(lane, v);
      double want = C[i * N + j];
      if (mods.neg_hi & 4)
        want = std::fabs(want);
      if (mods.neg_lo & 4)
        want = -want;
      for (int kk = 0; kk < K; ++kk)
        want += sa * A[i * K + kk] * sb * B[kk * N + j];
      const std::uint32_t g = got[lane * 8 + v];
      CAPTURE(lane);
      CAPTURE(v);
      if (int_form)
        CHECK(static_cast<std::int32_t>(g) == static_cast<std::int32_t>(want));
      else
        CHECK(std::bit_cast<float>(g) == static_cast<float>(want));
    }
}

} // namespace

TEST_CASE("hip semantics: WMMA operands in the atom's lane layout, modifiers as README defines") {
  MmaMods none;
  check_wmma("v_wmma_f32_16x16x16_f16", none);
  MmaMods neg_a_abs_neg_c;
  neg_a_abs_neg_c.neg_lo = 1 | 4;
  neg_a_abs_neg_c.neg_hi = 1 | 4;
  check_wmma("v_wmma_f32_16x16x16_f16", neg_a_abs_neg_c);
  MmaMods neg_b_abs_c;
  neg_b_abs_c.neg_lo = 2;
  neg_b_abs_c.neg_hi = 2 | 4;
  check_wmma("v_wmma_f32_16x16x16_bf16", neg_b_abs_c);
  MmaMods signed_a;
  signed_a.a_signed = true;
  check_wmma("v_wmma_i32_16x16x16_iu8", signed_a);
  MmaMods both_signed;
  both_signed.a_signed = both_signed.b_signed = true;
  check_wmma("v_wmma_i32_16x16x16_iu8", both_signed);
  check_wmma("v_wmma_i32_16x16x16_iu4", both_signed);
  check_wmma("v_wmma_i32_16x16x32_iu4", signed_a);
}
