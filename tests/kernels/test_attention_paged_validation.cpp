// paged_attn rejects bad block tables, page sizes and lengths with a sentence naming the
// argument (and the batch and slot) before anything runs: each case goes through the whole
// entry on the memcheck emulator, so a launch with a bad page index would stop with a memcheck
// report instead of the ArgumentError checked here, and `out` must come back unwritten.
#include "paged_attention_harness.hpp"

#include <string>

using namespace tw;
using namespace tw::oracle;
using namespace tw::oracle::attention_test;

namespace {

// B 2, Sq 3, lengths 40 and 17, page 16: sequence 0 uses slots 0..2, sequence 1 slots 0..1.
PagedCase base_case(bool csr) {
  PagedCase pc;
  pc.attn.batch = 2;
  pc.attn.sq = 3;
  pc.attn.d = pc.attn.dv = 32;
  pc.seqlens_k = {40, 17};
  pc.page_size = 16;
  pc.csr = csr;
  pc.spare_pages = 1; // 5 used + 1 = 6 pages
  return pc;
}

void paged(runtime::Device& d, const kernels::PagedAttnArgs& a) {
  kernels::paged_attn(d, a);
}

// The ArgumentError of `entry` (paged_attn unless given) on `in` (mutated by the test), or
// "(accepted)".
template <class Mutate>
std::string error_of(const PagedCase& pc, Mutate&& mutate, const PagedEntry& entry = paged) {
  PagedInputs in = make_paged_inputs(pc);
  mutate(in);
  runtime::EmuDevice& dev = emu_device();
  DeviceTensors dt(dev);
  HostTensor out(pc.attn.out, {pc.attn.batch, pc.attn.sq, pc.attn.hq, pc.attn.dv});
  for (uint8_t& byte : out.bytes())
    byte = 0x5a;
  HostTensor lse;
  kernels::PagedAttnArgs a =
      paged_args_of(pc, in, out, lse, [&](const HostTensor& t) { return dt.upload(t); });
  std::string message = "(accepted)";
  try {
    entry(dev, a);
  } catch (const kernels::ArgumentError& e) {
    message = e.what();
  }
  HostTensor back(pc.attn.out, out.shape());
  dev.copy_to_host(back.bytes().data(), a.attn.out.device_address, back.bytes().size());
  if (message != "(accepted)")
    CHECK_MESSAGE(back.bytes() == out.bytes(), "out was written by a rejected call");
  return message;
}

} // namespace

TEST_CASE("paged_attn validation: the valid base cases are accepted") {
  CHECK(error_of(base_case(false), [](PagedInputs&) {}) == "(accepted)");
  CHECK(error_of(base_case(true), [](PagedInputs&) {}) == "(accepted)");
}

TEST_CASE("paged_attn validation: a page index past the pool names the table, batch and slot") {
  CHECK(error_of(base_case(false),
                 [](PagedInputs& in) {
                   in.table.set({1, 1}, 6);
                 }) ==
        "paged_attn: argument 'block_table' has page 6 for batch 1, slot 1; expected a page "
        "index in [0, num_pages = 6) of 'k' / 'v'");
  CHECK(error_of(base_case(false),
                 [](PagedInputs& in) {
                   in.table.set({0, 0}, -1);
                 }) ==
        "paged_attn: argument 'block_table' has page -1 for batch 0, slot 0; expected a page "
        "index in [0, num_pages = 6) of 'k' / 'v'");
  CHECK(error_of(base_case(true), [](PagedInputs& in) { in.indices.set({4}, 1000); }) ==
        "paged_attn: argument 'block_table_indices' has page 1000 for batch 1, slot 1; "
        "expected a page index in [0, num_pages = 6) of 'k' / 'v'");
}

TEST_CASE("decode_attn validation: a page index past the pool is refused before launch, dense "
          "and CSR tables") {
  const PagedEntry decode = [](runtime::Device& d, const kernels::PagedAttnArgs& a) {
    kernels::decode_attn(d, a);
  };
  CHECK(error_of(
            base_case(false), [](PagedInputs&) {}, decode) == "(accepted)");
  CHECK(error_of(
            base_case(false),
            [](PagedInputs& in) {
              in.table.set({0, 2}, 6);
            },
            decode) ==
        "decode_attn: argument 'block_table' has page 6 for batch 0, slot 2; expected a page "
        "index in [0, num_pages = 6) of 'k' / 'v'");
  CHECK(error_of(
            base_case(true), [](PagedInputs& in) { in.indices.set({0}, -3); }, decode) ==
        "decode_attn: argument 'block_table_indices' has page -3 for batch 0, slot 0; "
        "expected a page index in [0, num_pages = 6) of 'k' / 'v'");
}

TEST_CASE("paged_attn validation: slots past a sequence's pages are not checked (padding)") {
  // The base table already holds -1 in every row's spare slot; a huge value is fine too.
  CHECK(error_of(base_case(false), [](PagedInputs& in) {
          in.table.set({1, 2}, 999);
        }) == "(accepted)");
}

TEST_CASE("paged_attn validation: lengths against the table's capacity") {
  // the dense rows have 4 slots (one spare, -1): 65 keys overflow the row, 49 reach the -1
  CHECK(error_of(base_case(false), [](PagedInputs& in) { in.seqlens.set({0}, 65); }) ==
        "paged_attn: argument 'seqlens_k' has 65 at index 0; expected at most the 64 keys of "
        "its block table (4 pages of 16)");
  CHECK(error_of(base_case(false), [](PagedInputs& in) { in.seqlens.set({0}, 49); }) ==
        "paged_attn: argument 'block_table' has page -1 for batch 0, slot 3; expected a page "
        "index in [0, num_pages = 6) of 'k' / 'v'");
  CHECK(error_of(base_case(true), [](PagedInputs& in) { in.seqlens.set({1}, 33); }) ==
        "paged_attn: argument 'seqlens_k' has 33 at index 1; expected at most the 32 keys of "
        "its block table (2 pages of 16)");
  CHECK(error_of(base_case(false), [](PagedInputs& in) { in.seqlens.set({1}, -2); }) ==
        "paged_attn: argument 'seqlens_k' has -2 at index 1; expected a key count >= 0");
}

TEST_CASE("paged_attn validation: page size rule and table form") {
  PagedCase odd = base_case(false);
  odd.page_size = 24;
  CHECK(error_of(odd, [](PagedInputs&) {}) ==
        "paged_attn: argument 'k' has page_size 24 (dimension 1); expected a multiple of 16 "
        "from 16 to 256");
  CHECK(error_of(base_case(true),
                 [](PagedInputs& in) {
                   in.indptr.set({1}, 4);
                   in.indptr.set({2}, 2);
                 }) ==
        "paged_attn: argument 'block_table_indptr' has 4, 2 at indices 1, 2; expected "
        "non-decreasing offsets from 0 to at most the 5 entries of 'block_table_indices'");
}

TEST_CASE("paged_attn validation: a bias is [(Hq,) Sq, Sk] with Sk the longest seqlens_k") {
  PagedCase pc = base_case(false);
  pc.attn.bias = kernels::AttnBiasKind::additive;
  CHECK(error_of(pc, [](PagedInputs&) {}) == "(accepted)");
  CHECK(error_of(pc,
                 [](PagedInputs& in) {
                   in.q_side.bias = HostTensor(DType::f32, {3, 17});
                 }) ==
        "paged_attn: argument 'bias' has shape [3, 17]; expected [Sq, Sk] = [3, 40] (shared by "
        "the heads) or [Hq, Sq, Sk] = [1, 3, 40] (per head)");
}
