// A user's program, built against the installed tilewave with only <tilewave.hpp>: a layout,
// then a DSL kernel traced, compiled by the LLVM backend and run on the emulator.
#include <tilewave.hpp>

#include <emit/compile.hpp>
#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include <cstdint>
#include <iostream>
#include <vector>

namespace {

tw::ir::Kernel build_scale(float factor) {
  using namespace tw::dsl;
  KernelBuilder kb("consumer_scale", {64, 1, 1});
  auto [x, y, n] = kb.args(gptr<f32>("x"), gptr<f32>("y"), scalar<i32>("n"));
  const Int32 i = block_id() * block_dim() + thread_id();
  if_(i < n, [&] { y.store(i, x.load(i) * factor); });
  return kb.finish();
}

} // namespace

int main() {
  using namespace tw;
  constexpr auto layout =
      make_layout(make_shape(Int<4>{}, Int<8>{}), make_stride(Int<8>{}, Int<1>{}));
  static_assert(size(layout) == 32);
  static_assert(layout(1, 2) == 10);
  std::cout << layout << "\n";

  const emit::CodeObject co = emit::compile(build_scale(3.0f), emit::Backend::llvm, Arch::gfx1201);
  const std::unique_ptr<runtime::Device> dev = runtime::make_device(runtime::DeviceKind::Emu);
  const int n = 100;
  std::vector<float> x(n), y(n, -1.0f);
  for (int i = 0; i < n; ++i)
    x[i] = static_cast<float>(i) - 50.0f;
  const runtime::DevicePtr dx = dev->allocate(n * sizeof(float));
  const runtime::DevicePtr dy = dev->allocate(n * sizeof(float));
  dev->copy_to_device(dx, x.data(), n * sizeof(float));
  runtime::KernelArgs args;
  args.ptr(dx).ptr(dy).add<std::int32_t>(n);
  const runtime::ModuleHandle m = dev->load_code_object(co.elf);
  dev->launch(dev->get_kernel(m, co.kernel_name), {2, 1, 1}, {64, 1, 1}, args.span());
  dev->synchronize();
  dev->copy_to_host(y.data(), dy, n * sizeof(float));
  for (int i = 0; i < n; ++i)
    if (y[i] != 3.0f * x[i]) {
      std::cout << "y[" << i << "] = " << y[i] << ", expected " << 3.0f * x[i] << "\n";
      return 1;
    }
  std::cout << "kernel " << co.kernel_name << " ran on " << dev->name() << "\nconsumer ok\n";
  return 0;
}
