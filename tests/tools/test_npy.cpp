// tools/npy/npy.hpp: the NumPy .npy reader / writer.
#include <tools/npy/npy.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <string>

using tw::npy::Array;

namespace {
// The bytes NumPy 1.x writes for np.save(f, np.arange(6, dtype='<i2').reshape(2, 3)).
std::vector<uint8_t> numpy_written_2x3_i16() {
  std::string header = "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += char(header.size());
  file += '\0';
  file += header;
  for (int i = 0; i < 6; ++i) {
    file += char(i);
    file += '\0';
  }
  std::vector<uint8_t> b(file.begin(), file.end());
  return b;
}
} // namespace

TEST_CASE("npy: parses the layout NumPy writes") {
  const Array a = tw::npy::parse(numpy_written_2x3_i16());
  CHECK(a.dtype == "<i2");
  CHECK(a.shape == std::vector<size_t>{2, 3});
  CHECK(a.count() == 6);
  CHECK(a.element_size() == 2);
  REQUIRE(a.data.size() == 12);
  CHECK(a.data[10] == 5);
}

TEST_CASE("npy: write then read round-trips, header padded to 64 bytes") {
  for (const char* dt : {"f32", "f16", "bf16", "i8", "u8", "i64", "f64"}) {
    Array a;
    a.dtype = tw::npy::dtype_from_name(dt);
    a.shape = {3, 1, 4};
    a.data.resize(a.count() * a.element_size());
    for (size_t i = 0; i < a.data.size(); ++i)
      a.data[i] = uint8_t(i * 13 + 1);
    const auto bytes = tw::npy::serialize(a);
    const size_t header_len = bytes[8] | (size_t(bytes[9]) << 8);
    CHECK((10 + header_len) % 64 == 0);
    CHECK(bytes[10 + header_len - 1] == '\n');
    const Array b = tw::npy::parse(bytes);
    CHECK(b.dtype == a.dtype);
    CHECK(b.shape == a.shape);
    CHECK(b.data == a.data);
  }
  Array v;
  v.dtype = "<f4";
  v.shape = {5};
  v.data.resize(20);
  const auto bytes = tw::npy::serialize(v);
  const std::string text(bytes.begin() + 10, bytes.end());
  CHECK(text.find("'shape': (5,)") != std::string::npos); // 1-D tuples keep the comma
  const std::string path = "npy_roundtrip_test.npy";
  tw::npy::write(path, v);
  CHECK(tw::npy::read(path).shape == v.shape);
  std::remove(path.c_str());
}

TEST_CASE("npy: errors name the file and the rule") {
  std::vector<uint8_t> bad(20, 0);
  CHECK_THROWS_WITH(tw::npy::parse(bad, "x.npy"),
                    "x.npy: not a .npy file (missing the \\x93NUMPY magic)");
  auto fortran = numpy_written_2x3_i16();
  const std::string f = "False, 'shape'";
  auto it = std::search(fortran.begin(), fortran.end(), f.begin(), f.end());
  std::copy_n("True , ", 7, it);
  CHECK_THROWS_WITH(tw::npy::parse(fortran, "f.npy"),
                    "f.npy: header field 'fortran_order' is True: Fortran-order arrays are not "
                    "supported (use C order)");
  auto big = numpy_written_2x3_i16();
  big[21] = '>'; // "'<i2'" -> "'>i2'"
  CHECK_THROWS_WITH(tw::npy::parse(big, "b.npy"),
                    "b.npy: header field 'descr' '>i2' is not little-endian");
  auto cut = numpy_written_2x3_i16();
  cut.resize(cut.size() - 3);
  CHECK_THROWS_WITH(tw::npy::parse(cut, "c.npy"),
                    "c.npy: holds 9 data bytes, the header field 'shape' (2, 3) of <i2 says 12");
  CHECK_THROWS_WITH(
      tw::npy::dtype_from_name("f128"),
      "dtype 'f128' is not one of f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64");
  CHECK_THROWS_WITH(tw::npy::read("/nonexistent/dir/a.npy"),
                    "/nonexistent/dir/a.npy: cannot open for reading");
}

