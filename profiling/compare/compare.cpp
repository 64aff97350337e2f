// Comparing sessions (compare.h): config diff, throughput, accuracy, step alignment, and the
// Comparison that gathers them with each session's analysis report and the kernel diffs.
#include "profiling/compare/compare.h"

#include <fmt/core.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "base/json_guard.h"
#include "profiling/import/trace_analysis.h"
#include "profiling/job/job.h"

namespace ts::prof::compare {

namespace {

/// A JSON value as the user would write it: strings without quotes, numbers as written (integers
/// stay integers; doubles with up to 7 significant digits, the precision of the run config's floats).
std::string value_text(const rapidjson::Value& v) {
  if (v.IsString()) return std::string(v.GetString(), v.GetStringLength());
  if (v.IsBool()) return v.GetBool() ? "true" : "false";
  if (v.IsNull()) return "null";
  if (v.IsInt64()) return std::to_string(v.GetInt64());
  if (v.IsUint64()) return std::to_string(v.GetUint64());
  if (v.IsDouble()) return fmt::format("{:.7g}", v.GetDouble());
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return buf.GetString();
}

/// run.config's fields in their order; empty when absent or not a JSON object.
std::vector<std::pair<std::string, std::string>> config_fields(const std::map<std::string, std::string>& meta) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto it = meta.find("run.config");
  if (it == meta.end() || outside_json_problem(it->second)) return out;
  rapidjson::Document d;
  d.Parse(it->second.c_str(), it->second.size());
  if (d.HasParseError() || !d.IsObject()) return out;
  for (const auto& m : d.GetObject()) out.emplace_back(m.name.GetString(), value_text(m.value));
  return out;
}

/// The model spec by content: its name and a 32-bit FNV-1a hash of the JSON text (so two specs with
/// the same name but other layers still differ visibly).
std::optional<std::string> model_spec_text(const std::map<std::string, std::string>& meta) {
  const auto it = meta.find("run.model_spec");
  if (it == meta.end()) return std::nullopt;
  std::uint32_t h = 2166136261u;
  for (const unsigned char c : it->second) h = (h ^ c) * 16777619u;
  rapidjson::Document d;
  if (!outside_json_problem(it->second)) d.Parse(it->second.c_str(), it->second.size());
  std::string name = "?";
  if (!d.HasParseError() && d.IsObject() && d.HasMember("name") && d["name"].IsString()) name = d["name"].GetString();
  return fmt::format("{} #{:08x}", name, h);
}

bool compared_meta_key(const std::string& k) {
  return k.rfind("device.", 0) == 0 || k.rfind("versions.", 0) == 0 || k.rfind("host.", 0) == 0;
}

bool all_equal(const std::vector<std::optional<std::string>>& v) {
  return std::all_of(v.begin(), v.end(), [&](const auto& x) { return x == v.front(); });
}

/// The knobs the verdicts turn on (docs/metrics.md): a session that does not record one (a trace)
/// is never "the same" as another, even when neither records it: the row says "unknown".
constexpr const char* kLoopKnobs[] = {"batch_size", "num_workers", "pin_memory", "amp", "augment", "sync_every_step"};

/// Marks, in each difference, the sessions whose device does not use the field (gpu_only_field on a
/// CPU run, cpu_only_field on a CUDA run): their value becomes nullopt, said as not applicable.
void mark_not_applicable(std::vector<ConfigDifference>& diffs, const std::vector<std::map<std::string, std::string>>& metas) {
  std::vector<std::string> devices;
  for (const auto& m : metas) devices.push_back(session_device(m));
  for (ConfigDifference& d : diffs) {
    d.not_applicable.assign(d.values.size(), false);
    const bool gpu = gpu_only_field(d.key), cpu = cpu_only_field(d.key);
    for (std::size_t i = 0; i < d.values.size() && i < devices.size(); ++i)
      if ((gpu && devices[i] == "cpu") || (cpu && devices[i] == "cuda")) {
        d.values[i].reset();
        d.not_applicable[i] = true;
      }
  }
}

}  // namespace

bool gpu_only_field(const std::string& key) {
  static const char* const kGpuOnly[] = {"device.compute_capability", "device.multiprocessors", "device.total_memory_bytes",
                                         "device.ordinal", "versions.cublas", "versions.cudnn", "versions.cupti",
                                         "cuda_device", "cuda_graphs", "memory_limit_bytes", "allow_tf32", "pin_memory"};
  return key.rfind("versions.cuda", 0) == 0 ||
         std::find(std::begin(kGpuOnly), std::end(kGpuOnly), key) != std::end(kGpuOnly);
}

