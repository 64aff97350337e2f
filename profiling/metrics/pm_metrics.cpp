// PM sampling metrics and decoding (see pm_metrics.h).
#include "profiling/metrics/pm_metrics.h"

#include <cmath>
#include <cstdio>

namespace ts::prof::pm {

const std::vector<MetricSpec>& metric_specs() {
  // Counter names from NVIDIA's PM sampling metrics table (CUPTI guide 2.10.3) and, for the byte
  // rates and warp occupancy, the metric names Nsight Compute and DCGM use on Ampere and Hopper;
  // `.sum.per_second` turns a byte count into bytes/s.
  static const std::vector<MetricSpec> specs = {
      {"sm_active", "%", {"sm__cycles_active.avg.pct_of_peak_sustained_elapsed"}, false,
       "SM active: cycles with at least one warp resident, % of elapsed cycles (mean over SMs)"},
      {"tensor_active", "%",
       {"sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
        "sm__pipe_shared_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed"},
       false, "tensor pipes active: cycles issuing tensor instructions, % of elapsed cycles"},
      {"warp_occupancy", "%",
       {"sm__warps_active_realtime.avg.pct_of_peak_sustained_elapsed",
        "tpc__warps_active_realtime.avg.pct_of_peak_sustained_elapsed"},
       false, "warp occupancy: resident warps, % of the SMs' warp slots over elapsed cycles"},
      {"dram_read", "bytes/s", {"dram__bytes_read.sum.per_second"}, false, "DRAM read throughput"},
      {"dram_write", "bytes/s", {"dram__bytes_write.sum.per_second"}, false, "DRAM write throughput"},
      // dram__ first: on GH100 dramc__throughput (the DRAM controller's estimate) read 0.07 % on
      // average while dram__bytes_read + _write measured ~200 GB/s (6 % of HBM3's 3.35 TB/s).
      {"dram_peak", "%", {"dram__throughput.avg.pct_of_peak_sustained_elapsed",
                          "dramc__throughput.avg.pct_of_peak_sustained_elapsed"},
       false, "DRAM throughput, % of the DRAM interface's peak"},
      {"pcie_rx", "bytes/s", {"pcie__read_bytes.sum.per_second"}, true, "PCIe bytes received by the GPU"},
      {"pcie_tx", "bytes/s", {"pcie__write_bytes.sum.per_second"}, true, "PCIe bytes sent by the GPU"},
  };
  return specs;
}

const MetricSpec* find_metric(const std::string& name) {
  for (const MetricSpec& s : metric_specs())
    if (name == s.name) return &s;
  return nullptr;
}

std::string series_name(const std::string& metric) { return "pm." + metric; }

Decoder::Decoder(EventStore& store, SessionClock clock, DecoderOptions options)
    : store_(store), clock_(clock), options_(std::move(options)) {
  if (options_.interval_ns <= 0) options_.interval_ns = 1'000'000;
}

void Decoder::add(std::span<const RawSample> batch) {
  const auto interval = static_cast<double>(options_.interval_ns);
  for (const RawSample& s : batch) {
    if (s.end <= s.start) {
      ++counts_.zero_length;
      continue;
    }
    if (static_cast<double>(s.end - s.start) > 1.5 * interval) {
      ++counts_.stretched;  // its time is counted as a gap by the next kept sample
      continue;
    }
    if (s.values.size() != options_.metrics.size()) continue;  // not a sample of this config
    if (last_end_ != 0 && s.start + static_cast<std::uint64_t>(options_.interval_ns / 2) < last_end_) {
      ++counts_.out_of_order;
      continue;
    }
    if (last_end_ != 0 && s.start > last_end_) {
      // A gap of half an interval or more is a missing sample (the decoder's own rounding).
      counts_.lost += static_cast<std::int64_t>(std::llround(static_cast<double>(s.start - last_end_) / interval));
    }
    if (series_.empty()) {
      for (const std::string& m : options_.metrics) {
        const MetricSpec* spec = find_metric(m);
        const auto id = static_cast<std::uint32_t>(store_.metric_series.size());
        store_.append(store_.metric_series, SeriesRecord{id, store_.strings.intern(series_name(m)),
                                                         store_.strings.intern(spec ? spec->unit : "")});
        series_.push_back(id);
      }
    }
    const std::int64_t t = clock_.from_gpu(s.start);
    for (std::size_t i = 0; i < series_.size(); ++i)
      if (std::isfinite(s.values[i])) store_.append(store_.metric_samples, SampleRecord{t, series_[i], s.values[i]});
    if (counts_.kept == 0) first_time_ = t;
    last_time_ = t;
    last_end_ = std::max(last_end_, s.end);
    ++counts_.kept;
  }
}

void Decoder::lost_until(std::uint64_t cupti_ns) {
  if (last_end_ == 0 || cupti_ns <= last_end_) return;
  counts_.lost += static_cast<std::int64_t>(
      std::llround(static_cast<double>(cupti_ns - last_end_) / static_cast<double>(options_.interval_ns)));
  last_end_ = cupti_ns;
}

double Decoder::rate_hz() const {
  if (counts_.kept < 2 || last_time_ <= first_time_) return 0;
  return static_cast<double>(counts_.kept - 1) * 1e9 / static_cast<double>(last_time_ - first_time_);
}

std::string refusal_reason(Refusal kind, const std::string& cupti_error) {
  switch (kind) {
    case Refusal::privileges:
      return "GPU performance counters refused (" + cupti_error +
             "): run as root, or load the nvidia module with NVreg_RestrictProfilingToAdminUsers=0";
    case Refusal::busy:
      return "GPU performance counters held by another profiler (" + cupti_error +
             "): Nsight Compute, DCGM profiling or another CUPTI profiler in this process; stop it and run again";
    case Refusal::unsupported:
      return "PM sampling not supported here (" + cupti_error +
             "): it needs a Turing or newer GPU, not a MIG slice or a virtual GPU without profiling";
    case Refusal::other: break;
  }
  return "PM sampling failed (" + cupti_error + ")";
}

void write_meta(EventStore& store, const std::vector<std::string>& metrics,
                const std::map<std::string, std::string>& counters, const AbsentMetrics& absent,
                const DecodeCounts& counts, std::int64_t interval_ns, double rate_hz) {
  std::string list, counter_list;
  for (const std::string& m : metrics) list += (list.empty() ? "" : ", ") + m;
  for (const auto& [m, c] : counters) counter_list += (counter_list.empty() ? "" : ", ") + m + "=" + c;
  char rate[64];
  std::snprintf(rate, sizeof(rate), "%.0f", rate_hz);
  if (!metrics.empty())
    store.set_meta("pm_sampling", std::string("sampled at ") + rate + " Hz (" + std::to_string(counts.kept) +
                                      " samples, samples lost " + std::to_string(counts.lost) + "): " + list);
  store.set_meta("pm_sampling.interval_ns", std::to_string(interval_ns));
  store.set_meta("pm_sampling.samples", std::to_string(counts.kept));
  store.set_meta("pm_sampling.samples_lost", std::to_string(counts.lost));
  store.set_meta("pm_sampling.stretched", std::to_string(counts.stretched));
  store.set_meta("pm_sampling.zero_length", std::to_string(counts.zero_length));
  store.set_meta("pm_sampling.out_of_order", std::to_string(counts.out_of_order));
  store.set_meta("pm_sampling.overflows", std::to_string(counts.overflows));
  store.set_meta("pm_sampling.counters", counter_list);
  for (const auto& [m, why] : absent) store.set_meta("pm_sampling.absent." + m, why);
}

}  // namespace ts::prof::pm
