// Measuring a lesson's runs from their sessions and judging its expectations (lesson_eval.h).
#include "lessons/lesson_eval.h"

#include <fmt/core.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "base/errors.h"
#include "base/format_bytes.h"
#include "base/format_number.h"
#include "lessons/json_write.h"
#include "lessons/session_pack.h"
#include "profiling/analysis/analysis.h"
#include "profiling/compare/compare.h"
#include "profiling/event_source.h"
#include "profiling/import/trace_analysis.h"

namespace ts::lessons {

namespace fs = std::filesystem;
namespace an = prof::analysis;

namespace {

/// Step figures over the steps after the first `warmup` (never fewer than one step), and the run's
/// throughput. Each figure comes from the function Compare shows it from (profiling/compare/compare.h),
/// so that a lesson's key numbers, its promises and Compare's tables give one number per quantity:
/// images_per_s from training_throughput (images per second of training time, the epochs table's),
/// step_ms and slowest_step_ms from throughput() (host step rows), data_wait_ms from
/// data_wait_ns_per_step (the analysis' raw data-loader wait, what input_bound judges).
void step_figures(const prof::EventStore& s, const an::Report& rep, std::int64_t warmup, RunResult& out) {
  const prof::compare::Throughput tp = prof::compare::throughput(s, warmup);
  if (tp.steps == 0) return;
  out.steps = tp.steps;
  if (tp.mean_step_ns) out.figures["step_ms"] = *tp.mean_step_ns / 1e6;
  out.figures["slowest_step_ms"] = static_cast<double>(tp.slowest_step_ns) / 1e6;
  if (tp.training.img_per_s) out.figures["images_per_s"] = *tp.training.img_per_s;
  if (const auto w = prof::compare::data_wait_ns_per_step(rep)) out.figures["data_wait_ms"] = *w / 1e6;
  // The median only names the steps that stand out from it (they count in step_ms).
  out.median_step_ms = tp.median_step_ns.value_or(0) / 1e6;
  out.first_steps_ms = static_cast<double>(tp.first_steps_ns) / 1e6;
  const std::size_t first = static_cast<std::size_t>(tp.warmup_steps_skipped), n = s.steps.size();
  std::int64_t t0 = INT64_MAX, t1 = INT64_MIN;
  for (std::size_t i = first; i < n; ++i) {
    const auto& st = s.steps[i];
    t0 = std::min(t0, st.start);
    t1 = std::max(t1, st.end);
    const double ms = (st.end - st.start) / 1e6;
    if (ms > kOutlierTimesMedian * out.median_step_ms) out.outliers.push_back({st.global_step, ms});
  }
  std::int64_t h2d = 0;
  bool any_copy = false;
  for (std::size_t i = 0, m = s.memcpys.size(); i < m; ++i) {
    const auto& c = s.memcpys[i];
    if (c.copy_kind != 1 || c.start < t0 || c.start >= t1) continue;
    h2d += c.end - c.start;
    any_copy = true;
  }
  if (any_copy || s.kernels.size() > 0) out.figures["h2d_copy_ms"] = h2d / 1e6 / static_cast<double>(tp.steps);
}

/// Peaks of the allocator's memory.allocated.* series (samplers.cpp): activations, and all summed.
void memory_figures(const prof::EventStore& s, RunResult& out) {
  std::map<std::uint32_t, std::string> names;
  for (std::size_t i = 0, n = s.series.size(); i < n; ++i) names[s.series[i].id] = s.strings.get(s.series[i].name);
  std::map<std::int64_t, double> total_at;
  double activations = -1;
  for (std::size_t i = 0, n = s.samples.size(); i < n; ++i) {
    const auto& smp = s.samples[i];
    auto it = names.find(smp.series);
    if (it == names.end() || it->second.rfind("memory.allocated.", 0) != 0) continue;
    total_at[smp.time] += smp.value;
    if (it->second == "memory.allocated.activations") activations = std::max(activations, smp.value);
  }
  if (activations >= 0) out.figures["activation_bytes"] = activations;
  double peak = -1;
  for (const auto& [t, v] : total_at) peak = std::max(peak, v);
  if (peak >= 0) out.figures["peak_memory_bytes"] = peak;
}

const RunResult* find_run(const std::vector<RunResult>& runs, const std::string& id) {
  for (const auto& r : runs)
    if (r.run.id == id) return &r;
  return nullptr;
}

/// Why run `r` gives no numbers, or "" when it does.
std::string unusable(const RunResult* r) {
  if (!r) return "not in the recording";
  if (r->run.outcome == "missing") return "not run yet";
  if (!r->analysed) return r->analysis_error.empty() ? "no session" : r->analysis_error;
  return {};
}

Check check_verdict(const Expectation& e, const std::vector<RunResult>& runs) {
  Check c;
  c.what = fmt::format("{} fires on {} and not on {}", e.verdict, e.fires_on, e.gone_on);
  if (e.min_margin > 1) c.what += fmt::format(", at least {:g}x its threshold", e.min_margin);
  const RunResult *a = find_run(runs, e.fires_on), *b = find_run(runs, e.gone_on);
  for (const RunResult* r : {a, b})
    if (const std::string why = unusable(r); !why.empty()) {
      c.detail = (r ? r->run.id : std::string("?")) + ": " + why;
      return c;
    }
  const auto rule = an::verdict_rule(e.verdict);
  const bool fired = std::count(a->verdicts.begin(), a->verdicts.end(), e.verdict) > 0;
  const bool gone = std::count(b->verdicts.begin(), b->verdicts.end(), e.verdict) == 0;
  auto measure = [&](const RunResult* r) -> std::string {
    auto it = r->measures.find(e.verdict);
    if (!rule || it == r->measures.end()) return r->run.id + ": no measure";
    std::string m = fmt::format("{}: {} {:.3g}", r->run.id, rule->measure, it->second);
    if (auto k = an::verdict_margin(*rule, it->second)) m += fmt::format(" ({:.2g}x the threshold {:g})", *k, rule->threshold);
    return m;
  };
  std::optional<double> margin;
  if (auto it = a->measures.find(e.verdict); rule && it != a->measures.end()) margin = an::verdict_margin(*rule, it->second);
  c.met = fired && gone && (e.min_margin <= 1 || (margin && *margin >= e.min_margin));
  c.change = std::string(fired ? "fired" : "did not fire") + " → " + (gone ? "gone" : "still fires");
  c.detail = measure(a) + (fired ? ", fired" : ", did not fire") + "; " + measure(b) + (gone ? ", did not fire" : ", fired");
  return c;
}

Check check_figure(const Expectation& e, const std::vector<RunResult>& runs) {
  Check c;
  const double bound = e.at_least ? *e.at_least : *e.at_most;
  c.what = fmt::format("{} of {} / {} {} {:g}", e.figure, e.to, e.from, e.at_least ? ">=" : "<=", bound);
  const RunResult *a = find_run(runs, e.from), *b = find_run(runs, e.to);
  for (const RunResult* r : {a, b})
    if (const std::string why = unusable(r); !why.empty()) {
      c.detail = (r ? r->run.id : std::string("?")) + ": " + why;
      return c;
    }
  auto fa = a->figures.find(e.figure), fb = b->figures.find(e.figure);
  if (fa == a->figures.end() || fb == b->figures.end() || fa->second <= 0) {
    c.detail = "the sessions do not give " + e.figure;
    return c;
  }
  const double ratio = fb->second / fa->second;
  c.met = e.at_least ? ratio >= *e.at_least : ratio <= *e.at_most;
  const std::vector<std::string> ab = format_figure_row(e.figure, {fa->second, fb->second});  // one precision
  c.detail = fmt::format("{} {} -> {} {}: {:.3g}x", e.from, ab[0], e.to, ab[1], ratio);
  c.change = fmt::format("{} → {} (×{:.3g})", ab[0], ab[1], ratio);
  return c;
}

Check check_outcome(const Expectation& e, const std::vector<RunResult>& runs) {
  Check c;
  c.what = fmt::format("{} {}", e.run, e.outcome == "completes" ? "completes" : "runs out of memory");
  const RunResult* r = find_run(runs, e.run);
  if (!r || r->run.outcome == "missing") {
    c.detail = e.run + ": not run yet";
    return c;
  }
  c.met = r->run.outcome == e.outcome;
  c.change = r->run.outcome == "out_of_memory" ? "out of memory" : r->run.outcome;
  c.detail = e.run + ": " + r->run.outcome + (r->run.error.empty() ? "" : " (" + r->run.error + ")");
  return c;
}

/// The runs' figures and verdicts as a table, a column per run.
std::string side_by_side(const LessonResult& r) {
  constexpr int kColumn = 16;
  std::size_t kFirst = 22;  // the first column fits the longest row name ("verdict low_utilization")
  for (const RunResult& run : r.runs)
    for (const auto& v : run.verdicts) kFirst = std::max(kFirst, v.size() + 9);
  std::string out = fmt::format("  {:<{}}", "", kFirst);
  for (const RunResult& run : r.runs) out += fmt::format("{:>{}}", run.run.id.substr(0, kColumn - 1), kColumn);
  out += "\n";
  auto row = [&](const std::string& name, auto cell) {
    std::string line = fmt::format("  {:<{}}", name, kFirst);
    bool any = false;
    for (const RunResult& run : r.runs) {
      const std::string c = run.analysed ? cell(run) : std::string("-");
      any = any || (c != "-" && !c.empty());
      line += fmt::format("{:>{}}", c, kColumn);
    }
    if (any) out += line + "\n";
  };
  row("steps analysed", [](const RunResult& run) { return std::to_string(run.steps); });
  for (const std::string& f : figure_names()) {
    std::vector<std::optional<double>> values;  // the analysed runs' (row() skips the others)
    for (const RunResult& run : r.runs) {
      auto it = run.figures.find(f);
      values.push_back(run.analysed && it != run.figures.end() ? std::optional<double>(it->second) : std::nullopt);
    }
    const std::vector<std::string> cells = format_figure_row(f, values);  // one precision per row
    row(f, [&](const RunResult& run) { return cells[static_cast<std::size_t>(&run - r.runs.data())]; });
  }
  std::vector<std::string> ids;
  for (const RunResult& run : r.runs)
    for (const auto& v : run.verdicts)
      if (std::find(ids.begin(), ids.end(), v) == ids.end()) ids.push_back(v);
  for (const std::string& id : ids)
    row("verdict " + id, [&](const RunResult& run) {
      return std::string(std::count(run.verdicts.begin(), run.verdicts.end(), id) ? "fired" : "no");
    });
  return out;
}

}  // namespace

namespace {

/// `v` written as figure `name`, a time with `ms_decimals` decimals.
std::string figure_text(const std::string& name, double v, int ms_decimals) {
  if (name.find("bytes") != std::string::npos) return format_bytes(v, 1);
  if (name == "images_per_s") return format_grouped(v) + " img/s";
  if (name == "gpu_utilization_pct") return fmt::format("{:.1f} %", v);
  return fmt::format("{:.{}f} ms", v, ms_decimals);
}

}  // namespace

std::string format_figure(const std::string& name, double v) { return format_figure_row(name, {v}).front(); }

std::vector<std::string> format_figure_row(const std::string& name, const std::vector<std::optional<double>>& values) {
  double smallest = 0;  // the smallest nonzero |value|: its 3 significant digits set the row's decimals
  for (const auto& v : values)
    if (v && *v != 0 && (smallest == 0 || std::fabs(*v) < smallest)) smallest = std::fabs(*v);
  const int decimals = fixed_decimals(smallest);
  std::vector<std::string> out;
  for (const auto& v : values) out.push_back(v ? figure_text(name, *v, decimals) : std::string("-"));
  return out;
}


std::string describe_first_steps(const RunResult& r) {
  return prof::compare::describe_first_steps(r.first_steps_ms, r.median_step_ms);
}

std::string describe_outliers(const RunResult& r) {
  std::string out;
  for (std::size_t i = 0; i < r.outliers.size() && i < 3; ++i) {
    const auto& [step, ms] = r.outliers[i];
    out += fmt::format("{}step {}: {:.4g} ms ({:.0f}x the median {:.3g} ms)", i ? "; " : "", step, ms,
                       ms / r.median_step_ms, r.median_step_ms);
  }
  if (r.outliers.size() > 3) out += fmt::format("; and {} more", r.outliers.size() - 3);
  return out;
}

bool LessonResult::showed() const {
  return !checks.empty() && std::all_of(checks.begin(), checks.end(), [](const Check& c) { return c.met; });
}

RunResult measure_session(const std::string& path, std::int64_t warmup) {
  RunResult r;
  std::optional<PlainSession> plain;  // a recording's ID.tsession.zst is read through a plain copy
  try {
    plain.emplace(path);
    const auto src = prof::open_session(plain->path());
    const prof::EventStore& s = src->store();
    an::Options o;
    o.per_step = false;
    o.warmup_steps = warmup;
    const an::Report rep = prof::import::analyze_session(s, o);
    for (const auto& v : rep.verdicts) r.verdicts.push_back(v.id), r.verdict_titles[v.id] = v.title;
    for (const std::string& id : an::verdict_ids())
      if (auto m = an::verdict_measure(rep, id)) r.measures[id] = *m;
    if (rep.gpu_utilization) r.figures["gpu_utilization_pct"] = 100 * *rep.gpu_utilization;
    step_figures(s, rep, warmup, r);
    memory_figures(s, r);
    r.analysed = true;
  } catch (const std::exception& e) {
    r.analysis_error = plain ? plain->named(e.what()) : e.what();
  }
  return r;
}

LessonResult evaluate_sessions(const LessonRecord& record, const std::vector<std::string>& paths,
                               std::int64_t warmup) {
  LessonResult out;
  out.record = record;
  for (std::size_t i = 0; i < record.runs.size(); ++i) {
    const RecordedRun& run = record.runs[i];
    RunResult r;
    const std::string path = i < paths.size() ? paths[i] : std::string();
    if (!path.empty()) {
      if (fs::exists(path)) r = measure_session(path, warmup);
      else r.analysis_error = "session " + path + " is missing";
    }
    r.run = run;
    out.runs.push_back(std::move(r));
  }
  for (const Expectation& e : record.lesson.expect)
    out.checks.push_back(e.kind == "verdict"  ? check_verdict(e, out.runs)
                         : e.kind == "figure" ? check_figure(e, out.runs)
                                              : check_outcome(e, out.runs));
  return out;
}

std::vector<std::string> session_paths(const std::string& dir, const LessonRecord& record) {
  std::vector<std::string> paths;
  for (const RecordedRun& run : record.runs)
    paths.push_back(run.session.empty() || run.outcome == "missing" ? std::string()
                                                                     : (fs::path(dir) / run.session).string());
  return paths;
}

LessonResult evaluate(const std::string& dir, const LessonRecord& record, std::int64_t warmup) {
  return evaluate_sessions(record, session_paths(dir, record), warmup);
}

std::string to_text(const LessonResult& r) {
  const Lesson& l = r.record.lesson;
  std::string out = fmt::format("lesson {}: {}\n", l.name, l.title);
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    const RunResult& run = r.runs[i];
    const std::string label = i < l.runs.size() ? l.runs[i].label : "";
    out += fmt::format("  run {} ({}): {}{}{}\n", run.run.id, label, run.run.outcome,
                       run.run.device_name.empty() ? "" : ", " + run.run.device_name,
                       run.run.recorded_at.empty() ? "" : ", " + run.run.recorded_at);
    if (!run.run.error.empty()) out += "    error: " + run.run.error + "\n";
    if (!run.analysis_error.empty()) out += "    not analysed: " + run.analysis_error + "\n";
    if (const std::string f = describe_first_steps(run); !f.empty()) out += "    " + f + "\n";
    if (!run.outliers.empty())
      out += fmt::format("    {} outlier step{} (counted in its figures): {}\n", run.outliers.size(),
                         run.outliers.size() == 1 ? "" : "s", describe_outliers(run));
  }
  out += side_by_side(r);
  for (const Check& c : r.checks) out += fmt::format("  [{}] {}: {}\n", c.met ? "shown" : "NOT SHOWN", c.what, c.detail);
  out += r.showed() ? "the lesson showed what it promised\n" : "the lesson did NOT show what it promised (numbers above)\n";
  return out;
}

