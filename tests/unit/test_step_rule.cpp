// The shared step rule (profiling/steps/step_rule.h): its order (TrainScope steps,
// ProfilerStep#N, ranges matching --step-range, the whole trace or one-second windows), the
// pattern's whole-name match, the outermost range of a thread; and through the importer and the
// analysis: a trace without ProfilerStep gets a whole-trace step with a breakdown and GPU metrics,
// verdicts that need no repeated steps fire on one of >= 100 ms and >= 100 device events and not on
// a shorter one, and the analysis says which rule it used.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include <chrono>
#include <string>

#include "base/errors.h"
#include "profiling/analysis/analysis.h"
#include "profiling/compare/compare.h"
#include "profiling/import/trace_analysis.h"
#include "profiling/import/trace_import.h"
#include "profiling/steps/step_rule.h"

namespace ts::prof {
namespace {

namespace imp = ts::prof::import;
namespace pa = ts::prof::analysis;

TEST(StepRule, ThePatternMatchesWholeNamesWithAStepNumber) {
  const StepRangePattern p;
  for (const char* yes : {"step", "Step", "STEP 12", "step#3", "step_4", "step-5", "step:6"}) EXPECT_TRUE(p.matches(yes)) << yes;
  for (const char* no : {"Optimizer.step#Adam.step", "train_step", "steps", "step x", "aten::step", ""})
    EXPECT_FALSE(p.matches(no)) << no;
  EXPECT_TRUE(StepRangePattern("train_step").matches("train_step 7"));
  EXPECT_TRUE(StepRangePattern(".*iteration.*").matches("my iteration"));
  EXPECT_THROW(StepRangePattern("(unclosed"), InputError);
  EXPECT_THROW(StepRangePattern(""), InputError);
}

// The matcher runs in time linear in the name and bounded stack (RE2): std::regex recursed once
// per character (SIGSEGV on a 50,000-character name) and backtracked for minutes on nested stars.
TEST(StepRule, ThePatternIsBoundedOnHostileNamesAndPatterns) {
  const std::string long_name = "step" + std::string(50'000, 'x');
  EXPECT_TRUE(StepRangePattern("step.*").matches(long_name));
  EXPECT_FALSE(StepRangePattern("step").matches(long_name));
  EXPECT_TRUE(StepRangePattern("step.*").matches("step" + std::string(5'000'000, 'y')));
  const auto t0 = std::chrono::steady_clock::now();
  const StepRangePattern nested("((((.*)*)*)*)*y");
  EXPECT_FALSE(nested.matches(std::string(30, 'a')));
  EXPECT_FALSE(nested.matches(std::string(100'000, 'a')));
  EXPECT_TRUE(nested.matches(std::string(100'000, 'a') + "y"));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  // Bytes, not UTF-8: a name that is not valid UTF-8 still matches ".*", and a UTF-8 pattern
  // matches its own bytes.
  EXPECT_TRUE(StepRangePattern(".*step").matches("\xff\xfe step"));
  EXPECT_TRUE(StepRangePattern("schritt \xc3\xa4").matches("Schritt \xc3\xa4 3"));
}

TEST(StepRule, ABadPatternIsAnInputErrorNamingIt) {
  for (const char* bad : {"(unclosed", "a)b", "[z-a]", "x{2,1}", "(?=look)", "a**"}) {
    try {
      const StepRangePattern p(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_TRUE(std::string(e.what()).starts_with(std::string("--step-range ") + bad + ": not a regular expression ("))
          << e.what();
    }
  }
  try {
    const StepRangePattern p("");
    ADD_FAILURE() << "the empty pattern was accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--step-range: the pattern is empty (default: step)");
  }
  // Copies share the compiled pattern and match alike.
  const StepRangePattern a("iter"), b = a;
  EXPECT_TRUE(b.matches("ITER 4"));
  EXPECT_EQ(b.text(), "iter");
}

TEST(StepRule, TheOrderIsOwnStepsProfilerStepsRangesThenTheWholeTrace) {
  StepRuleInput in;
  in.ranges = {{"step", 1, 0, 10}, {"step", 1, 10, 20}};
  in.span_start = 0, in.span_end = 30;
  in.own_steps = 4;
  EXPECT_EQ(choose_steps(in, StepRangePattern()).rule, StepRule::trainscope);
  in.own_steps = 0, in.profiler_steps = 2;
  const StepChoice p = choose_steps(in, StepRangePattern());
  EXPECT_EQ(p.rule, StepRule::profiler_step);
  EXPECT_TRUE(p.steps.empty()) << "the caller's ProfilerStep ranges are the steps";
  in.profiler_steps = 0;
  const StepChoice r = choose_steps(in, StepRangePattern());
  ASSERT_EQ(r.rule, StepRule::named_ranges);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[1].global_step, 2);
  EXPECT_EQ(r.steps[1].start, 10);
  const StepChoice w = choose_steps(in, StepRangePattern("iteration"));
  ASSERT_EQ(w.rule, StepRule::whole_trace);
  ASSERT_EQ(w.steps.size(), 1u);
  EXPECT_EQ(w.steps[0].start, 0);
  EXPECT_EQ(w.steps[0].end, 30);
}

TEST(StepRule, OnlyTheOutermostMatchingRangeOfAThreadIsAStep) {
  StepRuleInput in;
  in.ranges = {{"step", 1, 0, 100}, {"step 2", 1, 10, 20}, {"step", 2, 5, 50}, {"step", 1, 100, 200}};
  in.span_end = 200;
  const StepChoice c = choose_steps(in, StepRangePattern());
  ASSERT_EQ(c.steps.size(), 3u);
  EXPECT_EQ(c.steps[0].start, 0);   // thread 1's outer range
  EXPECT_EQ(c.steps[1].start, 5);   // thread 2's
  EXPECT_EQ(c.steps[2].start, 100);
  EXPECT_EQ(c.threads[1], 2u);
  EXPECT_EQ(c.range_index, (std::vector<std::size_t>{0, 2, 3}));
}

TEST(StepRule, ATraceWithoutStepRangesGetsStepsFromItsOptimizerSteps) {
  StepRuleInput in;
  in.ranges = {{"aten::conv2d", 1, 0, 10},         {"Optimizer.step#Adam.step", 1, 40, 50},
               {"Optimizer.step#Adam.step", 1, 90, 100}, {"Optimizer.step#Adam.step", 2, 95, 99},
               {"Optimizer.step#Adam.step", 1, 140, 150}, {"Optimizer.zero_grad#Adam.zero_grad", 1, 52, 53}};
  in.span_start = 0, in.span_end = 160;
  const StepChoice c = choose_steps(in, StepRangePattern());
  EXPECT_EQ(c.rule, StepRule::optimizer_steps);
  ASSERT_EQ(c.steps.size(), 3u);  // thread 1's; thread 2's single one is not the stepping thread
  EXPECT_EQ(c.steps[0].start, 0);
  EXPECT_EQ(c.steps[1].start, 50);
  EXPECT_EQ(c.steps[1].end, 100);
  EXPECT_EQ(c.steps[2].end, 150);
  EXPECT_EQ(c.threads[2], 1u);
  EXPECT_TRUE(c.range_index.empty());  // no host range becomes a step range
  EXPECT_EQ(step_rule_of(step_rule_text(c.rule, "step")), StepRule::optimizer_steps);
  // A named step range still wins.
  in.ranges.push_back({"step", 1, 0, 60});
  EXPECT_EQ(choose_steps(in, StepRangePattern()).rule, StepRule::named_ranges);
}

TEST(StepRule, ALiveRunWithoutStepsGetsCompleteOneSecondWindows) {
  StepRuleInput in;
  in.live = true;
  in.span_start = 5, in.span_end = 5 + 3 * kLiveStepWindowNs + 400'000'000;
  const StepChoice c = choose_steps(in, StepRangePattern());
  EXPECT_EQ(c.rule, StepRule::one_second_windows);
  ASSERT_EQ(c.steps.size(), 3u) << "the last, unfinished second is not a step yet";
  EXPECT_EQ(c.steps[2].end - c.steps[2].start, kLiveStepWindowNs);
  EXPECT_EQ(step_rule_of(step_rule_text(c.rule, "step")), StepRule::one_second_windows);
  EXPECT_EQ(step_rule_of(step_rule_text(StepRule::named_ranges, "x")), StepRule::named_ranges);
  EXPECT_EQ(step_rule_of(""), StepRule::trainscope);
}

/// A Kineto-style trace of `kernels` kernels of `kernel_us` each, one every `every_us`, launched
/// from a host thread; `annotation` (a user_annotation around each launch) when not empty.
std::string trace(int kernels, int kernel_us, int every_us, const std::string& annotation = "") {
  std::string ev;
  for (int i = 0; i < kernels; ++i) {
    const int t = 1000 + i * every_us;
    if (!annotation.empty())
      ev += fmt::format(R"({{"ph":"X","cat":"user_annotation","name":"{}","pid":1,"tid":1,"ts":{},"dur":{}}},)", annotation,
                        t - 5, every_us - 1);
    ev += fmt::format(R"({{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{},"dur":4,"args":{{"correlation":{}}}}},)",
                      t, i + 1);
    ev += fmt::format(R"({{"ph":"X","cat":"kernel","name":"sgemm_kernel","pid":0,"tid":7,"ts":{},"dur":{},)"
                      R"("args":{{"device":0,"stream":7,"correlation":{},"grid":[80,1,1],"block":[256,1,1]}}}},)",
                      t + 6, kernel_us, i + 1);
  }
  ev.pop_back();
  return R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100","computeMajor":9,"computeMinor":0,"numSms":132}],"traceEvents":[)" +
         ev + "]}";
}

pa::Report analyse(const std::string& json, const std::string& step_range = "step") {
  imp::ImportOptions o;
  o.step_range = step_range;
  const auto t = imp::import_trace_bytes(json.data(), json.size(), "t.json", o);
  return imp::analyze_session(*t.store);
}

TEST(StepRule, ATraceWithoutStepsIsOneWholeTraceStepWithGpuMetricsAndVerdicts) {
  // 150 kernels of 200 us every 1000 us: 150 ms, the GPU 20 % busy.
  const pa::Report r = analyse(trace(150, 200, 1000));
  EXPECT_EQ(r.steps, 1);
  EXPECT_TRUE(r.whole_trace_step);
  EXPECT_NE(r.step_rule.find("whole trace"), std::string::npos) << r.step_rule;
  EXPECT_EQ(r.device_events, 150);
  ASSERT_TRUE(r.gpu_utilization.has_value());
  EXPECT_NEAR(*r.gpu_utilization, 0.2, 0.01);
  EXPECT_TRUE(r.sm_efficiency.has_value());
  EXPECT_TRUE(r.verdicts_judged);
  bool low = false;
  for (const auto& v : r.verdicts) {
    low |= v.id == "low_utilization";
    const auto& ok = pa::whole_trace_verdicts();
    EXPECT_NE(std::find(ok.begin(), ok.end(), v.id), ok.end()) << v.id << " needs repeated steps";
  }
  EXPECT_TRUE(low);
  EXPECT_NE(pa::to_text(r).find("steps: the whole trace"), std::string::npos);
}

TEST(StepRule, AShortOrSparseWholeTraceStepGivesNoVerdictsAndSaysWhy) {
  const pa::Report short_trace = analyse(trace(150, 200, 500));  // 75 ms
  EXPECT_FALSE(short_trace.verdicts_judged);
  EXPECT_TRUE(short_trace.verdicts.empty());
  EXPECT_NE(short_trace.verdicts_withheld.find("at least 100 ms and 100 device events (74.7 ms, 150 here)"), std::string::npos)
      << short_trace.verdicts_withheld;
  const pa::Report sparse = analyse(trace(50, 200, 4000));  // 200 ms, 50 kernels
  EXPECT_FALSE(sparse.verdicts_judged);
  EXPECT_NE(sparse.verdicts_withheld.find("50 here"), std::string::npos) << sparse.verdicts_withheld;
}

TEST(StepRule, AnnotatedRangesAreTheStepsAndThePatternIsTheUsers) {
  const std::string json = trace(12, 200, 1000, "train_step");
  const pa::Report by_default = analyse(json);  // "step" does not match "train_step"
  EXPECT_TRUE(by_default.whole_trace_step);
  const pa::Report r = analyse(json, "train_step");
  EXPECT_EQ(r.steps, 12);
  EXPECT_FALSE(r.whole_trace_step);
  EXPECT_EQ(r.step_rule, "ranges matching 'train_step'");
  EXPECT_TRUE(r.verdicts_judged);
  imp::ImportOptions bad;
  bad.step_range = "(";
  EXPECT_THROW(imp::import_trace_bytes(json.data(), json.size(), "t.json", bad), InputError);
}

}  // namespace
}  // namespace ts::prof

namespace ts::prof {
namespace {

/// A 100 ms ProfilerStep trace on one GPU: a computation kernel over [comp_from, comp_to) and an
/// NCCL kernel over [comm_from, comm_to) (µs from the step's start), each launched in the step.
pa::Report comm_trace(int comp_from, int comp_to, int comm_from, int comm_to, const char* comm_name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                      const char* op = "") {
  std::string ev = R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":1000,"dur":100000},)";
  if (*op) ev += fmt::format(R"({{"ph":"X","cat":"cpu_op","name":"{}","pid":1,"tid":1,"ts":1020,"dur":10}},)", op);
  ev += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1010,"dur":5,"args":{"correlation":1}},)";
  ev += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1022,"dur":5,"args":{"correlation":2}},)";
  ev += fmt::format(R"({{"ph":"X","cat":"kernel","name":"sgemm","pid":0,"tid":7,"ts":{},"dur":{},"args":{{"device":0,"stream":7,"correlation":1}}}},)",
                    1000 + comp_from, comp_to - comp_from);
  ev += fmt::format(R"({{"ph":"X","cat":"kernel","name":"{}","pid":0,"tid":9,"ts":{},"dur":{},"args":{{"device":0,"stream":9,"correlation":2}}}})",
                    comm_name, 1000 + comm_from, comm_to - comm_from);
  const std::string json = R"({"schemaVersion":1,"distributedInfo":{"backend":"nccl","rank":3,"world_size":8},"traceEvents":[)" + ev + "]}";
  const auto t = imp::import_trace_bytes(json.data(), json.size(), "t.json");
  return pa::analyze(*t.store);
}

TEST(Communication, FullyHiddenFullyExposedAndHalf) {
  const pa::Report hidden = comm_trace(0, 80'000, 20'000, 60'000);  // all of it under the GEMM
  ASSERT_TRUE(hidden.communication);
  EXPECT_EQ(hidden.rank, 3);
  EXPECT_EQ(hidden.world_size, 8);
  EXPECT_EQ(hidden.communication->communication_ns, 40'000'000);
  EXPECT_DOUBLE_EQ(hidden.communication->overlap(), 1.0);
  EXPECT_EQ(hidden.communication->exposed_ns, 0);
  EXPECT_EQ(hidden.breakdown.ns[static_cast<int>(pa::Category::communication)], 0);

  const pa::Report exposed = comm_trace(0, 20'000, 40'000, 80'000);  // after it
  EXPECT_DOUBLE_EQ(exposed.communication->overlap(), 0.0);
  EXPECT_EQ(exposed.communication->exposed_ns, 40'000'000);
  EXPECT_EQ(exposed.breakdown.ns[static_cast<int>(pa::Category::communication)], 40'000'000);

  const pa::Report half = comm_trace(0, 40'000, 20'000, 60'000);
  EXPECT_DOUBLE_EQ(half.communication->overlap(), 0.5);
  EXPECT_EQ(half.communication->exposed_ns, 20'000'000);
  EXPECT_EQ(half.communication->computation_ns, 40'000'000);
}

TEST(Communication, NamesAreCaseInsensitiveAndACollectiveOpMakesItsKernelsCommunication) {
  EXPECT_TRUE(pa::is_communication_kernel("NCCLKERNEL_AllGather"));
  EXPECT_TRUE(pa::is_communication_kernel("rcclKernel_AllReduce"));
  EXPECT_FALSE(pa::is_communication_kernel("sgemm_128x64"));
  EXPECT_TRUE(pa::is_collective_op("nccl:all_reduce"));
  EXPECT_TRUE(pa::is_collective_op("c10d::allreduce_"));
  EXPECT_FALSE(pa::is_collective_op("aten::mm"));
  const pa::Report by_name = comm_trace(0, 20'000, 40'000, 80'000, "my_custom_reduce_kernel");
  EXPECT_FALSE(by_name.communication) << "an unknown kernel outside a collective op is computation";
  const pa::Report by_op = comm_trace(0, 20'000, 40'000, 80'000, "my_custom_reduce_kernel", "nccl:all_reduce");
  ASSERT_TRUE(by_op.communication);
  EXPECT_EQ(by_op.communication->kernels, 1);
}

TEST(Communication, NoneFoundIsSaidAndExposedCommunicationFiresTheVerdict) {
  const pa::Report none = analyse(trace(150, 200, 1000));
  EXPECT_FALSE(none.communication);
  EXPECT_NE(pa::to_text(none).find("communication: none found"), std::string::npos);
  const pa::Report exposed = comm_trace(0, 20'000, 40'000, 80'000);  // exposed 40 % of the step
  pa::Report r = exposed;
  r.min_steps_for_verdicts = 1;
  pa::add_verdicts(r);
  bool fired = false;
  for (const auto& v : r.verdicts) fired |= v.id == "communication_bound";
  EXPECT_TRUE(fired);
  const pa::Report hidden = comm_trace(0, 80'000, 20'000, 60'000);
  r = hidden;
  r.min_steps_for_verdicts = 1;
  pa::add_verdicts(r);
  for (const auto& v : r.verdicts) EXPECT_NE(v.id, "communication_bound");
}

}  // namespace
}  // namespace ts::prof


namespace ts::prof {
namespace {

TEST(Communication, CompareNamesTheSlowestRank) {
  auto rank_trace = [](int rank, int step_us) {
    const std::string json = fmt::format(
        R"({{"schemaVersion":1,"distributedInfo":{{"backend":"nccl","rank":{},"world_size":2}},"traceEvents":[)"
        R"({{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":1000,"dur":{}}},)"
        R"({{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":{},"dur":{}}}]}})",
        rank, step_us, 1000 + step_us, step_us);
    return imp::import_trace_bytes(json.data(), json.size(), fmt::format("rank{}.json", rank));
  };
  const auto a = rank_trace(0, 10'000), b = rank_trace(1, 15'000);
  compare::Options o;
  o.warmup_steps = 0;
  const auto c = compare::compare({a.store.get(), b.store.get()}, {"rank0.json", "rank1.json"}, o);
  EXPECT_EQ(c.slowest_rank_session, 1);
  EXPECT_NEAR(c.slowest_over_fastest, 1.5, 1e-9);
  EXPECT_NE(compare::to_text(c).find("slowest rank: B (rank 1)"), std::string::npos) << compare::to_text(c);
  const auto same = compare::compare({a.store.get(), a.store.get()}, {"x", "y"}, o);
  EXPECT_EQ(same.slowest_rank_session, -1) << "one rank twice is not a job's ranks";
}

}  // namespace
}  // namespace ts::prof

