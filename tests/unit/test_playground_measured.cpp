// A playground row's measured figures (playground/measured.h, ladder.h Measured): made from the range
// profiler's result, shown as the text table's "measured" column group and in the JSON, kept by the
// session file, and a row that was not measured saying why instead of staying blank. No GPU.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <filesystem>

#include "playground/ladder.h"
#include "playground/measured.h"
#include "playground/roofline.h"
#include "playground/session.h"
#include "profiling/event_store.h"

namespace ts::playground {
namespace {

prof::range::KernelMetrics copy_kernel() {
  prof::range::KernelMetrics k;
  k.name = "_Z11copy_kernelPKfPfl";
  k.values = {{"occupancy", 87.5}, {"sm_throughput", 14.5}, {"dram_throughput", 92.0},
              {"dram_read", 512e6}, {"dram_write", 512e6},   {"duration", 250e3}};
  return k;
}

Measured measured_copy() {
  prof::range::RangeResult r;
  r.kernels = {copy_kernel()};
  return measured_from(r);
}

Ladder ladder_with(std::vector<std::optional<Measured>> ms) {
  Ladder l;
  l.family = "copy", l.title = "device copy", l.unit = Unit::gbps, l.size = 1 << 20, l.size_what = "elements";
  for (std::size_t i = 0; i < ms.size(); ++i) {
    VariantResult v;
    v.name = "row " + std::to_string(i), v.checked = v.check_passed = true, v.median_ns = 250e3, v.throughput = 4000;
    v.measured = ms[i];
    l.variants.push_back(v);
  }
  return l;
}

TEST(PlaygroundMeasured, FiguresComeFromTheProfiledLaunch) {
  const Measured m = measured_copy();
  ASSERT_TRUE(m.ok()) << m.why;
  EXPECT_EQ(m.kernels, 1);
  EXPECT_DOUBLE_EQ(*m.occupancy_pct, 87.5);
  EXPECT_DOUBLE_EQ(*m.sm_pct, 14.5);
  EXPECT_DOUBLE_EQ(*m.dram_pct, 92.0);
  EXPECT_DOUBLE_EQ(*m.dram_gbps, 1024e6 / 250e3);  // 4096 GB/s
  EXPECT_DOUBLE_EQ(*m.duration_ns, 250e3);
  EXPECT_TRUE(m.absent.empty());
}

TEST(PlaygroundMeasured, ARefusalIsTheRowsOnePhrase) {
  prof::range::RangeResult r;
  r.why = "GPU counters need root or RmProfilingAdminOnly=0";
  r.detail = "counter availability: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
  const Measured m = measured_from(r);
  EXPECT_FALSE(m.ok());
  EXPECT_EQ(m.why, "GPU counters need root or RmProfilingAdminOnly=0");
  EXPECT_FALSE(m.occupancy_pct);
}

TEST(PlaygroundMeasured, AbsentMetricsAndDroppedKernelsAreListedAndTheRestKept) {
  prof::range::RangeResult r;
  r.kernels = {copy_kernel()};
  r.kernels[0].values.erase("dram_throughput");
  r.absent = {{"dram_throughput", "chip GH100 has no counter for it"}};
  r.dropped_ranges = 2;
  const Measured m = measured_from(r);
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE(m.dram_pct);
  EXPECT_TRUE(m.occupancy_pct);
  EXPECT_NE(m.absent.find("dram_throughput: chip GH100 has no counter"), std::string::npos);
  EXPECT_NE(m.absent.find("2 kernel(s) beyond"), std::string::npos);
}

TEST(PlaygroundMeasured, NothingMeasurableIsNotMeasured) {
  prof::range::RangeResult r;
  prof::range::KernelMetrics k;
  k.values = {{"duration", 1e3}};
  r.kernels = {k};
  EXPECT_EQ(measured_from(r).why, "no metric measured");
}

TEST(PlaygroundMeasured, RowsNeverTimedSayWhy) {
  VariantResult v;
  EXPECT_EQ(not_measured(v).why, "not run");
  v.checked = true;
  EXPECT_EQ(not_measured(v).why, "check failed");
}

TEST(PlaygroundMeasured, TextTableHasTheMeasuredColumnGroupOnlyWhenMeasured) {
  Measured refused;
  refused.why = "GPU counters need root or RmProfilingAdminOnly=0";
  const std::string text = format_text(ladder_with({measured_copy(), refused}));
  EXPECT_NE(text.find("| measured:  occ %   SM %  DRAM %  DRAM GB/s"), std::string::npos) << text;
  // Row 0: 87.5 % occupancy (one decimal), 14.5 % SM, 92.0 % DRAM, 4096 GB/s, in that order.
  const std::size_t row0 = text.find("row 0");
  ASSERT_NE(row0, std::string::npos);
  const std::string line0 = text.substr(row0, text.find('\n', row0) - row0);
  const std::size_t occ = line0.find("87.5"), sm = line0.find("14.5"), dram = line0.find("92.0"),
                    gbps = line0.find("4096");
  ASSERT_NE(occ, std::string::npos) << line0;
  ASSERT_NE(gbps, std::string::npos) << line0;
  EXPECT_LT(occ, sm);
  EXPECT_LT(sm, dram);
  EXPECT_LT(dram, gbps);
  // Row 1: "n/a" cells, and why on its second line.
  EXPECT_NE(text.find("not measured: GPU counters need root or RmProfilingAdminOnly=0"), std::string::npos) << text;
  EXPECT_NE(text.find("measured: one more launch per row under CUPTI's range profiler"), std::string::npos);
  // The header and the rows' group line up: "occ %" ends where a row's occupancy cell ends.
  const std::size_t head = text.find("occ %");
  const std::size_t head_line = text.rfind('\n', head) + 1;
  EXPECT_EQ(head - head_line + 5, occ + 4) << text;

  const std::string plain = format_text(ladder_with({std::nullopt}));
  EXPECT_EQ(plain.find("measured"), std::string::npos) << plain;
}

TEST(PlaygroundMeasured, JsonCarriesTheFiguresAndNullForWhatWasNotMeasured) {
  Measured partial = measured_copy();
  partial.sm_pct.reset();
  partial.absent = "sm_throughput: evaluation failed";
  const std::string json = format_json({ladder_with({partial, std::nullopt})}, "NVIDIA H200", "cupti");
  rapidjson::Document d;
  ASSERT_FALSE(d.Parse(json.c_str()).HasParseError()) << json;
  const auto& rows = d["ladders"][0]["variants"];
  const auto& m = rows[0]["measured"];
  ASSERT_TRUE(m.IsObject()) << json;
  EXPECT_STREQ(m["why"].GetString(), "");
  EXPECT_DOUBLE_EQ(m["occupancy_pct"].GetDouble(), 87.5);
  EXPECT_TRUE(m["sm_pct"].IsNull());
  EXPECT_DOUBLE_EQ(m["dram_pct"].GetDouble(), 92.0);
  EXPECT_DOUBLE_EQ(m["dram_gbps"].GetDouble(), 1024e6 / 250e3);
  EXPECT_DOUBLE_EQ(m["duration_ns"].GetDouble(), 250e3);
  EXPECT_EQ(m["kernels"].GetInt(), 1);
  EXPECT_STREQ(m["absent"].GetString(), "sm_throughput: evaluation failed");
  EXPECT_TRUE(rows[1]["measured"].IsNull());
}

TEST(PlaygroundMeasured, TheSessionFileKeepsMeasuredFiguresAndTheirAbsence) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("ts_pg_measured_" + std::to_string(getpid()) + ".tsession")).string();
  Measured partial = measured_copy();
  partial.dram_pct.reset();
  partial.absent = "dram_throughput: chip GH100 has no counter for it";
  Measured refused;
  refused.why = "another profiler holds the GPU counters";
  prof::EventStore store;
  write_playground_session(path, store, StoredRun{"NVIDIA H200", "cupti", {ladder_with({partial, refused, std::nullopt})}});
  const StoredRun back = read_playground_session(path);
  std::filesystem::remove(path);
  ASSERT_EQ(back.ladders.size(), 1u);
  const auto& vs = back.ladders[0].variants;
  ASSERT_EQ(vs.size(), 3u);
  ASSERT_TRUE(vs[0].measured);
  EXPECT_TRUE(vs[0].measured->ok());
  EXPECT_DOUBLE_EQ(*vs[0].measured->occupancy_pct, 87.5);
  EXPECT_DOUBLE_EQ(*vs[0].measured->sm_pct, 14.5);
  EXPECT_FALSE(vs[0].measured->dram_pct);  // NULL in the file, not 0
  EXPECT_DOUBLE_EQ(*vs[0].measured->dram_gbps, 1024e6 / 250e3);
  EXPECT_EQ(vs[0].measured->kernels, 1);
  EXPECT_EQ(vs[0].measured->absent, "dram_throughput: chip GH100 has no counter for it");
  ASSERT_TRUE(vs[1].measured);
  EXPECT_EQ(vs[1].measured->why, "another profiler holds the GPU counters");
  EXPECT_FALSE(vs[1].measured->occupancy_pct);
  EXPECT_FALSE(vs[2].measured);  // not asked: no measured row at all
}

