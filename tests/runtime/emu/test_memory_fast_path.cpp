// The global / LDS fast paths (one range check per lane, direct register rows) against the
// general per-component path they bypass. A launch with an observer that asks for every
// component (WaveObserver::every_component) takes the general path for every memory
// instruction, so the same kernel run with and without one must leave every output byte and
// every byte count the same. An observer that does not ask (the timing model's) sees the fast
// paths' accesses through on_global_accesses / on_lds_accesses, whose defaults must make the
// same on_access calls, in the same order, as the general path.
// Kernels: every global width incl. sub-dword and d16 forms, every LDS width, LDS exchange with
// barriers, on every compiled variant.
#include "emu_test_util.hpp"

#include <runtime/emu/launch.hpp>

#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace tw;

namespace {

// Observes every wave of every workgroup, asking for every component, and records nothing.
class SeeEverything final : public emu::LaunchObserver {
  struct Quiet final : emu::WaveObserver {
    void on_instruction(const emu::DecodedInstr&) override {}
    void on_access(int, uint64_t, uint32_t, bool) override {}
    bool every_component() const override { return true; }
  };

public:
  std::vector<emu::WaveObserver*> begin_workgroup(std::array<uint32_t, 3>, int waves) override {
    thread_local std::vector<Quiet> quiet(32);
    std::vector<emu::WaveObserver*> r;
    for (int i = 0; i < waves; ++i)
      r.push_back(&quiet[static_cast<size_t>(i)]);
    return r;
  }
  void end_workgroup(std::array<uint32_t, 3>) override {}
};

// Records every on_access call of every wave (launch with threads = 1: workgroups in order),
// through the general path (every_component) or the fast paths' default reporting.
class RecordAccesses final : public emu::LaunchObserver {
public:
  struct Access {
    int lane;
    uint64_t addr;
    uint32_t bytes;
    bool lds;
    bool operator==(const Access&) const = default;
  };
  explicit RecordAccesses(bool every) : every_(every) {}
  std::vector<emu::WaveObserver*> begin_workgroup(std::array<uint32_t, 3>, int waves) override {
    std::vector<emu::WaveObserver*> r;
    for (int i = 0; i < waves; ++i) {
      waves_.push_back(std::make_unique<Wave>(every_));
      r.push_back(waves_.back().get());
    }
    return r;
  }
  void end_workgroup(std::array<uint32_t, 3>) override {}
  // Every wave's accesses, waves in the order their workgroups began.
  std::vector<std::vector<Access>> accesses() const {
    std::vector<std::vector<Access>> out;
    for (const auto& w : waves_)
      out.push_back(w->seen);
    return out;
  }

private:
  struct Wave final : emu::WaveObserver {
    explicit Wave(bool every) : every(every) {}
    void on_instruction(const emu::DecodedInstr&) override {}
    void on_access(int lane, uint64_t addr, uint32_t bytes, bool lds) override {
      seen.push_back({lane, addr, bytes, lds});
    }
    bool every_component() const override { return every; }
    bool every;
    std::vector<Access> seen;
  };
  bool every_;
  std::vector<std::unique_ptr<Wave>> waves_;
};

struct Outcome {
  std::vector<std::vector<uint8_t>> buffers;
  emu::LaunchStats stats;
  std::vector<uint64_t> bases; // of the buffers
};

// Runs `kernel` with buffers of the given sizes (inputs random, same seed each run), pointers
// as its arguments in order; returns every buffer afterwards.
Outcome run(const std::string& path, const std::string& kernel, std::vector<size_t> sizes,
            std::array<uint32_t, 3> grid, std::array<uint32_t, 3> block, bool observed,
            emu::LaunchObserver* recorder = nullptr) {
  auto co = emu::CodeObject::load(test::read_file_bytes(path));
  emu::GlobalMemory memory;
  memory.add_region(co->image_base(), co->image_size(), "code object");
  std::mt19937 rng(15);
  std::vector<uint64_t> bases;
  emu::LaunchConfig cfg;
  for (size_t bytes : sizes) {
    const uint64_t base = memory.allocate(bytes);
    for (size_t i = 0; i < bytes; ++i)
      reinterpret_cast<uint8_t*>(base)[i] = static_cast<uint8_t>(rng());
    bases.push_back(base);
    cfg.kernargs.resize(cfg.kernargs.size() + 8);
    std::memcpy(cfg.kernargs.data() + cfg.kernargs.size() - 8, &base, 8);
  }
  cfg.grid = grid;
  cfg.block = block;
  cfg.threads = 1;
  SeeEverything observer;
  if (observed)
    cfg.observer = &observer;
  if (recorder)
    cfg.observer = recorder;
  Outcome out;
  out.stats = emu::launch(*co, co->kernel(kernel), memory, cfg);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const auto* p = reinterpret_cast<const uint8_t*>(bases[i]);
    out.buffers.emplace_back(p, p + sizes[i]);
  }
  out.bases = bases;
  return out;
}

