#pragma once
// Machine descriptions of the timing model: the RDNA4 parts (gfx1201: RX 9070 XT,
// gfx1200: RX 9060 XT). Every figure and its public source is in docs/timing.md; the
// ones marked "estimate" there are not published by AMD.
#include <cstdint>
#include <string>
#include <string_view>

namespace tw::emu::timing {

struct MachineModel {
  std::string name;                  // "gfx1201"
  std::string product;               // "RX 9070 XT"
  int cus = 64;                      // compute units (2 per WGP)
  double clock_ghz = 2.97;           // boost clock (the published peaks use it)
  double sustained_clock_ghz = 2.97; // the clock modeled times run at: fitted
                                     // (bench_timing_calibration chose the boost clock)

  // One WGP: 2 CUs of 2 SIMD32 each; a workgroup's waves spread over its 4 SIMDs (WGP mode).
  int simds_per_cu = 2;
  int vgprs_per_simd = 1536; // wave32 VGPRs
  int vgpr_granule = 24;     // wave32 allocation granule
  int max_waves_per_simd = 16;
  int max_workgroups_per_wgp = 64; // not a limit below 64 waves (as in LLVM): estimate
  uint32_t lds_per_wgp = 131072;
  uint32_t lds_granule = 512; // estimate

  // Issue latencies (cycles until a dependent instruction can use the result).
  int valu_latency = 5, trans_latency = 10, f64_latency = 38, salu_latency = 2;
  int mul32_latency = 8;
  int trans_occupancy = 4;     // trans unit busy per wave32 op: estimate
  int f64_occupancy = 16;      // VALU busy per wave32 f64 op: estimate
  int mul32_occupancy = 4;     // VALU busy per wave32 32-bit integer multiply: estimate
  int wmma_result_latency = 4; // cycles after the matrix unit finishes before D is readable by
                               // a non-accumulating consumer: estimate
  int branch_taken = 32;       // taken branch: wave refetch (LLVM WriteBranch)
  int barrier_latency = 8;     // last signal to the waves' release: estimate

  // Memory.
  int smem_latency = 20;     // scalar load (LLVM)
  int lds_latency = 20;      // LDS (LLVM)
  int lds_banks_per_cu = 32; // 4-byte banks serving one CU per cycle (128 B/clk)
  // Vector memory latency (issue to data) by the level that serves the load's slowest
  // line; a store completes when L2 has it.
  // The first estimates (L0 120: estimate, L2 320 = LLVM's VMEM figure, MALL 450 = ~150 ns
  // on RDNA 3, DRAM 900: estimate); bench_timing_calibration's search over scales x1 .. x4 of
  // them chose x1 on the faithful re-writes of its kernels (until the seventh session: x4,
  // fitted to re-writes with fewer dependent memory rounds than the published kernels).
  int l0_latency = 120;              // L0 vector cache hit
  int l2_latency = 320;              // L2 hit
  int mall_latency = 450;            // Infinity Cache (MALL) hit
  int dram_latency = 900;            // GDDR6
  int cache_line = 128;              // bytes
  double vmem_lines_per_clk = 1.0;   // per CU: L0 lines per cycle (128 B/clk): estimate
  double vmem_addresses_per_clk = 8; // per CU: lane addresses the texture addresser takes
                                     // per cycle: fitted (bench_timing_calibration)
  double dram_gbs = 640;             // GDDR6
  double l2_bytes_per_clk = 2048;    // whole chip: estimate
  uint64_t l0_bytes = 32u << 10;     // per CU (RDNA 3 size, assumed for RDNA 4)
  uint64_t l2_bytes = 8u << 20, mall_bytes = 64u << 20;

  int wgps() const { return cus / 2; }
  int simds_per_wgp() const { return 2 * simds_per_cu; }
  double clock_hz() const { return clock_ghz * 1e9; }               // peaks
  double sustained_hz() const { return sustained_clock_ghz * 1e9; } // modeled time
  // Peak dense f32 VALU FLOP/s: 32 lanes x FMA x dual issue per SIMD per cycle.
  double valu_f32_peak() const { return double(cus) * simds_per_cu * 32 * 2 * 2 * clock_hz(); }
};

// "gfx1201" / "gfx1200" (also "rx9070xt" / "rx9060xt"); throws std::invalid_argument naming
// the known machines otherwise.
MachineModel machine_by_name(std::string_view name);

} // namespace tw::emu::timing
