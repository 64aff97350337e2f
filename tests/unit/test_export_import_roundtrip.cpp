// Round trip: a recorded H200 session -> Chrome trace JSON (export) -> import -> the same
// kernels, copies, memsets, runtime calls and steps, at the same relative times within rounding
// (the export writes microseconds with three decimals: 1 ns), and the same analysis verdicts.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "profiling/analysis/analysis.h"
#include "profiling/event_source.h"
#include "profiling/export/chrome_trace.h"
#include "profiling/import/trace_import.h"

namespace ts::prof {
namespace {

struct Op {
  std::int64_t start, dur;
  std::string name;
  bool operator<(const Op& o) const { return std::tie(start, dur, name) < std::tie(o.start, o.dur, o.name); }
};

/// Kernels as (start relative to the first kernel, duration, name), sorted.
std::vector<Op> kernels(const EventStore& s) {
  std::vector<Op> v;
  for (std::size_t i = 0; i < s.kernels.size(); ++i)
    v.push_back({s.kernels[i].start, s.kernels[i].end - s.kernels[i].start, s.strings.get(s.kernels[i].name)});
  std::sort(v.begin(), v.end());
  const std::int64_t t0 = v.empty() ? 0 : v.front().start;
  for (auto& o : v) o.start -= t0;
  return v;
}

TEST(ExportImportRoundTrip, RecordedSessionComesBackTheSame) {
  const auto src = open_session(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession");
  const EventStore& a = src->store();
  const std::string path = (std::filesystem::temp_directory_path() / "ts_roundtrip.json.gz").string();
  exporter::export_chrome_trace(a, path);
  const import::ImportedTrace t = import::import_trace(path);
  const EventStore& b = *t.store;
  EXPECT_EQ(b.kernels.size(), a.kernels.size());
  EXPECT_EQ(b.memcpys.size(), a.memcpys.size());
  EXPECT_EQ(b.memsets.size(), a.memsets.size());
  EXPECT_EQ(b.runtime.size(), a.runtime.size());
  EXPECT_EQ(b.steps.size(), a.steps.size());
  const std::vector<Op> ka = kernels(a), kb = kernels(b);
  ASSERT_EQ(ka.size(), kb.size());
  std::size_t off = 0;
  for (std::size_t i = 0; i < ka.size(); ++i) {
    if (std::llabs(ka[i].start - kb[i].start) > 1 || std::llabs(ka[i].dur - kb[i].dur) > 1 || ka[i].name != kb[i].name)
      if (++off <= 3) ADD_FAILURE() << "kernel " << i << ": " << ka[i].name << " at " << ka[i].start << "+" << ka[i].dur
                                    << " came back as " << kb[i].name << " at " << kb[i].start << "+" << kb[i].dur;
  }
  EXPECT_EQ(off, 0u);
  // Correlation ids survive: every kernel still finds its launching runtime call.
  std::vector<std::uint32_t> calls;
  for (std::size_t i = 0; i < b.runtime.size(); ++i) calls.push_back(b.runtime[i].correlation);
  std::sort(calls.begin(), calls.end());
  std::size_t linked = 0;
  for (std::size_t i = 0; i < b.kernels.size(); ++i)
    linked += std::binary_search(calls.begin(), calls.end(), b.kernels[i].correlation);
  std::size_t linked_a = 0;
  std::vector<std::uint32_t> calls_a;
  for (std::size_t i = 0; i < a.runtime.size(); ++i) calls_a.push_back(a.runtime[i].correlation);
  std::sort(calls_a.begin(), calls_a.end());
  for (std::size_t i = 0; i < a.kernels.size(); ++i)
    linked_a += std::binary_search(calls_a.begin(), calls_a.end(), a.kernels[i].correlation);
  EXPECT_EQ(linked, linked_a);
  // The same verdicts from the original and from the round trip.
  analysis::Options o;
  o.warmup_steps = 1;
  auto ids = [](const analysis::Report& r) {
    std::vector<std::string> v;
    for (const auto& x : r.verdicts) v.push_back(x.id);
    std::sort(v.begin(), v.end());
    return v;
  };
  const analysis::Report ra = analysis::analyze(a, o);
  const analysis::Report rb = analysis::analyze(b, o);
  EXPECT_EQ(rb.steps, ra.steps);
  EXPECT_NEAR(*rb.gpu_utilization, *ra.gpu_utilization, 0.01);
  EXPECT_EQ(ids(rb), ids(ra));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ts::prof
