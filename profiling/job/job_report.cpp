// A job's report as text and JSON, and two jobs side by side (job.h). Times in the text are ms per
// step; in the JSON, ns per step (fields: docs/metrics.md, "Jobs").
#include <fmt/format.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>

#include "profiling/job/job.h"

namespace ts::prof::job {

namespace {

using W = rapidjson::Writer<rapidjson::StringBuffer>;

double ms(std::int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

std::string table(const JobReport& r) {
  std::string out =
      fmt::format("{:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>18}\n", "rank", "period", "own work",
                  "waiting", "compute", "comm", "exposed", "GPU idle", "data", "host", "step-start offset");
  for (const auto& f : r.ranks) {
    const PeriodParts p = period_parts(f);
    out += fmt::format(
        "{:>5} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>+18.1f}\n", f.rank,
        p.period_ms, p.own_work_ms, p.wait_ms, ms(f.compute_ns), ms(f.communication_ns), ms(f.exposed_comm_ns),
        ms(f.idle_ns), ms(f.data_wait_ns), ms(f.host_other_ns), static_cast<double>(f.step_start_offset_ns) / 1e3);
  }
  return out;
}

void verdicts_text(const JobReport& r, std::string& out) {
  if (r.verdicts.empty()) out += "verdicts: none\n";
  for (const auto& v : r.verdicts) {
    out += fmt::format("verdict [{}] {}{}: {}\n", v.severity, v.id,
                       v.rank >= 0 ? fmt::format(" (rank {})", v.rank) : "", v.title);
    std::string ev;
    for (const auto& [k, x] : v.evidence) ev += fmt::format(" {}={:.4g}", k, x);
    out += "  evidence:" + ev + "\n  fix: " + v.fix + "\n";
  }
}

void job_json(W& w, const Job& job, const JobReport& r) {
  w.StartObject();
  w.Key("world_size");
  w.Int(r.world_size);
  w.Key("files");
  w.StartArray();
  for (const auto& f : job.ranks) {
    w.StartObject();
    w.Key("rank");
    w.Int(f.rank);
    w.Key("path");
    w.String(f.path.c_str());
    w.Key("kind");
    w.String(f.kind.c_str());
    w.Key("rank_source");
    w.String(f.rank_source.c_str());
    w.EndObject();
  }
  w.EndArray();
  w.Key("launcher");
  if (job.launcher)
    w.String(job.launcher->path.c_str());
  else
    w.Null();
  w.Key("missing_ranks");
  w.StartArray();
  for (auto m : job.missing_ranks) w.Int(m);
  w.EndArray();
  w.Key("problems");
  w.StartArray();
  for (const auto& p : job.problems) w.String(p.c_str());
  w.EndArray();
  w.Key("matched_steps");
  w.Int64(r.matched_steps);
  w.Key("skew_median_ns");
  if (r.skew_median_ns)
    w.Int64(*r.skew_median_ns);
  else
    w.Null();
  w.Key("skew_max_ns");
  if (r.skew_max_ns)
    w.Int64(*r.skew_max_ns);
  else
    w.Null();
  w.Key("wait_source");
  w.String(r.wait_source.c_str());
  w.Key("clock");
  w.String(r.clock.c_str());
  w.Key("ranks");
  w.StartArray();
  for (const auto& f : r.ranks) {
    w.StartObject();
    w.Key("rank");
    w.Int(f.rank);
    w.Key("steps");
    w.Int64(f.steps);
    for (const auto& [k, v] : {std::pair<const char*, std::int64_t>{"step_start_offset_ns", f.step_start_offset_ns},
                               {"session_start_ns", f.session_start_ns},
                               {"step_period_ns", f.step_period_ns},
                               {"own_work_ns", f.own_work_ns},
                               {"wait_ns", f.wait_ns},
                               {"compute_ns", f.compute_ns},
                               {"communication_ns", f.communication_ns},
                               {"exposed_comm_ns", f.exposed_comm_ns},
                               {"exposed_transfer_ns", f.exposed_transfer_ns},
                               {"idle_ns", f.idle_ns},
                               {"data_wait_ns", f.data_wait_ns},
                               {"blocking_ns", f.blocking_ns},
                               {"optimizer_ns", f.optimizer_ns},
                               {"sync_ns", f.sync_ns},
                               {"host_other_ns", f.host_other_ns}}) {
      w.Key(k);
      w.Int64(v);
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("verdicts");
  w.StartArray();
  for (const auto& v : r.verdicts) {
    w.StartObject();
    w.Key("id");
    w.String(v.id.c_str());
    w.Key("severity");
    w.String(v.severity.c_str());
    w.Key("rank");
    w.Int(v.rank);
    w.Key("title");
    w.String(v.title.c_str());
    w.Key("fix");
    w.String(v.fix.c_str());
    w.Key("evidence");
    w.StartObject();
    for (const auto& [k, x] : v.evidence) {
      w.Key(k.c_str());
      w.Double(x);
    }
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.Key("notes");
  w.StartArray();
  for (const auto& n : r.notes) w.String(n.c_str());
  w.EndArray();
  w.EndObject();
}

}  // namespace

PeriodParts period_parts(const RankFigures& f, int decimals) {
  const double scale = std::pow(10.0, decimals);
  PeriodParts p;
  p.period_ms = std::round(ms(f.step_period_ns) * scale) / scale;
  p.own_work_ms = std::round(ms(f.own_work_ns) * scale) / scale;
  p.wait_ms = std::round((p.period_ms - p.own_work_ms) * scale) / scale;  // the difference, free of float residue
  return p;
}

std::string to_text(const Job& job, const JobReport& r) {
  std::string out = fmt::format("job of {} rank(s){}{}\n", job.ranks.size(),
                                r.world_size > 0 ? fmt::format(", world size {}", r.world_size) : "",
                                job.launcher ? fmt::format("; launcher {} (no rank)", job.launcher->path) : "");
  for (const auto& f : job.ranks)
    out += fmt::format("  rank {}: {} ({}, rank from {})\n", f.rank, f.path, f.kind, f.rank_source);
  for (const auto& p : job.problems) out += "problem: " + p + "\n";
  out += fmt::format("{} matched steps (step periods, start to next start)", r.matched_steps);
  if (r.skew_median_ns)
    out += fmt::format("; clocks ({}) aligned by step starts on rank {}, residual skew median {:.0f} us, max {:.0f} us",
                       r.clock, r.ranks.empty() ? 0 : r.ranks[0].rank, *r.skew_median_ns / 1e3, *r.skew_max_ns / 1e3);
  out += "\n";
  if (r.matched_steps > 0) {  // no figures to show otherwise (a note says why)
    out += "waiting for other ranks from: " + r.wait_source + "\n";
    out += "per rank, ms per step (medians over the steps; waiting = period - own work); the step-start offset in us "
           "(added to a rank's times on the common clock to line its step starts up with rank " +
           std::to_string(r.ranks.empty() ? 0 : r.ranks[0].rank) + "'s):\n" + table(r);
  }
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  verdicts_text(r, out);
  return out;
}

std::string to_json(const Job& job, const JobReport& r) {
  rapidjson::StringBuffer buf;
  W w(buf);
  job_json(w, job, r);
  return buf.GetString();
}

std::string compare_text(const Job& a, const JobReport& ra, const Job& b, const JobReport& rb) {
  std::string out = "job A:\n" + to_text(a, ra) + "\njob B:\n" + to_text(b, rb) + "\nB against A, ms per step:\n";
  out += fmt::format("{:>5} {:>10} {:>10} {:>10} {:>10}\n", "rank", "period A", "period B", "own A", "own B");
  for (const auto& fa : ra.ranks)
    for (const auto& fb : rb.ranks)
      if (fa.rank == fb.rank)
        out += fmt::format("{:>5} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f}\n", fa.rank, ms(fa.step_period_ns),
                           ms(fb.step_period_ns), ms(fa.own_work_ns), ms(fb.own_work_ns));
  return out;
}

std::string compare_json(const Job& a, const JobReport& ra, const Job& b, const JobReport& rb) {
  rapidjson::StringBuffer buf;
  W w(buf);
  w.StartObject();
  w.Key("a");
  job_json(w, a, ra);
  w.Key("b");
  job_json(w, b, rb);
  w.EndObject();
  return buf.GetString();
}

}  // namespace ts::prof::job
