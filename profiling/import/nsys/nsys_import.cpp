// import_export(): refusals (not SQLite, a report, a session, a SQLite file that is not an export),
// the table readers (nsys_tables.h), the step rule over the NVTX ranges, and the store: every table
// sorted by start, thread names, session metadata and the summary (see nsys_import.h).
#include "profiling/import/nsys/nsys_import.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "engine/host_trace.h"
#include "profiling/import/nsys/nsys_tables.h"
#include "profiling/session/session_file.h"
#include "profiling/steps/step_rule.h"

namespace ts::prof::import::nsys {

namespace {

bool ends_with(const std::string& path, const char* ext) {
  std::string p = path;
  std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::size_t n = std::strlen(ext);
  return p.size() >= n && p.compare(p.size() - n, n, ext) == 0;
}

const char kExportHint[] = "export a report with `nsys export --type sqlite report.nsys-rep` and open the .sqlite file";

template <class T>
void sorted_into(EventStore& store, AppendLog<T>& log, std::vector<T>& v) {
  std::stable_sort(v.begin(), v.end(), [](const T& a, const T& b) { return a.start < b.start; });
  for (const T& r : v) store.append(log, r);
  std::vector<T>().swap(v);
}

/// Steps by the step rule (profiling/steps/step_rule.h) over the NVTX ranges; a range inside a step
/// gets its number. Returns the rule's meta text.
std::string apply_steps(NsysData& d, EventStore& store, const StepRangePattern& pattern,
                        std::vector<StepRecord>& steps) {
  StepRuleInput in;
  std::int64_t lo = INT64_MAX, hi = INT64_MIN;
  auto span = [&](const auto& v) {
    for (const auto& r : v) lo = std::min(lo, r.start), hi = std::max(hi, r.end);
  };
  span(d.kernels), span(d.memcpys), span(d.memsets), span(d.runtime), span(d.syncs), span(d.host);
  for (const auto& h : d.host) in.ranges.push_back({store.strings.get(h.name), h.thread, h.start, h.end});
  in.span_start = lo == INT64_MAX ? 0 : lo;
  in.span_end = hi == INT64_MIN ? 0 : hi;
  const StepChoice c = choose_steps(in, pattern);
  steps = c.steps;
  for (std::size_t k = 0; k < c.range_index.size(); ++k) {
    HostRangeRecord& h = d.host[c.range_index[k]];
    h.kind = static_cast<std::uint8_t>(trace::RangeKind::step);
    h.step = c.steps[k].global_step;
  }
  std::vector<StepRecord> by_start = steps;
  std::sort(by_start.begin(), by_start.end(),
            [](const StepRecord& a, const StepRecord& b) { return a.start < b.start; });
  for (auto& h : d.host) {
    if (h.kind == static_cast<std::uint8_t>(trace::RangeKind::step)) continue;
    auto it = std::upper_bound(by_start.begin(), by_start.end(), h.start,
                               [](std::int64_t t, const StepRecord& s) { return t < s.start; });
    if (it != by_start.begin() && h.start < std::prev(it)->end) h.step = std::prev(it)->global_step;
  }
  return step_rule_text(c.rule, pattern.text());
}

/// Thread records for every thread that ran a runtime call or an NVTX range: ThreadNames' name,
/// else "PROCESS tid N" from PROCESSES, else "thread N".
void write_threads(const NsysData& d, EventStore& store) {
  std::map<std::uint32_t, bool> used;
  for (const auto& r : d.runtime) used[r.thread] = true;
  for (const auto& h : d.host) used[h.thread] = true;
  for (const auto& [tid, unused] : used) {
    std::string label;
    if (auto n = d.thread_names.find(tid); n != d.thread_names.end()) label = n->second;
    if (label.empty())
      if (auto p = d.thread_process.find(tid); p != d.thread_process.end())
        if (auto pn = d.process_names.find(p->second); pn != d.process_names.end() && !pn->second.empty())
          label = pn->second + " tid " + std::to_string(tid);
    if (label.empty()) label = "thread " + std::to_string(tid);
    store.append(store.threads, ThreadRecord{tid, store.strings.intern(label)});
  }
}

void add_warning(ImportSummary& s, std::int64_t n, const char* what) {
  if (n > 0) s.warnings.push_back({what, n, -1, ""});
}

std::string table_rows(const NsysData& d) {
  std::string out;
  for (const auto& [t, n] : d.rows) out += (out.empty() ? "" : ", ") + t + " " + std::to_string(n);
  return out;
}

void write_meta(const Schema& schema, const NsysData& d, EventStore& store, ImportSummary& s, const std::string& name) {
  std::map<std::string, std::string> m = d.meta;
  m["import.kind"] = s.kind;
  m["import.format"] = s.format;
  m["import.schema_version"] = schema.version.empty() ? schema.version_source : schema.version;
  m["import.schema_source"] = schema.version_source;
  if (!schema.product_version.empty()) m["versions.nsight_systems"] = schema.product_version;
  m["import.source_path"] = name;
  m["import.origin_ns"] = "0";  // the export's times are already ns from the session start
  m["import.tables_read"] = table_rows(d);
  std::int64_t ignored = 0;
  for (const auto& [t, info] : schema.tables) ignored += d.rows.count(t) ? 0 : 1;
  m["import.tables_ignored"] = std::to_string(ignored);
  m["import.nvtx_marks"] = std::to_string(d.nvtx_marks);
  m["import.cuda_graph_kernels"] = std::to_string(d.graph_kernels);
  std::set<std::uint32_t> pids;  // processes whose threads ran calls or ranges
  for (const auto& [tid, pid] : d.thread_process) pids.insert(pid);
  std::string procs;
  for (const auto& [pid, pname] : d.process_names)
    if (pids.count(pid)) procs += (procs.empty() ? "" : ", ") + pname + " (pid " + std::to_string(pid) + ")";
  if (!procs.empty()) m["import.processes"] = procs;
  const bool gpu = !d.kernels.empty() || !d.memcpys.empty() || !d.memsets.empty();
  m["device.kind"] = gpu || m.count("device.name") ? "cuda" : "cpu";
  if (m["device.kind"] == "cuda") m["device.vendor"] = "NVIDIA";
  m["gpu_activity"] = gpu ? "collected (Nsight Systems export)" : "none in the imported export";
  m["import.events_read"] = std::to_string(s.events_read);
  m["import.events_kept"] = std::to_string(s.events_kept);
  m["import.derived_records"] = std::to_string(s.derived_records);
  m["import.warnings"] = s.warnings_text();
  m["import.truncated"] = "no";
  m["import.communication_kernels"] = std::to_string(s.communication_kernels);
  for (const auto& [k, v] : m) store.set_meta(k, v);
}

ImportedTrace run(const Db& db, const ImportOptions& opt) {
  const StepRangePattern pattern(opt.step_range);
  const Schema schema = read_schema(db);
  if (!schema.is_export())
    throw InputError(db.name() +
                     ": a SQLite file that is not an Nsight Systems export (no StringIds, "
                     "CUPTI_ACTIVITY_KIND_* or NVTX_EVENTS table); " +
                     kExportHint);
  ImportedTrace out;
  out.store = std::make_shared<EventStore>();
  NsysData d;
  TableReader reader(db, schema, *out.store, d, opt.cancel);
  using Step = void (TableReader::*)();
  const Step steps[] = {&TableReader::strings, &TableReader::kernels,      &TableReader::runtime, &TableReader::memcpys,
                        &TableReader::memsets, &TableReader::syncs,        &TableReader::nvtx,    &TableReader::threads,
                        &TableReader::devices, &TableReader::session_start};
  const auto total = static_cast<std::int64_t>(std::size(steps));
  for (std::int64_t i = 0; i < total; ++i) {
    if (opt.cancel && opt.cancel->load()) throw ImportCancelled("import of " + db.name() + " cancelled");
    (reader.*steps[i])();
    if (opt.progress) opt.progress(i + 1, total);
  }
  ImportSummary& s = out.summary;
  s.kind = kKind;
  // "schema 2.9.1 from EXPORT_META_DATA" or "schema inferred: no metadata table (...)".
  s.format = schema.version.empty() ? "schema " + schema.version_source
                                    : "schema " + schema.version + " from " + schema.version_source;
  if (!schema.product_version.empty()) s.format += ", Nsight Systems " + schema.product_version;
  for (const auto& [t, n] : d.rows) s.events_read += n;
  s.events_kept = static_cast<std::int64_t>(d.kernels.size() + d.memcpys.size() + d.memsets.size() + d.runtime.size() +
                                            d.syncs.size() + d.host.size());
  for (const auto& k : d.kernels) s.communication_kernels += is_communication_kernel(out.store->strings.get(k.name));
  std::vector<StepRecord> step_rows;
  s.step_rule = apply_steps(d, *out.store, pattern, step_rows);
  out.store->set_meta("steps.rule", s.step_rule);
  s.steps = static_cast<std::int64_t>(step_rows.size());
  s.derived_records = s.steps;
  s.bytes = 0;
  add_warning(s, d.missing_strings, "string ids missing from StringIds (named \"<string N>\")");
  add_warning(s, d.bad_optional, "optional values of the wrong type or out of range (read as absent)");
  add_warning(s, d.nvtx_unclosed, "NVTX ranges without an end (skipped)");
  write_meta(schema, d, *out.store, s, db.name());
  EventStore& st = *out.store;
  sorted_into(st, st.kernels, d.kernels);
  sorted_into(st, st.memcpys, d.memcpys);
  sorted_into(st, st.memsets, d.memsets);
  sorted_into(st, st.runtime, d.runtime);
  sorted_into(st, st.syncs, d.syncs);
  write_threads(d, st);
  sorted_into(st, st.host_ranges, d.host);
  sorted_into(st, st.steps, step_rows);
  return out;
}

/// The file's header (its first 100 bytes): "SQLite format 3\0" for any SQLite database; a TrainScope
/// session's PRAGMA application_id sits big-endian at byte 68. Read from the header, not through
/// SQLite: a session in WAL mode would need its -shm file created beside it to be opened.
void check_header(const void* head, std::size_t n, const std::string& name) {
  const auto* b = static_cast<const unsigned char*>(head);
  if (n < 16 || std::memcmp(b, "SQLite format 3", 16) != 0) {
    if (ends_with(name, ".nsys-rep") || ends_with(name, ".qdrep")) throw InputError(report_refusal(name));
    throw InputError(name + ": not a SQLite file, so not an Nsight Systems export; " + kExportHint);
  }
  if (n < 72) return;
  const std::uint32_t app = std::uint32_t{b[68]} << 24 | std::uint32_t{b[69]} << 16 | std::uint32_t{b[70]} << 8 | b[71];
  if (app == static_cast<std::uint32_t>(kSessionApplicationId))
    throw InputError(name +
                     ": a TrainScope session, not a trace: open it as a session (trainscope-run --analyze, or "
                     "the window)");
}

}  // namespace

bool is_nsys_path(const std::string& path) {
  return ends_with(path, ".sqlite") || ends_with(path, ".nsys-rep") || ends_with(path, ".qdrep");
}

std::string report_refusal(const std::string& path) {
  return path + ": an Nsight Systems report, not its SQLite export: run `nsys export --type sqlite " + path +
         "` and open the .sqlite file it writes";
}

ImportedTrace import_export(const std::string& path, const ImportOptions& options) {
  char head[100] = {};
  // SQLite reads pages as it needs them: no size cap, but a device or a pipe is not opened.
  if (std::error_code ec; std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw InputError(path + ": not a regular file (a device, a pipe or a folder)");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": does not exist or cannot be read");
  f.read(head, sizeof head);
  check_header(head, static_cast<std::size_t>(f.gcount()), path);
  const Db db = Db::open_file(path);
  return run(db, options);
}

ImportedTrace import_export_bytes(const void* data, std::size_t size, const std::string& name,
                                  const ImportOptions& options) {
  check_header(data, size, name);
  const Db db = Db::open_bytes(data, size, name);
  return run(db, options);
}

}  // namespace ts::prof::import::nsys
