// Ladder arithmetic (median, throughput, shares) and its text and JSON forms (see ladder.h).
#include "playground/ladder.h"
#include "playground/json_write.h"

#include <fmt/core.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

namespace ts::playground {

int Ladder::failed_checks() const {
  int n = 0;
  for (const auto& v : variants) n += v.checked && !v.check_passed;
  return n;
}

std::string short_kernel_name(const std::string& name) {
  // Cut the top-level parameter list: the first '(' at template depth 0 that is not "(anonymous".
  std::string s = name;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<') ++depth;
    if (c == '>' && depth > 0) --depth;
    if (c == '(' && depth == 0 && s.compare(i, 20, "(anonymous namespace") != 0) {
      s.resize(i);
      break;
    }
  }
  // Drop everything up to the last top-level "::" and a return type before the first top-level space.
  std::size_t start = 0;
  depth = 0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    const char c = s[i];
    if (c == '<') ++depth;
    if (c == '>' && depth > 0) --depth;
    if (depth == 0 && c == ':' && s[i + 1] == ':') start = i + 2;
    if (depth == 0 && c == ' ' && s.compare(i, 11, " namespace)") != 0) start = std::max(start, i + 1);
  }
  s = s.substr(start);
  return s.empty() ? name : s;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

double throughput(Unit unit, double work, double ns) {
  if (ns <= 0) return 0;
  return unit == Unit::gbps ? work / ns : work / ns / 1e3;
}

void compute_shares(Ladder& ladder) {
  double best = 0;
  for (const auto& v : ladder.variants)
    if (v.check_passed) best = std::max(best, v.throughput);
  for (auto& v : ladder.variants) {
    v.share_of_best = best > 0 && v.check_passed ? v.throughput / best : 0;
    const double limit = v.limit > 0 ? v.limit : ladder.limit.value;
    v.share_of_limit = limit > 0 && v.check_passed ? v.throughput / limit : 0;
  }
}

namespace {

std::string time_text(double ns) {
  if (ns <= 0) return "-";
  if (ns >= 1e6) return fmt::format("{:.3f} ms", ns / 1e6);
  return fmt::format("{:.1f} us", ns / 1e3);
}

std::string check_text(const VariantResult& v) {
  if (!v.checked) return "not run";
  return v.check_passed ? "ok" : fmt::format("FAILED ({:.3g} > {:.3g})", v.max_error, v.tolerance);
}

bool any_measured(const Ladder& ladder) {
  for (const auto& v : ladder.variants)
    if (v.measured) return true;
  return false;
}

/// The measured group's header and a row's cells, or "" where the ladder was not measured.
constexpr const char* kMeasuredHead = "  | measured:  occ %   SM %  DRAM %  DRAM GB/s";
std::string measured_text(const std::optional<Measured>& m) {
  Measured none;
  none.why = "not measured";
  const std::vector<std::string> c = measured_cells(m ? *m : none);
  return fmt::format("  | {:>16}  {:>5}  {:>6}  {:>9}", c[0], c[1], c[2], c[3]);
}

std::string limit_text(const Limit& l, const char* unit) {
  return fmt::format("{} = {:.1f} {} ({}; {})", l.what, l.value, unit, l.measured ? "measured" : "datasheet", l.source);
}

}  // namespace

std::vector<std::string> measured_cells(const Measured& m) {
  if (!m.ok()) return {"n/a", "n/a", "n/a", "n/a"};
  auto pct = [](const std::optional<double>& v) { return v ? fmt::format("{:.1f}", *v) : std::string("-"); };
  return {pct(m.occupancy_pct), pct(m.sm_pct), pct(m.dram_pct),
          m.dram_gbps ? fmt::format("{:.0f}", *m.dram_gbps) : std::string("-")};
}

