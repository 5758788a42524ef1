// TensorView / HostTensor: strides, spans, element access through tw::num, packed int4
// nibble order, dtype names. Expected values are derived by hand in the comments.
#include <kernels/common/host_tensor.hpp>

#include <doctest/doctest.h>

using namespace tw::kernels;

TEST_CASE("tensor: strides and spans") {
  CHECK(contiguous_strides({4, 12}) == Extents{12, 1});
  CHECK(contiguous_strides({2, 3, 5}) == Extents{15, 5, 1});
  CHECK(column_major_strides({4, 12}) == Extents{1, 4});
  // [4, 12] with a padded leading dimension 16: the last element is at 3 * 16 + 11 = 59.
  const TensorView v = TensorView::on_host(nullptr, DType::f16, {4, 12}, {16, 1});
  CHECK(v.numel() == 48);
  CHECK(v.span_elements() == 60);
  CHECK(v.span_bytes() == 120);
  // packed int4: 7 elements need 4 bytes
  CHECK(TensorView::on_host(nullptr, DType::int4, {7}).span_bytes() == 4);
  CHECK(TensorView::on_host(nullptr, DType::f32, {3, 0}).span_elements() == 0);
  CHECK(format_extents({4, 12}) == "[4, 12]");
  CHECK(format_extents({}) == "[]");
}

TEST_CASE("tensor: 64-bit extents and offsets") {
  // 2^20 x 2^12 = 2^32 elements: more than an int32 can count.
  const TensorView v = TensorView::on_host(nullptr, DType::int8, {int64_t(1) << 20, 4096});
  CHECK(v.numel() == (int64_t(1) << 32));
  const int64_t idx[2] = {(int64_t(1) << 20) - 1, 4095};
  CHECK(v.offset_of(idx) == (int64_t(1) << 32) - 1);
}

TEST_CASE("tensor: numel and span_elements past 64 bits are errors, not wrapped (issue 17)") {
  // (2^62 + 32) x 48 elements: the product wrapped to a small number before.
  const TensorView big = TensorView::on_host(nullptr, DType::f32, {(int64_t(1) << 62) + 32, 48});
  CHECK_THROWS_WITH_AS(big.numel(), doctest::Contains("has more elements than fit in 64 bits"),
                       std::overflow_error);
  CHECK_THROWS_AS(big.span_elements(), std::overflow_error);
  // The element count fits, the span does not: 2^20 rows 2^62 elements apart.
  const TensorView wide =
      TensorView::on_host(nullptr, DType::f32, {int64_t(1) << 20, 2}, {int64_t(1) << 62, 1});
  CHECK(wide.numel() == (int64_t(1) << 21));
  CHECK_THROWS_WITH_AS(wide.span_elements(), doctest::Contains("spans more elements than fit"),
                       std::overflow_error);
}

TEST_CASE("tensor: element access decodes and encodes through tw::num") {
  HostTensor t(DType::f16, {2, 2}, {1, 2}); // column-major
  t.set({0, 1}, 1.5);
  t.set({1, 0}, -2.0);
  // column-major: (0, 1) is element 2, (1, 0) element 1. f16 1.5 = 0x3E00, -2 = 0xC000.
  const std::vector<uint8_t> want{0, 0, 0x00, 0xC0, 0x00, 0x3E, 0, 0};
  CHECK(t.bytes() == want);
  CHECK(t.at({0, 1}) == 1.5);
  // A value between codes is rounded once (f16 step at 1 is 2^-10; 1 + 2^-11 ties to 1).
  t.set({0, 0}, 1 + 0x1p-11);
  CHECK(t.code({0, 0}) == 0x3C00);

  HostTensor q(DType::int8, {3});
  q.set({0}, 2.5);  // ties to even: 2
  q.set({1}, -300); // clamps: -128
  q.set({2}, 126.6);
  CHECK(q.at({0}) == 2);
  CHECK(q.at({1}) == -128);
  CHECK(q.at({2}) == 127);
  CHECK(q.code({1}) == 0x80);

  HostTensor e(DType::e8m0, {2});
  e.set({0}, 3.0);  // rounds down to 2 = 2^1: code 128
  e.set({1}, 0.75); // 0.5 = 2^-1: code 126
  CHECK(e.code({0}) == 128);
  CHECK(e.code({1}) == 126);
  CHECK(e.at({0}) == 2.0);

  HostTensor i(DType::i32, {1});
  i.set({0}, -7);
  CHECK(i.at({0}) == -7);
  CHECK(i.code({0}) == 0xFFFFFFF9u);
}

TEST_CASE("tensor: packed int4, element 2i in the low nibble") {
  HostTensor t(DType::int4, {2, 4}); // rows start on bytes 0 and 2
  t.set({0, 0}, -1);                 // 0xF low nibble of byte 0
  t.set({0, 1}, 3);                  // 0x3 high nibble of byte 0
  t.set({1, 2}, -8);                 // element 6: low nibble of byte 3
  t.set({1, 3}, 9);                  // clamps to 7: high nibble of byte 3
  CHECK(t.bytes() == std::vector<uint8_t>{0x3F, 0x00, 0x00, 0x78});
  CHECK(t.at({0, 0}) == -1);
  CHECK(t.at({1, 3}) == 7);
  HostTensor u(DType::uint4, {2});
  u.bytes() = {0xA5};
  CHECK(u.at({0}) == 5);
  CHECK(u.at({1}) == 10);
}

TEST_CASE("tensor: bad access and bad construction are errors") {
  HostTensor t(DType::f32, {2, 3});
  CHECK_THROWS_AS(t.at({2, 0}), std::out_of_range);
  CHECK_THROWS_AS(t.at({0}), std::out_of_range);
  CHECK_THROWS_AS(HostTensor(DType::f32, {2, 3}, {1}), std::invalid_argument);
  CHECK_THROWS_AS(HostTensor(DType::f32, {-1, 3}), std::invalid_argument);
}

TEST_CASE("dtype: names, widths, formats") {
  CHECK(dtype_name(DType::bf16) == "bf16");
  CHECK(dtype_bits(DType::int4) == 4);
  CHECK(dtype_storage_bytes(DType::uint4, 3) == 2);
  CHECK(parse_dtype("e5m2") == DType::e5m2);
  CHECK_THROWS_WITH(parse_dtype("fp8"), "unknown dtype 'fp8': expected one of f32, f16, bf16, "
                                        "e4m3, e5m2, e8m0, int8, uint8, int4, uint4, i32");
  CHECK(num_format(DType::e4m3) == tw::num::Format::e4m3);
  CHECK_FALSE(num_format(DType::f32).has_value());
}