bool cpu_only_field(const std::string& key) { return key == "cpu_threads"; }

std::string session_device(const std::map<std::string, std::string>& meta) {
  if (const auto it = meta.find("device.kind"); it != meta.end() && (it->second == "cpu" || it->second == "cuda")) return it->second;
  for (const auto& [k, v] : config_fields(meta))
    if (k == "device" && (v == "cpu" || v == "cuda")) return v;
  return {};
}

std::string not_applicable_text(const std::map<std::string, std::string>& meta) {
  return session_device(meta) == "cpu" ? "n/a (CPU run)" : "n/a (GPU run)";
}

std::vector<ConfigDifference> config_diff(const std::vector<std::map<std::string, std::string>>& metas) {
  std::vector<ConfigDifference> out;
  const std::size_t n = metas.size();
  // run.config fields: the union, in first-seen order.
  std::vector<std::map<std::string, std::string>> fields(n);
  std::vector<std::string> order;
  for (std::size_t i = 0; i < n; ++i)
    for (auto& [k, v] : config_fields(metas[i])) {
      if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
      fields[i][k] = v;
    }
  auto add = [&](const std::string& key, auto value_of) {
    ConfigDifference d{key, {}, {}};
    for (std::size_t i = 0; i < n; ++i) d.values.push_back(value_of(i));
    if (!all_equal(d.values)) out.push_back(std::move(d));
  };
  for (const char* k : kLoopKnobs)  // added to the order where no session records them
    if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
  auto unknown_somewhere = [&](const std::string& k) {
    return std::find(std::begin(kLoopKnobs), std::end(kLoopKnobs), k) != std::end(kLoopKnobs) &&
           std::any_of(fields.begin(), fields.end(), [&](const auto& f) { return !f.count(k); });
  };
  for (const auto& k : order) {
    if (unknown_somewhere(k)) {  // "unknown" is not a value equal to another
      ConfigDifference d{k, {}, {}};
      for (std::size_t i = 0; i < n; ++i) {
        const auto it = fields[i].find(k);
        d.values.push_back(it == fields[i].end() ? std::nullopt : std::optional<std::string>(it->second));
      }
      out.push_back(std::move(d));
      continue;
    }
    add(k, [&](std::size_t i) -> std::optional<std::string> {
      const auto it = fields[i].find(k);
      return it == fields[i].end() ? std::nullopt : std::optional<std::string>(it->second);
    });
  }
  add("model_spec", [&](std::size_t i) { return model_spec_text(metas[i]); });
  std::vector<std::string> keys;
  for (const auto& m : metas)
    for (const auto& [k, v] : m)
      if (compared_meta_key(k)) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  for (const auto& k : keys)
    add(k, [&](std::size_t i) -> std::optional<std::string> {
      const auto it = metas[i].find(k);
      return it == metas[i].end() ? std::nullopt : std::optional<std::string>(it->second);
    });
  mark_not_applicable(out, metas);
  return out;
}

RateUnit rate_unit(double largest_bytes_per_s) {
  if (largest_bytes_per_s >= 1e12) return {1e12, "TB/s", 2};
  if (largest_bytes_per_s >= 1e9) return {1e9, "GB/s", 1};
  return {};
}

Throughput throughput(const EventStore& store, std::int64_t warmup_steps) {
  Throughput t;
  const std::size_t n = store.steps.size();
  const std::size_t skip = std::min<std::size_t>(static_cast<std::size_t>(std::max<std::int64_t>(warmup_steps, 0)),
                                                 n > 1 ? n - 1 : 0);
  t.warmup_steps_skipped = static_cast<std::int64_t>(skip);
  for (std::size_t i = 0; i < skip; ++i) t.first_steps_ns += std::max<std::int64_t>(store.steps[i].end - store.steps[i].start, 0);
  std::vector<double> rates, durations;
  for (std::size_t i = skip; i < n; ++i) {
    const StepRecord& s = store.steps[i];
    const std::int64_t dur = s.end - s.start;
    ++t.steps;
    t.images += s.images;
    t.step_ns += std::max<std::int64_t>(dur, 0);
    durations.push_back(static_cast<double>(dur));
    if (dur > 0) rates.push_back(s.images / (dur / 1e9));
  }
  auto median = [](std::vector<double>& v) -> std::optional<double> {
    if (v.empty()) return std::nullopt;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  };
  t.median_img_per_s = median(rates);
  t.median_step_ns = median(durations);
  if (t.step_ns > 0) t.mean_img_per_s = t.images / (t.step_ns / 1e9);
  if (t.steps > 0) t.mean_step_ns = static_cast<double>(t.step_ns) / static_cast<double>(t.steps);
  if (!durations.empty()) t.slowest_step_ns = static_cast<std::int64_t>(*std::max_element(durations.begin(), durations.end()));
  t.training = training_throughput(store);
  return t;
}

