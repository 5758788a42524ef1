// kernel_digest: the IR's part of the cache key. Equal for equal kernels, different when any
// field differs, including fields the printed IR does not show (a hit skips verification, so
// the digest must tell every kernel apart).
#include <emit/kernel_digest.hpp>
#include <emit/sample_kernels.hpp>

#include <dsl/ir/ir.hpp>

#include <doctest/doctest.h>

#include <functional>

using namespace tw;
using namespace tw::emit;

namespace {

// The first op with `opcode` in pre-order, or null.
ir::Op* find_op(ir::Region& r, ir::Opcode opcode) {
  for (ir::Op& op : r.ops) {
    if (op.opcode == opcode)
      return &op;
    for (ir::Region& inner : op.regions)
      if (ir::Op* found = find_op(inner, opcode))
        return found;
  }
  return nullptr;
}

// The digest of samples::vector_add(256, 4) after `edit`.
std::string edited(const std::function<void(ir::Kernel&)>& edit) {
  ir::Kernel k = samples::vector_add(256, 4);
  edit(k);
  return kernel_digest(k);
}

} // namespace

TEST_CASE("kernel_digest: equal kernels give one digest of 64 lowercase hex digits") {
  const std::string a = kernel_digest(samples::vector_add(256, 4));
  CHECK(a == kernel_digest(samples::vector_add(256, 4)));
  REQUIRE(a.size() == 64);
  CHECK(a.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(kernel_digest(samples::loop_sum(64)) == kernel_digest(samples::loop_sum(64)));
}

TEST_CASE("kernel_digest: any change of the kernel changes the digest") {
  const std::string base = edited([](ir::Kernel&) {});
  CHECK(kernel_digest(samples::vector_add(128, 4)) != base); // a constant and the workgroup
  CHECK(kernel_digest(samples::vector_add(256, 2)) != base);
  CHECK(kernel_digest(samples::loop_sum(64)) != base);
  CHECK(edited([](ir::Kernel& k) { k.name += "x"; }) != base);
  CHECK(edited([](ir::Kernel& k) { k.args[1].name = "other"; }) != base);
  CHECK(edited([](ir::Kernel& k) { k.args[3].type = ir::Type::i64(); }) != base);
  CHECK(edited([](ir::Kernel& k) { k.workgroup_size = {256, 1, 2}; }) != base);
  CHECK(edited([](ir::Kernel& k) { k.lds_bytes = 16; }) != base);
  CHECK(edited([](ir::Kernel& k) { k.value_types.back() = ir::Type::f16(); }) != base);
  CHECK(edited([](ir::Kernel& k) { k.value_types.push_back(ir::Type::i32()); }) != base);
  CHECK(edited([](ir::Kernel& k) { find_op(k.body, ir::Opcode::const_int)->attrs.int_value++; }) !=
        base);
  CHECK(edited([](ir::Kernel& k) { find_op(k.body, ir::Opcode::load)->attrs.align = 4; }) != base);
  CHECK(edited([](ir::Kernel& k) {
          ir::Op* cmp = find_op(k.body, ir::Opcode::cmp);
          cmp->attrs.pred = ir::CmpPred::lt;
        }) != base);
  CHECK(edited([](ir::Kernel& k) {
          ir::Op* add = find_op(k.body, ir::Opcode::add);
          std::swap(add->operands[0], add->operands[1]);
        }) != base);
  CHECK(edited([](ir::Kernel& k) {
          ir::Op* branch = find_op(k.body, ir::Opcode::if_);
          std::swap(branch->regions[0], branch->regions[1]); // then and else exchanged
        }) != base);
  CHECK(edited([](ir::Kernel& k) {
          find_op(k.body, ir::Opcode::store)->opcode = ir::Opcode::load;
        }) != base);
}

TEST_CASE("kernel_digest: fields the printed IR does not show still count") {
  // An attribute the opcode does not read: the printer leaves it out, the digest does not
  // (two kernels that print alike are still told apart, so no cache entry is shared).
  ir::Kernel a = samples::vector_add(256, 4), b = a;
  find_op(b.body, ir::Opcode::add)->attrs.index = 3;
  CHECK(ir::print(a) == ir::print(b));
  CHECK(kernel_digest(a) != kernel_digest(b));
  ir::Kernel c = a;
  find_op(c.body, ir::Opcode::add)->attrs.atom = "v_wmma_f32_16x16x16_f16";
  CHECK(ir::print(a) == ir::print(c));
  CHECK(kernel_digest(a) != kernel_digest(c));
}
