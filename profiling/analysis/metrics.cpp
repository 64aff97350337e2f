// analyze(): the session / rolling-window metrics from the timeline. Definitions: docs/metrics.md.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <unordered_map>

#include "profiling/analysis/analysis.h"
#include "profiling/analysis/communication.h"
#include "profiling/block_threads.h"
#include "profiling/analysis/health.h"
#include "profiling/steps/step_rule.h"
#include "profiling/analysis/internal.h"
#include "profiling/analysis/series.h"

namespace ts::prof::analysis {

namespace detail {
std::int64_t median(std::vector<std::int64_t>& v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  return v[mid];
}
}  // namespace detail

namespace {

/// When no kernel launch call was recorded: a typical cudaLaunchKernel cost (CUDA Best Practices
/// Guide: launch overhead of a few microseconds).
constexpr std::int64_t kDefaultLaunchCostNs = 5000;
/// A run is in reduced precision when bf16/fp16/fp8 GEMM/conv kernels are at least half of the
/// matmul kernel time (TrainScope's choice: autocast leaves some ops in fp32 by design).
constexpr double kReducedPrecisionShare = 0.5;

struct KernelStats {
  double weight = 0, sm_eff = 0, theo = 0, theo_weight = 0, achieved = 0, tc = 0, matmul = 0;
  double sm_weight = 0, achieved_weight = 0;  // the kernels the SM efficiency / achieved occupancy cover
  std::map<std::string, double> matmul_by_precision;  // kernel_precision -> matmul kernel time
  bool kineto = false;                        // some came from the trace's own per-kernel estimates
  std::int64_t count = 0, shorter_than_launch = 0, with_launch = 0;
  std::vector<std::int64_t> durations;
};

/// Duration-weighted kernel metrics over the kernels that belong to a window.
KernelStats kernel_stats(const EventStore& store, const detail::Timeline& tl, const DeviceProps& dev) {
  KernelStats k;
  k.durations.reserve(tl.gpu.size());
  const std::size_t n_strings = store.strings.size();
  std::vector<std::int8_t> tc(n_strings, -1), mm(n_strings, -1);  // per name id, classified once
  std::vector<std::string> precision(n_strings);
  struct Occ { std::optional<double> theo; int active = 0; };
  std::unordered_map<std::uint64_t, Occ> occ_cache;
  const std::int64_t lo = tl.steps.front().start, hi = tl.steps.back().end;
  for (const auto& g : tl.gpu) {
    if ((g.c != Category::kernel && g.c != Category::communication) || g.end <= lo || g.start >= hi) continue;
    const KernelRecord& r = store.kernels[g.index];
    const KernelConfig& rc = store.config(r);
    const std::int64_t dur = r.end - r.start;
    const double w = static_cast<double>(dur);
    ++k.count;
    k.durations.push_back(dur);
    k.weight += w;
    // A kernel of a CUDA graph shares its one cudaGraphLaunch with every other node of the graph: the
    // launch call is not this kernel's own cost, so such kernels are left out of the share.
    if (const detail::Launch* l = r.graph_id == 0 ? tl.launch_of(r.correlation) : nullptr) {
      ++k.with_launch;
      if (dur < l->dur) ++k.shorter_than_launch;
    }
    if (r.name < n_strings) {
      if (tc[r.name] < 0) {
        const std::string& s = store.strings.get(r.name);
        tc[r.name] = is_tensor_core_kernel(s), mm[r.name] = is_matmul_kernel(s);
        if (mm[r.name]) precision[r.name] = kernel_precision(s);
      }
      k.tc += tc[r.name] * w, k.matmul += mm[r.name] * w;
      if (mm[r.name]) k.matmul_by_precision[precision[r.name]] += w;
    }
    // A Kineto trace's own estimates, duration-weighted as the TensorBoard plugin weights them;
    // otherwise computed from the launch configuration and the device (the same formulas).
    const bool own_sm = rc.kineto_blocks_per_sm >= 0, own_occ = rc.kineto_occupancy_pct >= 0;
    if (own_sm) k.sm_eff += std::min(1.0, static_cast<double>(rc.kineto_blocks_per_sm)) * w, k.sm_weight += w, k.kineto = true;
    if (own_occ)
      k.achieved += std::min(1.0, rc.kineto_occupancy_pct / 100.0) * w, k.achieved_weight += w, k.kineto = true;
    if (!dev.known) continue;
    const double blocks = static_cast<double>(rc.grid[0]) * rc.grid[1] * rc.grid[2];
    const int threads = block_threads(rc);
    const double blocks_per_sm = blocks / dev.sms;
    if (!own_sm) k.sm_eff += std::min(1.0, blocks_per_sm) * w, k.sm_weight += w;
    const std::uint64_t key = (static_cast<std::uint64_t>(threads) << 48) ^ (static_cast<std::uint64_t>(rc.registers) << 40) ^
                              (static_cast<std::uint64_t>(rc.static_smem) << 20) ^ static_cast<std::uint64_t>(rc.dynamic_smem);
    auto it = occ_cache.find(key);
    if (it == occ_cache.end()) {
      Occ o;
      o.theo = theoretical_occupancy(dev, threads, rc.registers, rc.static_smem, rc.dynamic_smem, &o.active);
      it = occ_cache.emplace(key, o).first;
    }
    if (it->second.theo) {
      k.theo += *it->second.theo * w;
      k.theo_weight += w;
      // Kineto's estimate: min(blocks per SM, active blocks per SM) x threads per block / max threads per SM.
      if (!own_occ)
        k.achieved += std::min(1.0, std::min(blocks_per_sm, static_cast<double>(it->second.active)) * threads /
                                        dev.max_threads_per_sm) * w,
            k.achieved_weight += w;
    }
  }
  return k;
}

void memory_metrics(const EventStore& store, Report& r) {
  std::uint32_t used_series = 0;
  const std::size_t n_series = store.series.size();
  for (std::size_t i = 0; i < n_series; ++i)
    if (store.strings.get(store.series[i].name) == "device.memory.used") used_series = store.series[i].id;
  if (used_series != 0 || n_series > 0) {
    std::int64_t peak = -1;
    const std::size_t n = store.samples.size();
    for (std::size_t i = 0; i < n; ++i)
      if (store.samples[i].series == used_series && used_series != 0)
        peak = std::max(peak, static_cast<std::int64_t>(store.samples[i].value));
    if (peak >= 0) {
      r.peak_device_memory_bytes = peak;
      if (r.device.total_memory > 0) r.device_memory_fraction = static_cast<double>(peak) / r.device.total_memory;
    }
  }
  const auto reserved = reserved_total(store, store.counts());
  if (!reserved.empty()) {
    double peak = 0;
    for (const SeriesPoint& p : reserved) peak = std::max(peak, p.v);
    r.peak_reserved_bytes = static_cast<std::int64_t>(peak);
  }
  // A simulated card (--memory-limit) is as large as its cap, and the cap limits the reserved bytes
  // (on the CPU backend there is no device.memory.used at all).
  if (r.config.memory_limit_bytes > 0) {
    r.device_memory_fraction.reset();
    if (r.peak_reserved_bytes)
      r.device_memory_fraction =
          static_cast<double>(*r.peak_reserved_bytes) / static_cast<double>(r.config.memory_limit_bytes);
  }
  const std::size_t ne = store.epochs.size();
  if (ne > 0 && r.config.amp == "fp16") {
    r.skipped_steps = store.epochs[ne - 1].skipped_steps;
    r.optimizer_steps = static_cast<std::int64_t>(store.steps.size());
  }
}

void copy_metrics(const EventStore& store, const detail::Timeline& tl, Report& r) {
  const std::int64_t lo = tl.steps.front().start, hi = tl.steps.back().end;
  for (const auto& g : tl.gpu) {
    if (g.c != Category::memcpy || g.end <= lo || g.start >= hi) continue;
    const MemcpyRecord& m = store.memcpys[g.index];
    if (!detail::is_pageable_copy(m)) continue;
    ++r.pageable_copies;
    r.pageable_copy_bytes += m.bytes;
    r.pageable_copy_ns += m.end - m.start;
  }
}

/// Communication vs computation (communication.h: the definition a job's per-rank figures use too):
/// collective kernels (by name, or launched inside a collective op: the timeline's category) and the
/// `comm: ...` host ranges, over the step windows. A job measures over step periods (one step start
/// to the next) instead: the same spans, so the two differ only by the host time between a window's
/// end and the next step's start.
void communication_metrics(const EventStore& store, const detail::Timeline& tl, Report& r) {
  std::vector<bool> collective(store.kernels.size(), false);
  for (const auto& g : tl.gpu)
    if (g.c == Category::communication && g.index < collective.size()) collective[g.index] = true;
  const CommunicationSpans spans = communication_spans(store, collective);
  if (spans.empty()) return;  // "no communication found", not 0 %
  Report::Communication c;
  c.host_ranges = spans.host_range_count;
  for (const auto& w : tl.steps) {
    const CommunicationTime t = communication_time(spans, w.start, w.end);
    c.communication_ns += t.communication_ns, c.computation_ns += t.computation_ns, c.overlap_ns += t.overlap_ns;
  }
  for (const auto& g : tl.gpu)  // the collective kernels of the analysed steps
    if (g.c == Category::communication && g.end > tl.steps.front().start && g.start < tl.steps.back().end) ++c.kernels;
  if (c.kernels == 0 && c.communication_ns == 0) return;  // only before or after the analysed steps
  c.exposed_ns = c.communication_ns - c.overlap_ns;
  r.communication = c;
}

/// The rank and world size: meta distributed.* (Kineto's distributedInfo), else "rank3" / "rank-34"
/// / "rank_3" in the imported file's name.
void rank_of(const std::map<std::string, std::string>& meta, Report& r) {
  auto num = [&](const char* key) -> std::int32_t {
    auto it = meta.find(key);
    return it == meta.end() ? -1 : std::atoi(it->second.c_str());
  };
  r.rank = num("distributed.rank"), r.world_size = num("distributed.world_size");
  if (r.rank >= 0) return;
  auto src = meta.find("import.source_path");
  if (src == meta.end()) return;
  std::string name = src->second.substr(src->second.find_last_of('/') + 1);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  for (std::size_t at = name.find("rank"); at != std::string::npos; at = name.find("rank", at + 4)) {
    std::size_t d = at + 4;
    if (d < name.size() && (name[d] == '-' || name[d] == '_')) ++d;
    if (d < name.size() && std::isdigit(static_cast<unsigned char>(name[d]))) {
      r.rank = std::atoi(name.c_str() + d);
      return;
    }
  }
}

void gpu_metrics(const EventStore& store, const detail::Timeline& tl, Report& r) {
  IdleBreakdown idle;
  std::int64_t busy = 0, sync_idle = 0, launching = 0;
  for (const auto& s : r.per_step)
    idle.add(s.idle), busy += s.gpu_busy_ns, sync_idle += s.idle_sync_ns, launching += s.idle_host_launching_ns;
  r.idle = idle, r.gpu_busy_ns = busy, r.idle_sync_ns = sync_idle, r.idle_host_launching_ns = launching;
  if (r.wall_ns > 0) r.gpu_utilization = static_cast<double>(busy) / r.wall_ns;
  KernelStats k = kernel_stats(store, tl, r.device);
  if (k.count > 0) {
    r.kernels_per_step = static_cast<double>(k.count) / r.steps;
    r.median_kernel_ns = static_cast<double>(detail::median(k.durations));
    r.tensor_core_kernel_share = k.tc / k.weight;
    r.matmul_kernel_share = k.matmul / k.weight;
    if (k.matmul > 0) {  // reduced precision read from what ran: AMP on whatever the program said
      double reduced = 0, best = 0;
      for (const auto& [p, w] : k.matmul_by_precision)
        if (p == "bf16" || p == "fp16" || p == "fp8") {
          reduced += w;
          if (w > best) best = w, r.amp_from_kernels = p;
        }
      r.reduced_precision_matmul_share = reduced / k.matmul;
      if (*r.reduced_precision_matmul_share < kReducedPrecisionShare) r.amp_from_kernels.clear();
    }
    if (k.with_launch > 0) r.share_kernels_shorter_than_launch = static_cast<double>(k.shorter_than_launch) / k.with_launch;
    if (k.sm_weight > 0) r.sm_efficiency = k.sm_eff / k.sm_weight;
    if (k.theo_weight > 0) r.theoretical_occupancy = k.theo / k.theo_weight;
    if (k.achieved_weight > 0) r.achieved_occupancy_est = k.achieved / k.achieved_weight;
    r.kineto_kernel_estimates = k.kineto;
  }
  copy_metrics(store, tl, r);
  communication_metrics(store, tl, r);
}

}  // namespace

Report analyze(const EventStore& store, const Options& options) {
  Report r;
  r.min_steps_for_verdicts = options.min_steps_for_verdicts;
  const auto meta = store.meta();
  r.device = device_props(meta);
  r.config = run_config(meta);
  if (auto v = meta.find("device.vendor"); v != meta.end()) r.device_vendor = v->second;
  if (auto n = meta.find("device.name"); n != meta.end()) r.device_name = n->second;
  detail::Timeline tl = detail::build_timeline(store, options.last_steps, options.warmup_steps, &r.warmup_steps_skipped,
                                               options.live, &r.pending_steps_skipped, &r.untraced_steps_skipped);
  r.steps = static_cast<std::int64_t>(tl.steps.size());
  if (auto sr = meta.find("steps.rule"); sr != meta.end()) r.step_rule = sr->second;
  else r.step_rule = step_rule_text(StepRule::trainscope, "");
  r.whole_trace_step = step_rule_of(r.step_rule) == StepRule::whole_trace;
  rank_of(meta, r);
  auto ga = meta.find("gpu_activity");
  r.gpu_present = !tl.gpu.empty();
  r.health = gpu_health(store);  // the whole run's samples (the throttled verdict counts >= 10 % of the run)
  if (!r.gpu_present)
    r.gpu_absent_reason = ga != meta.end() && ga->second != "collected (CUPTI)" ? ga->second : "no GPU activity recorded";
  if (tl.steps.empty()) {
    if (options.verdicts) add_verdicts(r);
    return r;
  }
  std::vector<std::int64_t> launch_durations = tl.launch_durations;
  r.launch_cost_ns = launch_durations.empty() ? kDefaultLaunchCostNs : detail::median(launch_durations);
  if (!launch_durations.empty()) r.median_launch_ns = static_cast<double>(r.launch_cost_ns);
  r.per_step.resize(tl.steps.size());
  for (std::size_t i = 0; i < tl.steps.size(); ++i)
    r.per_step[i].global_step = tl.steps[i].global_step, r.per_step[i].start = tl.steps[i].start,
    r.per_step[i].end = tl.steps[i].end;
  detail::sweep(tl, r.per_step);
  if (r.gpu_present) detail::idle_gaps(tl, r.launch_cost_ns, r.per_step);
  if (auto py = meta.find("python.insight"); py != meta.end()) r.python_insight = py->second;
  for (const auto& g : tl.gpu) {
    if ((g.c == Category::kernel || g.c == Category::communication) && g.step >= 0)
      ++r.per_step[static_cast<std::size_t>(g.step)].kernels;
    if (g.step >= 0) ++r.device_events;
  }
  for (const auto& s : r.per_step)
    r.wall_ns += s.wall(), r.breakdown.add(s.breakdown), r.data_wait_ns += s.data_wait_ns, r.sync_ns += s.sync_ns;
  if (r.gpu_present) gpu_metrics(store, tl, r);
  detail::measured_metrics(store, tl, meta, r);
  detail::host_idle(store, tl, meta, r);  // without GPU activity: the Python lines of the steps only
  memory_metrics(store, r);
  // The whole run only (a rolling window reads its last steps alone).
  if (options.last_steps == 0) detail::run_gpu_busy(store, r.per_step, r.warmup_steps_skipped, r);
  if (!options.per_step) r.per_step.clear();
  if (options.verdicts) add_verdicts(r);
  return r;
}

}  // namespace ts::prof::analysis
