// The canonical printer: exact text of small kernels built with OpBuilder.
#include <doctest/doctest.h>
#include <dsl/ir/ir.hpp>

using namespace tw::ir;

TEST_CASE("ir print: vector add kernel has the documented canonical text") {
  Kernel k;
  k.name = "vadd";
  k.workgroup_size = {256, 1, 1};
  OpBuilder b(k);
  Value a = b.arg("a", Type::ptr(AddrSpace::global));
  Value c = b.arg("c", Type::ptr(AddrSpace::global));
  Value n = b.arg("n", Type::i32());
  Value tid = b.workitem_id(Dim::x);
  Value in_range = b.cmp(CmpPred::lt, tid, n);
  b.begin_if(in_range);
  Value off = b.mul(tid, b.i32(4));
  // One builder call per statement: C++ leaves the order of argument evaluation open.
  Value pa = b.ptr_add(a, off);
  Value x = b.load(Type::f32(), pa);
  Value pc = b.ptr_add(c, off);
  Value one_and_half = b.f32(1.5);
  Value sum = b.add(x, one_and_half);
  b.store(pc, sum);
  b.end_if();
  verify(k);
  const std::string want = "kernel @vadd(%0: ptr<global> a, %1: ptr<global> c, %2: i32 n) "
                           "workgroup(256, 1, 1) lds(0) {\n"
                           "  %3 = workitem_id x : i32\n"
                           "  %4 = cmp lt %3, %2 (i32, i32) : i1\n"
                           "  if %4 {\n"
                           "    %5 = const_int 4 : i32\n"
                           "    %6 = mul %3, %5 : i32\n"
                           "    %7 = ptr_add %0, %6 (ptr<global>, i32) : ptr<global>\n"
                           "    %8 = load %7 (ptr<global>) : f32\n"
                           "    %9 = ptr_add %1, %6 (ptr<global>, i32) : ptr<global>\n"
                           "    %10 = const_float 1.5 : f32\n"
                           "    %11 = add %8, %10 : f32\n"
                           "    store %9, %11 (ptr<global>, f32)\n"
                           "    yield\n"
                           "  } else {\n"
                           "    yield\n"
                           "  }\n"
                           "}\n";
  CHECK(print(k) == want);
}
