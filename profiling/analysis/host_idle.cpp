// What the host did while the GPU idled (Report::idle_by_host; docs/metrics.md, "What the host did
// while the GPU idled"), the launch cost seen from the kernel stream, the stepping thread's CPU use,
// and where in the program's Python the idle time went (the Python insight's stack samples and its
// `sync: ...` call-site ranges, profiling/inject/python/PROTOCOL.md).
//
// Each GPU idle gap inside the windows is cut by the stepping thread's state: in a host sync (while
// the GPU had nothing queued); in a data fetch; in a blocking collective (waiting for the other ranks,
// and the transfer: gloo's all-reduce runs on the host); the next GPU op already queued when the gap
// began (full mode's launch records; the GPU waited on itself); inside forward/backward/optimizer with a gap of at most kLaunchGapNs
// (launching: the host dispatches the next op); in a longer gap while a collective is in flight on any
// thread (DDP's bucket all-reduce under backward), in collectives too; else busy elsewhere (host). Where no phase ranges
// were recorded, a short gap outside them is launching too (a program without the Python insight).
#include <algorithm>
#include <cstdlib>
#include <map>

#include "engine/host_trace.h"
#include "profiling/analysis/analysis.h"
#include "profiling/analysis/internal.h"
#include "profiling/analysis/python_lines.h"

