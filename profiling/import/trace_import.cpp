// import_trace(): the byte source, the cleaning JSON stream, the SAX reader and the builder put
// together; errors become one line naming the file and the byte offset (see trace_import.h).
#include "profiling/import/trace_import.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>

#include "profiling/import/json_input.h"
#include "profiling/import/nsys/nsys_import.h"
#include "profiling/import/trace_builder.h"
#include "profiling/import/trace_reader.h"

namespace ts::prof::import {

std::int64_t ImportSummary::warning_count() const {
  std::int64_t n = 0;
  for (const auto& w : warnings) n += w.count;
  return n;
}

std::string ImportSummary::warnings_text() const {
  if (warnings.empty()) return "none";
  std::string out;
  for (const auto& w : warnings) {
    if (!out.empty()) out += "; ";
    out += std::to_string(w.count) + " " + w.what;
    std::string where;
    if (w.first_offset >= 0) where = "first at " + at_byte(w.first_offset);
    if (!w.first_detail.empty()) where += (where.empty() ? "" : ", ") + w.first_detail;
    if (!where.empty()) out += " (" + where + ")";
  }
  return out;
}

namespace {

ImportedTrace run_import(ByteSource& src, const std::string& name, const ImportOptions& opt) {
  ImportedTrace out;
  out.store = std::make_shared<EventStore>();
  const StepRangePattern step_range(opt.step_range);  // a bad pattern is refused before the file is read
  TraceBuilder builder(*out.store);
  std::int64_t last_reported = -1;
  JsonInput in(src, [&](std::int64_t done, std::int64_t total) {
    if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) return false;
    if (opt.progress && (last_reported < 0 || (done - last_reported) * 200 >= std::max<std::int64_t>(total, 1))) {
      last_reported = done;
      opt.progress(done, total);
    }
    return true;
  }, opt.max_string_bytes);
  TopLevel top;
  const ParseOutcome r = parse_trace(in, builder, top);
  if (r.cancelled) throw ImportCancelled("import of " + name + " cancelled");
  if (in.string_too_long() >= 0)
    throw InputError("trace " + name + ": the string at " + at_byte(in.string_too_long()) + " of the JSON text is longer than " +
                     size_text(in.max_string_bytes()) + " (the most one string of a trace may hold)");
  const std::string where = " at " + at_byte(r.error_offset) + " of the JSON text";
  if (!r.ok) throw InputError("trace " + name + ": " + r.error + where);
  const bool truncated = r.truncated || src.truncated();
  if (!top.has_trace_events)
    throw InputError("trace " + name + (truncated ? ": ends" + where + " before traceEvents (truncated)"
                                                  : ": no traceEvents (not a Chrome or PyTorch profiler trace)"));
  ImportSummary& s = out.summary;
  s.truncated = truncated;
  s.bytes = static_cast<std::int64_t>(in.Tell());
  if (truncated) {
    if (builder.events_read() == 0)
      throw InputError("trace " + name + ": ends" + where + " before its first complete event (truncated)");
    builder.warn(Warn::truncated, r.truncated ? r.error_offset : s.bytes,
                 src.truncated() ? "the gzip stream is cut short" : "the JSON text ends inside the document");
  }
  builder.warn_count(Warn::control_chars, in.control_chars(), in.first_control_offset(), "");
  builder.warn_count(Warn::nan_inf, in.nan_inf_rewritten(), -1, "");
  builder.finish(top, name, s, step_range);
  if (opt.progress) opt.progress(src.total(), src.total());
  return out;
}

}  // namespace

ImportedTrace import_trace(const std::string& path, const ImportOptions& options) {
  // SQLite (an Nsight Systems export, or a session handed to the importer: the export reader says
  // which) and Nsight Systems report names go to profiling/import/nsys.
  if (nsys::is_nsys_path(path)) return nsys::import_export(path, options);
  (void)regular_file_bytes(path, "trace");  // a device or a pipe is refused before a byte is read
  if (std::ifstream f(path, std::ios::binary); f) {
    char magic[16] = {};
    if (f.read(magic, sizeof magic) && std::memcmp(magic, "SQLite format 3", 16) == 0)
      return nsys::import_export(path, options);
  }
  auto src = open_file_source(path, options.max_text_bytes);
  return run_import(*src, path, options);
}

ImportedTrace import_trace_bytes(const void* data, std::size_t size, const std::string& name,
                                 const ImportOptions& options) {
  auto src = open_memory_source(data, size, name, options.max_text_bytes);
  return run_import(*src, name, options);
}

namespace {

class TraceSource final : public EventSource {
 public:
  TraceSource(std::string path, ImportedTrace t) : path_(std::move(path)), trace_(std::move(t)) {}
  const EventStore& store() const override { return *trace_.store; }
  std::shared_ptr<const EventStore> shared_store() const override { return trace_.store; }
  std::string kind() const override { return trace_.summary.kind; }
  std::string origin() const override { return path_; }

 private:
  std::string path_;
  ImportedTrace trace_;
};

}  // namespace

std::unique_ptr<EventSource> open_trace(const std::string& path, const ImportOptions& options) {
  return std::make_unique<TraceSource>(path, import_trace(path, options));
}

bool is_trace_path(const std::string& path) {
  std::string p = path;
  std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  auto ends = [&](const char* s) {
    const std::string e(s);
    return p.size() >= e.size() && p.compare(p.size() - e.size(), e.size(), e) == 0;
  };
  return ends(".json") || ends(".json.gz") || nsys::is_nsys_path(path);
}

}  // namespace ts::prof::import
