// --compare A B [C...] [--json]: two or more sessions side by side (profiling/compare): config diff,
// throughput and accuracy, step-time breakdown, verdicts, kernel diff against A. Text tables, or one
// JSON object with --json (docs/compare.md). Two playground sessions (trainscope-run --playground ...
// --session) compare their ladders instead (playground/compare.h): variant by variant, B/A,
// which run is faster. A missing or unreadable session is an InputError (SessionError) naming the
// file: exit 2 with one line; a playground session beside a training session or trace is refused too.
#include <filesystem>
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <optional>

#include "app/runner/runner.h"
#include "base/errors.h"
#include "playground/compare.h"
#include "playground/session.h"
#include "lessons/session_pack.h"
#include "profiling/compare/compare.h"
#include "profiling/event_source.h"

namespace ts {

namespace {

/// The playground run a file holds, or nullopt (a training session, a trace, an older session).
/// An unreadable file is left to the training comparison's reader, which names it.
std::optional<playground::StoredRun> playground_run(const std::string& path) {
  auto ends = [&](const std::string& s) {
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (!ends(".tsession") && !ends(".tsession.zst")) return std::nullopt;
  try {
    const lessons::PlainSession plain(path);  // the shipped recording is zstd-compressed
    playground::StoredRun r = playground::read_playground_session(plain.path());
    if (!r.ladders.empty()) return r;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

std::string file_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int compare_playground(const RunnerOptions& o, const std::vector<std::optional<playground::StoredRun>>& runs) {
  if (runs.size() != 2)
    throw InputError(fmt::format("--compare of playground sessions takes two (A and B), got {}", runs.size()));
  const auto c = playground::compare_runs(*runs[0], *runs[1]);
  const std::string a = file_name(o.compare[0]), b = file_name(o.compare[1]);
  if (o.json) fmt::print("{}\n", playground::format_compare_json(c, a, b));
  else fmt::print("{}", playground::format_compare_text(c, a, b));
  std::fflush(stdout);
  return 0;
}

}  // namespace

int run_compare(const RunnerOptions& o) {
  if (o.compare.size() < 2) throw InputError("--compare needs two or more sessions");
  if (o.compare.size() == 2 && std::filesystem::is_directory(o.compare[0]) && std::filesystem::is_directory(o.compare[1]))
    return run_job_compare(o);  // two jobs' folders
  std::vector<std::optional<playground::StoredRun>> runs;
  std::size_t playgrounds = 0;
  for (const auto& path : o.compare) {
    runs.push_back(playground_run(path));
    playgrounds += runs.back().has_value();
  }
  if (playgrounds == runs.size()) return compare_playground(o, runs);
  if (playgrounds > 0)
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (!runs[i])
        throw InputError(o.compare[i] + " holds no playground run: a playground session compares only with another");
  std::vector<std::unique_ptr<prof::EventSource>> sources;
  std::vector<const prof::EventStore*> stores;
  for (const auto& path : o.compare) {
    sources.push_back(prof::open_session(path));
    stores.push_back(&sources.back()->store());
  }
  prof::compare::Options options;
  options.warmup_steps = o.analyze_warmup;
  const auto c = prof::compare::compare(stores, o.compare, options);
  if (o.json) fmt::print("{}\n", prof::compare::to_json(c));
  else fmt::print("{}", prof::compare::to_text(c));
  std::fflush(stdout);
  return 0;
}

}  // namespace ts
