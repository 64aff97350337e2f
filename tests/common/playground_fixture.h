// A playground session for tests that have no GPU: hand-made ladders (copy, stride, transpose,
// sgemm with one failed row, tensor) shaped like the H200's (docs/playground.md "Measured on the
// H200"), and a few kernel records per variant with their launch configuration, written with
// write_playground_session. Header-only: unit, runner and GUI tests include it.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "playground/session.h"
#include "profiling/event_store.h"

namespace ts::test {

inline playground::VariantResult pg_row(const std::string& name, double throughput, double work, bool own = true,
                                        bool tflops = false) {
  playground::VariantResult v;
  v.name = name, v.what_changed = "what " + name + " changed", v.own = own;
  v.checked = v.check_passed = true, v.check_what = "exact";
  v.throughput = throughput;
  v.median_ns = throughput > 0 ? work / throughput / (tflops ? 1e3 : 1) : 0;  // ladder.h throughput()
  v.event_ns = v.median_ns * 1.02, v.launches = 20, v.kernels_per_launch = 1, v.time_source = "cupti", v.work = work;
  v.launch = "grid 1024x1x1 block 256x1x1 regs 32 smem 0+0";
  return v;
}

/// The run: `scale` multiplies every throughput (a second, "faster card" run for compare tests).
inline playground::StoredRun pg_run(double scale = 1, const std::string& device = "NVIDIA H200") {
  using namespace playground;
  std::vector<Ladder> ls;
  auto mem = [&](const char* fam, const char* title, std::vector<std::pair<const char*, double>> rows,
                 double bytes_per_element = 8) {
    Ladder l;
    l.family = fam, l.title = title, l.unit = Unit::gbps, l.size = 134217728, l.size_what = "elements (floats)";
    for (auto& [n, t] : rows) l.variants.push_back(pg_row(n, t * scale, bytes_per_element * 134217728));
    l.limit = {"device copy, measured", 4262 * scale, true, "this run's copy ladder"};
    l.other_limits = {{"HBM3e bandwidth, datasheet", 4800, false, "NVIDIA H200 datasheet"}};
    if (std::string(fam) == "copy") l.limit = l.other_limits[0], l.other_limits.clear();
    compute_shares(l);
    ls.push_back(l);
  };
  mem("vector_add", "vector add: c = a + b",
      {{"one block per SM", 846}, {"full wave", 3655}, {"thread per element", 2667}, {"your launch", 2667}}, 12);
  mem("copy", "device copy: the bandwidth ceiling", {{"float per thread", 3950}, {"float4 per thread", 4262}});
  mem("stride", "strided reads",
      {{"stride 1", 2424},
       {"stride 2", 1700},
       {"stride 4", 1000},
       {"stride 8", 600},
       {"stride 16", 500},
       {"stride 32", 456}});
  mem("transpose", "matrix transpose", {{"naive", 561}, {"32x32 shared tile", 1641}, {"tile padded to 33", 3563}});
  mem("reduction", "sum of n floats, Harris's steps",
      {{"1 interleaved, divergent", 419},
       {"2 strided index", 675},
       {"3 sequential addressing", 848},
       {"4 first add during load", 1611},
       {"5 last warp unrolled", 2259},
       {"6 several elements per thread", 4550}},
      4);
  Ladder g;
  g.family = "sgemm", g.title = "SGEMM 4096x4096x4096 (FP32)", g.unit = Unit::tflops, g.size = 4096;
  g.size_what = "matrix side (M = N = K)";
  const double flops = 2.0 * 4096 * 4096 * 4096;
  const std::pair<const char*, double> steps[] = {
      {"1 naive", 0.50},           {"2 coalesced", 5.7},         {"3 shared-memory tiles", 9.1},
      {"4 1D block tiling", 16.9}, {"5 2D block tiling", 25.2},  {"6 vectorised loads", 34.8},
      {"7 warp tiling", 38.8},     {"8 double buffering", 39.5}, {"cuBLAS FP32", 51.3},
      {"cuBLAS TF32", 376},        {"cuBLAS BF16", 670.7}};
  for (auto& [n, t] : steps) g.variants.push_back(pg_row(n, t * scale, flops, n[0] != 'c', true));
  g.variants[2].check_passed = false, g.variants[2].throughput = 0;  // a failed check: red, no time
  g.variants[2].max_error = 0.5, g.variants[2].tolerance = 1e-4;
  g.variants[9].limit = 494.5, g.variants[9].limit_what = "TF32 dense, datasheet";
  g.variants[10].limit = 989.5, g.variants[10].limit_what = "BF16 dense, datasheet";
  g.limit = {"FP32, datasheet", 67, false, "NVIDIA H200 datasheet"};
  g.other_limits = {{"cuBLAS SGEMM, measured", 51.3 * scale, true, "this ladder"}};
  compute_shares(g);
  ls.push_back(g);
  Ladder tc;
  tc.family = "tensor", tc.title = "tensor cores 8192x8192x8192", tc.unit = Unit::tflops, tc.size = 8192;
  tc.size_what = "matrix side (M = N = K)";
  const double tflops8k = 2.0 * 8192 * 8192 * 8192;
  const std::pair<const char*, double> tensor[] = {{"WMMA fp16", 55},
                                                   {"WMMA bf16", 56},
                                                   {"cuBLAS FP32", 51},
                                                   {"cuBLAS TF32", 414},
                                                   {"cuBLAS FP16", 648},
                                                   {"cuBLAS BF16", 670.7},
                                                   {"cuBLAS BF16, bf16 out", 696.5}};
  for (auto& [n, t] : tensor) tc.variants.push_back(pg_row(n, t * scale, tflops8k, n[0] != 'c', true));
  tc.limit = {"BF16 dense, datasheet", 989.5, false, "NVIDIA H200 datasheet"};
  compute_shares(tc);
  ls.push_back(tc);
  return {device, "cupti", ls};
}

/// A store with `per_variant` kernel records per variant of `run` (names like the kernels').
inline void pg_fill_store(prof::EventStore& s, const playground::StoredRun& run, int per_variant = 3) {
  std::int64_t t = 1000;
  std::uint32_t corr = 1;
  for (const auto& l : run.ladders)
    for (std::size_t vi = 0; vi < l.variants.size(); ++vi)
      for (int i = 0; i < per_variant; ++i) {
        prof::KernelRecord k;
        k.start = t, k.end = t + 20000 + 1000 * static_cast<std::int64_t>(vi), k.stream = 7, k.correlation = corr++;
        // sgemm's first row under the name CUPTI gives the real kernel (the workspace finds it by name).
        k.name = s.strings.intern(l.family == "sgemm" && vi == 0
                                      ? "void ts::playground::k::(anonymous namespace)::sgemm_naive(int, int, int, "
                                        "const float*, const float*, float*)"
                                      : l.family + "_kernel_" + std::to_string(vi));
        prof::KernelConfig c;
        c.grid[0] = 1024, c.grid[1] = c.grid[2] = 1, c.block[0] = 256, c.block[1] = c.block[2] = 1;
        c.registers = 32 + static_cast<int>(vi), c.static_smem = l.family == "sgemm" ? 8192 : 0;
        k.config = s.intern_config(c);
        s.append(s.kernels, k);
        t = k.end + 5000;
      }
  s.set_meta("device.name", run.device);  // as playground.cpp records the device (H200: cc 9.0, 132 SMs)
  s.set_meta("device.kind", "cuda");
  s.set_meta("device.compute_capability", "9.0");
  s.set_meta("device.multiprocessors", "132");
}

/// Writes the run as a session at `path` (overwrites).
inline void pg_write_session(const std::string& path, const playground::StoredRun& run) {
  std::remove(path.c_str());
  prof::EventStore store;
  pg_fill_store(store, run);
  playground::write_playground_session(path, store, run);
}

}  // namespace ts::test
