// The global / LDS fast paths (one range check per lane, direct register rows) against the
// general per-component path they bypass. A launch with an observer that asks for every
// component (WaveObserver::every_component) takes the general path for every memory
// instruction, so the same kernel run with and without one must leave every output byte and
// every byte count the same. An observer that does not ask (the timing model's) sees the fast
// paths' accesses through on_global_accesses / on_lds_accesses, whose defaults must make the
// same on_access calls, in the same order, as the general path.
// Kernels: every global width incl. sub-dword and d16 forms, every LDS width, LDS exchange with
// barriers, the transpose loads (global_load_tr_b128 / _b64), buffer loads and stores (raw
// offen and structured idxen forms, in range, partly past num_records, running past the end of
// their allocation), on every compiled variant.
#include "emu_test_util.hpp"

#include <runtime/emu/launch.hpp>

#include <doctest/doctest.h>

#include <cstring>
#include <functional>
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

// Counts, over every wave, the buffer_* instructions executed and those whose accesses came
// through the fast path's report (on_global_accesses), which the general path never calls.
class CountBufferFastPath final : public emu::LaunchObserver {
  struct Wave final : emu::WaveObserver {
    void on_instruction(const emu::DecodedInstr& in) override {
      buffer = in.mnemonic.rfind("buffer_", 0) == 0;
      executed += buffer;
    }
    void on_access(int, uint64_t, uint32_t, bool) override {}
    void on_global_accesses(const std::array<uint64_t, 32>&, uint32_t, uint32_t,
                            uint32_t) override {
      fast += buffer;
    }
    bool buffer = false;
    int executed = 0, fast = 0;
  };
  std::vector<std::unique_ptr<Wave>> waves_;

public:
  std::vector<emu::WaveObserver*> begin_workgroup(std::array<uint32_t, 3>, int waves) override {
    std::vector<emu::WaveObserver*> r;
    for (int i = 0; i < waves; ++i) {
      waves_.push_back(std::make_unique<Wave>());
      r.push_back(waves_.back().get());
    }
    return r;
  }
  void end_workgroup(std::array<uint32_t, 3>) override {}
  int executed() const {
    int n = 0;
    for (const auto& w : waves_)
      n += w->executed;
    return n;
  }
  int fast() const {
    int n = 0;
    for (const auto& w : waves_)
      n += w->fast;
    return n;
  }
};

struct Outcome {
  std::vector<std::vector<uint8_t>> buffers;
  emu::LaunchStats stats;
  std::vector<uint64_t> bases; // of the buffers
};

// Sets the contents of buffer `index` (after the random fill), e.g. offsets that must stay in
// range; null: random inputs only.
using Fill = std::function<void(size_t index, uint8_t* data, size_t bytes)>;