namespace ts::prof {
namespace {

TEST(StepRule, AWholeTraceUsesKinetosPerKernelEstimatesDurationWeighted) {
  // No device properties: only the trace's own estimates can give SM efficiency and occupancy.
  std::string ev;
  const std::pair<int, double> kernels[] = {{100, 0.5}, {300, 2.0}};  // duration (us), blocks per SM
  int t = 1000, corr = 0;
  for (const auto& [dur, bps] : kernels) {
    ++corr;
    ev += fmt::format(R"({{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{},"dur":4,"args":{{"correlation":{}}}}},)", t, corr);
    ev += fmt::format(R"({{"ph":"X","cat":"kernel","name":"k{}","pid":0,"tid":7,"ts":{},"dur":{},"args":{{"device":0,"stream":7,)"
                      R"("correlation":{},"blocks per SM":{},"est. achieved occupancy %":{}}}}},)",
                      corr, t + 5, dur, corr, bps, corr == 1 ? 20 : 60);
    t += 1000;
  }
  ev.pop_back();
  const std::string json = R"({"schemaVersion":1,"traceEvents":[)" + ev + "]}";
  const auto tr = imp::import_trace_bytes(json.data(), json.size(), "est.json");
  const pa::Report r = imp::analyze_session(*tr.store);
  ASSERT_TRUE(r.sm_efficiency.has_value());
  EXPECT_NEAR(*r.sm_efficiency, (0.5 * 100 + 1.0 * 300) / 400, 1e-6);  // min(1, blocks per SM), by duration
  ASSERT_TRUE(r.achieved_occupancy_est.has_value());
  EXPECT_NEAR(*r.achieved_occupancy_est, (0.2 * 100 + 0.6 * 300) / 400, 1e-6);
  EXPECT_TRUE(r.kineto_kernel_estimates);
  EXPECT_FALSE(r.theoretical_occupancy.has_value()) << "no device: no calculator";
}

}  // namespace
}  // namespace ts::prof
