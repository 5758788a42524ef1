#pragma once
// KernelBuilder: runs the author's C++ on the host and records what it does as one ir::Kernel.
// While a KernelBuilder is alive it is the "current" builder of its thread: typed handles and
// tile operations append their ops to it (fx-style tracing), so kernel code needs no builder
// argument for arithmetic. Control flow (for_range, if_) opens nested regions through the
// ir::OpBuilder it owns.
#include <array>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <dsl/ir/ir.hpp>

namespace tw::dsl {

class KernelBuilder {
public:
  // `workgroup` is the kernel's fixed workgroup size (x, y, z), also its launch bounds.
  explicit KernelBuilder(std::string name, std::array<int, 3> workgroup = {256, 1, 1});
  ~KernelBuilder();
  KernelBuilder(const KernelBuilder&) = delete;
  KernelBuilder& operator=(const KernelBuilder&) = delete;

  // The builder tracing on this thread; throws (naming `what`) when there is none.
  static KernelBuilder& current(const char* what);
  static bool active();

  // The kernel's arguments, in order, as typed handles:
  //   auto [a, b, n] = kb.args(gptr<f32>("a"), gptr<f32>("b"), scalar<i64>("n"));
  //   auto [A, M] = kb.args(gtensor<f16>(row_major), i64());   // unnamed: arg0, arg1
  // (each spec type provides make_arg(kb, spec, position), found by argument-dependent lookup).
  template <class... Specs>
  auto args(const Specs&... specs) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      const auto all = std::forward_as_tuple(specs...);
      // Braced init: the arguments are added in order.
      return std::tuple{make_arg(*this, std::get<I>(all), static_cast<int>(I))...};
    }
    (std::index_sequence_for<Specs...>{});
  }

  // ----- low level (the DSL's own ops use these; kernels use the typed layer) -----
  // The IR builder at the current insertion point (checks every op as it is built).
  ir::OpBuilder& ops() { return ops_; }
  ir::Type type_of(ir::Value v) const { return kernel_.type_of(v); }
  ir::Value add_arg(std::string name, ir::Type t);

  // ----- kernel properties -----
  const std::string& name() const { return kernel_.name; }
  std::array<int, 3> workgroup_size() const { return kernel_.workgroup_size; }
  int threads() const { return kernel_.flat_workgroup_size(); }
  int waves() const { return (threads() + 31) / 32; }
  // Reserves `bytes` of static LDS (the LDS plan's size); a kernel has one plan.
  void set_lds_bytes(std::int64_t bytes);
  std::int64_t lds_bytes() const { return kernel_.lds_bytes; }

  // The traced kernel as it stands (for inspection while tracing).
  const ir::Kernel& kernel() const { return kernel_; }
  // Ends tracing: checks the kernel with ir::verify and returns it. The builder is then done.
  ir::Kernel finish();

private:
  ir::Kernel kernel_;
  ir::OpBuilder ops_{kernel_};
  KernelBuilder* previous_ = nullptr;
  bool finished_ = false;
};

} // namespace tw::dsl
