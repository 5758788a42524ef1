// "K / V staged in LDS chunks when a head does not fit in 64 KiB" (issue 10): no instantiated
// flash attention configuration needs chunks, because the KV block (32 keys for 16-bit inputs,
// 64 for 8-bit ones) times the widest head (256, padded rows) fits two LDS stages of K well
// within 64 KiB (V reaches the PV product by transpose loads; docs/kernels.md "LDS budget"). This
// test builds every dtype x head width x query tile (64 and 128 rows) the composition is
// instantiated for and checks the kernel's static LDS, so a change of block size or staging that
// would need chunking fails here with the configuration named.
#include <kernels/attention/flash_attn_kernel.hpp>

#include <doctest/doctest.h>

using namespace tw;
namespace fk = tw::kernels::flash_attn_kernel;

TEST_CASE("flash_attn: the LDS plan of every instantiated configuration fits 64 KiB") {
  int64_t largest = 0;
  for (kernels::DType t : {kernels::DType::bf16, kernels::DType::f16, kernels::DType::e4m3,
                           kernels::DType::e5m2, kernels::DType::int8})
    for (int pad : {32, 64, 96, 128, 192, 256}) {
      int64_t four_waves = 0;
      for (int waves : {4, 8}) { // 64- and 128-row query tiles share K's staging
        fk::FlashAttnKernelSpec s;
        s.dtype = t;
        s.head_dim_pad = s.head_dim_v_pad = pad;
        s.waves = waves;
        const ir::Kernel k = fk::build_flash_attn_kernel(s);
        CAPTURE(s.name());
        CHECK(k.lds_bytes > 0);
        CHECK(k.lds_bytes <= 65536);
        if (waves == 4)
          four_waves = k.lds_bytes;
        else
          CHECK(k.lds_bytes == four_waves);
        largest = std::max(largest, k.lds_bytes);
      }
    }
  // The widest head takes two stages of K: 16-bit 2 x 32 x (256 + 8) x 2 = 33792 bytes, 8-bit
  // 2 x 64 x (256 + 16) = 34816 (the largest).
  MESSAGE("largest flash attention LDS plan: " << largest << " bytes");
  CHECK(largest <= 65536);
}
