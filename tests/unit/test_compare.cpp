// Session compare (profiling/compare): config diff, throughput, accuracy, step alignment and the
// kernel diff on hand-built stores (exact), and the two real H200 sessions of tests/data (num_workers
// 4 vs 0 with augment: input_bound fires only in the second).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "profiling/compare/compare.h"
#include "profiling/event_source.h"

namespace ts::prof::compare {
namespace {

/// A store with `n` kernels named `name` of `dur` ns each, launched by runtime calls inside step
/// rows (one kernel per step when steps are given).
struct StoreBuilder {
  EventStore s;
  std::uint32_t corr = 1;
  std::int64_t t = 1000;
  void kernels(const std::string& name, int n, std::int64_t dur) {
    const StringId id = s.strings.intern(name);
    for (int i = 0; i < n; ++i) {
      KernelRecord k;
      k.start = t, k.end = t + dur, k.name = id, k.correlation = corr++;
      s.append(s.kernels, k);
      t += dur + 100;
    }
  }
  void step(std::int64_t gs, std::int64_t start, std::int64_t end, std::int64_t images) {
    StepRecord r;
    r.global_step = gs, r.epoch = 1, r.step = gs, r.start = start, r.end = end, r.images = images;
    s.append(s.steps, r);
  }
};

const KernelDiffRow& row(const KernelDiff& d, const std::string& name) {
  for (const auto& r : d.rows)
    if (r.name == name) return r;
  throw std::runtime_error("no row " + name);
}

TEST(CompareKernels, AddedRemovedFasterSlowerExact) {
  StoreBuilder a, b;
  a.kernels("same", 10, 1000);
  a.kernels("gets_faster", 10, 2000);
  a.kernels("gets_slower", 10, 2000);
  a.kernels("removed", 5, 100);
  a.kernels("noise_relative", 10, 10000);  // +4 % (400 ns): under 10 %
  a.kernels("noise_absolute", 10, 1000);   // +40 % but 400 ns: under 0.5 us
  a.kernels("at_threshold", 4, 5000);      // +10 % and +500 ns exactly: counts
  b.kernels("same", 10, 1000);
  b.kernels("gets_faster", 10, 1000);
  b.kernels("gets_slower", 20, 3000);
  b.kernels("added", 3, 700);
  b.kernels("noise_relative", 10, 10400);
  b.kernels("noise_absolute", 10, 1400);
  b.kernels("at_threshold", 4, 5500);
  const KernelDiff d = diff_kernels(kernel_totals(a.s), 0, kernel_totals(b.s), 0);
  EXPECT_EQ(d.added, 1);
  EXPECT_EQ(d.removed, 1);
  EXPECT_EQ(d.faster, 1);
  EXPECT_EQ(d.slower, 2);
  EXPECT_EQ(d.same, 3);
  ASSERT_EQ(d.rows.size(), 8u);
  EXPECT_EQ(row(d, "added").change, KernelChange::added);
  EXPECT_EQ(row(d, "added").calls_b, 3);
  EXPECT_EQ(row(d, "added").total_b_ns, 2100);
  EXPECT_FALSE(row(d, "added").delta_mean_relative());
  EXPECT_EQ(row(d, "removed").change, KernelChange::removed);
  EXPECT_EQ(row(d, "removed").total_a_ns, 500);
  EXPECT_EQ(row(d, "gets_faster").change, KernelChange::faster);
  EXPECT_DOUBLE_EQ(*row(d, "gets_faster").delta_mean_relative(), -0.5);
  EXPECT_EQ(row(d, "gets_slower").change, KernelChange::slower);
  EXPECT_EQ(row(d, "gets_slower").calls_b, 20);
  EXPECT_EQ(row(d, "gets_slower").delta_total_ns(), 60000 - 20000);
  EXPECT_DOUBLE_EQ(row(d, "gets_slower").delta_mean_ns(), 1000);
  EXPECT_EQ(row(d, "same").change, KernelChange::same);
  EXPECT_EQ(row(d, "noise_relative").change, KernelChange::same);
  EXPECT_EQ(row(d, "noise_absolute").change, KernelChange::same);
  EXPECT_EQ(row(d, "at_threshold").change, KernelChange::slower);
  // Default order: |delta total| largest first (no steps: per step = plain totals).
  EXPECT_EQ(d.rows.front().name, "gets_slower");
  EXPECT_EQ(d.rows[1].name, "gets_faster");
  EXPECT_EQ(d.rows.back().name, "same");  // 0 change; ties broken by name
}

TEST(CompareKernels, TotalChangeIsPerStep) {
  // Twice the calls over twice the steps: per call and per step unchanged.
  const KernelDiff d = diff_kernels({{"k", 10, 10000}}, 10, {{"k", 20, 20000}}, 20);
  EXPECT_EQ(d.rows[0].change, KernelChange::same);
  EXPECT_EQ(d.rows[0].total_change, KernelChange::same);
  EXPECT_DOUBLE_EQ(d.rows[0].total_per_step_b_ns, 1000);
  // Twice the calls per step: the same per call, slower in total.
  const KernelDiff e = diff_kernels({{"k", 10, 10000}}, 10, {{"k", 20, 20000}}, 10);
  EXPECT_EQ(e.rows[0].change, KernelChange::same);
  EXPECT_EQ(e.rows[0].total_change, KernelChange::slower);
}

TEST(CompareKernels, SortKeys) {
  auto d = diff_kernels({{"b", 1, 1000}, {"a", 1, 9000}, {"c", 1, 3000}}, 0,
                        {{"b", 1, 5000}, {"a", 1, 8000}, {"c", 2, 3000}}, 0);
  sort_rows(d.rows, KernelSortKey::name);
  EXPECT_EQ(d.rows[0].name + d.rows[1].name + d.rows[2].name, "abc");
  sort_rows(d.rows, KernelSortKey::delta_mean);  // b +4000, c -1500, a -1000
  EXPECT_EQ(d.rows[0].name + d.rows[1].name + d.rows[2].name, "bca");
  sort_rows(d.rows, KernelSortKey::delta_mean_relative);  // b +400 %, c -50 %, a -11 %
  EXPECT_EQ(d.rows[0].name + d.rows[1].name + d.rows[2].name, "bca");
  sort_rows(d.rows, KernelSortKey::total_a);
  EXPECT_EQ(d.rows[0].name + d.rows[1].name + d.rows[2].name, "acb");
  sort_rows(d.rows, KernelSortKey::calls_b);
  EXPECT_EQ(d.rows[0].name, "c");
  EXPECT_EQ(std::string(kernel_change_name(KernelChange::faster)), "faster");
}

TEST(Compare, ThroughputAccuracyAlignment) {
  StoreBuilder a, b;
  a.step(1, 0, 1000000000, 100);             // warm-up, left out
  a.step(2, 1000000000, 1100000000, 100);    // 1000 img/s
  a.step(3, 1100000000, 1150000000, 100);    // 2000 img/s
  a.step(4, 1150000000, 1175000000, 100);    // 4000 img/s
  b.step(1, 5000, 6000, 100);
  b.step(2, 7000, 8000, 100);
  const Throughput t = throughput(a.s, 1);
  EXPECT_EQ(t.steps, 3);
  EXPECT_EQ(t.warmup_steps_skipped, 1);
  EXPECT_EQ(t.images, 300);
  EXPECT_EQ(t.step_ns, 175000000);
  EXPECT_DOUBLE_EQ(*t.median_img_per_s, 2000);
  EXPECT_NEAR(*t.mean_img_per_s, 300 / 0.175, 1e-9);
  EXPECT_DOUBLE_EQ(*t.median_step_ns, 50000000);
  // The left-out first step (1 s, 20x the 50 ms median) is heavy: said, by the rule of 5x the median.
  EXPECT_EQ(t.first_steps_ns, 1000000000);
  const std::string heavy = describe_first_steps(t);
  EXPECT_EQ(heavy.rfind("the first step took 1000 ms (20x the median 50 ms", 0), 0u) << heavy;
  EXPECT_EQ(describe_first_steps(5 * 50.0, 50.0), "");  // 5x: not over the rule
  EXPECT_NE(describe_first_steps(5.01 * 50.0, 50.0), "");
  EXPECT_EQ(describe_first_steps(1000.0, 0.0), "");  // no median: nothing to weigh it by
  // Warm-up never leaves zero steps.
  EXPECT_EQ(throughput(b.s, 5).steps, 1);
  EXPECT_FALSE(throughput(EventStore{}, 1).median_img_per_s);

  EXPECT_FALSE(accuracy(a.s).test_accuracy);
  EpochRecord e1, e2;
  e1.epoch = 1, e1.test_accuracy = 0.25;
  e2.epoch = 2, e2.test_accuracy = 0.5, e2.images_per_s = 1234;
  a.s.append(a.s.epochs, e1);
  a.s.append(a.s.epochs, e2);
  EXPECT_DOUBLE_EQ(*accuracy(a.s).test_accuracy, 0.5);
  EXPECT_EQ(*accuracy(a.s).last_epoch, 2);
  EXPECT_DOUBLE_EQ(*accuracy(a.s).epoch_img_per_s, 1234);

  EXPECT_EQ(*step_alignment_offset(a.s, b.s, 2), 1000000000 - 7000);
  EXPECT_FALSE(step_alignment_offset(a.s, b.s, 3));
  const Comparison c = compare({&a.s, &b.s}, {"a", "b"});
  EXPECT_EQ(c.aligned_step, 2);
  ASSERT_EQ(c.alignment_offsets_ns.size(), 2u);
  EXPECT_EQ(c.alignment_offsets_ns[1], 1000000000 - 7000);
  EXPECT_THROW(compare({&a.s}, {"a"}), std::invalid_argument);
}

TEST(Compare, ConfigDiffOnlyWhatDiffers) {
  // The loop's knobs recorded alike in both (a knob either does not record is listed as unknown).
  std::map<std::string, std::string> a{{"run.config", R"({"batch_size":128,"lr":0.001,"amp":"off","nested":{"x":1},)"
                                                      R"("num_workers":2,"pin_memory":true,"augment":false,"sync_every_step":false})"},
                                       {"device.name", "NVIDIA H200"},
                                       {"versions.cudnn", "91900"},
                                       {"clock.gpu_offset_ns", "1"}};
  auto b = a;
  b["run.config"] = R"({"batch_size":256,"lr":0.001,"amp":"fp16","nested":{"x":2},"extra":true,)"
                   R"("num_workers":2,"pin_memory":true,"augment":false,"sync_every_step":false})";
  b["versions.cudnn"] = "91000";
  b["clock.gpu_offset_ns"] = "2";  // not a knob or hardware: not compared
  const auto d = config_diff({a, b});
  std::vector<std::string> keys;
  for (const auto& x : d) keys.push_back(x.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"batch_size", "amp", "nested", "extra", "versions.cudnn"}));
  EXPECT_EQ(*d[0].values[0], "128");
  EXPECT_EQ(*d[0].values[1], "256");
  EXPECT_EQ(*d[1].values[1], "fp16");
  EXPECT_EQ(*d[2].values[1], "{\"x\":2}");
  EXPECT_FALSE(d[3].values[0]);  // absent in the first session
  EXPECT_EQ(*d[3].values[1], "true");
  EXPECT_EQ(*d[4].values[1], "91000");
  // An unparsable run.config counts as absent (no throw): every field of it differs, lr too.
  auto c = a;
  c["run.config"] = "not json";
  const auto dc = config_diff({a, c});
  ASSERT_EQ(dc.size(), 8u);  // the four fields and the four loop knobs of a's config
  EXPECT_EQ(dc[1].key, "lr");
  EXPECT_EQ(*dc[1].values[0], "0.001");
  EXPECT_FALSE(dc[1].values[1]);
  EXPECT_TRUE(config_diff({a, a}).empty());
  // The model spec compares by content.
  auto m1 = a, m2 = a;
  m1["run.model_spec"] = R"({"name":"SimpleCNN","layers":[1]})";
  m2["run.model_spec"] = R"({"name":"SimpleCNN","layers":[2]})";
  const auto md = config_diff({m1, m2});
  ASSERT_EQ(md.size(), 1u);
  EXPECT_EQ(md[0].key, "model_spec");
  EXPECT_EQ(md[0].values[0]->rfind("SimpleCNN #", 0), 0u);
  EXPECT_NE(*md[0].values[0], *md[0].values[1]);
}

