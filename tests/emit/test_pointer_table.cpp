// int_to_ptr (GlobalPtr<T>::from_address): a kernel that reads its tensors' addresses from a
// table in global memory (what a grouped GEMM does with its problem list), through both
// backends on the gfx12 emulator. The verifier's rule is in tests/dsl/test_ir_verify.cpp.
#include <dsl/dsl.hpp>
#include <emit/compile.hpp>
#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <vector>

using namespace tw;
using namespace tw::dsl;

namespace {

// Thread t of workgroup g: dst_g[t] = 2 * src_g[t] + g, with (src_g, dst_g) = table[2g], [2g+1].
ir::Kernel table_kernel() {
  KernelBuilder kb("pointer_table", {64, 1, 1});
  auto [table, n] = kb.args(gptr<i64>("table"), scalar<i64>("n"));
  const Int64 g = cast<i64>(block_id(ir::Dim::x));
  const auto src = GlobalPtr<f32>::from_address(table.load(g * Int64(2)));
  const auto dst = GlobalPtr<f32>::from_address(table.load(g * Int64(2) + Int64(1)));
  const Int64 t = cast<i64>(thread_id());
  if_(t < n, [&] { dst.store(t, src.load(t) * Float32(2.0) + cast<f32>(g)); });
  return kb.finish();
}

} // namespace

TEST_CASE("int_to_ptr: addresses read from a table reach the right tensors on both backends") {
  std::unique_ptr<runtime::Device> dev = runtime::make_device(runtime::DeviceKind::Emu);
  const int groups = 3, n = 50;
  std::vector<runtime::DevicePtr> src(groups), dst(groups);
  std::vector<std::int64_t> table;
  for (int g = 0; g < groups; ++g) {
    std::vector<float> v(n);
    for (int i = 0; i < n; ++i)
      v[static_cast<size_t>(i)] = static_cast<float>(100 * g + i);
    src[g] = dev->allocate(n * sizeof(float));
    dev->copy_to_device(src[g], v.data(), n * sizeof(float));
    table.push_back(static_cast<std::int64_t>(src[g]));
  }
  const ir::Kernel k = table_kernel();
  for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
    CAPTURE(emit::backend_name(b));
    std::vector<std::int64_t> tab;
    for (int g = 0; g < groups; ++g) {
      dst[g] = dev->allocate(n * sizeof(float));
      std::vector<float> zeros(n, -1.0f);
      dev->copy_to_device(dst[g], zeros.data(), n * sizeof(float));
      tab.push_back(table[static_cast<size_t>(g)]);
      tab.push_back(static_cast<std::int64_t>(dst[g]));
    }
    const runtime::DevicePtr dtab = dev->allocate(tab.size() * 8);
    dev->copy_to_device(dtab, tab.data(), tab.size() * 8);
    emit::CompileOptions o;
    o.use_cache = false;
    const emit::CodeObject co = emit::compile(k, b, Arch::gfx1201, o);
    const runtime::ModuleHandle m = dev->load_code_object(co.elf);
    const runtime::KernelArgs args = runtime::KernelArgs().ptr(dtab).add<std::int64_t>(n);
    dev->launch(dev->get_kernel(m, co.kernel_name), {groups, 1, 1}, {64, 1, 1}, args.span());
    dev->synchronize();
    for (int g = 0; g < groups; ++g) {
      std::vector<float> out(n);
      dev->copy_to_host(out.data(), dst[g], n * sizeof(float));
      for (int i = 0; i < n; ++i) {
        CAPTURE(g);
        CAPTURE(i);
        CHECK(out[static_cast<size_t>(i)] == static_cast<float>(2 * (100 * g + i) + g));
      }
      dev->free(dst[g]);
    }
    dev->free(dtab);
  }
  for (runtime::DevicePtr p : src)
    dev->free(p);
}
