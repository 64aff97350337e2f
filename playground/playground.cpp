// run(): the families in order, one Bench (CUPTI) for the whole run, then the limits and shares
// (see playground.h). Also the shared pieces of families.h.
#include "playground/playground.h"

#include <fmt/core.h>

#include <deque>
#include <map>

#include "base/errors.h"
#include "engine/network.h"
#include "playground/families.h"
#include "playground/limits.h"
#include "playground/measured.h"
#include "playground/session.h"
#include "profiling/event_store.h"

namespace ts::playground {

int RunResult::failed_checks() const {
  int n = 0;
  for (const auto& l : ladders) n += l.failed_checks();
  return n;
}

VariantResult variant(std::string name, std::string what_changed, double work, bool own) {
  VariantResult v;
  v.name = std::move(name);
  v.what_changed = std::move(what_changed);
  v.work = work;
  v.own = own;
  return v;
}

void poison(float* p, std::int64_t n) {
  TS_PG_CUDA(cudaMemset(p, 0xFF, static_cast<std::size_t>(n) * sizeof(float)));
}

void skip_variant(Ladder& ladder, VariantResult v, const std::string& why) {
  v.note = why;
  ladder.variants.push_back(std::move(v));
}

void run_variant(Context& ctx, Ladder& ladder, VariantResult v, const std::function<cudaError_t()>& launch,
                 const std::function<Check()>& check, const std::function<void()>& clear) {
  ladder.variants.push_back(std::move(v));
  const std::size_t idx = ladder.variants.size() - 1;
  try {
    clear();
    TS_PG_CUDA(launch());
    TS_PG_CUDA(cudaDeviceSynchronize());
    const Check c = check();
    VariantResult& r = ladder.variants[idx];
    r.checked = true;
    r.check_passed = c.passed;
    r.max_error = c.max_error;
    r.tolerance = c.tolerance;
    r.check_what = c.what;
    if (c.passed) ctx.bench.time(ladder, idx, launch);
  } catch (const DeviceError& e) {
    VariantResult& r = ladder.variants[idx];
    r.checked = true;
    r.check_passed = false;
    r.note += (r.note.empty() ? "" : "; ") + std::string(e.what());
  }
}

namespace {

using Runner = void (*)(Context&, Ladder&, std::int64_t);
const std::map<std::string, Runner>& runners() {
  static const std::map<std::string, Runner> m = {
      {"vector_add", run_vector_add}, {"copy", run_copy},   {"stride", run_stride}, {"transpose", run_transpose},
      {"reduction", run_reduction},   {"sgemm", run_sgemm}, {"tensor", run_tensor}, {"divergence", run_divergence},
      {"occupancy", run_occupancy}};
  return m;
}

// Bytes a memory family's kernels touch (their working set), for the 8x-L2 rule.
std::int64_t footprint(const std::string& family, std::int64_t size) {
  if (family == "vector_add") return 3 * size * 4;
  if (family == "copy" || family == "stride") return 2 * size * 4;
  if (family == "transpose") return 2 * size * 2 * size * 4;
  if (family == "reduction" || family == "occupancy") return size * 4;
  return 0;
}

Limit datasheet(const std::optional<DatasheetPeaks>& p, const char* what, double DatasheetPeaks::*field) {
  if (!p) return {};
  return {fmt::format("{} {}", p->card, what), (*p).*field, false, p->source};
}

void set_limits(std::deque<Ladder>& ladders, const std::string& device, std::int64_t l2_bytes) {
  const auto peaks = datasheet_peaks(device);
  double copy_best = 0;
  for (const auto& l : ladders)
    if (l.family == "copy")
      for (const auto& v : l.variants)
        if (v.check_passed) copy_best = std::max(copy_best, v.throughput);
  for (auto& l : ladders) {
    const Limit dram = datasheet(peaks, "memory bandwidth, datasheet", &DatasheetPeaks::dram_gbps);
    if (l.unit == Unit::gbps) {
      if (l.family != "copy" && copy_best > 0) {
        l.limit = {"device copy, measured", copy_best, true, "this run's copy ladder (best row)"};
        l.other_limits.push_back(dram);
      } else {
        l.limit = dram;
      }
      if (l.family == "reduction" && copy_best > 0)
        l.warning = "a reduction only reads: a read-only stream can pass the copy's read + write figure, so a share "
                    "above 100 % of the limit is that, not an error";
      const std::int64_t bytes = footprint(l.family, l.size);
      if (bytes > 0 && bytes < 8 * l2_bytes)
        l.warning = fmt::format("{} MB of data is less than 8x the {} MB L2: figures may be the cache's, not DRAM's",
                                bytes >> 20, l2_bytes >> 20) + (l.warning.empty() ? "" : "; " + l.warning);
    } else if (l.family == "tensor") {
      l.limit = datasheet(peaks, "BF16 dense, datasheet", &DatasheetPeaks::bf16_tflops);
      l.other_limits = {datasheet(peaks, "TF32 dense, datasheet", &DatasheetPeaks::tf32_tflops),
                        datasheet(peaks, "FP32, datasheet", &DatasheetPeaks::fp32_tflops)};
    } else {
      l.limit = datasheet(peaks, "FP32, datasheet", &DatasheetPeaks::fp32_tflops);
    }
    if (l.family == "sgemm") {
      double blas = 0;
      for (const auto& v : l.variants)
        if (v.name == "cuBLAS FP32" && v.check_passed) blas = v.throughput;
      if (blas > 0) {
        l.other_limits.push_back({"cuBLAS SGEMM, measured", blas, true, "this ladder's cuBLAS FP32 row"});
        for (auto& v : l.variants)
          if (v.own && v.check_passed)
            v.note = fmt::format("{:.1f}% of cuBLAS SGEMM", 100 * v.throughput / blas) +
                     (v.note.empty() ? "" : "; " + v.note);
      }
      l.other_limits.push_back(datasheet(peaks, "BF16 dense, datasheet", &DatasheetPeaks::bf16_tflops));
    }
    if (peaks && (l.family == "sgemm" || l.family == "tensor"))
      for (auto& v : l.variants) {  // tensor-core rows against the tensor cores' peak
        const bool tf32 = v.name.find("TF32") != std::string::npos;
        const bool half = v.name.find("BF16") != std::string::npos || v.name.find("FP16") != std::string::npos ||
                          v.name.find("WMMA") != std::string::npos;
        if (tf32) v.limit = peaks->tf32_tflops, v.limit_what = std::string(peaks->card) + " TF32 dense, datasheet";
        if (half) v.limit = peaks->bf16_tflops, v.limit_what = std::string(peaks->card) + " BF16/FP16 dense, datasheet";
        if (!tf32 && !half) v.limit = peaks->fp32_tflops, v.limit_what = std::string(peaks->card) + " FP32, datasheet";
      }
    compute_shares(l);
  }
}

}  // namespace

RunResult run(const Options& o) {
  std::vector<std::pair<const FamilyInfo*, std::int64_t>> todo;
  for (const auto& name : o.families) {
    if (name == "all") {
      for (const auto& f : families()) todo.emplace_back(&f, check_size(f, o.size));
    } else {
      const FamilyInfo& f = family(name);
      todo.emplace_back(&f, check_size(f, o.size));
    }
  }
  if (o.threads_per_block < 1 || o.threads_per_block > 1024 || o.threads_per_block % 32 != 0)
    throw InputError(fmt::format("--threads-per-block {}: a multiple of 32 in [32, 1024]", o.threads_per_block));
  if (o.blocks_per_grid < 0 || o.blocks_per_grid > (1 << 30))
    throw InputError(fmt::format("--blocks-per-grid {}: 0 (one element per thread) or 1..2^30", o.blocks_per_grid));
  std::string why;
  if (!cuda_available(&why)) throw DeviceError("--playground needs a CUDA GPU: " + why);
  TS_PG_CUDA(cudaSetDevice(o.device));
  RunResult r;
  Bench bench(o.measure);
  Context ctx{bench, o, {}};
  TS_PG_CUDA(cudaGetDeviceProperties(&ctx.prop, o.device));
  r.device_name = ctx.prop.name;
  r.sms = ctx.prop.multiProcessorCount;
  r.l2_bytes = ctx.prop.l2CacheSize;
  std::deque<Ladder> ladders;  // Bench keeps pointers to rows: a deque never moves its elements
  for (const auto& [f, size] : todo) {
    Ladder& l = ladders.emplace_back();
    l.family = f->name;
    l.title = f->title;
    l.size = size;
    l.size_what = f->size_what;
    runners().at(f->name)(ctx, l, size);
  }
  r.cupti_status = bench.finish(&r.cupti_dropped);
  if (o.measure) {
    r.measure_status = bench.measure_status();
    for (auto& l : ladders)
      for (auto& v : l.variants)
        if (!v.measured) v.measured = not_measured(v);
  }
  set_limits(ladders, r.device_name, r.l2_bytes);
  for (auto& l : ladders) r.ladders.push_back(std::move(l));
  if (!o.session_path.empty()) {
    StoredRun stored{r.device_name, r.cupti_status.empty() ? "cupti" : "cuda events: " + r.cupti_status, r.ladders};
    prof::EventStore& st = bench.store();
    st.set_meta("device.kind", "cuda");
    st.set_meta("device.name", r.device_name);
    st.set_meta("device.multiprocessors", std::to_string(r.sms));
    st.set_meta("device.compute_capability", fmt::format("{}.{}", ctx.prop.major, ctx.prop.minor));
    write_playground_session(o.session_path, st, stored);
  }
  return r;
}

}  // namespace ts::playground
