// A Comparison as text tables (trainscope-run --compare) and as one JSON object (--compare --json;
// fields in docs/compare.md). Sessions are columns A, B, C ... in the order given; A is the baseline.
#include <fmt/core.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

#include "base/json_write.h"
#include "base/printable.h"
#include "profiling/compare/compare.h"
#include "profiling/compare/compare_text.h"

namespace ts::prof::compare {

namespace {

using analysis::Category;
using analysis::kCategoryCount;
constexpr int kCol = 20;  // width of a session's column in the text tables

std::string letter(std::size_t i) { return i < 26 ? std::string(1, static_cast<char>('A' + i)) : fmt::format("S{}", i); }
double share(std::int64_t a, std::int64_t b) { return b > 0 ? static_cast<double>(a) / b : 0; }
/// Text of at most `w` characters: control characters escaped (names and meta come from the
/// sessions: a hostile one holds escape sequences), long values cut with "..." so the columns stay
/// aligned.
std::string fit(const std::string& raw, std::size_t w) {
  const std::string s = printable(raw, std::string::npos);
  if (s.size() <= w) return s;
  return s.substr(0, w - 3) + "...";
}

void row(std::string& o, const std::string& name, const std::vector<std::string>& cells) {
  o += fmt::format("  {:<24}", fit(name, 24));
  for (const auto& c : cells) o += fmt::format(" {:>{}}", fit(c, kCol), kCol);
  o += "\n";
}

void text_header(std::string& o, const Comparison& c) {
  o += fmt::format("compare {} sessions ({} is the baseline of the kernel diff)\n", c.sessions.size(), letter(0));
  for (std::size_t i = 0; i < c.sessions.size(); ++i)
    o += fmt::format("  {}  {}\n", letter(i), printable(c.sessions[i].label, std::string::npos));
  std::vector<std::string> heads;
  for (std::size_t i = 0; i < c.sessions.size(); ++i) heads.push_back(letter(i));
  o += "\nconfiguration and hardware (only what differs)\n";
  if (c.config.empty()) o += "  (the same in every session)\n";
  else row(o, "", heads);
  for (const auto& d : c.config) {
    std::vector<std::string> cells;
    for (std::size_t i = 0; i < d.values.size(); ++i) {
      const bool na = i < d.not_applicable.size() && d.not_applicable[i];
      cells.push_back(d.values[i] ? *d.values[i] : na ? not_applicable_text(c.sessions[i].meta) : "unknown");
    }
    row(o, d.key, cells);
  }
}

void text_throughput(std::string& o, const Comparison& c) {
  std::vector<std::string> heads, steps, rate, stepms, wait, acc, epochs;
  for (std::size_t i = 0; i < c.sessions.size(); ++i) {
    const auto& s = c.sessions[i];
    heads.push_back(letter(i));
    steps.push_back(fmt::format("{}", s.throughput.steps));
    rate.push_back(s.throughput.training.img_per_s ? training_rate_text(s.throughput) : "absent");
    stepms.push_back(s.throughput.mean_step_ns ? ms_text(*s.throughput.mean_step_ns) : "absent");
    const auto w = data_wait_ns_per_step(s.report);
    wait.push_back(w ? ms_text(*w) : "absent");
    acc.push_back(s.accuracy.test_accuracy ? percent_text(*s.accuracy.test_accuracy, 2) : "absent");
    epochs.push_back(s.accuracy.last_epoch ? fmt::format("{}", *s.accuracy.last_epoch) : "absent");
  }
  // The names the window and the lessons give these figures (compare.h: training_throughput,
  // Throughput::mean_step_ns, data_wait_ns_per_step).
  o += fmt::format("\nthroughput (images/s of training time, eval excluded; step figures: {} warm-up step(s) left out)\n",
                   c.options.warmup_steps);
  row(o, "", heads);
  row(o, "steps", steps);
  row(o, "images/s (training time)", rate);
  row(o, "host step, mean ms", stepms);
  row(o, "data wait/step (raw) ms", wait);
  row(o, "last epoch", epochs);
  row(o, "test accuracy", acc);
  // Why a rate carries the mark, as the window's tooltips say it.
  for (std::size_t i = 0; i < c.sessions.size(); ++i)
    if (const std::string note = first_steps_note(letter(i), c.sessions[i].throughput); !note.empty()) o += "  " + note + "\n";
}

/// Measured GPU metrics (CUPTI PM sampling) per session, where any session has them: SM active and
/// DRAM read + write while kernels ran (docs/metrics.md), DRAM in one unit for the row, chosen by
/// its largest value. "none" for a session whose sampling gave no samples, "absent" for one that
/// did not sample.
void text_measured(std::string& o, const Comparison& c) {
  double largest = 0;
  bool any = false;
  for (const auto& s : c.sessions) {
    any = any || s.report.measured.has_value();
    if (s.report.measured && s.report.measured->dram_bytes_per_s) largest = std::max(largest, *s.report.measured->dram_bytes_per_s);
  }
  if (!any) return;
  const RateUnit unit = rate_unit(largest);
  std::vector<std::string> sm, dram;
  for (const auto& s : c.sessions) {
    const auto& m = s.report.measured;
    const std::string none = !m ? "absent" : "none";
    sm.push_back(m && m->sm_active_pct ? fmt::format("{:.1f} %", *m->sm_active_pct) : none);
    if (m && m->dram_bytes_per_s) {
      std::string d = fmt::format("{:.{}f} {}", *m->dram_bytes_per_s / unit.per, unit.decimals, unit.name);
      if (m->dram_ceiling_share) d += fmt::format(" ({:.0f} %)", 100 * *m->dram_ceiling_share);
      dram.push_back(d);
    } else {
      dram.push_back(none);
    }
  }
  row(o, "SM active (measured)", sm);
  row(o, "DRAM r+w (% of copy ceil.)", dram);
}

void text_breakdown(std::string& o, const Comparison& c) {
  o += "\nstep-time breakdown (ms/step and % of the step windows; docs/metrics.md)\n";
  std::vector<std::string> heads;
  for (std::size_t i = 0; i < c.sessions.size(); ++i) heads.push_back(letter(i));
  row(o, "", heads);
  for (int k = 0; k < kCategoryCount; ++k) {
    std::vector<std::string> cells;
    for (const auto& s : c.sessions) {
      const auto& r = s.report;
      if (r.steps == 0) { cells.push_back("absent"); continue; }
      cells.push_back(fmt::format("{} {:5.1f} %", ms_text(static_cast<double>(r.breakdown.ns[k]) / r.steps),
                                  100 * share(r.breakdown.ns[k], r.wall_ns)));
    }
    row(o, analysis::category_name(static_cast<Category>(k)), cells);
  }
  std::vector<std::string> util;
  for (const auto& s : c.sessions)
    util.push_back(s.report.gpu_utilization ? percent_text(*s.report.gpu_utilization) : "absent");
  row(o, "GPU busy", util);
  text_measured(o, c);
}

void text_verdicts(std::string& o, const Comparison& c) {
  std::vector<std::string> ids;
  for (const auto& s : c.sessions)
    for (const auto& v : s.report.verdicts)
      if (std::find(ids.begin(), ids.end(), v.id) == ids.end()) ids.push_back(v.id);
  o += "\nverdicts (severity; - = did not fire)\n";
  if (ids.empty()) { o += "  none fired in any session\n"; return; }
  std::vector<std::string> heads;
  for (std::size_t i = 0; i < c.sessions.size(); ++i) heads.push_back(letter(i));
  row(o, "", heads);
  for (const auto& id : ids) {
    std::vector<std::string> cells;
    for (const auto& s : c.sessions) {
      auto it = std::find_if(s.report.verdicts.begin(), s.report.verdicts.end(), [&](const auto& v) { return v.id == id; });
      cells.push_back(it == s.report.verdicts.end() ? "-" : it->severity);
    }
    row(o, id, cells);
  }
}

void text_kernels(std::string& o, const Comparison& c, const KernelDiff& d, std::size_t max_rows) {
  const auto& a = letter(d.session_a);
  const auto& b = letter(d.session_b);
  o += fmt::format("\nkernel diff {} against {}: {} faster, {} slower, {} added, {} removed, {} same, {} changed "
                   "(by per-call mean; noise threshold {:.0f} % and {:.1f} us; changed: calls per step "
                   "changed more than {:.0f}x)\n",
                   b, a, d.faster, d.slower, d.added, d.removed, d.same, d.changed, 100 * d.options.relative_threshold,
                   d.options.absolute_threshold_ns / 1e3, kCallsChangedRatio);
  o += fmt::format("  {:<8} {:>13} {:>21} {:>8} {:>21}  {}\n", "change", "calls", "mean us", "mean", "us/step",
                   "kernel (largest |change of us/step| first)");
  std::size_t shown = 0;
  for (const auto& r : d.rows) {
    if (max_rows && shown == max_rows) break;
    ++shown;
    const auto rel = r.delta_mean_relative();
    o += fmt::format("  {:<8} {:>6}/{:<6} {:>9.2f} -> {:<9.2f} {:>8} {:>9.2f} -> {:<9.2f}  {}\n",
                     kernel_change_name(r.change), r.calls_a, r.calls_b, r.mean_a_ns / 1e3, r.mean_b_ns / 1e3,
                     rel ? fmt::format("{:+.1f}%", 100 * *rel) : "", r.total_per_step_a_ns / 1e3,
                     r.total_per_step_b_ns / 1e3, fit(r.name, 100));
  }
  if (shown < d.rows.size()) o += fmt::format("  ... {} more (--json lists every kernel)\n", d.rows.size() - shown);
}

}  // namespace

std::string to_text(const Comparison& c, std::size_t max_kernel_rows) {
  std::string o;
  text_header(o, c);
  text_throughput(o, c);
  text_breakdown(o, c);
  text_verdicts(o, c);
  if (c.slowest_rank_session >= 0) {
    const auto& r = c.sessions[static_cast<std::size_t>(c.slowest_rank_session)].report;
    o += fmt::format("\nslowest rank: {} (rank {}), own work {} ms/step, {:.2f}x the other ranks' median (step "
                     "period minus the wait for other ranks): every rank waits for it at each collective\n",
                     letter(static_cast<std::size_t>(c.slowest_rank_session)), r.rank,
                     ms_text(static_cast<double>(c.slowest_own_work_ns)),
                     c.slowest_over_fastest);
  }

  for (const auto& d : c.kernel_diffs) text_kernels(o, c, d, max_kernel_rows);
  if (!c.alignment_offsets_ns.empty()) {
    o += fmt::format("\nstep alignment: step {} starts together when each session is shifted by", c.aligned_step);
    for (std::size_t i = 0; i < c.alignment_offsets_ns.size(); ++i)
      o += fmt::format(" {} {:+.3f} ms", letter(i), c.alignment_offsets_ns[i] / 1e6);
    o += "\n";
  }
  return o;
}

namespace {

using W = rapidjson::Writer<rapidjson::StringBuffer>;
void opt(W& w, const char* k, const std::optional<double>& v) {
  w.Key(k);
  if (v) w.Double(*v);
  else w.Null();
}

void json_session(W& w, const SessionSummary& s) {
  w.StartObject();
  w.Key("label"); w.String(s.label.c_str());
  w.Key("recorded_steps"); w.Int64(s.recorded_steps);
  w.Key("throughput");
  w.StartObject();
  w.Key("steps"); w.Int64(s.throughput.steps);
  w.Key("warmup_steps_skipped"); w.Int64(s.throughput.warmup_steps_skipped);
  w.Key("images"); w.Int64(s.throughput.images);
  w.Key("step_ns"); w.Int64(s.throughput.step_ns);
  opt(w, "median_img_per_s", s.throughput.median_img_per_s);
  opt(w, "mean_img_per_s", s.throughput.mean_img_per_s);
  opt(w, "median_step_ns", s.throughput.median_step_ns);
  opt(w, "mean_step_ns", s.throughput.mean_step_ns);
  // The left-out first steps and whether they weigh images/s down (the text's and window's ⚠).
  const Throughput& t = s.throughput;
  w.Key("first_steps_ns"); w.Int64(t.first_steps_ns);
  opt(w, "first_steps_over_median", t.median_step_ns && *t.median_step_ns > 0
                                        ? std::optional<double>(static_cast<double>(t.first_steps_ns) / *t.median_step_ns)
                                        : std::nullopt);
  w.Key("first_steps_outlier"); w.Bool(first_steps_heavy(t));
  opt(w, "training_img_per_s", s.throughput.training.img_per_s);
  w.Key("training_images"); w.Int64(s.throughput.training.images);
  w.Key("training_ns"); w.Int64(s.throughput.training.train_ns);
  w.Key("training_from"); w.String(s.throughput.training.from_epochs ? "epochs" : "steps");
  opt(w, "data_wait_ns_per_step", data_wait_ns_per_step(s.report));
  w.EndObject();
  w.Key("accuracy");
  w.StartObject();
  w.Key("epochs"); w.Int(s.accuracy.epochs);
  w.Key("last_epoch");
  if (s.accuracy.last_epoch) w.Int(*s.accuracy.last_epoch);
  else w.Null();
  opt(w, "test_accuracy", s.accuracy.test_accuracy);
  opt(w, "test_loss", s.accuracy.test_loss);
  opt(w, "train_loss", s.accuracy.train_loss);
  opt(w, "epoch_img_per_s", s.accuracy.epoch_img_per_s);
  w.EndObject();
  const auto& r = s.report;
  w.Key("breakdown");
  w.StartObject();
  w.Key("steps"); w.Int64(r.steps);
  w.Key("wall_ns"); w.Int64(r.wall_ns);
  for (const char* what : {"ns", "ms_per_step", "share"}) {
    w.Key(what);
    w.StartObject();
    for (int k = 0; k < kCategoryCount; ++k) {
      w.Key(analysis::category_name(static_cast<Category>(k)));
      const std::int64_t ns = r.breakdown.ns[k];
      if (what[0] == 'n') w.Int64(ns);
      else if (what[0] == 'm') w.Double(r.steps ? ns / 1e6 / r.steps : 0.0);
      else w.Double(share(ns, r.wall_ns));
    }
    w.EndObject();
  }
  w.EndObject();
  opt(w, "gpu_utilization", r.gpu_utilization);
  w.Key("measured");  // as --analyze --json writes it (docs/metrics.md); null: not sampled
  if (r.measured) {
    const std::string m = analysis::to_json(*r.measured);
    w.RawValue(m.c_str(), m.size(), rapidjson::kObjectType);
  } else {
    w.Null();
  }
  w.Key("verdicts");
  w.StartArray();
  for (const auto& v : r.verdicts) {
    w.StartObject();
    string_fields(w, {{"id", v.id.c_str()}, {"severity", v.severity.c_str()}, {"title", v.title.c_str()}});
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void json_kernel_diff(W& w, const KernelDiff& d) {
  w.StartObject();
  w.Key("baseline"); w.Uint64(d.session_a);
  w.Key("session"); w.Uint64(d.session_b);
  w.Key("relative_threshold"); w.Double(d.options.relative_threshold);
  w.Key("absolute_threshold_ns"); w.Double(d.options.absolute_threshold_ns);
  w.Key("counts");
  w.StartObject();
  int64_fields(w, {{"added", d.added}, {"removed", d.removed}, {"faster", d.faster}, {"slower", d.slower},
                   {"same", d.same}, {"changed", d.changed}});
  w.EndObject();
  w.Key("kernels");
  w.StartArray();
  for (const auto& r : d.rows) {
    w.StartObject();
    w.Key("name"); w.String(r.name.c_str(), static_cast<rapidjson::SizeType>(r.name.size()));
    w.Key("change"); w.String(kernel_change_name(r.change));
    w.Key("total_change"); w.String(kernel_change_name(r.total_change));
    w.Key("calls"); w.StartArray(); w.Int64(r.calls_a); w.Int64(r.calls_b); w.EndArray();
    w.Key("total_ns"); w.StartArray(); w.Int64(r.total_a_ns); w.Int64(r.total_b_ns); w.EndArray();
    w.Key("mean_ns"); w.StartArray(); w.Double(r.mean_a_ns); w.Double(r.mean_b_ns); w.EndArray();
    w.Key("total_per_step_ns"); w.StartArray(); w.Double(r.total_per_step_a_ns); w.Double(r.total_per_step_b_ns); w.EndArray();
    w.Key("delta_total_ns"); w.Int64(r.delta_total_ns());
    w.Key("delta_total_per_step_ns"); w.Double(r.delta_total_per_step_ns());
    w.Key("delta_mean_ns"); w.Double(r.delta_mean_ns());
    opt(w, "delta_mean_relative", r.delta_mean_relative());
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string to_json(const Comparison& c) {
  rapidjson::StringBuffer buf;
  W w(buf);
  w.StartObject();
  w.Key("warmup_steps"); w.Int64(c.options.warmup_steps);
  w.Key("slowest_rank_session");
  if (c.slowest_rank_session >= 0) w.Int(c.slowest_rank_session);
  else w.Null();
  w.Key("slowest_over_fastest"); w.Double(c.slowest_over_fastest);
  w.Key("slowest_own_work_ns"); w.Int64(c.slowest_own_work_ns);
  w.Key("sessions");
  w.StartArray();
  for (const auto& s : c.sessions) json_session(w, s);
  w.EndArray();
  w.Key("config_diff");
  w.StartArray();
  for (const auto& d : c.config) {
    w.StartObject();
    w.Key("key"); w.String(d.key.c_str());
    w.Key("values");
    w.StartArray();
    for (const auto& v : d.values) {
      if (v) w.String(v->c_str());
      else w.Null();
    }
    w.EndArray();
    w.Key("not_applicable");  // [i]: null because session i's device does not use the field
    w.StartArray();
    for (std::size_t i = 0; i < d.values.size(); ++i) w.Bool(i < d.not_applicable.size() && d.not_applicable[i]);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("kernel_diffs");
  w.StartArray();
  for (const auto& d : c.kernel_diffs) json_kernel_diff(w, d);
  w.EndArray();
  w.Key("step_alignment");
  w.StartObject();
  w.Key("global_step"); w.Int64(c.aligned_step);
  w.Key("offsets_ns");
  w.StartArray();
  for (const auto o : c.alignment_offsets_ns) w.Int64(o);
  w.EndArray();
  w.EndObject();
  w.EndObject();
  return buf.GetString();
}

}  // namespace ts::prof::compare
