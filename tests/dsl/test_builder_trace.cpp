// KernelBuilder tracing: argument handles, folding of constants, control flow structure, and
// acceptance by the IR verifier. Expected op sequences are written out by hand.
#include <doctest/doctest.h>

#include <dsl/dsl.hpp>

using namespace tw::dsl;
namespace ir = tw::ir;

namespace {
std::vector<ir::Opcode> opcodes(const ir::Region& r) {
  std::vector<ir::Opcode> out;
  for (const ir::Op& op : r.ops)
    out.push_back(op.opcode);
  return out;
}
} // namespace

TEST_CASE("constant handles fold on the host and emit nothing") {
  KernelBuilder kb("fold", {64, 1, 1});
  const Int32 a = 6, b = 7;
  const Int32 c = a * b + 1;                // 43
  const Int32 d = (c << 2) % 10;            // 172 % 10 = 2
  const Int32 wrap = Int32(0x7fffffff) + 1; // wraps like an i32: -2^31
  const Float16 h = Float16(1.0) / 3.0;     // rounded to f16: 0x3555 = 0.333251953125
  const Bool lt = c < d;
  CHECK(c.constant_value() == 43);
  CHECK(d.constant_value() == 2);
  CHECK(wrap.constant_value() == -2147483648LL);
  CHECK(h.constant_value() == 0.333251953125);
  CHECK(lt.is_constant());
  CHECK(lt.constant_value() == 0);
  CHECK(UInt32(-1).constant_value() == 4294967295LL);
  CHECK((UInt32(-1) >> 28).constant_value() == 15);
  CHECK(cast<i64>(UInt32(-1)).constant_value() == 4294967295LL);
  CHECK(cast<i32>(Float32(-2.75)).constant_value() == -2);
  CHECK((Float32(-1.5) < 2.0f).constant_value() == 1);
  CHECK((Float32(-1.5) == -1.5f).constant_value() == 1);
  CHECK((Int32(-1) < 0).constant_value() == 1);
  CHECK((UInt32(-1) < 0u).constant_value() == 0); // 2^32 - 1 is not below 0 unsigned
  CHECK(kb.kernel().body.ops.empty());
  // Identities on one run-time operand fold too: x * 1 + 0 is x, x * 0 is the constant 0.
  const Int32 t = thread_id();
  CHECK(kb.kernel().body.ops.size() == 1); // workitem_id
  const Int32 same = t * 1 + 0;
  CHECK(same.ir() == t.ir());
  CHECK((t * 0).is_constant());
  CHECK(kb.kernel().body.ops.size() == 1);
  // A constant condition traces only the taken branch, with no if op.
  if_(Bool(0), [&] { (void)(t + t); });
  if_(Bool(1), [&] { (void)(t * t); });
  CHECK(opcodes(kb.kernel().body) == std::vector{ir::Opcode::workitem_id, ir::Opcode::mul});
  // Block size and, for one wave, the wave id are constants of the kernel.
  CHECK(block_dim().constant_value() == 64);
  KernelBuilder one("one_wave", {32, 1, 1});
  CHECK(wave_id().is_constant());
}

TEST_CASE("vector add traces arguments, a guarded body, and verifies") {
  KernelBuilder kb("vadd", {256, 1, 1});
  auto [a, b, c, n] = kb.args(gptr<f32>("a"), gptr<f32>("b"), gptr<f32>("c"), scalar<i64>("n"));
  const Int64 i = cast<i64>(block_id()) * cast<i64>(block_dim()) + cast<i64>(thread_id());
  if_(i < n, [&] { c.store(i, a.load(i) + b.load(i)); });
  const ir::Kernel k = kb.finish(); // runs ir::verify
  REQUIRE(k.args.size() == 4);
  CHECK(k.args[0].name == "a");
  CHECK(k.args[3].name == "n");
  CHECK(k.args[3].type == ir::Type::i64());
  CHECK(k.args[2].type == ir::Type::ptr(ir::AddrSpace::global));
  // Top level: ids, sign extensions, the 64-bit index, the bound check, the if.
  const auto top = opcodes(k.body);
  REQUIRE(!top.empty());
  CHECK(top.back() == ir::Opcode::if_);
  CHECK(std::count(top.begin(), top.end(), ir::Opcode::cmp) == 1);
  const ir::Op& guard = k.body.ops.back();
  REQUIRE(guard.regions.size() == 2);
  const auto then_ops = opcodes(guard.regions[0]);
  CHECK(std::count(then_ops.begin(), then_ops.end(), ir::Opcode::load) == 2);
  CHECK(std::count(then_ops.begin(), then_ops.end(), ir::Opcode::store) == 1);
  CHECK(std::count(then_ops.begin(), then_ops.end(), ir::Opcode::add) == 1);
  CHECK(opcodes(guard.regions[1]) == std::vector{ir::Opcode::yield});
  CHECK_NOTHROW(ir::verify(k));
}