namespace ts::prof::analysis::detail {

namespace {

using Spans = std::vector<Span>;

bool inside(const Spans& v, std::int64_t t) {
  auto it = std::upper_bound(v.begin(), v.end(), t, [](std::int64_t x, const Span& s) { return x < s.start; });
  return it != v.begin() && t < std::prev(it)->end;
}

bool is_phase_kind(std::uint8_t kind) {
  using K = trace::RangeKind;
  const auto k = static_cast<K>(kind);
  return k == K::forward || k == K::backward || k == K::loss || k == K::optimizer;
}

/// The top `n` lines of `counts` (where -> samples), as shares of `total`.
std::vector<FrameShare> top(std::map<std::string, FrameShare>& counts, std::int64_t total, std::size_t n = 5) {
  std::vector<FrameShare> v;
  for (auto& [k, f] : counts) f.pct = total > 0 ? 100.0 * f.samples / total : 0, v.push_back(f);
  std::sort(v.begin(), v.end(), [](const FrameShare& a, const FrameShare& b) { return a.samples > b.samples; });
  if (v.size() > n) v.resize(n);
  return v;
}

/// Merged union of two merged lists.
Spans joined(const Spans& a, const Spans& b) {
  Spans v = a;
  v.insert(v.end(), b.begin(), b.end());
  merge(v);
  return v;
}

struct HostState {
  Spans syncs, blocked, collectives, waiting, phases, phases_or_waiting, busy;  // waiting: blocked ∪ collectives
  Spans waiting_or_communication;  // waiting ∪ every communication range (any thread, in flight too)
  bool has_phases = false;
};

HostState host_state(const EventStore& store, const Timeline& tl) {
  HostState h;
  h.syncs = tl.syncs, h.blocked = tl.blocked, h.collectives = tl.collectives;
  h.waiting = joined(h.blocked, h.collectives);
  h.waiting_or_communication = joined(h.waiting, tl.communication);
  const std::int64_t lo = tl.steps.front().start, hi = tl.steps.back().end;
  for (std::size_t i = 0, n = store.host_ranges.size(); i < n; ++i) {
    const HostRangeRecord& r = store.host_ranges[i];
    if (r.end < lo || r.start > hi || !tl.is_trainer(r.thread) || !is_phase_kind(r.kind)) continue;
    h.phases.push_back({r.start, r.end});
  }
  merge(h.phases);
  h.has_phases = !h.phases.empty();
  h.phases_or_waiting = joined(h.phases, h.waiting);
  for (const GpuOp& g : tl.gpu)
    if (g.end > lo && g.start < hi) h.busy.push_back({std::max(g.start, lo), std::min(g.end, hi)});
  merge(h.busy);
  return h;
}

/// The launching gaps' lengths, and the launch intervals: from the start of the op before each such
/// gap to the start of the op after it (the host's time from one launch to the next, as the GPU
/// saw it: an op on an empty queue starts as it is launched).
struct LaunchGaps {
  std::vector<std::int64_t> gaps, intervals;
};

/// Cuts every idle gap by the host's state (the file's header) into r.idle_by_host; collects the
/// launching gaps.
void split_idle(const Timeline& tl, const HostState& h, Report& r, LaunchGaps& launch) {
  HostIdle out;
  const std::int64_t lo = tl.steps.front().start, hi = tl.steps.back().end;
  std::size_t ks = 0, kb = 0, kw = 0, kp = 0, kc = 0, w = 0;
  auto gap = [&](std::int64_t a, std::int64_t b, std::int64_t next_launch, std::int64_t prev_start) {
    if (b <= a) return;
    const bool queued = queued_before(a, next_launch);
    const bool short_gap = b - a <= kLaunchGapNs;
    std::int64_t launching_here = 0;
    while (w < tl.steps.size() && tl.steps[w].end <= a) ++w;
    for (std::size_t i = w; i < tl.steps.size() && tl.steps[i].start < b; ++i) {
      const std::int64_t pa = std::max(a, tl.steps[i].start), pb = std::min(b, tl.steps[i].end);
      if (pb <= pa) continue;
      const std::int64_t s = covered(h.syncs, ks, pa, pb), bl = covered(h.blocked, kb, pa, pb);
      const std::int64_t wt = covered(h.waiting, kw, pa, pb), pow = covered(h.phases_or_waiting, kp, pa, pb);
      const std::int64_t phase = pow - wt, rest = (pb - pa) - pow;
      // A sync over a gap whose next op was already queued did not starve the GPU: that idle is the
      // GPU's own wait (the sync-caused idle leaves it out too, timeline.cpp's idle_gaps).
      (queued ? out.device : out.sync) += s;
      out.input += bl - s;
      out.collective += wt - bl;  // in a collective (not also a sync or data wait): the other ranks
      if (queued) {
        out.device += phase + rest;
      } else if (short_gap) {
        launching_here += h.has_phases ? phase : phase + rest;
        out.host += h.has_phases ? rest : 0;
      } else {
        // A long gap while a collective is in flight (on any thread, as the breakdown's communication
        // counts it): the collectives' time, not the host's own work.
        const std::int64_t flight = covered(h.waiting_or_communication, kc, pa, pb) - wt;
        out.collective += flight;
        out.host += phase + rest - flight;
      }
    }
    out.launching += launching_here;
    if (launching_here > 0) launch.gaps.push_back(b - a), launch.intervals.push_back(b - prev_start);
  };
  for_each_gpu_gap(tl, lo, hi, gap);
  r.idle_by_host = out;
}

/// The stepping thread's mean CPU use over [lo, hi): its "cpu.percent.<name>.<tid>" series.
std::optional<double> stepping_cpu(const EventStore& store, const Timeline& tl) {
  if (tl.trainer_tids.empty()) return std::nullopt;
  std::vector<std::uint32_t> ids;
  for (std::size_t i = 0, n = store.series.size(); i < n; ++i) {
    const std::string& name = store.strings.get(store.series[i].name);
    if (!name.starts_with("cpu.percent.")) continue;
    const auto dot = name.find_last_of('.');
    const auto tid = static_cast<std::uint32_t>(std::strtoul(name.c_str() + dot + 1, nullptr, 10));
    if (tl.is_trainer(tid)) ids.push_back(store.series[i].id);
  }
  if (ids.empty()) return std::nullopt;
  const std::int64_t lo = tl.steps.front().start, hi = tl.steps.back().end;
  double sum = 0;
  std::int64_t n = 0;
  for (std::size_t i = 0, m = store.samples.size(); i < m; ++i) {
    const SampleRecord& s = store.samples[i];
    if (s.time < lo || s.time > hi || std::find(ids.begin(), ids.end(), s.series) == ids.end()) continue;
    sum += s.value, ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

/// The stepping thread's stack samples by cause of GPU idle (the cut of split_idle, per instant).
void python_frames(const EventStore& store, const Timeline& tl, const HostState& h, Report& r) {
  const std::size_t n = store.py_samples.size();
  if (n == 0) return;
  StackNames names(store);
  // cause -> program line -> its samples, and per line the samples of each innermost frame under it
  std::map<std::string, std::map<std::string, FrameShare>> counts;
  std::map<std::string, std::map<std::string, std::map<std::string, std::int64_t>>> under;
  std::map<std::string, std::int64_t> totals;
  const std::int64_t lo = tl.steps.front().start, hi = tl.steps.back().end;
  for (std::size_t i = 0; i < n; ++i) {
    const PySampleRecord& s = store.py_samples[i];
    if (s.time < lo || s.time >= hi || !tl.is_trainer(s.thread)) continue;
    ++r.python_samples;
    auto it = std::upper_bound(h.busy.begin(), h.busy.end(), s.time, [](std::int64_t x, const Span& b) { return x < b.start; });
    if (it != h.busy.begin() && s.time < std::prev(it)->end) continue;  // the GPU was busy
    const std::int64_t gap_a = it == h.busy.begin() ? lo : std::prev(it)->end, gap_b = it == h.busy.end() ? hi : it->start;
    const bool short_gap = gap_b - gap_a <= kLaunchGapNs;
    const char* cause = inside(h.syncs, s.time)         ? "sync"
                        : inside(h.blocked, s.time)     ? "input"
                        : inside(h.collectives, s.time) ? "collective"
                        : short_gap && (h.has_phases ? inside(h.phases, s.time) : true) ? "launching"
                        : !short_gap && inside(h.waiting_or_communication, s.time)   ? "collective"
                                                                                     : "host";
    const FrameShare& f = names.of(s.stack);
    // Counted by the program's line: one line's time must not be split among the library
    // functions it calls (a Python loop calling many torch ops would show as many small shares).
    for (const char* c : {cause, "idle"}) {
      FrameShare& slot = counts[c][f.where];
      if (slot.samples == 0) slot.where = f.where, slot.function = f.function;
      ++slot.samples, ++totals[c], ++under[c][f.where][f.innermost];
    }
  }
  for (auto& [cause, c] : counts) {
    // Each line names the innermost frame that took most of its samples ("" when that is the line itself).
    for (auto& [where, f] : c) {
      const auto& inner = under[cause][where];
      f.innermost = std::max_element(inner.begin(), inner.end(), [](const auto& a, const auto& b) {
                      return a.second < b.second;
                    })->first;
    }
    r.frames_by_cause[cause] = top(c, totals[cause]);
  }
}

/// GPU idle inside each `sync: CALL FILE:LINE` range of the stepping thread, by call site.
void sync_sites(const EventStore& store, const Timeline& tl, const HostState& h, Report& r) {
  std::map<std::string, FrameShare> sites;
  std::int64_t total = 0;
  const std::int64_t lo = tl.steps.front().start, hi = tl.steps.back().end;
  for (std::size_t i = 0, n = store.host_ranges.size(); i < n; ++i) {
    const HostRangeRecord& x = store.host_ranges[i];
    if (x.end <= lo || x.start >= hi || !tl.is_trainer(x.thread)) continue;
    const std::string& name = store.strings.get(x.name);
    if (!name.starts_with("sync: ")) continue;
    std::size_t k = 0;
    const std::int64_t a = std::max(x.start, lo), b = std::min(x.end, hi);
    const std::int64_t idle = (b - a) - covered(h.busy, k, a, b);
    if (idle <= 0) continue;
    const std::string site = name.substr(6);
    const auto sp = site.find_last_of(' ');
    FrameShare& f = sites[site];
    if (f.where.empty()) f.where = sp == std::string::npos ? site : site.substr(sp + 1),
                         f.function = sp == std::string::npos ? "" : site.substr(0, sp);
    f.samples += idle;  // ns here: shares of the idle time inside the call sites
    total += idle;
  }
  r.sync_sites = top(sites, total);
}

}  // namespace

void host_idle(const EventStore& store, const Timeline& tl, const std::map<std::string, std::string>& meta, Report& r) {
  if (tl.steps.empty()) return;
  const HostState h = host_state(store, tl);
  auto src = meta.find("session.source");
  r.recorded_program = src != meta.end() && src->second.starts_with("injected");
  if (!r.gpu_present) {  // no GPU to idle: every sample of the steps counts, by what the host did
    python_frames(store, tl, h, r);
    return;
  }
  LaunchGaps launch;
  split_idle(tl, h, r, launch);
  if (!launch.gaps.empty()) {
    r.median_launch_gap_ns = static_cast<double>(median(launch.gaps));
    r.median_launch_interval_ns = static_cast<double>(median(launch.intervals));
  }
  r.stepping_thread_cpu_pct = stepping_cpu(store, tl);
  python_frames(store, tl, h, r);
  sync_sites(store, tl, h, r);
  // A recorded program (not TrainScope's own run, not an imported trace): launch_bound counts the
  // launching idle of the cut above, so a host busy in its input pipeline or its own Python is never
  // "launching" (TrainScope's own runs and imports keep the host-wait measure they were judged by).
  if (r.recorded_program && r.idle_by_host) r.idle_host_launching_ns = r.idle_by_host->launching;
}

}  // namespace ts::prof::analysis::detail