bool first_steps_heavy(double first_steps_ms, double median_step_ms) {
  return median_step_ms > 0 && first_steps_ms > kOutlierTimesMedian * median_step_ms;
}

bool first_steps_heavy(const Throughput& t) {
  return first_steps_heavy(static_cast<double>(t.first_steps_ns) / 1e6, t.median_step_ns.value_or(0) / 1e6);
}

std::string describe_first_steps(double first_steps_ms, double median_step_ms) {
  if (!first_steps_heavy(first_steps_ms, median_step_ms)) return {};
  return fmt::format("the first step took {:.4g} ms ({:.0f}x the median {:.3g} ms: the run's one-time setup, such as "
                     "the convolution algorithm search and the first allocations): in images/s (training time), not "
                     "in the step figures",
                     first_steps_ms, first_steps_ms / median_step_ms, median_step_ms);
}

std::string describe_first_steps(const Throughput& t) {
  return describe_first_steps(static_cast<double>(t.first_steps_ns) / 1e6, t.median_step_ns.value_or(0) / 1e6);
}

TrainingThroughput training_throughput(const EventStore& store) {
  TrainingThroughput t;
  const std::size_t epochs = store.epochs.size();
  for (std::size_t i = 0; i < epochs; ++i) {
    const EpochRecord& e = store.epochs[i];
    if (e.train_ns <= 0) continue;
    // The epochs table keeps the trainer's rate and time; its images are their product (the trainer
    // computed the rate from whole images, so rounding gives them back).
    t.images += std::llround(e.images_per_s * (static_cast<double>(e.train_ns) / 1e9));
    t.train_ns += e.train_ns;
    t.from_epochs = true;
  }
  if (!t.from_epochs) {
    const std::size_t n = store.steps.size();
    std::int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (std::size_t i = 0; i < n; ++i) {
      const StepRecord& s = store.steps[i];
      t.images += s.images;
      t0 = std::min(t0, s.start);
      t1 = std::max(t1, s.end);
    }
    t.train_ns = n > 0 ? std::max<std::int64_t>(t1 - t0, 0) : 0;
  }
  if (t.images > 0 && t.train_ns > 0) t.img_per_s = static_cast<double>(t.images) / (static_cast<double>(t.train_ns) / 1e9);
  return t;
}

std::optional<double> data_wait_ns_per_step(const analysis::Report& report) {
  if (report.steps <= 0) return std::nullopt;
  return static_cast<double>(report.data_wait_ns) / static_cast<double>(report.steps);
}

Accuracy accuracy(const EventStore& store) {
  Accuracy a;
  const std::size_t n = store.epochs.size();
  a.epochs = static_cast<std::int32_t>(n);
  if (n == 0) return a;
  const EpochRecord* last = &store.epochs[0];
  for (std::size_t i = 1; i < n; ++i)
    if (store.epochs[i].epoch >= last->epoch) last = &store.epochs[i];
  a.last_epoch = last->epoch;
  a.test_accuracy = last->test_accuracy;
  a.test_loss = last->test_loss;
  a.train_loss = last->train_loss;
  a.epoch_img_per_s = last->images_per_s;
  return a;
}

namespace {
const StepRecord* find_step(const EventStore& s, std::int64_t global_step) {
  const std::size_t n = s.steps.size();
  for (std::size_t i = 0; i < n; ++i)
    if (s.steps[i].global_step == global_step) return &s.steps[i];
  return nullptr;
}
}  // namespace

