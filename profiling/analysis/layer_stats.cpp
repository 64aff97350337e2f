// layer_stats(): per-layer host and GPU time from the trainer's layer ranges and the kernels their
// runtime calls launched (by correlation id; a CUDA graph's kernels by their node's capture-time
// launch), plus the memory estimate from the model spec.
// Definitions and what is measured vs computed: layer_stats.h.
#include "profiling/analysis/layer_stats.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include "base/errors.h"
#include "engine/host_trace.h"
#include "engine/model_spec.h"
#include "engine/pool_fusion.h"
#include "profiling/analysis/analysis.h"
#include "profiling/cupti/graph_nodes.h"

namespace ts::prof::analysis {

void LayerMemory::add(const LayerMemory& o) {
  parameters += o.parameters, weights_bytes += o.weights_bytes, gradients_bytes += o.gradients_bytes;
  optimizer_bytes += o.optimizer_bytes, activations_bytes += o.activations_bytes;
}

int layer_index_of(const std::string& label) {
  if (label.rfind("layer ", 0) != 0 || label.size() < 7) return -1;
  char* end = nullptr;
  const long v = std::strtol(label.c_str() + 6, &end, 10);
  if (end == label.c_str() + 6 || (*end != '\0' && *end != ' ') || v < 0 || v > 1000000) return -1;
  return static_cast<int>(v);
}

namespace {

using K = trace::RangeKind;
enum Phase : int { forward, backward, eval };

struct Iv {
  std::int64_t start, end;
};
struct LayerRange {
  std::int64_t start, end;
  int row;
  Phase phase;
  bool kept;  // passes the step filter
};

bool in_step(std::int64_t step, const LayerStatsOptions& o) {
  return (o.first_step < 0 || step >= o.first_step) && (o.last_step < 0 || step <= o.last_step);
}

/// Index of the interval of sorted, disjoint-by-start `v` holding t (start <= t < end), or -1.
template <class T>
std::ptrdiff_t holding(const std::vector<T>& v, std::int64_t t) {
  auto it = std::upper_bound(v.begin(), v.end(), t, [](std::int64_t x, const T& r) { return x < r.start; });
  if (it == v.begin()) return -1;
  --it;
  return t < it->end ? it - v.begin() : -1;
}

/// What the host ranges give: layer rows, layer ranges per trainer thread, eval time.
struct HostSide {
  std::vector<LayerStats> rows;
  std::map<std::uint32_t, std::vector<LayerRange>> by_thread;  // sorted by start
  std::vector<Iv> steps;                                         // StepRecords in the filter, by start
};

HostSide read_host(const EventStore& s, const StoreCounts& n, const LayerStatsOptions& o, LayerReport& r) {
  HostSide h;
  std::map<std::uint32_t, std::vector<Iv>> evals;  // every eval range, per thread
  for (std::size_t i = 0; i < n.host_ranges; ++i) {
    const HostRangeRecord& x = s.host_ranges[i];
    if (x.kind != static_cast<std::uint8_t>(K::eval)) continue;
    evals[x.thread].push_back({x.start, x.end});
    if (in_step(x.step, o)) r.eval_ns += std::max<std::int64_t>(0, x.end - x.start);
  }
  for (auto& [tid, v] : evals) std::sort(v.begin(), v.end(), [](const Iv& a, const Iv& b) { return a.start < b.start; });
  std::unordered_map<StringId, int> row_of;
  for (std::size_t i = 0; i < n.host_ranges; ++i) {
    const HostRangeRecord& x = s.host_ranges[i];
    const bool fwd = x.kind == static_cast<std::uint8_t>(K::forward);
    if ((!fwd && x.kind != static_cast<std::uint8_t>(K::backward)) || x.layer == kNoString) continue;
    auto [it, added] = row_of.emplace(x.layer, static_cast<int>(h.rows.size()));
    if (added) {
      LayerStats row;
      row.label = s.strings.get(x.layer);
      row.spec_index = layer_index_of(row.label);
      h.rows.push_back(std::move(row));
    }
    auto ev = evals.find(x.thread);
    const bool in_eval = fwd && ev != evals.end() && holding(ev->second, x.start) >= 0;
    const Phase ph = in_eval ? eval : fwd ? forward : backward;
    const bool kept = in_step(x.step, o);
    h.by_thread[x.thread].push_back({x.start, x.end, it->second, ph, kept});
    if (!kept) continue;
    PhaseTime& p = ph == eval ? h.rows[it->second].eval : ph == forward ? h.rows[it->second].forward : h.rows[it->second].backward;
    ++p.calls;
    p.host_ns += std::max<std::int64_t>(0, x.end - x.start);
  }
  for (auto& [tid, v] : h.by_thread)
    std::sort(v.begin(), v.end(), [](const LayerRange& a, const LayerRange& b) { return a.start < b.start; });
  for (std::size_t i = 0; i < n.steps; ++i) {
    const StepRecord& st = s.steps[i];
    if (!in_step(st.global_step, o)) continue;
    ++r.steps;
    r.step_ns += std::max<std::int64_t>(0, st.end - st.start);
    h.steps.push_back({st.start, st.end + 1});  // a call at the step's end still belongs to it
  }
  std::sort(h.steps.begin(), h.steps.end(), [](const Iv& a, const Iv& b) { return a.start < b.start; });
  return h;
}

struct Call {
  std::uint32_t correlation;
  std::int64_t start;
  std::uint32_t thread;  // the host-range thread whose layer ranges this call is matched against
};

/// The trainer's runtime calls, sorted by correlation id. When no runtime thread id is a host range
/// thread (older sessions), the thread with the most launch calls stands for the host thread with
/// the most layer ranges.
std::vector<Call> trainer_calls(const EventStore& s, const StoreCounts& n, const HostSide& h, LayerReport& r) {
  bool agree = false;
  std::map<std::uint32_t, std::int64_t> launches;
  std::vector<std::int8_t> is_launch(s.strings.size(), -1);
  for (std::size_t i = 0; i < n.runtime && !agree; ++i) {
    const RuntimeRecord& c = s.runtime[i];
    if (h.by_thread.count(c.thread)) agree = true;
    if (c.name >= is_launch.size()) continue;
    if (is_launch[c.name] < 0) is_launch[c.name] = s.strings.get(c.name).find("Launch") != std::string::npos;
    if (is_launch[c.name]) ++launches[c.thread];
  }
  std::uint32_t rt_thread = 0, host_thread = 0;
  if (!agree) {
    std::int64_t most = 0;
    for (const auto& [tid, k] : launches)
      if (k > most) rt_thread = tid, most = k;
    std::size_t most_ranges = 0;
    for (const auto& [tid, v] : h.by_thread)
      if (v.size() > most_ranges) host_thread = tid, most_ranges = v.size();
    r.runtime_thread_guessed = most > 0 && most_ranges > 0;
    if (!r.runtime_thread_guessed) return {};
  }
  std::vector<Call> calls;
  for (std::size_t i = 0; i < n.runtime; ++i) {
    const RuntimeRecord& c = s.runtime[i];
    if (c.correlation == 0) continue;
    if (agree && h.by_thread.count(c.thread)) calls.push_back({c.correlation, c.start, c.thread});
    else if (!agree && c.thread == rt_thread) calls.push_back({c.correlation, c.start, host_thread});
  }
  std::sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) { return a.correlation < b.correlation; });
  return calls;
}

