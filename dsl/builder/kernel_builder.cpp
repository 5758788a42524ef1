#include <dsl/builder/kernel_builder.hpp>

#include <stdexcept>

namespace tw::dsl {

namespace {
thread_local KernelBuilder* g_current = nullptr;
}

KernelBuilder::KernelBuilder(std::string name, std::array<int, 3> workgroup) {
  if (name.empty())
    throw std::invalid_argument("KernelBuilder: the kernel needs a non-empty name");
  for (int d : workgroup)
    if (d < 1)
      throw std::invalid_argument("KernelBuilder: every workgroup dimension must be >= 1");
  if (workgroup[0] * workgroup[1] * workgroup[2] > 1024)
    throw std::invalid_argument("KernelBuilder: a gfx12 workgroup has at most 1024 threads");
  kernel_.name = std::move(name);
  kernel_.workgroup_size = workgroup;
  previous_ = g_current;
  g_current = this;
}

KernelBuilder::~KernelBuilder() {
  if (g_current == this)
    g_current = previous_;
}

KernelBuilder& KernelBuilder::current(const char* what) {
  if (!g_current)
    throw std::logic_error(std::string("tw::dsl: '") + what +
                           "' was used with no KernelBuilder tracing on this thread");
  if (g_current->finished_)
    throw std::logic_error(std::string("tw::dsl: '") + what +
                           "' was used after KernelBuilder::finish()");
  return *g_current;
}

bool KernelBuilder::active() {
  return g_current != nullptr && !g_current->finished_;
}

ir::Value KernelBuilder::add_arg(std::string name, ir::Type t) {
  if (!kernel_.body.ops.empty())
    throw std::logic_error("KernelBuilder::args: declare the kernel arguments before any op");
  return ops_.arg(std::move(name), t);
}

void KernelBuilder::set_lds_bytes(std::int64_t bytes) {
  if (bytes < 0 || bytes > 65536)
    throw std::length_error("KernelBuilder: " + std::to_string(bytes) +
                            " bytes of LDS is over the 64 KiB of a gfx12 workgroup");
  kernel_.lds_bytes = bytes;
}

ir::Kernel KernelBuilder::finish() {
  if (finished_)
    throw std::logic_error("KernelBuilder::finish() was called twice");
  if (!ops_.at_top_level())
    throw std::logic_error("KernelBuilder::finish() inside an open for_range / if_ region");
  finished_ = true;
  if (g_current == this)
    g_current = previous_;
  ir::verify(kernel_);
  return std::move(kernel_);
}

} // namespace tw::dsl