TEST_CASE("for_range carries values and if_ yields handles") {
  KernelBuilder kb("loop", {32, 1, 1});
  auto [x, n] = kb.args(gptr<f32>("x"), scalar<i32>("n"));
  auto [sum, count] =
      for_range(Int32(0), n, Int32(1), carry(Float32(0.0f), Int32(0)),
                [&](Int32 i, Float32 s, Int32 c) { return carry(s + x.load(i), c + 1); });
  const Float32 mean = if_(
      count > 0, [&] { return sum / cast<f32>(count); }, [&] { return Float32(0.0f); });
  x.store(0, mean);
  const ir::Kernel k = kb.finish();
  const ir::Op* loop = nullptr;
  const ir::Op* branch = nullptr;
  for (const ir::Op& op : k.body.ops) {
    if (op.opcode == ir::Opcode::for_)
      loop = &op;
    if (op.opcode == ir::Opcode::if_)
      branch = &op;
  }
  REQUIRE(loop);
  REQUIRE(branch);
  CHECK(loop->operands.size() == 5); // lb, ub, step, two inits
  CHECK(loop->results.size() == 2);
  REQUIRE(loop->regions.size() == 1);
  CHECK(loop->regions[0].args.size() == 3); // iv + two carried
  CHECK(loop->regions[0].ops.back().opcode == ir::Opcode::yield);
  CHECK(loop->regions[0].ops.back().operands.size() == 2);
  CHECK(branch->results.size() == 1);
  CHECK(k.type_of(branch->results[0]) == ir::Type::f32());
}

TEST_CASE("static_for unrolls on the host") {
  KernelBuilder kb("unroll", {32, 1, 1});
  auto [x] = kb.args(gptr<i32>("x"));
  static_for<4>([&](auto i) { x.store(int(i), Int32(int(i) * 10)); });
  const ir::Kernel k = kb.finish();
  const auto ops = opcodes(k.body);
  CHECK(std::count(ops.begin(), ops.end(), ir::Opcode::store) == 4);
  CHECK(std::count(ops.begin(), ops.end(), ir::Opcode::for_) == 0);
}

TEST_CASE("run-time DSL errors name the op and the rule") {
  CHECK_THROWS_WITH(thread_id(), doctest::Contains("'thread_id' was used with no KernelBuilder"));
  KernelBuilder kb("errors", {32, 1, 1});
  CHECK_THROWS_WITH((void)(Int32(thread_id()) / 0),
                    doctest::Contains("division by the constant 0"));
  CHECK_THROWS_WITH(Int32().ir(), doctest::Contains("empty i32 handle"));
  CHECK_THROWS_WITH(KernelBuilder("big", {2048, 1, 1}), doctest::Contains("at most 1024 threads"));
  (void)kb.finish();
  CHECK_THROWS_WITH(lane_id(),
                    doctest::Contains("no KernelBuilder tracing")); // finish() ends tracing
}

TEST_CASE("a value assigned inside a loop and read after it is reported by the verifier") {
  KernelBuilder kb("escape", {32, 1, 1});
  auto [x] = kb.args(gptr<f32>("x"));
  Float32 last = 0.0f;
  for_range(0, 4, [&](Int32 i) { last = x.load(i); }); // should have been carried
  CHECK_THROWS_WITH(x.store(0, last), doctest::Contains("outside the region that defines it"));
}
