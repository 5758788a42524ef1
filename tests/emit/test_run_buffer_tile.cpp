// BufferTile (dsl/tensor/buffer_tile.hpp) end to end on the gfx12 emulator through both
// backends: a loop of 128 threads moves 32 x 64 bf16 tiles of a tensor with a padded row
// stride (72) into a compact output with a TiledCopy. Whole tiles load through a buffer
// resource (buffer_load_b128, no 64-bit VALU address arithmetic in the loop); the last tile
// crosses the tensor's end and takes GlobalTile's masked path, so its missing rows read 0.
// The values are distinct bf16 codes, so any misplaced element shows; memcheck (on in
// DslEmuRun) sees only in-bounds accesses.
#include "dsl_emu_run.hpp"

#include <dsl/dsl.hpp>
#include <dsl/tensor/buffer_tile.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <regex>
#include <string>
#include <vector>

using namespace tw;
using namespace tw::dsl;

TEST_CASE("BufferTile: whole tiles load through a buffer resource, the edge tile is masked") {
  constexpr int R = 32, C = 64, rows = 80, ld = 72, out_rows = 96;
  KernelBuilder kb("buffer_tile", {128, 1, 1});
  auto [In, Out] = kb.args(gtensor<bf16>(row_major, "in", 16), gtensor<bf16>(row_major, "out", 16));
  const GlobalTensor<bf16> in = In.shape(rows, C, ld), out = Out.shape(out_rows, C);
  constexpr auto copy = make_tiled_copy<bf16>(atoms::global_load_b128{}, thread_layout<16, 8>);
  for_range(Int32(0), Int32(out_rows / R), [&](const Int32& t) {
    const auto regs = copy.load(buffer_local_tile<R, C>(in, t, 0));
    copy.store(regs, local_tile<R, C>(out, t, 0));
  });
  const ir::Kernel k = kb.finish();

  std::vector<std::uint16_t> host(rows * ld);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < ld; ++c)
      host[r * ld + c] = static_cast<std::uint16_t>(c < C ? 0x3c00 + r * C + c : 0x7777);
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    CHECK(run.uses("buffer_load_b128"));
    // No 64-bit VALU address step inside the loop for the whole tiles' loads: every
    // buffer_load's address is a VGPR offset plus the resource (SGPRs).
    CHECK(std::regex_search(run.art.assembly,
                            std::regex("buffer_load_b128 v\\[[0-9]+:[0-9]+\\], v[0-9]+, s\\[")));
    const runtime::DevicePtr din = run.upload(host),
                             dout = run.upload(std::vector<std::uint16_t>(out_rows * C, 0x5555));
    run.launch({1, 1, 1}, {128, 1, 1}, runtime::KernelArgs().ptr(din).ptr(dout));
    const std::vector<std::uint16_t> o = run.download<std::uint16_t>(dout, out_rows * C);
    for (int r = 0; r < out_rows; ++r)
      for (int c = 0; c < C; ++c) {
        CAPTURE(r);
        CAPTURE(c);
        CHECK(o[r * C + c] == (r < rows ? host[r * ld + c] : 0));
      }
  }
}
