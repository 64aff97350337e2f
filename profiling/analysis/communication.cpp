// Communication and computation time (communication.h).
#include "profiling/analysis/communication.h"

#include <algorithm>

#include "profiling/analysis/analysis.h"
#include "profiling/analysis/internal.h"

namespace ts::prof::analysis {

bool is_communication_range(std::string_view name) { return name.rfind("comm: ", 0) == 0; }
bool is_async_communication_range(std::string_view name) { return name.rfind("comm: async ", 0) == 0; }

namespace {

std::vector<TimeInterval> intersect(const std::vector<TimeInterval>& x, const std::vector<TimeInterval>& y) {
  std::vector<TimeInterval> out;
  std::size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    const std::int64_t lo = std::max(x[i].start, y[j].start), hi = std::min(x[i].end, y[j].end);
    if (lo < hi) out.push_back({lo, hi});
    (x[i].end < y[j].end) ? ++i : ++j;
  }
  return out;
}

}  // namespace

CommunicationSpans communication_spans(const EventStore& store, const std::vector<bool>& collective) {
  CommunicationSpans s;
  std::vector<std::int8_t> by_name(store.strings.size(), -1);  // per name id, classified once
  for (std::size_t i = 0; i < store.kernels.size(); ++i) {
    const KernelRecord& k = store.kernels[i];
    bool coll = false;
    if (!collective.empty()) {
      coll = i < collective.size() && collective[i];
    } else if (k.name < by_name.size()) {
      if (by_name[k.name] < 0) by_name[k.name] = is_communication_kernel(store.strings.get(k.name));
      coll = by_name[k.name] > 0;
    }
    if (coll) {
      s.communication.push_back({k.start, k.end}), s.collective_kernels.push_back({k.start, k.end});
      ++s.collective_kernel_count;
    } else {
      s.computation.push_back({k.start, k.end});
    }
  }
  std::vector<std::int8_t> comm_name(store.strings.size(), -1);
  for (std::size_t i = 0; i < store.host_ranges.size(); ++i) {
    const HostRangeRecord& h = store.host_ranges[i];
    if (h.name >= comm_name.size()) continue;
    if (comm_name[h.name] < 0) comm_name[h.name] = is_communication_range(store.strings.get(h.name));
    if (comm_name[h.name] > 0) s.communication.push_back({h.start, h.end}), ++s.host_range_count;
  }
  detail::merge(s.communication);
  detail::merge(s.computation);
  detail::merge(s.collective_kernels);
  s.overlap = intersect(s.communication, s.computation);
  return s;
}

std::int64_t covered_length(const std::vector<TimeInterval>& v, std::int64_t a, std::int64_t b) {
  auto it = std::lower_bound(v.begin(), v.end(), a, [](const TimeInterval& s, std::int64_t t) { return s.end <= t; });
  std::int64_t n = 0;
  for (; it != v.end() && it->start < b; ++it) n += std::max<std::int64_t>(0, std::min(b, it->end) - std::max(a, it->start));
  return n;
}

CommunicationTime communication_time(const CommunicationSpans& s, std::int64_t a, std::int64_t b) {
  CommunicationTime t;
  t.communication_ns = covered_length(s.communication, a, b);
  t.computation_ns = covered_length(s.computation, a, b);
  t.overlap_ns = covered_length(s.overlap, a, b);
  t.collective_kernel_ns = covered_length(s.collective_kernels, a, b);
  return t;
}

}  // namespace ts::prof::analysis