// Runs `kernel` with buffers of the given sizes (inputs random, same seed each run), pointers
// as its arguments in order; returns every buffer afterwards.
Outcome run(const std::string& path, const std::string& kernel, std::vector<size_t> sizes,
            std::array<uint32_t, 3> grid, std::array<uint32_t, 3> block, bool observed,
            const Fill& fill = nullptr, emu::LaunchObserver* recorder = nullptr,
            bool memcheck = true) {
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
    if (fill)
      fill(bases.size(), reinterpret_cast<uint8_t*>(base), bytes);
    bases.push_back(base);
    cfg.kernargs.resize(cfg.kernargs.size() + 8);
    std::memcpy(cfg.kernargs.data() + cfg.kernargs.size() - 8, &base, 8);
  }
  cfg.grid = grid;
  cfg.block = block;
  cfg.threads = 1;
  cfg.memcheck = memcheck;
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
                                    std::array<uint32_t, 3> block, const Fill& fill = nullptr,
                                    bool memcheck = true) {
  for (const auto& v : test::kernel_variants(file)) {
    CAPTURE(v.label);
    CAPTURE(kernel);
    const Outcome fast = run(v.path, kernel, sizes, grid, block, false, fill, nullptr, memcheck);
    const Outcome general = run(v.path, kernel, sizes, grid, block, true, fill, nullptr, memcheck);
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
                            std::array<uint32_t, 3> block, const Fill& fill = nullptr) {
  for (const auto& v : test::kernel_variants(file)) {
    CAPTURE(v.label);
    CAPTURE(kernel);
    RecordAccesses general(true), fast(false);
    const Outcome g = run(v.path, kernel, sizes, grid, block, false, fill, &general);
    const Outcome f = run(v.path, kernel, sizes, grid, block, false, fill, &fast);
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

TEST_CASE("emu memory fast paths: transpose loads equal the general path") {
  // load_tr_*(src, offs, out): lane l reads at src + offs[l]: offsets in range (every lane's
  // read ends inside src), unaligned and out of order, lane 31's read ending at src's last byte.
  const size_t src_bytes = 1024;
  for (const char* kernel : {"load_tr_b128", "load_tr_b64"}) {
    const uint32_t last_lane_offset =
        uint32_t(src_bytes) - (std::string(kernel) == "load_tr_b128" ? 16u : 8u);
    const Fill offsets = [&](size_t index, uint8_t* data, size_t) {
      if (index != 1)
        return;
      for (uint32_t lane = 0; lane < 32; ++lane) {
        const uint32_t off = lane == 31 ? last_lane_offset : (lane * 97 + 13) % 1000;
        std::memcpy(data + 4 * lane, &off, 4);
      }
    };
    same_with_and_without_observer("vmem_load_tr", kernel, {src_bytes, 4 * 32, 4 * 128}, {1, 1, 1},
                                   {32, 1, 1}, offsets);
    // and the timing model's observer sees their reads (the fast path once told it nothing)
    same_accesses_observed("vmem_load_tr", kernel, {src_bytes, 4 * 32, 4 * 128}, {1, 1, 1},
                           {32, 1, 1}, offsets);
  }
}

namespace {

// One case of the buffer kernels (vmem_buffer.ll: buffer_raw / buffer_struct, one workgroup of
// 64 lanes): buffers {src, params, offs, dst}, params {src num_records, load soffset, dst
// num_records, store soffset}, lane t's voffset `voffset(t)`. Checks the outputs and byte counts
// equal the general path's (and, memcheck on, that an observer sees the same accesses);
// returns how many buffer instructions the waves executed and how many of them took the fast
// path.
std::pair<int, int> buffer_case(const std::string& kernel, size_t src_bytes, size_t dst_bytes,
                                std::array<uint32_t, 4> params,
                                const std::function<uint32_t(uint32_t)>& voffset,
                                bool memcheck = true) {
  const Fill fill = [&](size_t index, uint8_t* data, size_t) {
    if (index == 1)
      std::memcpy(data, params.data(), sizeof(params));
    for (uint32_t t = 0; index == 2 && t < 64; ++t) {
      const uint32_t o = voffset(t);
      std::memcpy(data + 4 * t, &o, 4);
    }
  };
  const std::vector<size_t> sizes{src_bytes, sizeof(params), 4 * 64, dst_bytes};
  same_with_and_without_observer("vmem_buffer", kernel, sizes, {1, 1, 1}, {64, 1, 1}, fill,
                                 memcheck);
  if (memcheck) // (the recording observer's runs keep memcheck on)
    same_accesses_observed("vmem_buffer", kernel, sizes, {1, 1, 1}, {64, 1, 1}, fill);
  CountBufferFastPath count;
  run(test::kernel_variants("vmem_buffer").back().path, kernel, sizes, {1, 1, 1}, {64, 1, 1}, false,
      fill, &count, memcheck);
  return {count.executed(), count.fast()};
}

} // namespace

TEST_CASE("emu memory fast paths: raw buffer loads and stores of every width equal the general "
          "path") {
  // 10 loads and 8 stores per wave in the IR (-O3 merges some into wider ones), 2 waves. Lane t
  // loads up to 28 bytes at voffset + soffset 12 and stores 56 bytes at t * 64 + soffset 8.
  const int at_least = 2 * (10 + 4); // buffer instructions executed by the two waves
  SUBCASE("every access within num_records and its allocation: all take the fast path") {
    // voffsets unaligned and out of order, lane 63's b96 ending at num_records exactly
    const auto [executed, fast] =
        buffer_case("buffer_raw", 1024, 4160, {1000, 12, 4160, 8},
                    [](uint32_t t) { return t == 63 ? 1000u - 12 - 28 : (t * 37 + 5) % 961; });
    CHECK(executed >= at_least);
    CHECK(fast == executed);
  }
  SUBCASE("one lane's last dword past num_records (inside the allocation) reads 0") {
    // lane 17's b96 ends 4 bytes past num_records 1000, its wave falls back; the other wave not
    const auto [executed, fast] =
        buffer_case("buffer_raw", 1024, 4160, {1000, 12, 4160, 8}, [](uint32_t t) {
          return t == 17 ? 1000u - 12 - 28 + 4 : t == 63 ? 1000u - 12 - 28 : (t * 37 + 5) % 961;
        });
    CHECK(executed >= at_least);
    CHECK(fast < executed);
    CHECK(fast > 0);
  }
  SUBCASE("lanes partly past num_records: loads read 0 there and stores are dropped") {
    const auto [executed, fast] = buffer_case("buffer_raw", 1024, 4160, {500, 12, 2000, 8},
                                              [](uint32_t t) { return (t * 37 + 5) % 961; });
    CHECK(executed >= at_least);
    CHECK(fast < executed);
  }
  SUBCASE("one wave within num_records, the other partly past it") {
    // wave 0 (lanes 0-31) reads [0, 500), wave 1 up to 990; stores: wave 0 within 2048 + 8
    const auto [executed, fast] =
        buffer_case("buffer_raw", 1024, 4160, {512, 12, 2056, 8},
                    [](uint32_t t) { return t < 32 ? t * 15 : 500 + t * 7; });
    CHECK(executed >= at_least);
    CHECK(fast * 2 == executed);
  }
  SUBCASE("num_records past the allocation's end, memcheck off: bytes outside read 0") {
    const auto [executed, fast] = buffer_case(
        "buffer_raw", 1024, 4160, {1u << 20, 12, 4160, 8},
        [](uint32_t t) { return 1024u - 12 - 28 + t % 8; }, false);
    CHECK(executed >= at_least);
    CHECK(fast < executed);
  }
}

TEST_CASE("emu memory fast paths: a buffer load past its allocation's end within num_records is "
          "a memcheck error on both paths") {
  const std::array<uint32_t, 4> params{1u << 20, 12, 4160, 8};
  const Fill fill = [&](size_t index, uint8_t* data, size_t) {
    if (index == 1)
      std::memcpy(data, params.data(), sizeof(params));
    for (uint32_t t = 0; index == 2 && t < 64; ++t) {
      const uint32_t o = t == 5 ? 1024 - 12 - 8 : 0; // lane 5's b128 ends 4 bytes past the end
      std::memcpy(data + 4 * t, &o, 4);
    }
  };
  for (const auto& v : test::kernel_variants("vmem_buffer")) {
    CAPTURE(v.label);
    for (bool general : {false, true}) {
      CAPTURE(general);
      CHECK_THROWS_WITH(
          run(v.path, "buffer_raw", {1024, 16, 4 * 64, 4160}, {1, 1, 1}, {64, 1, 1}, general, fill),
          doctest::Contains("memcheck: global read of 4 bytes"));
    }
  }
}

TEST_CASE("emu memory fast paths: structured buffer loads and stores (idxen) equal the general "
          "path") {
  // 2 loads (idxen offen, soffset 2) and 2 stores (idxen; raw offen) per wave, 2 waves;
  // 24-byte records, OOB_SELECT 0: index < num_records, offset < stride per component.
  SUBCASE("every access within the records: all take the fast path") {
    const auto [executed, fast] = buffer_case("buffer_struct", 64 * 24, 1792, {64, 2, 64, 0},
                                              [](uint32_t t) { return t % 11; });
    CHECK(executed == 8);
    CHECK(fast == 8);
  }
  SUBCASE("one lane's last dword at the stride, one index at num_records: those read 0") {
    // lane 9: voffset 18 + soffset 2 + 4 = 24, its b64's second dword past the record (wave 0
    // falls back); lane 63: index 63 = num_records (wave 1 falls back for the loads)
    const auto [executed, fast] = buffer_case("buffer_struct", 64 * 24, 1792, {63, 2, 64, 0},
                                              [](uint32_t t) { return t == 9 ? 18u : t % 11; });
    CHECK(executed == 8);
    CHECK(fast < executed);
  }
  SUBCASE("indices past num_records and offsets past the stride: those components read 0 or "
          "are dropped") {
    const auto [executed, fast] = buffer_case("buffer_struct", 64 * 24, 1792, {40, 2, 50, 0},
                                              [](uint32_t t) { return t % 23; });
    CHECK(executed == 8);
    CHECK(fast < executed);
  }
}