std::optional<std::int64_t> step_alignment_offset(const EventStore& a, const EventStore& b, std::int64_t global_step) {
  const StepRecord* sa = find_step(a, global_step);
  const StepRecord* sb = find_step(b, global_step);
  if (!sa || !sb) return std::nullopt;
  return sa->start - sb->start;
}

namespace {

/// Comparison::slowest_rank_session: the straggler of the job the sessions make (profiling/job: own work
/// per step = step period minus the wait for other ranks), when every session is a distinct rank.
void slowest_rank(Comparison& c, const std::vector<const EventStore*>& stores, const std::vector<std::string>& labels) {
  const auto j = job::job_of(stores, labels);
  if (!j || j->ranks.size() < 2) return;
  const auto rep = job::analyze(*j, job::Options{c.options.warmup_steps});
  for (const auto& v : rep.verdicts) {
    if (v.id != "straggler") continue;
    for (std::size_t i = 0; i < c.sessions.size(); ++i)
      if (c.sessions[i].report.rank == v.rank) c.slowest_rank_session = static_cast<int>(i);
    for (const auto& [k, x] : v.evidence)
      if (k == "own_work_over_others_median") c.slowest_over_fastest = x;
    for (const auto& f : rep.ranks)
      if (f.rank == v.rank) c.slowest_own_work_ns = f.own_work_ns;
  }
}

}  // namespace

Comparison compare(const std::vector<const EventStore*>& stores, const std::vector<std::string>& labels,
                   const Options& options) {
  if (stores.size() < 2 || labels.size() != stores.size())
    throw std::invalid_argument("compare: needs two or more sessions, one label each");
  Comparison c;
  c.options = options;
  std::vector<std::map<std::string, std::string>> metas;
  analysis::Options ao;
  ao.per_step = false;
  ao.warmup_steps = options.warmup_steps;
  for (std::size_t i = 0; i < stores.size(); ++i) {
    const EventStore& s = *stores[i];
    SessionSummary x;
    x.label = labels[i];
    x.meta = s.meta();
    x.throughput = throughput(s, options.warmup_steps);
    x.accuracy = accuracy(s);
    x.report = import::analyze_session(s, ao);  // a session from a trace: as --analyze reads it
    x.recorded_steps = static_cast<std::int64_t>(s.steps.size());
    metas.push_back(x.meta);
    c.sessions.push_back(std::move(x));
  }
  c.config = config_diff(metas);
  slowest_rank(c, stores, labels);
  // Kernels of the analysed steps (after the warm-up), totals per analysed step.
  std::vector<std::vector<KernelTotals>> totals;
  std::vector<std::int64_t> steps;
  for (std::size_t i = 0; i < stores.size(); ++i) {
    const EventStore& s = *stores[i];
    const auto& t = c.sessions[i].throughput;
    const bool has_steps = t.steps > 0;
    totals.push_back(kernel_totals(s, has_steps ? s.steps[static_cast<std::size_t>(t.warmup_steps_skipped)].global_step : -1));
    steps.push_back(t.steps);
  }
  for (std::size_t i = 1; i < stores.size(); ++i) {
    KernelDiff d = diff_kernels(totals[0], steps[0], totals[i], steps[i], options.kernels);
    d.session_a = 0, d.session_b = i;
    c.kernel_diffs.push_back(std::move(d));
  }
  // Alignment: the first step after the baseline's warm-up that every session recorded.
  std::vector<std::unordered_map<std::int64_t, std::int64_t>> starts(stores.size());
  for (std::size_t i = 1; i < stores.size(); ++i)
    for (std::size_t r = 0; r < stores[i]->steps.size(); ++r)
      starts[i].emplace(stores[i]->steps[r].global_step, stores[i]->steps[r].start);
  const EventStore& a = *stores[0];
  for (std::size_t r = static_cast<std::size_t>(c.sessions[0].throughput.warmup_steps_skipped); r < a.steps.size(); ++r) {
    const StepRecord& s = a.steps[r];
    std::vector<std::int64_t> offsets{0};
    for (std::size_t i = 1; i < stores.size(); ++i)
      if (const auto it = starts[i].find(s.global_step); it != starts[i].end()) offsets.push_back(s.start - it->second);
    if (offsets.size() == stores.size()) {
      c.aligned_step = s.global_step;
      c.alignment_offsets_ns = std::move(offsets);
      break;
    }
  }
  return c;
}

}  // namespace ts::prof::compare
