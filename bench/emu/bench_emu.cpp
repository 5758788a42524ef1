// Emulator speed: wave-instructions per second on an ALU loop, and the wall time of a
// 256^3 f16 WMMA GEMM (checked against a host product).
#include <runtime/emu_device.hpp>
#include <runtime/kernel_args.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

using namespace tw;

namespace {

std::vector<uint8_t> load(const char* name) {
  std::ifstream f(std::string(TW_BENCH_KERNEL_DIR) + "/" + name, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// f16 <-> f32 for exactly representable small integers / halves only (the inputs below).
uint16_t to_f16(float x) {
  const _Float16 h = static_cast<_Float16>(x);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

void report(const char* what, const emu::LaunchStats& s) {
  std::printf("%-28s %10.3f s  %12llu wave-instr  %8.2f M wave-instr/s  (VALU %llu, SALU %llu, "
              "VMEM %llu, WMMA %llu)\n",
              what, s.seconds, static_cast<unsigned long long>(s.total_instructions()),
              double(s.total_instructions()) / s.seconds / 1e6,
              static_cast<unsigned long long>(s.count(emu::InstrClass::Valu)),
              static_cast<unsigned long long>(s.count(emu::InstrClass::Salu)),
              static_cast<unsigned long long>(s.count(emu::InstrClass::Vmem)),
              static_cast<unsigned long long>(s.count(emu::InstrClass::Wmma)));
}

} // namespace

int main() {
  runtime::EmuDevice dev;
  dev.set_memcheck(false);
  auto m = dev.load_code_object(load("emu_bench.hsaco"));
  std::printf("host threads: %u\n", std::thread::hardware_concurrency());

  {
    auto k = dev.get_kernel(m, "alu_loop");
    const unsigned groups = 16;
    auto out = dev.allocate(groups * 256 * 4);
    runtime::KernelArgs args;
    args.ptr(out).add(2000);
    for (unsigned threads : {1u, 0u}) {
      dev.set_threads(threads);
      dev.launch(k, {groups, 1, 1}, {256, 1, 1}, args.span());
      report(threads == 1 ? "alu_loop (1 thread)" : "alu_loop (all threads)", dev.last_stats());
    }
    dev.set_memcheck(true);
    dev.launch(k, {groups, 1, 1}, {256, 1, 1}, args.span());
    report("alu_loop (memcheck on)", dev.last_stats());
    dev.set_memcheck(false);
  }

  {
    const int M = 256, N = 256, K = 256;
    std::vector<uint16_t> a(size_t(M) * K), bt(size_t(N) * K);
    std::vector<float> af(a.size()), bf(bt.size());
    for (size_t i = 0; i < a.size(); ++i) {
      af[i] = float(int(i * 7 % 9) - 4) * 0.5f;
      a[i] = to_f16(af[i]);
    }
    for (size_t i = 0; i < bt.size(); ++i) {
      bf[i] = float(int(i * 5 % 7) - 3) * 0.25f;
      bt[i] = to_f16(bf[i]);
    }
    auto da = dev.allocate(a.size() * 2), db = dev.allocate(bt.size() * 2);
    auto dc = dev.allocate(size_t(M) * N * 4);
    dev.copy_to_device(da, a.data(), a.size() * 2);
    dev.copy_to_device(db, bt.data(), bt.size() * 2);
    runtime::KernelArgs args;
    args.ptr(da).ptr(db).ptr(dc).add(M).add(N).add(K);
    auto k = dev.get_kernel(m, "gemm_wmma");
    dev.set_threads(0);
    dev.launch(k, {unsigned(M / 16 * N / 16 / 4), 1, 1}, {128, 1, 1}, args.span());
    report("gemm_wmma 256^3 f16", dev.last_stats());
    std::printf("WMMA ops counted: %llu (expected %llu)\n",
                static_cast<unsigned long long>(dev.last_stats().wmma_ops), 2ull * M * N * K);
    std::vector<float> c(size_t(M) * N);
    dev.copy_to_host(c.data(), dc, c.size() * 4);
    double max_err = 0;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double ref = 0;
        for (int kk = 0; kk < K; ++kk)
          ref += double(af[size_t(i) * K + kk]) * bf[size_t(j) * K + kk];
        max_err = std::max(max_err, std::fabs(ref - c[size_t(i) * N + j]));
      }
    std::printf("gemm_wmma: %.3f s wall, %.1f MFLOP/s emulated, max |error| vs host %.3g\n",
                dev.last_stats().seconds, 2.0 * M * N * K / dev.last_stats().seconds / 1e6,
                max_err);
  }
  return 0;
}