std::string to_json(const LessonResult& r, const std::string& recording) {
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  w.StartObject();
  write_field(w, "lesson", r.record.lesson.name);
  write_field(w, "title", r.record.lesson.title);
  w.Key("showed"); w.Bool(r.showed());
  w.Key("recording");
  if (recording.empty()) w.Null();
  else write_string(w, recording);
  w.Key("runs");
  w.StartArray();
  for (const RunResult& run : r.runs) {
    w.StartObject();
    write_field(w, "id", run.run.id);
    write_field(w, "outcome", run.run.outcome);
    write_field(w, "error", run.run.error);
    write_field(w, "device_name", run.run.device_name);
    write_field(w, "recorded_at", run.run.recorded_at);
    w.Key("analysed"); w.Bool(run.analysed);
    w.Key("steps"); w.Int64(run.steps);
    w.Key("median_step_ms"); w.Double(run.median_step_ms);
    w.Key("first_steps_ms"); w.Double(run.first_steps_ms);
    w.Key("outliers");
    w.StartArray();
    for (const auto& [step, ms] : run.outliers) {
      w.StartObject();
      w.Key("step"); w.Int64(step);
      w.Key("ms"); w.Double(ms);
      w.EndObject();
    }
    w.EndArray();
    w.Key("figures");
    w.StartObject();
    for (const auto& [k, v] : run.figures) { w.Key(k.c_str()); w.Double(v); }
    w.EndObject();
    w.Key("verdicts");
    w.StartArray();
    for (const auto& v : run.verdicts) w.String(v.c_str());
    w.EndArray();
    w.Key("measures");
    w.StartObject();
    for (const auto& [k, v] : run.measures) { w.Key(k.c_str()); w.Double(v); }
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.Key("checks");
  w.StartArray();
  for (const Check& c : r.checks) {
    w.StartObject();
    write_field(w, "what", c.what);
    w.Key("met"); w.Bool(c.met);
    write_field(w, "change", c.change);
    write_field(w, "detail", c.detail);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return b.GetString();
}

}  // namespace ts::lessons