/// The trainer's call with correlation id `corr`; for an id no runtime call has (a kernel launched
/// through the driver API, as cuBLAS launches its CUTLASS kernels, which the RUNTIME activity does not
/// record), the call with the next lower id when it started no later than `not_after`, and
/// `preceding` says so: ids are handed out in call order to runtime and driver calls alike, so the
/// trainer's preceding runtime call was made just before it. Null when neither.
const Call* launching_call(const std::vector<Call>& calls, std::uint32_t corr, std::int64_t not_after, bool& preceding) {
  preceding = false;
  if (corr == 0) return nullptr;
  auto c = std::lower_bound(calls.begin(), calls.end(), corr, [](const Call& a, std::uint32_t v) { return a.correlation < v; });
  if (c != calls.end() && c->correlation == corr) return &*c;
  if (c == calls.begin() || std::prev(c)->start > not_after) return nullptr;
  preceding = true;
  return &*std::prev(c);
}

/// Each kernel to the layer range holding its launching call. A kernel replayed from a CUDA graph
/// carries its cudaGraphLaunch's correlation id; when its graph node maps to the launch that was
/// captured (graph_nodes), it goes where that launch was, and counts in the step of its replay.
void attribute_kernels(const EventStore& s, const StoreCounts& n, const LayerStatsOptions& o, HostSide& h,
                       const std::vector<Call>& calls, LayerReport& r) {
  const auto captured_by = graph_node_correlations(s, n.graph_nodes);
  const bool step_filter = o.first_step >= 0 || o.last_step >= 0;
  for (std::size_t i = 0; i < n.kernels; ++i) {
    const KernelRecord& k = s.kernels[i];
    const std::int64_t dur = std::max<std::int64_t>(0, k.end - k.start);
    const auto node = k.graph_node != 0 ? captured_by.find(k.graph_node) : captured_by.end();
    const bool captured = node != captured_by.end();
    if (!captured && (k.graph_id != 0 || k.graph_node != 0)) ++r.graph_kernels_unmapped;
    bool preceding = false;
    const Call* c = launching_call(calls, captured ? node->second : k.correlation, k.start, preceding);
    if (!c) {
      ++r.kernels_unmatched;
      continue;
    }
    if (preceding) ++r.kernels_by_preceding_call;
    std::int64_t step_time = c->start;  // the call whose step the kernel ran in
    if (captured) {
      ++r.kernels_by_graph_node;
      bool via_driver = false;
      const Call* replay = launching_call(calls, k.correlation, k.start, via_driver);
      if (replay && !via_driver) step_time = replay->start;
    }
    const bool in_steps = holding(h.steps, step_time) >= 0;
    const auto& ranges = h.by_thread[c->thread];
    const std::ptrdiff_t at = holding(ranges, c->start);
    if (at >= 0) {
      const LayerRange& lr = ranges[static_cast<std::size_t>(at)];
      // A captured range belongs to the step that captured it; its replays to theirs.
      if (captured ? step_filter && !in_steps : !lr.kept) continue;
      LayerStats& row = h.rows[static_cast<std::size_t>(lr.row)];
      PhaseTime& p = lr.phase == eval ? row.eval : lr.phase == forward ? row.forward : row.backward;
      ++p.kernels;
      p.gpu_kernel_ns += dur;
    } else if (in_steps) {
      ++r.kernels_outside_layers;
      r.kernel_ns_outside_layers += dur;
    }
  }
}