namespace {
// A version 1.0 .npy image with this header text (padded as NumPy pads) and `data_bytes` zeros.
std::vector<uint8_t> with_header(std::string header, size_t data_bytes) {
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += char(header.size() & 0xff);
  file += char(header.size() >> 8);
  file += header;
  file.append(data_bytes, '\0');
  return {file.begin(), file.end()};
}
std::string header_error(const std::string& header, size_t data_bytes = 24) {
  try {
    (void)tw::npy::parse(with_header(header, data_bytes), "h.npy");
  } catch (const tw::npy::Error& e) {
    return e.what();
  }
  return "accepted";
}
} // namespace

TEST_CASE("npy: a malformed header is refused naming the file and the field (issue 17)") {
  const std::string pre = "{'descr': '<f4', 'fortran_order': False, 'shape': ";
  CHECK(header_error(pre + "(2, 3), }") == "accepted");
  CHECK(header_error(pre + "(a, b), }") ==
        "h.npy: header field 'shape' has 'a, b), }' where a dimension (an integer below 2^62) "
        "belongs");
  CHECK(header_error(pre + "(2.5, 3), }") ==
        "h.npy: header field 'shape' has '.5, 3), }' after a dimension");
  CHECK(header_error(pre + "(2, 3), } junk") ==
        "h.npy: the header has 'junk' after its closing '}'");
  CHECK(header_error(pre + "(2, 3") == "h.npy: header field 'shape' has the end of the header "
                                       "after a dimension");
  CHECK(header_error(pre + "(2, 3), ") ==
        "h.npy: a header key must be a quoted string but has the end of the header");
  CHECK(header_error(pre + "6, }") == "h.npy: header field 'shape' expects '(' but has '6, }'");
  CHECK(header_error(pre + "(99999999999999999999999,), }") ==
        "h.npy: header field 'shape' has '999999999999' where a dimension (an integer below "
        "2^62) belongs");
  CHECK(header_error(pre + "(4611686018427387903, 4611686018427387903), }") ==
        "h.npy: header field 'shape' (4611686018427387903, 4611686018427387903) of <f4 has more "
        "bytes than fit in 64 bits");
  // The shape (2^62 + 32, 48): the dimension alone is refused.
  CHECK(header_error(pre + "(4611686018427387936, 48), }")
            .find("where a dimension (an integer below 2^62) belongs") != std::string::npos);
  // A huge shape the file does not hold: refused before anything is allocated.
  CHECK(header_error(pre + "(1000000000000, 1000), }") ==
        "h.npy: holds 24 data bytes, the header field 'shape' (1000000000000, 1000) of <f4 says "
        "4000000000000000");
  CHECK(header_error(pre + "(2, 3), }", 28) ==
        "h.npy: holds 28 data bytes, the header field 'shape' (2, 3) of <f4 says 24");
  CHECK(header_error("{'descr': '<f4x', 'fortran_order': False, 'shape': (2, 3), }") ==
        "h.npy: header field 'descr' '<f4x' is not a number dtype (f, i, u or b of 1, 2, 4 or 8 "
        "bytes; structured dtypes are not supported)");
  CHECK(header_error("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,)}")
            .find("header key 'descr' is unknown or given twice") != std::string::npos);
  CHECK(header_error("{'descr': '<f4', 'fortran_order': False}") ==
        "h.npy: the header has no 'shape' entry");
  CHECK(header_error("{'descr': '<f4, 'fortran_order': False, 'shape': (6,)}")
            .find("header field 'descr' is followed by") != std::string::npos);
  CHECK(header_error("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (6,)}") ==
        "h.npy: header field 'fortran_order' must be True or False");
  // The header length field itself runs past the file.
  auto cut = with_header(pre + "(2, 3), }", 0);
  cut.resize(40);
  CHECK_THROWS_WITH(tw::npy::parse(cut, "t.npy"),
                    "t.npy: header length 118 runs past the end of the 40-byte file");
}

TEST_CASE("npy: a write that fails is reported, not silent") {
  tw::npy::Array a;
  a.dtype = "<f4";
  a.shape = {4};
  a.data.resize(16);
  CHECK_THROWS_WITH(tw::npy::write("/dev/full", a), "/dev/full: write failed (disk full?)");
  a.shape = {size_t(1) << 62, 8};
  CHECK_THROWS_AS(tw::npy::write("/dev/null", a), tw::npy::Error);
}