std::string data(const char* name) { return std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/" + name; }

TEST(Compare, RealSessionsNumWorkersAndAugment) {
  auto a = open_session(data("gpu_b128_nw4.tsession"));
  auto b = open_session(data("gpu_b128_nw0_augment.tsession"));
  const Comparison c = compare({&a->store(), &b->store()}, {"nw4", "nw0_augment"});
  ASSERT_EQ(c.config.size(), 2u);
  EXPECT_EQ(c.config[0].key, "num_workers");
  EXPECT_EQ(*c.config[0].values[0], "4");
  EXPECT_EQ(*c.config[0].values[1], "0");
  EXPECT_EQ(c.config[1].key, "augment");
  EXPECT_EQ(*c.config[1].values[0], "false");
  EXPECT_EQ(*c.config[1].values[1], "true");
  auto fired = [](const SessionSummary& s, const std::string& id) {
    for (const auto& v : s.report.verdicts)
      if (v.id == id) return true;
    return false;
  };
  EXPECT_FALSE(fired(c.sessions[0], "input_bound"));
  EXPECT_TRUE(fired(c.sessions[1], "input_bound"));
  // The fix proposes what the run did not have: its batches were pinned already.
  ASSERT_TRUE(c.sessions[1].report.config.pin_memory);
  for (const auto& v : c.sessions[1].report.verdicts) {
    if (v.id == "input_bound") {
      EXPECT_EQ(v.settings, (std::vector<analysis::FixSetting>{{"num_workers", "4"}}));
    }
  }
  // 80 steps each, the first left out; 128 images a step but the last of each epoch (5000 = 39 x 128
  // + 8); the loader-bound run is slower.
  EXPECT_EQ(c.sessions[0].throughput.steps, 79);
  EXPECT_EQ(c.sessions[0].throughput.images, 77 * 128 + 2 * 8);
  EXPECT_GT(*c.sessions[0].throughput.median_img_per_s, *c.sessions[1].throughput.median_img_per_s);
  EXPECT_DOUBLE_EQ(*c.sessions[0].accuracy.test_accuracy, 0.456);
  EXPECT_DOUBLE_EQ(*c.sessions[1].accuracy.test_accuracy, 0.3906);
  // Same model and batch size: most kernels are the same within the noise threshold.
  ASSERT_EQ(c.kernel_diffs.size(), 1u);
  const auto& d = c.kernel_diffs[0];
  EXPECT_GE(d.same, 20);
  EXPECT_EQ(d.added, 0);
  EXPECT_EQ(c.aligned_step, 2);

  const std::string text = to_text(c);
  EXPECT_NE(text.find("num_workers"), std::string::npos) << text;
  EXPECT_NE(text.find("input_bound"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel diff B against A"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU busy"), std::string::npos) << text;  // the window's name of the figure
  rapidjson::Document j;
  j.Parse(to_json(c).c_str());
  ASSERT_FALSE(j.HasParseError());
  ASSERT_EQ(j["sessions"].Size(), 2u);
  EXPECT_EQ(j["config_diff"].Size(), 2u);
  EXPECT_STREQ(j["config_diff"][0]["values"][1].GetString(), "0");
  EXPECT_EQ(j["sessions"][1]["verdicts"].Size(), c.sessions[1].report.verdicts.size());
  EXPECT_NEAR(j["sessions"][0]["throughput"]["median_img_per_s"].GetDouble(),
              *c.sessions[0].throughput.median_img_per_s, 1e-6);
  const auto& k = j["kernel_diffs"][0];
  EXPECT_EQ(k["kernels"].Size(), d.rows.size());
  EXPECT_EQ(k["counts"]["same"].GetInt64(), d.same);
  double share_sum = 0;
  for (auto& m : j["sessions"][0]["breakdown"]["share"].GetObject()) share_sum += m.value.GetDouble();
  EXPECT_NEAR(share_sum, 1.0, 1e-9);
}

// Measured GPU metrics (PM sampling) per session, in the text and the JSON; one DRAM unit for the
// row (a quarter of 2 TB/s reads "0.50 TB/s", not "500.0 GB/s"); "absent" for a session that did
// not sample; no rows at all where none did.
TEST(Compare, MeasuredFiguresPerSession) {
  StoreBuilder a, b, c3;
  for (StoreBuilder* s : {&a, &b, &c3}) s->step(1, 0, 1000, 10), s->step(2, 1000, 2000, 10);
  Comparison c = compare({&a.s, &b.s, &c3.s}, {"a", "b", "c"});
  EXPECT_EQ(to_text(c).find("(measured)"), std::string::npos);
  analysis::Measured fast;
  fast.samples = 40, fast.sm_active_pct = 76.8, fast.dram_bytes_per_s = 2.0e12, fast.dram_ceiling_share = 0.7;
  analysis::Measured slow = fast;
  slow.sm_active_pct = 20.0, slow.dram_bytes_per_s = 0.5e12, slow.dram_ceiling_share = 0.175;
  c.sessions[0].report.measured = fast;
  c.sessions[1].report.measured = slow;
  const std::string text = to_text(c);
  for (const char* want : {"SM active (measured)", "76.8 %", "20.0 %", "2.00 TB/s (70 %)", "0.50 TB/s (18 %)", "absent"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  EXPECT_EQ(text.find("GB/s"), std::string::npos) << text;
  rapidjson::Document j;
  j.Parse(to_json(c).c_str());
  ASSERT_FALSE(j.HasParseError());
  EXPECT_DOUBLE_EQ(j["sessions"][0]["measured"]["dram_bytes_per_s"].GetDouble(), 2.0e12);
  EXPECT_DOUBLE_EQ(j["sessions"][1]["measured"]["sm_active_pct"].GetDouble(), 20.0);
  EXPECT_EQ(j["sessions"][1]["measured"]["samples"].GetInt64(), 40);
  EXPECT_TRUE(j["sessions"][2]["measured"].IsNull());
}

TEST(CompareKernels, CallsPerStepChangedMoreThanTwiceIsChangedNotFaster) {
  // 79 calls vs 2 per step (a cuDNN algorithm switch): the per-call mean falls 87 %, but it is other
  // work under one name: "changed", neither faster nor slower.
  const KernelDiff d = diff_kernels({{"conv", 79, 79 * 1000}}, 1, {{"conv", 2, 2 * 130}}, 1);
  EXPECT_EQ(d.rows[0].change, KernelChange::changed);
  EXPECT_EQ(d.changed, 1);
  EXPECT_EQ(d.faster, 0);
  EXPECT_EQ(std::string(kernel_change_name(KernelChange::changed)), "changed");
  // Just over 2x either way; exactly 2x stays compared.
  EXPECT_EQ(diff_kernels({{"k", 10, 10000}}, 1, {{"k", 21, 21000}}, 1).rows[0].change, KernelChange::changed);
  EXPECT_EQ(diff_kernels({{"k", 21, 21000}}, 1, {{"k", 10, 5000}}, 1).rows[0].change, KernelChange::changed);
  EXPECT_EQ(diff_kernels({{"k", 10, 10000}}, 1, {{"k", 20, 10000}}, 1).rows[0].change, KernelChange::faster);
}

TEST(CompareConfig, KnobsATraceDoesNotRecordAreUnknownNotTheSame) {
  // Two traces: no run.config in either. num_workers may be 0 in one and 4 in the other.
  const std::vector<std::map<std::string, std::string>> traces = {{{"import.format", "x"}}, {{"import.format", "y"}}};
  const auto diff = config_diff(traces);
  auto find = [&](const std::string& k) {
    return std::find_if(diff.begin(), diff.end(), [&](const ConfigDifference& d) { return d.key == k; });
  };
  for (const char* k : {"batch_size", "num_workers", "pin_memory", "amp"}) {
    const auto it = find(k);
    ASSERT_NE(it, diff.end()) << k;
    EXPECT_FALSE(it->values[0].has_value());
    EXPECT_FALSE(it->values[1].has_value());
  }
  // A session beside a trace: the session's value and unknown.
  const std::vector<std::map<std::string, std::string>> mixed = {
      {{"run.config", R"({"batch_size":128,"num_workers":4,"pin_memory":true,"amp":"off","augment":false,"sync_every_step":false})"}},
      {{"import.format", "x"}}};
  const auto d2 = config_diff(mixed);
  const auto nw = std::find_if(d2.begin(), d2.end(), [](const ConfigDifference& d) { return d.key == "num_workers"; });
  ASSERT_NE(nw, d2.end());
  EXPECT_EQ(nw->values[0].value_or(""), "4");
  EXPECT_FALSE(nw->values[1].has_value());
  // Two sessions that record the same knobs: nothing listed for them.
  const auto d3 = config_diff({mixed[0], mixed[0]});
  EXPECT_TRUE(d3.empty());
}

// One throughput: images per second of training time, the epochs table's, whatever the host steps
// say. Gradient accumulation without a sync per step: each host step row is a 2048-image micro-batch
// launched in ~2.5 ms while the GPU takes ~30 ms (out_of_memory's recording read 856k img/s from host
// steps where the trainer measured 69.5k).
TEST(Compare, TrainingThroughputIsImagesOverTrainingTime) {
  StoreBuilder a;
  for (int i = 1; i <= 8; ++i) a.step(i, i * 30'000'000LL, i * 30'000'000LL + 2'500'000, 2048);
  EpochRecord e1, e2;
  e1.epoch = 1, e1.train_ns = 400'000'000, e1.images_per_s = 4 * 2048 / 0.4;
  e2.epoch = 2, e2.train_ns = 120'000'000, e2.images_per_s = 4 * 2048 / 0.12;
  a.s.append(a.s.epochs, e1);
  a.s.append(a.s.epochs, e2);
  const TrainingThroughput t = training_throughput(a.s);
  EXPECT_TRUE(t.from_epochs);
  EXPECT_EQ(t.images, 8 * 2048);
  EXPECT_EQ(t.train_ns, 520'000'000);
  EXPECT_NEAR(*t.img_per_s, 8 * 2048 / 0.52, 1e-6);
  const Throughput tp = throughput(a.s, 1);
  EXPECT_NEAR(*tp.training.img_per_s, *t.img_per_s, 1e-9) << "the figure Compare's views read";
  EXPECT_NEAR(*tp.mean_step_ns, 2'500'000, 1e-6);
  EXPECT_EQ(tp.slowest_step_ns, 2'500'000);
  EXPECT_GT(*tp.mean_img_per_s, 10 * *t.img_per_s) << "host steps would have said 819k img/s";
  // Without epoch rows (a trace): the steps' images over their span, warm-up step included.
  StoreBuilder b;
  b.step(1, 0, 100'000'000, 100);
  b.step(2, 150'000'000, 200'000'000, 100);
  const TrainingThroughput tb = training_throughput(b.s);
  EXPECT_FALSE(tb.from_epochs);
  EXPECT_EQ(tb.train_ns, 200'000'000);
  EXPECT_NEAR(*tb.img_per_s, 1000, 1e-9);
  EXPECT_FALSE(training_throughput(EventStore{}).img_per_s);
  analysis::Report r;
  EXPECT_FALSE(data_wait_ns_per_step(r));
  r.steps = 4, r.data_wait_ns = 10'000'000;
  EXPECT_DOUBLE_EQ(*data_wait_ns_per_step(r), 2'500'000);
}

// A CPU run records 0 for a GPU's memory, compute capability and library versions, and the knobs
// only CUDA uses: Compare says they do not apply instead of showing 0 beside the GPU's values.
TEST(CompareConfig, GpuOnlyFieldsOfACpuRunAreNotApplicable) {
  const std::map<std::string, std::string> cpu{
      {"run.config", R"({"device":"cpu","batch_size":128,"num_workers":2,"pin_memory":false,"amp":"off","augment":false,)"
                     R"("sync_every_step":false,"cuda_graphs":true,"memory_limit_bytes":0,"cpu_threads":0})"},
      {"device.kind", "cpu"}, {"device.name", "AMD EPYC"}, {"device.total_memory_bytes", "0"},
      {"device.compute_capability", "0.0"}, {"versions.cudnn", "0"}, {"versions.cuda_runtime", "0"}};
  const std::map<std::string, std::string> gpu{
      {"run.config", R"({"device":"cuda","batch_size":128,"num_workers":2,"pin_memory":true,"amp":"off","augment":false,)"
                     R"("sync_every_step":false,"cuda_graphs":false,"memory_limit_bytes":0,"cpu_threads":0})"},
      {"device.kind", "cuda"}, {"device.name", "NVIDIA H200"}, {"device.total_memory_bytes", "150109880320"},
      {"device.compute_capability", "9.0"}, {"versions.cudnn", "91900"}, {"versions.cuda_runtime", "13000"}};
  const auto d = config_diff({cpu, gpu});
  auto find = [&](const std::string& k) -> const ConfigDifference* {
    for (const auto& x : d)
      if (x.key == k) return &x;
    return nullptr;
  };
  for (const char* k : {"pin_memory", "cuda_graphs", "device.total_memory_bytes", "device.compute_capability",
                        "versions.cudnn", "versions.cuda_runtime"}) {
    const ConfigDifference* x = find(k);
    ASSERT_TRUE(x) << k;
    ASSERT_EQ(x->not_applicable.size(), 2u);
    EXPECT_TRUE(x->not_applicable[0]) << k;
    EXPECT_FALSE(x->values[0].has_value()) << k << ": no made-up 0";
    EXPECT_FALSE(x->not_applicable[1]) << k;
    EXPECT_TRUE(x->values[1].has_value()) << k;
  }
  EXPECT_FALSE(find("memory_limit_bytes")) << "0 in both: the same, not listed";
  EXPECT_FALSE(find("cpu_threads"));
  ASSERT_TRUE(find("device.name"));
  EXPECT_EQ(find("device.name")->values[0].value_or(""), "AMD EPYC");  // a CPU has a name
  EXPECT_EQ(not_applicable_text(cpu), "n/a (CPU run)");
  EXPECT_EQ(not_applicable_text(gpu), "n/a (GPU run)");
  EXPECT_EQ(session_device({{"run.config", R"({"device":"cpu"})"}}), "cpu");
  EXPECT_EQ(session_device({{"import.format", "x"}}), "");
}

}  // namespace
}  // namespace ts::prof::compare