/// Memory estimate per row from the spec: each row covers its spec layer and the following layers
/// that have no row of their own (fused into it).
void add_memory(const std::map<std::string, std::string>& meta, LayerReport& r) {
  auto it = meta.find("run.model_spec");
  if (it == meta.end() || it->second.empty()) {
    r.memory_note = "no run.model_spec in the session: memory not estimated";
    return;
  }
  ModelSpec spec;
  std::vector<LayerShape> shapes;
  try {
    spec = parse_model_spec(it->second, "session meta run.model_spec");
    shapes = infer_shapes(spec, 0);
  } catch (const std::exception& e) {
    r.memory_note = std::string("memory not estimated: ") + e.what();
    return;
  }
  const RunConfig cfg = run_config(meta);
  const bool momentum = cfg.momentum > 0;
  r.optimizer = cfg.optimizer;
  const bool amp = cfg.amp == "fp16" || cfg.amp == "bf16";
  r.batch_size = cfg.batch_size;
  r.activation_bytes = amp ? 2 : 4;
  r.memory_from_spec = true;
  if (r.batch_size <= 0) r.memory_note = "batch size unknown (run.config): activations not estimated";
  const std::int64_t opt_per_param = r.optimizer == "adam" || r.optimizer == "adamw" ? 8 : (r.optimizer == "sgd" && momentum ? 4 : 0);
  const int n_spec = static_cast<int>(spec.layers.size());
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    LayerStats& row = r.layers[i];
    if (row.spec_index < 0 || row.spec_index >= n_spec) continue;
    // Rows are sorted by spec index: the next row's index (or the spec's end) closes this span.
    int end = n_spec;
    if (i + 1 < r.layers.size() && r.layers[i + 1].spec_index > row.spec_index) end = std::min(end, r.layers[i + 1].spec_index);
    const LayerSpec& first = spec.layers[static_cast<std::size_t>(row.spec_index)];
    row.type = layer_type_name(first.type);
    row.name = first.name;
    LayerMemory m;
    std::int64_t fused_pool_bytes = 0;  // per sample: a fused max pool's raw convolution output and index
    for (int k = row.spec_index; k < end; ++k) {
      const LayerShape& shape = shapes[static_cast<std::size_t>(k)];
      m.parameters += shape.parameters;
      if (k > row.spec_index) {
        const LayerSpec& f = spec.layers[static_cast<std::size_t>(k)];
        row.fused.push_back(f.name.empty() ? std::string(layer_type_name(f.type)) : f.name);
        if (fuses_max_pool(spec, static_cast<std::size_t>(k), shape.input))
          fused_pool_bytes += numel(shape.input) * r.activation_bytes + numel(shape.output);
      }
    }
    m.weights_bytes = m.parameters * (4 + (amp ? 2 : 0));
    m.gradients_bytes = m.parameters * 4;
    m.optimizer_bytes = m.parameters * opt_per_param;
    if (r.batch_size > 0)
      m.activations_bytes =
          (numel(shapes[static_cast<std::size_t>(end - 1)].output) * r.activation_bytes + fused_pool_bytes) *
          r.batch_size;
    row.memory = m;
    r.memory_total.add(m);
  }
}

