// --import TRACE [--session OUT.tsession]: a PyTorch profiler / Chrome trace JSON(.gz) or an Nsight
// Systems SQLite export becomes a session file (profiling/import, SessionWriter). Prints the session's path, then events, steps and
// warnings one line each. Bad input: the importer's one-line InputError (main() exits 2).
#include <fmt/core.h>

#include <cstring>
#include <filesystem>

#include "app/runner/output_paths.h"
#include "app/runner/runner.h"
#include "base/errors.h"
#include "profiling/import/trace_import.h"
#include "profiling/session/session_file.h"

namespace ts {

namespace {

/// "runs/worker0.pt.trace.json.gz" -> "worker0.pt.trace.tsession" (in the current folder: the
/// trace's own folder may be read-only).
std::string default_session_path(const std::string& trace) {
  std::string name = std::filesystem::path(trace).filename().string();
  for (const char* ext : {".gz", ".json", ".sqlite"})
    if (name.size() > std::strlen(ext) && name.compare(name.size() - std::strlen(ext), std::string::npos, ext) == 0)
      name.resize(name.size() - std::strlen(ext));
  return name + ".tsession";
}

}  // namespace

int run_import(const RunnerOptions& opt) {
  prof::import::ImportOptions io;
  io.step_range = opt.step_range;
  const std::string out = opt.session.empty() ? default_session_path(opt.import_trace) : opt.session;
  check_output_path("--session", out, run_inputs(opt), ExistingFile::refuse_unless_overwrite, opt.overwrite);
  const prof::import::ImportedTrace t = prof::import::import_trace(opt.import_trace, io);
  prof::SessionWriter writer(out, *t.store);
  if (!writer.write_batch()) throw InputError(writer.error());
  writer.close();
  if (!writer.error().empty()) throw InputError(writer.error());
  const auto& s = t.summary;
  const prof::StoreCounts c = t.store->counts();
  fmt::print("imported {} ({}, {}) into {}\n", opt.import_trace, s.kind, s.format, out);
  fmt::print("events: {} read, {} kept (kernels {}, copies {}, memsets {}, runtime calls {}, syncs {}, host ranges {}, "
             "memory events {}, samples {}; NCCL kernels {}); {} flow and {} metadata events used, not kept; "
             "{} derived records (step rows, memory samples)\n",
             s.events_read, s.events_kept, c.kernels, c.memcpys, c.memsets, c.runtime, c.syncs, c.host_ranges,
             c.memory, c.samples, s.communication_kernels, s.flows, s.metadata_events, s.derived_records);
  fmt::print("steps: {} ({})\n", s.steps, s.step_rule);
  fmt::print("warnings: {}{}\n", s.warning_count(), s.warnings.empty() ? "" : " (" + s.warnings_text() + ")");
  return 0;
}

}  // namespace ts