void same_with_and_without_observer(const std::string& file, const std::string& kernel,
                                    const std::vector<size_t>& sizes, std::array<uint32_t, 3> grid,
                                    std::array<uint32_t, 3> block) {
  for (const auto& v : test::kernel_variants(file)) {
    CAPTURE(v.label);
    CAPTURE(kernel);
    const Outcome fast = run(v.path, kernel, sizes, grid, block, false);
    const Outcome general = run(v.path, kernel, sizes, grid, block, true);
    for (size_t i = 0; i < sizes.size(); ++i) {
      CAPTURE(i);
      CHECK(fast.buffers[i] == general.buffers[i]);
    }
    CHECK(fast.stats.global_bytes_read == general.stats.global_bytes_read);
    CHECK(fast.stats.global_bytes_written == general.stats.global_bytes_written);
    CHECK(fast.stats.lds_bytes_read == general.stats.lds_bytes_read);
    CHECK(fast.stats.lds_bytes_written == general.stats.lds_bytes_written);
    CHECK(fast.stats.total_instructions() == general.stats.total_instructions());
  }
}

// The accesses an observer sees are the same through the fast paths as through the general
// path: every call, in order (and the outputs the same).
void same_accesses_observed(const std::string& file, const std::string& kernel,
                            const std::vector<size_t>& sizes, std::array<uint32_t, 3> grid,
                            std::array<uint32_t, 3> block) {
  for (const auto& v : test::kernel_variants(file)) {
    CAPTURE(v.label);
    CAPTURE(kernel);
    RecordAccesses general(true), fast(false);
    const Outcome g = run(v.path, kernel, sizes, grid, block, false, &general);
    const Outcome f = run(v.path, kernel, sizes, grid, block, false, &fast);
    CHECK(g.buffers == f.buffers);
    // Global addresses as (buffer, offset): the two runs allocate their buffers anew (any
    // other address, the kernel arguments', as buffer -1).
    auto relative = [&](std::vector<std::vector<RecordAccesses::Access>> all, const Outcome& o) {
      for (auto& wave : all)
        for (auto& a : wave) {
          if (a.lds)
            continue;
          uint64_t rel = ~uint64_t(0);
          for (size_t i = 0; i < sizes.size(); ++i)
            if (a.addr >= o.bases[i] && a.addr < o.bases[i] + sizes[i])
              rel = (uint64_t(i) << 40) | (a.addr - o.bases[i]);
          a.addr = rel;
        }
      return all;
    };
    const auto ga = relative(general.accesses(), g), fa = relative(fast.accesses(), f);
    REQUIRE(ga.size() == fa.size());
    size_t calls = 0;
    for (size_t w = 0; w < ga.size(); ++w) {
      CAPTURE(w);
      CHECK(ga[w] == fa[w]);
      calls += ga[w].size();
    }
    CHECK(calls > 0);
  }
}

} // namespace

TEST_CASE("emu memory fast paths: an observer sees the general path's accesses from the fast "
          "paths") {
  const size_t n = 128;
  same_accesses_observed(
      "core_memory", "global_widths",
      {n, n, 2 * n, 2 * n, 4 * n, 8 * n, 16 * n, 16 * n, 24 * n, n, 2 * n, 8 * n, 16 * n, 16 * n},
      {2, 1, 1}, {64, 1, 1});
  same_accesses_observed("core_d16", "d16", {2 * 128, 64, 2 * 576}, {1, 1, 1}, {64, 1, 1});
  same_accesses_observed("core_lds", "lds_widths", {4 * 64, 4 * 8 * 64}, {1, 1, 1}, {64, 1, 1});
  same_accesses_observed("core_lds", "lds_exchange", {4 * 256 * 6, 4 * 256 * 6, 4 * 6}, {3, 2, 1},
                         {256, 1, 1});
}

TEST_CASE("emu memory fast paths: global loads and stores of every width equal the general "
          "path") {
  const size_t n = 128; // 2 workgroups x 64 lanes
  same_with_and_without_observer(
      "core_memory", "global_widths",
      {n, n, 2 * n, 2 * n, 4 * n, 8 * n, 16 * n, 16 * n, 24 * n, n, 2 * n, 8 * n, 16 * n, 16 * n},
      {2, 1, 1}, {64, 1, 1});
  same_with_and_without_observer("core_d16", "d16", {2 * 128, 64, 2 * 576}, {1, 1, 1}, {64, 1, 1});
}

TEST_CASE("emu memory fast paths: LDS loads and stores of every width equal the general path") {
  same_with_and_without_observer("core_lds", "lds_widths", {4 * 64, 4 * 8 * 64}, {1, 1, 1},
                                 {64, 1, 1});
  same_with_and_without_observer("core_lds", "lds_exchange", {4 * 256 * 6, 4 * 256 * 6, 4 * 6},
                                 {3, 2, 1}, {256, 1, 1});
}