std::string format_text(const Ladder& ladder) {
  const char* unit = ladder.unit == Unit::gbps ? "GB/s" : "TFLOP/s";
  std::size_t w = 8;
  for (const auto& v : ladder.variants) w = std::max(w, v.name.size());
  std::string s = fmt::format("== {} ({} {} = {}) ==\n", ladder.title, ladder.family, ladder.size_what, ladder.size);
  if (!ladder.warning.empty()) s += "warning: " + ladder.warning + "\n";
  const bool measured = any_measured(ladder);
  s += fmt::format("{:<{}}  {:>11}  {:>11}  {:>9}  {:>6}  {:>6}{}  {:<8}  {}\n", "variant", w, "time", "event time", unit,
                   "best", "limit", measured ? kMeasuredHead : "", "check", "what it changed");
  for (const auto& v : ladder.variants) {
    const bool show = v.check_passed;  // a failed or unrun check shows no time
    s += fmt::format("{:<{}}  {:>11}  {:>11}  {:>9}  {:>5.0f}%  {:>5.0f}%{}  {:<8}  {}\n", v.name, w,
                     show ? time_text(v.median_ns) : "-", show ? time_text(v.event_ns) : "-",
                     show ? fmt::format("{:.1f}", v.throughput) : "-", 100 * v.share_of_best, 100 * v.share_of_limit,
                     measured ? measured_text(v.measured) : "", check_text(v), v.what_changed);
    std::string extra = v.launch;
    if (measured && (!v.measured || !v.measured->ok()))
      extra += (extra.empty() ? "" : "; ") + std::string("not measured: ") + (v.measured ? v.measured->why : "not asked");
    if (v.measured && !v.measured->absent.empty())
      extra += (extra.empty() ? "" : "; ") + std::string("measured without ") + v.measured->absent;
    if (v.limit > 0)
      extra += fmt::format("{}limit: {} = {:.1f} {}", extra.empty() ? "" : "; ", v.limit_what, v.limit, unit);
    if (!v.note.empty()) extra += (extra.empty() ? "" : "; ") + v.note;
    if (!extra.empty()) s += fmt::format("{:<{}}    {}\n", "", w, extra);
  }
  if (ladder.limit.value > 0) s += "limit: " + limit_text(ladder.limit, unit) + "\n";
  for (const auto& l : ladder.other_limits)
    if (l.value > 0) s += "beside: " + limit_text(l, unit) + "\n";
  s += fmt::format("timing: median of the launches' kernel time ({}); event time = CUDA events, mean per launch\n",
                   ladder.variants.empty() ? "-" : ladder.variants.front().time_source);
  if (measured)
    s += "measured: one more launch per row under CUPTI's range profiler (Nsight Compute's metrics: "
         "sm__warps_active.avg.pct_of_peak_sustained_active, sm__throughput / dram__throughput "
         ".avg.pct_of_peak_sustained_elapsed, dram__bytes_read.sum + dram__bytes_write.sum over gpu__time_duration.sum)\n";
  return s;
}

namespace {

template <class W>
void write_limit(W& w, const Limit& l) {
  w.StartObject();
  key_str(w, "what", l.what);
  w.Key("value");
  w.Double(l.value);
  w.Key("measured");
  w.Bool(l.measured);
  key_str(w, "source", l.source);
  w.EndObject();
}

template <class W>
void write_measured(W& w, const Measured& m) {
  auto number = [&w](const char* key, const std::optional<double>& v) {
    w.Key(key);
    if (v) w.Double(*v);
    else w.Null();
  };
  w.StartObject();
  key_str(w, "why", m.why);
  number("occupancy_pct", m.occupancy_pct);
  number("sm_pct", m.sm_pct);
  number("dram_pct", m.dram_pct);
  number("dram_gbps", m.dram_gbps);
  number("duration_ns", m.duration_ns);
  w.Key("kernels"), w.Int(m.kernels);
  key_str(w, "absent", m.absent);
  w.EndObject();
}

template <class W>
void write_variant(W& w, const VariantResult& v) {
  w.StartObject();
  key_str(w, "name", v.name);
  key_str(w, "what_changed", v.what_changed);
  w.Key("own"), w.Bool(v.own);
  w.Key("checked"), w.Bool(v.checked);
  w.Key("check_passed"), w.Bool(v.check_passed);
  w.Key("max_error"), w.Double(v.max_error);
  w.Key("tolerance"), w.Double(v.tolerance);
  key_str(w, "check_what", v.check_what);
  w.Key("median_ns"), w.Double(v.median_ns);
  w.Key("event_ns"), w.Double(v.event_ns);
  w.Key("launches"), w.Int(v.launches);
  w.Key("kernels_per_launch"), w.Int(v.kernels_per_launch);
  key_str(w, "time_source", v.time_source);
  w.Key("work"), w.Double(v.work);
  w.Key("throughput"), w.Double(v.throughput);
  w.Key("share_of_best"), w.Double(v.share_of_best);
  w.Key("share_of_limit"), w.Double(v.share_of_limit);
  key_str(w, "launch", v.launch);
  key_str(w, "note", v.note);
  w.Key("limit"), w.Double(v.limit);
  key_str(w, "limit_what", v.limit_what);
  w.Key("measured");
  if (v.measured) write_measured(w, *v.measured);
  else w.Null();
  w.EndObject();
}

}  // namespace

