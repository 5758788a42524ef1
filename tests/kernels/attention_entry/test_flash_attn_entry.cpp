// flash_attn's entry step (kernels/attention/flash_attn_entry.cpp) with the launch step
// replaced by a recording double: this suite is its own executable, so the double stands in
// for launch_flash_attn (the kernel's, kernels/attention/launch_flash_attn.cpp) only here. It
// checks what the entry adds to validation: nothing launched on bad input or an empty problem,
// and the split count it hands to the launch.
#include <kernels/attention/flash_attn_api.hpp>
#include <kernels/attention/flash_attn_launch.hpp>
#include <kernels/attention/flash_attn_splits.hpp>
#include <runtime/emu_device.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace tw::kernels {
namespace {
struct LaunchRecord {
  int calls = 0;
  FlashAttnProblem problem;
};
LaunchRecord& record() {
  static LaunchRecord r;
  return r;
}
} // namespace

// The double: records the problem it was handed.
void launch_flash_attn(runtime::Device&, const FlashAttnArgs&, const FlashAttnProblem& problem) {
  ++record().calls;
  record().problem = problem;
}
} // namespace tw::kernels

using namespace tw;
using namespace tw::kernels;

namespace {

// Device buffers for a dense problem q [B, Sq, Hq, D], k / v [B, Sk, Hkv, D], out like q.
struct DenseProblem {
  runtime::EmuDevice dev;
  std::vector<runtime::DevicePtr> owned;
  FlashAttnArgs args;
  DenseProblem(int64_t b, int64_t sq, int64_t sk, int64_t hq, int64_t hkv, int64_t d) {
    args.q = tensor({b, sq, hq, d});
    args.k = tensor({b, sk, hkv, d});
    args.v = tensor({b, sk, hkv, d});
    args.out = tensor({b, sq, hq, d});
  }
  ~DenseProblem() {
    for (runtime::DevicePtr p : owned)
      dev.free(p);
  }
  TensorView tensor(Extents shape) {
    int64_t n = 1;
    for (int64_t e : shape)
      n *= e;
    owned.push_back(dev.allocate(size_t(std::max<int64_t>(n, 1)) * 2));
    return TensorView::on_device(dev, owned.back(), DType::bf16, std::move(shape));
  }
};

int launches_during(const std::function<void()>& f) {
  const int before = record().calls;
  f();
  return record().calls - before;
}

} // namespace

TEST_CASE("flash_attn entry: a valid problem is launched once with the chosen split count") {
  DenseProblem p(1, 1, 8192, 8, 8, 64); // decode: 8 workgroups, Sk 8192 -> 16 splits
  CHECK(launches_during([&] { flash_attn(p.dev, p.args); }) == 1);
  CHECK(record().problem.num_splits == 16);
  CHECK(record().problem.seqlen_k == 8192);
  CHECK(record().problem.sm_scale == 0.125f);
  p.args.num_splits = 3; // the caller's count is kept
  CHECK(launches_during([&] { flash_attn(p.dev, p.args); }) == 1);
  CHECK(record().problem.num_splits == 3);
  DenseProblem big(2, 256, 256, 16, 16, 64); // 128 workgroups: no split
  CHECK(launches_during([&] { flash_attn(big.dev, big.args); }) == 1);
  CHECK(record().problem.num_splits == 1);
}

TEST_CASE("flash_attn entry: bad input throws the validation sentence and launches nothing") {
  DenseProblem p(1, 4, 8, 2, 2, 32);
  p.args.dropout_p = 1.5f;
  CHECK(launches_during([&] {
          CHECK_THROWS_WITH_AS(flash_attn(p.dev, p.args),
                               "flash_attn: parameter 'dropout_p' is 1.5; expected a probability "
                               "in [0, 1) (0 = no dropout)",
                               ArgumentError);
        }) == 0);
}

TEST_CASE("flash_attn entry: empty problems are validated, then not launched") {
  DenseProblem p(3, 0, 8, 2, 2, 32); // Sq = 0
  CHECK(launches_during([&] { flash_attn(p.dev, p.args); }) == 0);
  p.args.softcap = -1.0f; // still validated
  CHECK(launches_during([&] { CHECK_THROWS_AS(flash_attn(p.dev, p.args), ArgumentError); }) == 0);
  DenseProblem no_batch(0, 4, 8, 2, 2, 32);
  CHECK(launches_during([&] { flash_attn(no_batch.dev, no_batch.args); }) == 0);
  DenseProblem no_keys(1, 4, 0, 2, 2, 32); // Sk = 0 is not empty: rows see no key
  CHECK(launches_during([&] { flash_attn(no_keys.dev, no_keys.args); }) == 1);
  CHECK(record().problem.num_splits == 1);
}
