// The roofline of a playground run (Williams, Waterman, Patterson, "Roofline: an insightful visual
// performance model for multicore architectures", CACM 52(4), 2009): each variant as a point of
// arithmetic intensity (flop per DRAM byte) against achieved TFLOP/s, under the roofs of this card's
// bandwidth (measured: the run's copy ladder) and its datasheet compute peaks. Qt-free, CUDA-free.
//
// Intensity is the variant's *algorithmic* intensity: the flops of one launch over the bytes it must
// move at least (every input read once, every output written once). A kernel that re-reads through
// the caches moves more than that in DRAM traffic; the roofline shows how far the work could go,
// not the traffic a profiler's counters would measure.
#pragma once
#include <string>
#include <vector>

#include "playground/ladder.h"

namespace ts::playground {

/// The flops and the minimum DRAM bytes of one launch of `v` (a row of ladder `l`).
struct LaunchWork {
  double flops = 0;   // floating-point operations (an FMA counts 2, an add 1)
  double bytes = 0;   // bytes read + written at least once
  std::string basis;  // how they were counted: "2 M N K flops; A, B in bf16, C fp32 written"
  double intensity() const { return bytes > 0 ? flops / bytes : 0; }  // flop / byte
};

/// Counts for each family (docs/playground.md "Formulas"):
///   vector_add  n adds, 12 n bytes;  reduction  n adds, the ladder's bytes (4 n + partial sums);
///   occupancy   n adds (the sum), 4 n bytes;  divergence  the ladder's flops, 4 n bytes written;
///   copy, stride, transpose  0 flops (no arithmetic: intensity 0, not on a log axis);
///   sgemm, tensor  2 s^3 flops, 2 s^2 inputs of 4 bytes (FP32, TF32) or 2 (FP16, BF16, WMMA) and
///   s^2 outputs of 4 bytes (2 for "bf16 out").
/// Unknown families get bytes or flops from `work` only (the other 0).
LaunchWork launch_work(const Ladder& l, const VariantResult& v);

/// One point of the chart: a row that passed its check and does arithmetic.
struct RooflinePoint {
  std::string family, variant;
  bool own = true;       // false: the library's (cuBLAS) row
  double intensity = 0;  // flop / byte
  double tflops = 0;     // achieved: flops / median time
  double gbps = 0;       // achieved: bytes / median time
  std::string basis;
};

/// A roof: the bandwidth (GB/s, a slope) or a compute peak (TFLOP/s, flat).
struct Roof {
  std::string what;       // "device copy", "FP32", "TF32 tensor cores", "BF16/FP16 tensor cores"
  double value = 0;       // GB/s for the bandwidth, TFLOP/s for a peak
  bool measured = false;  // measured by this run, else a datasheet figure
  std::string source;
};

struct Roofline {
  std::vector<RooflinePoint> points;
  /// The same rows as measured by the GPU's counters (--measure), drawn beside the estimated ones and
  /// labelled "measured": intensity = the row's flops / the DRAM bytes the counters saw (read +
  /// write = DRAM GB/s x duration), TFLOP/s = flops / the measured duration. A kernel that re-reads
  /// through the caches less than it could moves more bytes than the minimum, so its measured point
  /// sits left of its estimated one. Only rows with both figures measured.
  std::vector<RooflinePoint> measured_points;
  Roof bandwidth;                     // value 0: none known
  std::vector<Roof> peaks;            // datasheet FP32, TF32, BF16 (those the table knows)
  std::vector<std::string> left_out;  // "copy: no arithmetic (intensity 0)", "sgemm 3: check failed"
};

/// The roofline of a run on `device` (its name, for the datasheet table): points from every ladder;
/// the bandwidth roof is the copy ladder's best passing row (measured), else the measured copy limit
/// another memory ladder carries, else the datasheet DRAM figure (measured false), else none.
Roofline roofline(const std::vector<Ladder>& ladders, const std::string& device);

/// The attainable TFLOP/s at `intensity` under bandwidth `gbps` and peak `tflops`:
/// min(peak, intensity x bandwidth) (GB/s x flop/byte = GFLOP/s; / 1e3 for TFLOP/s).
double attainable_tflops(double intensity, double gbps, double tflops);

}  // namespace ts::playground