void shares(PhaseTime& p, std::int64_t ref) {
  p.host_share = ref > 0 ? static_cast<double>(p.host_ns) / static_cast<double>(ref) : 0.0;
  p.gpu_share = ref > 0 ? static_cast<double>(p.gpu_kernel_ns) / static_cast<double>(ref) : 0.0;
}

}  // namespace

LayerReport layer_stats(const EventStore& store, const LayerStatsOptions& o) {
  LayerReport r;
  const StoreCounts now = store.counts();
  StoreCounts n = now;
  if (o.limit) {
    n.host_ranges = std::min(o.limit->host_ranges, now.host_ranges);
    n.runtime = std::min(o.limit->runtime, now.runtime);
    n.kernels = std::min(o.limit->kernels, now.kernels);
    n.steps = std::min(o.limit->steps, now.steps);
    n.graph_nodes = std::min(o.limit->graph_nodes, now.graph_nodes);
  }
  HostSide h = read_host(store, n, o, r);
  const std::vector<Call> calls = trainer_calls(store, n, h, r);
  attribute_kernels(store, n, o, h, calls, r);
  r.layers = std::move(h.rows);
  std::sort(r.layers.begin(), r.layers.end(), [](const LayerStats& a, const LayerStats& b) {
    if ((a.spec_index < 0) != (b.spec_index < 0)) return b.spec_index < 0;
    return a.spec_index != b.spec_index ? a.spec_index < b.spec_index : a.label < b.label;
  });
  for (auto& row : r.layers) shares(row.forward, r.step_ns), shares(row.backward, r.step_ns), shares(row.eval, r.eval_ns);
  add_memory(store.meta(), r);
  return r;
}

}  // namespace ts::prof::analysis
