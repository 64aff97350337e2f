// The stepping thread's Python lines in a range (python_lines.h) and the resolution of a stack to the
// program's own line that host_idle.cpp's evidence shares.
#include "profiling/analysis/python_lines.h"

#include <algorithm>
#include <map>

#include "profiling/analysis/internal.h"

namespace ts::prof::analysis {

bool is_library_file(const std::string& f) {
  return f.empty() || f[0] == '<' || f.find("/site-packages/") != std::string::npos ||
         f.find("/dist-packages/") != std::string::npos || f.find("/lib/python3") != std::string::npos;
}

std::string base_name(const std::string& f) {
  const auto at = f.find_last_of('/');
  return at == std::string::npos ? f : f.substr(at + 1);
}

StackNames::StackNames(const EventStore& store) : store_(store) {
  for (std::size_t i = 0, n = store.py_frames.size(); i < n; ++i) frames_[store.py_frames[i].id] = i;
  for (std::size_t i = 0, n = store.py_stacks.size(); i < n; ++i) stacks_[store.py_stacks[i].id] = i;
}

const FrameShare& StackNames::of(std::uint32_t stack) {
  auto [it, fresh] = cache_.try_emplace(stack);
  if (!fresh) return it->second;
  FrameShare& out = it->second;
  bool first = true;
  walk(stack, [&](const PyFrameRecord& fr) {
    const std::string& file = store_.strings.get(fr.file);
    const std::string here = base_name(file) + ":" + std::to_string(fr.line);
    if (!is_library_file(file)) {
      out.where = here, out.function = store_.strings.get(fr.function);
      return false;
    }
    if (first) out.innermost = here + " " + store_.strings.get(fr.function);
    first = false;
    return true;
  });
  if (out.where.empty()) out.where = out.innermost.empty() ? "?" : out.innermost, out.innermost.clear();
  return out;
}

std::vector<std::string> StackNames::frames(std::uint32_t stack) const {
  std::vector<std::string> v;
  walk(stack, [&](const PyFrameRecord& fr) {
    v.push_back(base_name(store_.strings.get(fr.file)) + ":" + std::to_string(fr.line) + " " +
                store_.strings.get(fr.function));
    return true;
  });
  std::reverse(v.begin(), v.end());
  return v;
}

namespace {

using detail::Span;

/// Kernels, copies and memsets overlapping [lo, hi), clipped to it and merged.
std::vector<Span> gpu_busy(const EventStore& store, std::int64_t lo, std::int64_t hi) {
  std::vector<Span> v;
  auto add = [&](const auto& log) {
    for (std::size_t i = 0, n = log.size(); i < n; ++i)
      if (log[i].end > lo && log[i].start < hi) v.push_back({std::max(log[i].start, lo), std::min(log[i].end, hi)});
  };
  add(store.kernels), add(store.memcpys), add(store.memsets);
  detail::merge(v);  // sorts by start
  return v;
}

bool busy_at(const std::vector<Span>& busy, std::int64_t t) {
  auto it = std::upper_bound(busy.begin(), busy.end(), t, [](std::int64_t x, const Span& s) { return x < s.start; });
  return it != busy.begin() && t < std::prev(it)->end;
}

/// The range python_lines counts (its header).
void choose_range(const EventStore& store, const detail::Timeline& tl, std::int64_t from, std::int64_t to,
                  PythonLines& out) {
  if (to > from) {
    out.from_ns = from, out.to_ns = to;
  } else if (!tl.steps.empty()) {
    out.from_ns = tl.steps.front().start, out.to_ns = tl.steps.back().end;
    out.analysed_steps = true, out.steps = static_cast<std::int64_t>(tl.steps.size());
  } else if (const std::size_t n = store.py_samples.size(); n > 0) {
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (std::size_t i = 0; i < n; ++i)
      lo = std::min(lo, store.py_samples[i].time), hi = std::max(hi, store.py_samples[i].time);
    out.from_ns = lo, out.to_ns = hi + 1;
  }
}

}  // namespace

PythonLines python_lines(const EventStore& store, std::int64_t from_ns, std::int64_t to_ns, std::int64_t warmup_steps) {
  PythonLines out;
  const std::size_t n = store.py_samples.size();
  out.recorded_samples = static_cast<std::int64_t>(n);
  out.gpu_recorded = store.kernels.size() + store.memcpys.size() + store.memsets.size() > 0;
  if (n == 0) return out;  // no Python insight: nothing to count (and no timeline to build)
  const detail::Timeline tl = detail::build_timeline(store, 0, warmup_steps, nullptr);
  choose_range(store, tl, from_ns, to_ns, out);
  if (out.to_ns <= out.from_ns) return out;
  const std::vector<Span> busy = gpu_busy(store, out.from_ns, out.to_ns);
  StackNames names(store);
  struct Acc {
    PythonLine line;
    std::map<std::uint32_t, std::int64_t> stacks;       // stack id -> samples
    std::map<std::string, std::int64_t> innermost;      // innermost frame -> samples
  };
  std::map<std::string, Acc> by_line;  // by the program's line, as host_idle.cpp counts them
  for (std::size_t i = 0; i < n; ++i) {
    const PySampleRecord& s = store.py_samples[i];
    if (s.time < out.from_ns || s.time >= out.to_ns || !tl.is_trainer(s.thread)) continue;
    const bool idle = !busy_at(busy, s.time);
    ++out.samples, out.idle_samples += idle;
    const FrameShare& f = names.of(s.stack);
    Acc& a = by_line[f.where];
    if (a.line.samples == 0) a.line.where = f.where, a.line.function = f.function;
    ++a.line.samples, a.line.idle_samples += idle;
    ++a.stacks[s.stack], ++a.innermost[f.innermost];
  }
  out.lines.reserve(by_line.size());
  for (auto& [key, a] : by_line) {
    PythonLine& l = a.line;
    // the innermost frame that took most of the line's samples (host_idle.cpp names the same one)
    l.innermost = std::max_element(a.innermost.begin(), a.innermost.end(), [](const auto& x, const auto& y) {
                    return x.second < y.second;
                  })->first;
    l.pct = 100.0 * static_cast<double>(l.samples) / static_cast<double>(out.samples);
    l.idle_pct =
        out.idle_samples > 0 ? 100.0 * static_cast<double>(l.idle_samples) / static_cast<double>(out.idle_samples) : 0;
    std::uint32_t top = 0;
    for (const auto& [stack, count] : a.stacks)
      if (count > l.stack_samples) top = stack, l.stack_samples = count;
    l.stack = names.frames(top);
    out.lines.push_back(std::move(l));
  }
  std::sort(out.lines.begin(), out.lines.end(), [](const PythonLine& a, const PythonLine& b) {
    if (a.samples != b.samples) return a.samples > b.samples;
    return a.where != b.where ? a.where < b.where : a.innermost < b.innermost;
  });
  return out;
}

}  // namespace ts::prof::analysis
