// A job's analysis (job.h): clock alignment by step starts, per-rank figures over step periods,
// waiting for other ranks, and the job's verdicts. Definitions and thresholds: docs/metrics.md, "Jobs".
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "engine/host_trace.h"
#include "profiling/analysis/analysis.h"
#include "profiling/analysis/communication.h"
#include "profiling/job/job.h"

namespace ts::prof::job {

namespace {

using Span = analysis::TimeInterval;
using Spans = std::vector<Span>;

void merge(Spans& v) {
  std::sort(v.begin(), v.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  std::size_t out = 0;
  for (const Span& s : v) {
    if (s.end <= s.start) continue;
    if (out > 0 && s.start <= v[out - 1].end)
      v[out - 1].end = std::max(v[out - 1].end, s.end);
    else
      v[out++] = s;
  }
  v.resize(out);
}

/// Length of [a, b) covered by the merged list `v`.
std::int64_t covered(const Spans& v, std::int64_t a, std::int64_t b) { return analysis::covered_length(v, a, b); }

std::int64_t median(std::vector<std::int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// One rank's events as merged interval lists (session ns of that rank).
struct RankSpans {
  std::map<std::int64_t, std::int64_t> step_start;  // global step -> start
  /// Communication, computation, their overlap and the collective kernels alone: the one definition
  /// of the session analysis (analysis/communication.h), kernels told apart by name.
  analysis::CommunicationSpans comm;
  Spans gpu_busy;
  Spans data, blocking, optimizer, sync, host_known;
  bool comm_ranges = false;  // communication host ranges were recorded
  std::int64_t base = 0;     // the session's start on the job's common clock (JobReport::clock)
};

RankSpans spans_of(const EventStore& s) {
  using K = trace::RangeKind;
  using analysis::is_async_communication_range;
  using analysis::is_communication_range;
  RankSpans r;
  for (std::size_t i = 0; i < s.steps.size(); ++i) r.step_start.emplace(s.steps[i].global_step, s.steps[i].start);
  r.comm = analysis::communication_spans(s);
  r.comm_ranges = r.comm.host_range_count > 0;
  for (std::size_t i = 0; i < s.kernels.size(); ++i) r.gpu_busy.push_back({s.kernels[i].start, s.kernels[i].end});
  for (std::size_t i = 0; i < s.memcpys.size(); ++i) r.gpu_busy.push_back({s.memcpys[i].start, s.memcpys[i].end});
  for (std::size_t i = 0; i < s.memsets.size(); ++i) r.gpu_busy.push_back({s.memsets[i].start, s.memsets[i].end});
  const auto meta = s.meta();
  auto t = meta.find("steps.thread");
  const std::uint32_t stepping =
      t == meta.end() ? 0 : static_cast<std::uint32_t>(std::strtoul(t->second.c_str(), nullptr, 10));
  for (std::size_t i = 0; i < s.host_ranges.size(); ++i) {
    const HostRangeRecord& h = s.host_ranges[i];
    const std::string name = s.strings.get(h.name);
    const Span sp{h.start, h.end};
    if (stepping != 0 && h.thread != stepping) continue;
    const auto kind = static_cast<K>(h.kind);
    if (kind == K::data_wait)
      r.data.push_back(sp);
    else if (kind == K::forward || kind == K::backward ||
             (is_communication_range(name) && !is_async_communication_range(name)))
      r.blocking.push_back(sp);
    else if (kind == K::optimizer)
      r.optimizer.push_back(sp);
    else if (kind == K::sync || name.rfind("sync: ", 0) == 0)
      r.sync.push_back(sp);
    else
      continue;
    r.host_known.push_back(sp);
  }
  for (Spans* v : {&r.gpu_busy, &r.data, &r.blocking, &r.optimizer, &r.sync, &r.host_known}) merge(*v);
  return r;
}

/// Per matched step: one rank's raw figures over [start(k), start(k+1)).
struct StepFig {
  std::int64_t period, compute, comm, exposed, idle, data, blocking, optimizer, sync, host_other, comm_kernels;
};

StepFig step_fig(const RankSpans& r, std::int64_t a, std::int64_t b) {
  StepFig f{};
  f.period = b - a;
  const analysis::CommunicationTime c = analysis::communication_time(r.comm, a, b);
  f.compute = c.computation_ns;
  f.comm = c.communication_ns;
  f.exposed = c.exposed_ns();
  f.idle = f.period - covered(r.gpu_busy, a, b);
  f.data = covered(r.data, a, b);
  f.blocking = covered(r.blocking, a, b);
  f.comm_kernels = c.collective_kernel_ns;
  f.optimizer = covered(r.optimizer, a, b);
  f.sync = covered(r.sync, a, b);
  f.host_other = f.period - covered(r.host_known, a, b);
  return f;
}

/// The step numbers k that every rank recorded together with k + 1, after the warm-up.
std::vector<std::int64_t> matched_steps(const std::vector<RankSpans>& rs, std::int64_t warmup) {
  std::vector<std::int64_t> out;
  if (rs.empty()) return out;
  for (const auto& [k, start] : rs[0].step_start) {
    bool all = true;
    for (const auto& r : rs) all = all && r.step_start.count(k) && r.step_start.count(k + 1);
    if (all) out.push_back(k);
  }
  const std::size_t skip = static_cast<std::size_t>(std::max<std::int64_t>(0, warmup));
  if (out.size() > skip + 1) out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(skip));
  return out;
}

/// step_start_offset_ns: the median over matched steps of (lowest rank's step start - this rank's),
/// both on the job's common clock (JobReport::clock).
void align(const std::vector<RankSpans>& rs, const std::vector<std::int64_t>& steps, JobReport& rep) {
  for (std::size_t i = 0; i < rs.size(); ++i) {
    std::vector<std::int64_t> d;
    for (std::int64_t k : steps) d.push_back(rs[0].step_start.at(k) + rs[0].base - rs[i].step_start.at(k) - rs[i].base);
    rep.ranks[i].step_start_offset_ns = median(d);
  }
  if (rs.size() < 2 || steps.empty()) return;
  std::vector<std::int64_t> spread;
  for (std::int64_t k : steps) {
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (std::size_t i = 0; i < rs.size(); ++i) {
      const std::int64_t t = rs[i].step_start.at(k) + rs[i].base + rep.ranks[i].step_start_offset_ns;
      lo = std::min(lo, t), hi = std::max(hi, t);
    }
    spread.push_back(hi - lo);
  }
  rep.skew_median_ns = median(spread);
  rep.skew_max_ns = *std::max_element(spread.begin(), spread.end());
}

void add_verdicts(JobReport& rep);

constexpr const char* kOneHost = "one host's monotonic clock";
constexpr std::int64_t kStepLagNoteNs =
    5'000'000;  // a step-start lag worth a note (TrainScope's choice: the sample jobs' balanced ranks start within 0.1
                // ms of each other on one host)
constexpr const char* kWall = "wall clock";

/// JobReport::clock for these ranks.
std::string common_clock(const std::vector<RankFile>& ranks) {
  const bool wall = std::all_of(ranks.begin(), ranks.end(), [](const RankFile& f) { return f.start_unix_ns > 0; });
  if (!wall) return "session clocks";
  const bool steady = std::all_of(ranks.begin(), ranks.end(), [](const RankFile& f) { return f.start_steady_ns > 0; });
  const RankFile& r0 = ranks.front();
  const bool one_host = steady && std::all_of(ranks.begin(), ranks.end(), [&](const RankFile& f) {
                          return std::llabs((f.start_unix_ns - r0.start_unix_ns) -
                                            (f.start_steady_ns - r0.start_steady_ns)) < kOneHostToleranceNs;
                        });
  return one_host ? kOneHost : kWall;
}

}  // namespace

JobReport analyze(const Job& job, const Options& options) {
  JobReport rep;
  rep.world_size = job.world_size;
  std::vector<RankSpans> rs;
  rep.clock = common_clock(job.ranks);
  for (const auto& f : job.ranks) {
    rs.push_back(spans_of(*f.store));
    rs.back().base = rep.clock == kOneHost ? f.start_steady_ns : rep.clock == kWall ? f.start_unix_ns : 0;
    RankFigures fig;
    fig.rank = f.rank, fig.path = f.path;
    rep.ranks.push_back(fig);
  }
  for (std::size_t i = 0; i < rs.size(); ++i) rep.ranks[i].session_start_ns = rs[i].base - rs[0].base;
  const auto steps = matched_steps(rs, options.warmup_steps);
  rep.matched_steps = static_cast<std::int64_t>(steps.size());
  if (steps.empty()) {
    rep.notes.push_back("no step recorded by every rank (with the step after it): no per-rank figures");
    return rep;
  }
  align(rs, steps, rep);
  if (rep.clock == kOneHost)
    for (const auto& f : rep.ranks)
      if (std::llabs(f.step_start_offset_ns) >= kStepLagNoteNs)
        rep.notes.push_back(fmt::format(
            "rank {} starts its steps {:.1f} ms {} rank {} (one host's clock: not clock "
            "skew, but when its steps begin, e.g. host work before each step)",
            f.rank, std::llabs(f.step_start_offset_ns) / 1e6, f.step_start_offset_ns < 0 ? "after" : "before",
            rep.ranks[0].rank));
  const bool comm_ranges = std::any_of(rs.begin(), rs.end(), [](const RankSpans& r) { return r.comm_ranges; });
  rep.wait_source = comm_ranges ? "forward, backward and blocking communication ranges"
                                : "forward and backward (no communication ranges)";
  // figs[i][j]: rank i, matched step j.
  std::vector<std::vector<StepFig>> figs(rs.size());
  for (std::size_t i = 0; i < rs.size(); ++i)
    for (std::int64_t k : steps) figs[i].push_back(step_fig(rs[i], rs[i].step_start.at(k), rs[i].step_start.at(k + 1)));
  for (std::size_t i = 0; i < rs.size(); ++i) {
    std::vector<std::int64_t> period, compute, comm, exposed, idle, data, blocking, own, host_other, opt, sync;
    std::vector<std::int64_t> transfer;
    for (std::size_t j = 0; j < steps.size(); ++j) {
      const StepFig& f = figs[i][j];
      // The rank that arrived last blocks only for the transfer itself: the wait is the excess over the
      // least, on the host (blocking ranges) or on the GPU (NCCL's kernels spin while they wait), the larger.
      std::int64_t least = f.blocking, least_k = f.comm_kernels;
      for (std::size_t o = 0; o < rs.size(); ++o)
        least = std::min(least, figs[o][j].blocking), least_k = std::min(least_k, figs[o][j].comm_kernels);
      const std::int64_t w = std::max(f.blocking - least, f.comm_kernels - least_k);
      period.push_back(f.period), compute.push_back(f.compute), comm.push_back(f.comm), exposed.push_back(f.exposed);
      idle.push_back(f.idle), data.push_back(f.data), blocking.push_back(f.blocking);
      own.push_back(f.period - w);
      transfer.push_back(std::max<std::int64_t>(0, f.exposed - w));
      host_other.push_back(f.host_other), opt.push_back(f.optimizer), sync.push_back(f.sync);
    }
    RankFigures& r = rep.ranks[i];
    r.steps = static_cast<std::int64_t>(steps.size());
    r.step_period_ns = median(period), r.compute_ns = median(compute), r.communication_ns = median(comm);
    r.exposed_comm_ns = median(exposed), r.idle_ns = median(idle), r.data_wait_ns = median(data);
    r.blocking_ns = median(blocking), r.own_work_ns = median(own);
    r.wait_ns = r.step_period_ns - r.own_work_ns;  // the period's other part (job.h: medians do not add up)
    r.host_other_ns = median(host_other), r.optimizer_ns = median(opt), r.sync_ns = median(sync);
    r.exposed_transfer_ns = median(transfer);
  }
  if (!comm_ranges)
    rep.notes.push_back(
        "no communication ranges (the Python insight's collective ranges): waiting for other ranks "
        "is estimated as each rank's forward+backward time above the job's least in the same step "
        "(DDP's buffer broadcast and gradient all-reduce block inside them)");
  const bool comm_seen =
      std::any_of(rep.ranks.begin(), rep.ranks.end(), [](const RankFigures& r) { return r.communication_ns > 0; });
  if (!comm_seen)
    rep.notes.push_back(
        "no collective kernels (NCCL) and no communication ranges: communication time is not measured "
        "(gloo's collectives run on the host), so communication_bound is not judged");
  if (rs.size() >= 2)
    add_verdicts(rep);
  else
    rep.notes.push_back("one rank: no job verdicts");
  return rep;
}

namespace {

double ms(std::int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

/// The median over the ranks other than `r` of get(rank): the reference a rank is held against (with
/// two ranks, the other one; with many, the median rank).
template <class Get>
std::int64_t others_median(const std::vector<RankFigures>& all, const RankFigures& r, Get get) {
  std::vector<std::int64_t> v;
  for (const auto& f : all)
    if (&f != &r) v.push_back(get(f));
  return median(v);
}

/// The own-work category in which `r` exceeds the other ranks' median by the most.
std::pair<std::string, std::int64_t> main_category(const std::vector<RankFigures>& all, const RankFigures& r,
                                                   std::int64_t* median_value) {
  using Get = std::int64_t (*)(const RankFigures&);
  const std::pair<const char*, Get> cats[] = {
      {"data wait", [](const RankFigures& f) { return f.data_wait_ns; }},
      {"host work outside the training phases", [](const RankFigures& f) { return f.host_other_ns; }},
      {"forward+backward (not waiting)", [](const RankFigures& f) { return f.blocking_ns - f.wait_ns; }},
      {"optimizer", [](const RankFigures& f) { return f.optimizer_ns; }},
      {"host syncs (.item(), .cpu())", [](const RankFigures& f) { return f.sync_ns; }},
  };
  std::pair<std::string, std::int64_t> best{"", INT64_MIN};
  for (const auto& [name, get] : cats) {
    const std::int64_t med = others_median(all, r, get), diff = get(r) - med;
    if (diff > best.second) best = {name, diff}, *median_value = med;
  }
  best.second = best.second == INT64_MIN ? 0 : best.second;
  return best;
}

std::string fix_for(const std::string& category) {
  if (category == "data wait")
    return "give this rank's DataLoader as many num_workers as the others (and pin_memory=True, "
           "persistent_workers=True); "
           "check its share of CPU cores per rank";
  if (category == "host work outside the training phases")
    return "move the host work between steps off this rank's training loop (logging, metrics, checkpoints: do them "
           "on every rank asynchronously or less often; no .item() or host work on one rank only)";
  if (category == "host syncs (.item(), .cpu())") return "remove the per-step .item()/.cpu() on this rank";
  if (category == "optimizer")
    return "check this rank's optimizer (a foreach/fused implementation, the same as the others)";
  return "check this rank's device and inputs (a slower or shared GPU, larger batches on this rank)";
}

void add_verdicts(JobReport& rep) {
  auto& ranks = rep.ranks;
  std::vector<std::int64_t> period, exposed;
  for (const auto& r : ranks) period.push_back(r.step_period_ns), exposed.push_back(r.exposed_transfer_ns);
  const std::int64_t med_period = median(period);
  // straggler: the rank with the most own work, when >= kStragglerRatio x the other ranks' median.
  auto top = std::max_element(ranks.begin(), ranks.end(),
                              [](const auto& a, const auto& b) { return a.own_work_ns < b.own_work_ns; });
  const std::int64_t med_own = others_median(ranks, *top, [](const RankFigures& f) { return f.own_work_ns; });
  if (med_own > 0 && top->own_work_ns >= kStragglerRatio * static_cast<double>(med_own)) {
    std::int64_t cat_median = 0;
    const auto [cat, diff] = main_category(ranks, *top, &cat_median);
    const double ratio = static_cast<double>(top->own_work_ns) / med_own;
    JobVerdict v;
    v.id = "straggler", v.rank = top->rank, v.severity = ratio >= 1.5 ? "high" : "moderate";
    v.title = fmt::format(
        "Straggler: rank {} works {:.1f} ms per step against {:.1f} ms on the other ranks "
        "(median); they wait for it. Most of the difference: {} ({:.1f} ms/step against {:.1f} ms)",
        top->rank, ms(top->own_work_ns), ms(med_own), cat, ms(diff + cat_median), ms(cat_median));
    v.fix = fix_for(cat);
    v.evidence = {{"own_work_ms_per_step", ms(top->own_work_ns)},
                  {"others_median_own_work_ms_per_step", ms(med_own)},
                  {"own_work_over_others_median", ratio},
                  {"category_ms_per_step", ms(diff + cat_median)},
                  {"category_others_median_ms_per_step", ms(cat_median)},
                  {"step_period_ms", ms(top->step_period_ns)}};
    rep.verdicts.push_back(std::move(v));
  }
  // communication_bound: per rank, and for the job on the median rank; exposed communication less the
  // wait for other ranks (a straggler's delay shows in the others' collectives: the straggler verdict's).
  for (const auto& r : ranks) {
    if (r.step_period_ns <= 0 || r.exposed_transfer_ns < kCommBoundShare * static_cast<double>(r.step_period_ns))
      continue;
    JobVerdict v;
    v.id = "communication_bound", v.rank = r.rank;
    v.severity =
        r.exposed_transfer_ns >= kCommBoundHighShare * static_cast<double>(r.step_period_ns) ? "high" : "moderate";
    v.title = fmt::format(
        "Communication-bound: rank {} communicates {:.1f} ms per step with no computation beside it "
        "({:.0f} % of the step), not counting its wait for other ranks",
        r.rank, ms(r.exposed_transfer_ns), 100.0 * r.exposed_transfer_ns / r.step_period_ns);
    v.fix =
        "overlap communication with backward: DDP(bucket_cap_mb=...) smaller buckets start the all-reduce earlier, "
        "gradient_as_bucket_view=True saves the copies; a larger batch per rank does more compute per all-reduce";
    v.evidence = {{"exposed_transfer_ms_per_step", ms(r.exposed_transfer_ns)},
                  {"exposed_comm_ms_per_step", ms(r.exposed_comm_ns)},
                  {"step_period_ms", ms(r.step_period_ns)}};
    rep.verdicts.push_back(std::move(v));
  }
  const std::int64_t med_exposed = median(exposed);
  if (med_period > 0 && med_exposed >= kCommBoundShare * static_cast<double>(med_period)) {
    JobVerdict v;
    v.id = "communication_bound", v.rank = -1;
    v.severity = med_exposed >= kCommBoundHighShare * static_cast<double>(med_period) ? "high" : "moderate";
    v.title = fmt::format(
        "Communication-bound job: the median rank communicates {:.1f} ms per step with no computation "
        "beside it ({:.0f} % of the step)",
        ms(med_exposed), 100.0 * med_exposed / med_period);
    v.fix =
        "DDP(bucket_cap_mb=...) and gradient_as_bucket_view=True; overlap the all-reduce with backward; fewer, larger "
        "steps (a larger batch per rank, gradient accumulation with no_sync())";
    v.evidence = {{"median_exposed_transfer_ms_per_step", ms(med_exposed)}, {"median_step_period_ms", ms(med_period)}};
    rep.verdicts.push_back(std::move(v));
  }
  // input_imbalance: one rank's input pipeline is much slower than the median rank's.
  auto most = std::max_element(ranks.begin(), ranks.end(),
                               [](const auto& a, const auto& b) { return a.data_wait_ns < b.data_wait_ns; });
  const std::int64_t med_data = others_median(ranks, *most, [](const RankFigures& f) { return f.data_wait_ns; });
  if (med_period > 0 && most->data_wait_ns - med_data >= kInputImbalanceShare * static_cast<double>(med_period) &&
      most->data_wait_ns >= kInputImbalanceRatio * static_cast<double>(med_data)) {
    JobVerdict v;
    v.id = "input_imbalance", v.rank = most->rank, v.severity = "moderate";
    v.title = fmt::format(
        "Input imbalance: rank {} waits {:.1f} ms per step for data against {:.1f} ms on the other "
        "ranks (median)",
        most->rank, ms(most->data_wait_ns), ms(med_data));
    v.fix =
        "give every rank the same DataLoader(num_workers=...) and pin_memory=True; check that each rank has "
        "its share of CPU cores (num_workers per rank x ranks per node <= cores)";
    v.evidence = {{"data_wait_ms_per_step", ms(most->data_wait_ns)},
                  {"others_median_data_wait_ms_per_step", ms(med_data)},
                  {"median_step_period_ms", ms(med_period)}};
    rep.verdicts.push_back(std::move(v));
  }
}

}  // namespace

}  // namespace ts::prof::job
