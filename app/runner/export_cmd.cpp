// --export SESSION --format chrome|kernels-csv|steps-csv --output FILE|-: a session to a Chrome trace
// JSON that ui.perfetto.dev / chrome://tracing open (gzip when FILE ends in .gz), or to CSV
// (profiling/export). A summary line goes to stderr, so "-" keeps stdout clean for the data.
// Exit 2 with one line for a missing/unreadable session, an output that cannot be created, or one
// that output_paths.h refuses (the session itself, a folder, a device). A file is replaced whole.
#include <fmt/core.h>

#include <cstdio>

#include "app/runner/output_paths.h"
#include "app/runner/runner.h"
#include "base/errors.h"
#include "profiling/event_source.h"
#include "profiling/export/chrome_trace.h"
#include "profiling/export/csv.h"

namespace ts {

int run_export(const RunnerOptions& o) {
  if (o.output.empty()) throw InputError("--export needs --output FILE (\"-\" = stdout)");
  check_output_path("--output", o.output, run_inputs(o));
  auto src = prof::open_session(o.export_session);
  const prof::EventStore& store = src->store();
  const std::string where = o.output == "-" ? std::string("stdout") : o.output;
  // A file is written beside the target and renamed into place: a run killed half-way leaves the
  // previous export, never a cut one.
  const auto into = [&](auto&& write) {
    if (o.output == "-") return write(o.output);
    decltype(write(o.output)) result{};
    write_replacing(o.output, [&](const std::string& tmp) { result = write(tmp); });
    return result;
  };
  if (o.export_format == "chrome") {
    const auto s = into([&](const std::string& path) { return prof::exporter::export_chrome_trace(store, path); });
    fmt::print(stderr,
               "exported {} to {}: {} steps, {} host ranges, {} runtime calls, {} kernels, {} memcpys, {} memsets, "
               "{} syncs, {} flows, {} counter events on {} tracks{}\n",
               o.export_session, where, s.steps, s.host_ranges, s.runtime_calls, s.kernels, s.memcpys, s.memsets, s.syncs,
               s.flows, s.counter_events, s.tracks,
               s.overflow_events ? fmt::format(" ({} events that did not nest moved to '(overlapping)' tracks)",
                                               s.overflow_events)
                                 : std::string());
  } else if (o.export_format == "kernels-csv") {
    const auto rows = into([&](const std::string& path) { return prof::exporter::export_kernels_csv(store, path); });
    fmt::print(stderr, "exported {} to {}: {} kernel names\n", o.export_session, where, rows);
  } else if (o.export_format == "steps-csv") {
    const auto rows = into([&](const std::string& path) { return prof::exporter::export_steps_csv(store, path); });
    fmt::print(stderr, "exported {} to {}: {} steps\n", o.export_session, where, rows);
  } else {
    throw InputError("--format " + o.export_format + ": use chrome, kernels-csv or steps-csv");
  }
  return 0;
}

}  // namespace ts
