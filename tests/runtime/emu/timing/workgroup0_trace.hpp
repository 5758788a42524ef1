#pragma once
// Workgroup 0's recorded trace of one emulator launch: what the timing tests feed the WGP
// simulation. The caller sets up the memory and the launch (block, kernel arguments, LDS);
// `co` must outlive the trace, which points into its decoded program.
#include <runtime/emu/code_object.hpp>
#include <runtime/emu/launch.hpp>
#include <runtime/emu/timing/capture.hpp>

#include <doctest/doctest.h>

#include <string>
#include <utility>

namespace tw::test {

inline emu::timing::WorkgroupTrace workgroup0_trace(const emu::CodeObject& co,
                                                    const std::string& kernel,
                                                    emu::GlobalMemory& memory,
                                                    emu::LaunchConfig cfg) {
  emu::timing::TimingCapture capture({{0, 0, 0}}, 128, 32);
  cfg.observer = &capture;
  emu::launch(co, co.kernel(kernel), memory, cfg);
  auto traces = capture.take();
  REQUIRE(traces.size() == 1);
  return std::move(traces[0]);
}

} // namespace tw::test
