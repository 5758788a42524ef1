// The decode cache: a code object loaded again is not decoded again, and its program equals a
// fresh decode of the same bytes at the new load address.
#include "runtime/emu/emu_test_util.hpp"

#include <runtime/emu/code_object.hpp>
#include <runtime/emu/decode_cache.hpp>

#include <cstring>
#include <vector>

using namespace tw::emu;

TEST_CASE("decode cache: a second load of the same bytes reuses the decode, moved to its pc") {
  for (const auto& v : tw::test::kernel_variants("core_control")) {
    INFO(v.label);
    const auto elf = tw::test::read_file_bytes(v.path);
    const auto first = CodeObject::load(elf);
    const size_t misses = decode_cache_misses();
    const auto second = CodeObject::load(elf);
    CHECK(decode_cache_misses() == misses);
    REQUIRE(first->image_base() != second->image_base());
    const auto& p1 = first->program();
    const auto& p2 = second->program();
    REQUIRE(p1.size() == p2.size());
    REQUIRE(!p2.empty());
    // What decode_text makes of the second image's bytes, uncached.
    const uint64_t text = p2.front().pc;
    const uint64_t text_size = p2.back().pc + p2.back().size - text;
    const auto fresh =
        decode_text(reinterpret_cast<const uint8_t*>(text), text_size, text, first->target());
    REQUIRE(fresh.size() == p2.size());
    for (size_t i = 0; i < p2.size(); ++i) {
      CHECK(p2[i].pc - second->image_base() == p1[i].pc - first->image_base());
      CHECK(p2[i].pc == fresh[i].pc);
      CHECK(p2[i].size == fresh[i].size);
      CHECK(p2[i].asm_text == fresh[i].asm_text);
      CHECK(p2[i].mnemonic == fresh[i].mnemonic);
      CHECK((p2[i].handler != nullptr));
      CHECK(second->at(p2[i].pc) == &p2[i]);
    }
  }
}

TEST_CASE("decode cache: different bytes are decoded anew") {
  // s_nop 0; s_endpgm, then the same with s_nop 1.
  const uint32_t a[] = {0xbf800000u, 0xbfb00000u}, b[] = {0xbf800001u, 0xbfb00000u};
  const auto pa =
      decode_text_cached(reinterpret_cast<const uint8_t*>(a), sizeof a, 0x1000, "gfx1201");
  const size_t misses = decode_cache_misses();
  const auto pb =
      decode_text_cached(reinterpret_cast<const uint8_t*>(b), sizeof b, 0x1000, "gfx1201");
  CHECK(decode_cache_misses() == misses + 1);
  REQUIRE(pa.size() == 2);
  REQUIRE(pb.size() == 2);
  CHECK(pa[0].asm_text == "s_nop 0");
  CHECK(pb[0].asm_text == "s_nop 1");
  const auto again =
      decode_text_cached(reinterpret_cast<const uint8_t*>(a), sizeof a, 0x2000, "gfx1201");
  CHECK(decode_cache_misses() == misses + 1);
  REQUIRE(again.size() == 2);
  CHECK(again[0].pc == 0x2000);
  CHECK(again[1].pc == 0x2004);
  CHECK(again[1].asm_text == "s_endpgm");
}
