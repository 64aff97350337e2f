// The roofline of a playground run (roofline.h): work per launch, points and roofs.
#include "playground/roofline.h"

#include <fmt/core.h>

#include <algorithm>

#include "playground/limits.h"

namespace ts::playground {

namespace {

bool has(const std::string& s, const char* what) {
  return s.find(what) != std::string::npos;
}

/// Bytes per input element of a GEMM row, from its name (the ladders' names, families_compute.cpp).
double gemm_input_bytes(const std::string& name) {
  return has(name, "BF16") || has(name, "bf16") || has(name, "FP16") || has(name, "fp16") ? 2 : 4;
}

}  // namespace

LaunchWork launch_work(const Ladder& l, const VariantResult& v) {
  LaunchWork w;
  const double n = static_cast<double>(l.size);
  const std::string& f = l.family;
  if (f == "sgemm" || f == "tensor") {
    const double in = gemm_input_bytes(v.name), out = has(v.name, "bf16 out") ? 2 : 4;
    w.flops = l.unit == Unit::tflops && v.work > 0 ? v.work : 2 * n * n * n;
    w.bytes = 2 * n * n * in + n * n * out;
    w.basis =
        fmt::format("2 M N K flops; A and B read once ({} bytes each element), C written once ({} bytes)", in, out);
  } else if (f == "vector_add") {
    w.flops = n, w.bytes = v.work > 0 ? v.work : 12 * n;
    w.basis = "one add per element; a and b read, c written (12 bytes per element)";
  } else if (f == "reduction") {
    w.flops = n, w.bytes = v.work > 0 ? v.work : 4 * n;
    w.basis = "one add per element; every element read once";
  } else if (f == "occupancy") {
    w.flops = n, w.bytes = v.work > 0 ? v.work : 4 * n;
    w.basis = "one add per element (the sum); every element read once";
  } else if (f == "divergence") {
    w.flops = v.work, w.bytes = 4 * n;
    w.basis = "2 flops per fmaf, 512 per thread; one float written per thread";
  } else if (f == "copy" || f == "stride" || f == "transpose") {
    w.flops = 0, w.bytes = v.work;
    w.basis = "data movement only: no arithmetic";
  } else if (l.unit == Unit::tflops) {
    w.flops = v.work;
    w.basis = "flops only (bytes unknown for this family)";
  } else {
    w.bytes = v.work;
    w.basis = "bytes only (flops unknown for this family)";
  }
  return w;
}

double attainable_tflops(double intensity, double gbps, double tflops) {
  const double by_bandwidth = intensity * gbps / 1e3;
  if (tflops <= 0) return by_bandwidth;
  if (gbps <= 0) return tflops;
  return std::min(tflops, by_bandwidth);
}

namespace {

Roof bandwidth_roof(const std::vector<Ladder>& ladders, const std::optional<DatasheetPeaks>& sheet) {
  Roof r;
  r.what = "device copy";
  for (const auto& l : ladders) {
    if (l.family != "copy") continue;
    for (const auto& v : l.variants)
      if (v.check_passed && v.throughput > r.value) r.value = v.throughput, r.measured = true;
    if (r.measured) {
      r.source = "this run's copy ladder, best row";
      return r;
    }
  }
  for (const auto& l : ladders)
    if (l.unit == Unit::gbps && l.limit.measured && l.limit.value > 0)
      return {l.limit.what, l.limit.value, true, l.limit.source};
  if (sheet && sheet->dram_gbps > 0) return {"DRAM bandwidth", sheet->dram_gbps, false, sheet->source};
  return {"bandwidth", 0, false, "none known"};
}

}  // namespace

Roofline roofline(const std::vector<Ladder>& ladders, const std::string& device) {
  Roofline out;
  const auto sheet = datasheet_peaks(device);
  out.bandwidth = bandwidth_roof(ladders, sheet);
  if (sheet) {
    if (sheet->fp32_tflops > 0) out.peaks.push_back({"FP32", sheet->fp32_tflops, false, sheet->source});
    if (sheet->tf32_tflops > 0) out.peaks.push_back({"TF32 tensor cores", sheet->tf32_tflops, false, sheet->source});
    if (sheet->bf16_tflops > 0)
      out.peaks.push_back({"BF16/FP16 tensor cores", sheet->bf16_tflops, false, sheet->source});
  }
  for (const auto& l : ladders) {
    bool said_no_flops = false;
    for (const auto& v : l.variants) {
      const LaunchWork w = launch_work(l, v);
      if (w.flops <= 0 || w.bytes <= 0) {
        if (!said_no_flops) out.left_out.push_back(l.family + ": " + w.basis + " (intensity 0: not on a log axis)");
        said_no_flops = true;
        continue;
      }
      if (!v.check_passed || v.median_ns <= 0) {
        out.left_out.push_back(l.family + " " + v.name + ": " + (v.checked ? "check failed" : "not run"));
        continue;
      }
      out.points.push_back(
          {l.family, v.name, v.own, w.intensity(), w.flops / v.median_ns / 1e3, w.bytes / v.median_ns, w.basis});
      const auto& m = v.measured;
      if (m && m->ok() && m->dram_gbps && m->duration_ns && *m->dram_gbps > 0 && *m->duration_ns > 0) {
        const double bytes = *m->dram_gbps * *m->duration_ns;  // GB/s x ns = bytes
        out.measured_points.push_back({l.family, v.name, v.own, w.flops / bytes, w.flops / *m->duration_ns / 1e3,
                                       *m->dram_gbps, "measured: DRAM bytes and duration from the GPU's counters"});
      }
    }
  }
  return out;
}

}  // namespace ts::playground