std::string format_json(const std::vector<Ladder>& ladders, const std::string& device_name, const std::string& timing) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  int failed = 0;
  w.StartObject();
  key_str(w, "device", device_name);
  key_str(w, "timing", timing);
  w.Key("ladders");
  w.StartArray();
  for (const auto& l : ladders) {
    failed += l.failed_checks();
    w.StartObject();
    key_str(w, "family", l.family);
    key_str(w, "title", l.title);
    key_str(w, "unit", l.unit == Unit::gbps ? "GB/s" : "TFLOP/s");
    w.Key("size"), w.Int64(l.size);
    key_str(w, "size_what", l.size_what);
    key_str(w, "warning", l.warning);
    w.Key("limit");
    write_limit(w, l.limit);
    w.Key("other_limits");
    w.StartArray();
    for (const auto& o : l.other_limits) write_limit(w, o);
    w.EndArray();
    w.Key("variants");
    w.StartArray();
    for (const auto& v : l.variants) write_variant(w, v);
    w.EndArray();
    w.Key("failed_checks"), w.Int(l.failed_checks());
    w.EndObject();
  }
  w.EndArray();
  w.Key("failed_checks"), w.Int(failed);
  w.EndObject();
  return buf.GetString();
}

}  // namespace ts::playground

#include "base/errors.h"

namespace ts::playground {

// Memory families default to 128 Mi floats = 512 MiB per buffer: >= 8x the H200's 60 MiB L2, so
// the figures are DRAM's. GEMMs at 4096^3 (SGEMM) and 8192^3 (tensor cores), the
// sizes the acceptance figures are stated at.
const std::vector<FamilyInfo>& families() {
  static const std::vector<FamilyInfo> kFamilies = {
      {"vector_add", "vector add: c = a + b, your threads per block and blocks per grid", 128ll << 20,
       "elements (floats)", 4096, 4096, 1ll << 31},
      {"copy", "device copy: this card's bandwidth ceiling", 128ll << 20, "elements (floats)", 4096, 4096, 1ll << 31},
      {"stride", "strided reads out[i] = in[i * stride]: coalescing", 64ll << 20, "elements read (floats)", 4096, 4096,
       1ll << 27},
      {"transpose", "transpose of a side x 2*side matrix: naive -> shared tile -> padded tile", 8192,
       "rows (the matrix is rows x 2*rows floats)", 32, 32, 32768},
      {"reduction", "sum of n floats, Harris's six steps", 128ll << 20, "elements (floats)", 2048, 2048, 1ll << 28},
      {"sgemm", "SGEMM ladder after Boehm's worklog, cuBLAS on top", 4096, "matrix side (M = N = K)", 128, 128, 16384},
      {"tensor", "tensor cores: WMMA fp16/bf16, cuBLAS FP32/TF32/BF16", 8192, "matrix side (M = N = K)", 128, 128,
       16384},
      {"divergence", "a branch per warp vs a branch per lane", 16ll << 20, "threads", 256, 256, 1ll << 28},
      {"occupancy", "block size, registers and shared memory vs resident warps", 128ll << 20, "elements (floats)", 4096,
       4096, 1ll << 28},
  };
  return kFamilies;
}

const FamilyInfo& family(const std::string& name) {
  std::string names;
  for (const auto& f : families()) {
    if (name == f.name) return f;
    names += (names.empty() ? "" : ", ") + std::string(f.name);
  }
  throw InputError("--playground: no family '" + name + "' (families: " + names + ", all)");
}

std::int64_t check_size(const FamilyInfo& f, std::int64_t size) {
  if (size == 0) return f.default_size;
  if (size < f.min_size || size > f.max_size || size % f.multiple_of != 0)
    throw InputError(fmt::format("--size {} for {}: the {} must be a multiple of {} in [{}, {}]", size, f.name,
                                 f.size_what, f.multiple_of, f.min_size, f.max_size));
  return size;
}

}  // namespace ts::playground