TEST(PlaygroundMeasured, TheRooflineGetsAMeasuredPointFromTheCountersBytesAndDuration) {
  Ladder l;
  l.family = "sgemm", l.unit = Unit::tflops, l.size = 1024;
  VariantResult v;
  v.name = "5 2D block tiling", v.checked = v.check_passed = true, v.median_ns = 1e6, v.work = 2.0 * 1024 * 1024 * 1024;
  Measured m;
  m.occupancy_pct = 50, m.dram_gbps = 50, m.duration_ns = 2e6;  // 100 MB moved in 2 ms
  v.measured = m;
  VariantResult unmeasured = v;
  unmeasured.name = "6 vectorised";
  unmeasured.measured.reset();
  l.variants = {v, unmeasured};
  const Roofline r = roofline({l}, "NVIDIA H200");
  ASSERT_EQ(r.points.size(), 2u);
  ASSERT_EQ(r.measured_points.size(), 1u);
  const RooflinePoint& p = r.measured_points[0];
  EXPECT_EQ(p.variant, "5 2D block tiling");
  EXPECT_DOUBLE_EQ(p.intensity, v.work / 100e6);
  EXPECT_DOUBLE_EQ(p.tflops, v.work / 2e6 / 1e3);
  EXPECT_DOUBLE_EQ(p.gbps, 50);
}

}  // namespace
}  // namespace ts::playground
