// trainscope-run --lesson as a user runs it: a small CPU lesson trained, recorded and judged; a
// promise the runs do not keep exits 1 with the numbers; runs joined from two invocations; a bad
// lesson refused with the field named; a lesson this machine cannot run opened from its recording.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>

#include "engine/network.h"
#include "profiling/event_source.h"
#include "runner_test_util.h"

namespace ts::test {
namespace {

namespace fs = std::filesystem;

/// A CPU lesson on the sample set: 320 images at batch 32 (10 steps), two runs.
std::string cpu_lesson(const std::string& expect) {
  return R"({"trainscope_lesson": 1, "name": "tiny_cpu", "title": "Tiny CPU lesson", "story": ["Two short CPU runs."],
    "base": {"device": "cpu", "images": 320, "epochs": 1, "cpu_threads": 1},
    "runs": [{"id": "small", "label": "batch 16", "knobs": {"batch_size": 16, "num_workers": 0}},
             {"id": "large", "label": "batch 32", "knobs": {"batch_size": 32, "num_workers": 1}}],
    "expect": [)" + expect + "]}";
}

fs::path write(const fs::path& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name) << text;
  return dir / name;
}

TEST(RunnerLesson, ACpuLessonRunsRecordsAndShowsItsPromise) {
  if (!have_cpu_backend()) GTEST_SKIP() << "no CPU backend in this build";
  const fs::path d = fresh_temp_dir("ts_lesson_cpu");
  const auto file = write(d, "tiny.json", cpu_lesson(R"({"outcome": "completes", "run": "small"},
      {"outcome": "completes", "run": "large"},
      {"figure": "images_per_s", "from": "small", "to": "large", "at_least": 0.05})"));
  const RunnerResult r = run_runner_split("--lesson " + file.string() + " --lesson-dir " + (d / "out").string() +
                                          " --data " + runner_sample_dir() + " --json");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("lesson tiny_cpu: run small (batch 16)"), std::string::npos) << r.err;
  rapidjson::Document doc;
  doc.Parse(r.out.c_str());
  ASSERT_FALSE(doc.HasParseError()) << "stdout holds the lesson's JSON alone: " << r.out;
  EXPECT_TRUE(doc["showed"].GetBool());
  EXPECT_TRUE(doc["recording"].IsNull()) << "trained here, not a recording";
  ASSERT_EQ(doc["checks"].Size(), 3u);
  EXPECT_STREQ(doc["checks"][0]["change"].GetString(), "completes");
  ASSERT_EQ(doc["runs"].Size(), 2u);
  for (const auto& run : doc["runs"].GetArray()) {
    EXPECT_STREQ(run["outcome"].GetString(), "completes");
    EXPECT_TRUE(run["analysed"].GetBool());
    EXPECT_GT(run["figures"]["images_per_s"].GetDouble(), 0);
    EXPECT_GT(run["figures"]["activation_bytes"].GetDouble(), 0);
  }
  // Activations grow with the batch: the planned buffers of batch 32 are larger than batch 16's.
  EXPECT_GT(doc["runs"][1]["figures"]["activation_bytes"].GetDouble(), doc["runs"][0]["figures"]["activation_bytes"].GetDouble());
  EXPECT_TRUE(fs::exists(d / "out" / "manifest.json"));
  EXPECT_TRUE(fs::exists(d / "out" / "small.tsession"));
  EXPECT_TRUE(fs::exists(d / "out" / "large.tsession"));
  // Lessons run eager steps unless their knobs say cuda_graphs (the default of other runs is on).
  const auto src = prof::open_session((d / "out" / "small.tsession").string());
  rapidjson::Document config;
  config.Parse(src->store().meta().at("run.config").c_str());
  ASSERT_TRUE(config.IsObject() && config.HasMember("cuda_graphs"));
  EXPECT_FALSE(config["cuda_graphs"].GetBool());
  fs::remove_all(d);
}

TEST(RunnerLesson, AnUnkeptPromiseExitsOneWithTheNumbers) {
  if (!have_cpu_backend()) GTEST_SKIP() << "no CPU backend in this build";
  const fs::path d = fresh_temp_dir("ts_lesson_unkept");
  const auto file = write(d, "tiny.json", cpu_lesson(R"({"figure": "images_per_s", "from": "small", "to": "large", "at_least": 1000})"));
  const RunnerResult r = run_runner_split("--lesson " + file.string() + " --lesson-dir " + (d / "out").string() +
                                          " --data " + runner_sample_dir());
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("[NOT SHOWN] images_per_s of large / small >= 1000: small "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("img/s"), std::string::npos) << "the numbers are printed: " << r.out;
  EXPECT_NE(r.out.find("the lesson did NOT show what it promised"), std::string::npos) << r.out;
  fs::remove_all(d);
}

TEST(RunnerLesson, RunsFromTwoInvocationsJoinInOneFolder) {
  if (!have_cpu_backend()) GTEST_SKIP() << "no CPU backend in this build";
  const fs::path d = fresh_temp_dir("ts_lesson_join");
  const auto file = write(d, "tiny.json", cpu_lesson(R"({"outcome": "completes", "run": "small"}, {"outcome": "completes", "run": "large"})"));
  const std::string args = "--lesson " + file.string() + " --lesson-dir " + (d / "out").string() + " --data " + runner_sample_dir();
  const RunnerResult first = run_runner_split(args + " --lesson-runs small");
  EXPECT_EQ(first.code, 1) << "the other run is missing: " << first.out;
  EXPECT_NE(first.out.find("large: not run yet"), std::string::npos) << first.out;
  const RunnerResult second = run_runner_split(args + " --lesson-runs large");
  EXPECT_EQ(second.code, 0) << second.out << second.err;
  EXPECT_EQ(second.err.find("run small"), std::string::npos) << "small was kept, not run again: " << second.err;
  const RunnerResult bad = run_runner_split(args + " --lesson-runs medium");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--lesson-runs medium: lesson tiny_cpu has no such run"), std::string::npos) << bad.err;
  fs::remove_all(d);
}

TEST(RunnerLesson, ABadLessonIsRefusedWithTheFieldNamed) {
  const fs::path d = fresh_temp_dir("ts_lesson_bad");
  const auto file = write(d, "bad.json", cpu_lesson(R"({"figure": "images_per_s", "from": "small", "to": "huge", "at_least": 2})"));
  const RunnerResult r = run_runner_split("--lesson " + file.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("expect[0].to: no run \"huge\" (runs: small, large)"), std::string::npos) << r.err;
  // A model that is neither a preset nor a file: refused before anything trains, the field named.
  std::string typo = cpu_lesson(R"({"outcome": "completes", "run": "small"})");
  typo.replace(typo.find("\"device\": \"cpu\""), 15, "\"device\": \"cpu\", \"model\": \"tiny_cn\"");
  const RunnerResult model = run_runner_split("--lesson " + write(d, "typo.json", typo).string() + " --lesson-dir " +
                                              (d / "typo").string());
  EXPECT_EQ(model.code, 2) << model.out << model.err;
  EXPECT_NE(model.err.find("lesson tiny_cpu: base.model: --model tiny_cn: no such preset or file"), std::string::npos)
      << model.err;
  EXPECT_FALSE(fs::exists(d / "typo" / "manifest.json")) << "nothing was trained";
  const RunnerResult none = run_runner_split("--lesson no_such_lesson");
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("no such built-in lesson or file"), std::string::npos) << none.err;
  fs::remove_all(d);
}

TEST(RunnerLesson, WithoutItsDeviceALessonOpensFromItsRecording) {
  if (cuda_available()) GTEST_SKIP() << "this machine has a GPU: the lesson would run live";
  const fs::path d = fresh_temp_dir("ts_lesson_recorded");
  const RunnerResult r = run_runner_split("--lesson dataloader_workers", d.string());
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("needs a GPU"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("recorded on NVIDIA H"), std::string::npos) << r.err;  // an H200 or an H100
  EXPECT_NE(r.out.find("(from the recording in "), std::string::npos) << r.out;
  const RunnerResult j = run_runner_split("--lesson dataloader_workers --json", d.string());
  rapidjson::Document doc;
  doc.Parse(j.out.c_str());
  ASSERT_FALSE(doc.HasParseError()) << j.out;
  ASSERT_TRUE(doc["recording"].IsString()) << j.out;
  EXPECT_NE(std::string(doc["recording"].GetString()).find("recorded/dataloader_workers"), std::string::npos);
  EXPECT_NE(r.out.find("[shown] input_bound fires on before and not on after"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "lesson-dataloader_workers")) << "nothing is trained or written";
  fs::remove_all(d);
}

// Two identical GPU runs of one lesson read the same speed: the first does not pay the process's first
// CUDA uses (context, lazily loaded kernels, library handles, CUPTI's start). Without the lesson's
// untimed warm-up, the first run's first step took 43 ms against 0.8 ms (sync_points on an H100), so
// on these 80 steps its images/s would be about half the second's. (One-sided: the warm-up is about the
// first run; two 80-step runs differ by up to ~25 % in either direction on a busy host.)
TEST(RunnerLesson, TwoEqualGpuRunsReadTheSameSpeed) {
  if (!cuda_available()) GTEST_SKIP() << "needs a CUDA GPU";
  const fs::path d = fresh_temp_dir("ts_lesson_warm");
  const auto file = write(d, "twins.json", R"({"trainscope_lesson": 1, "name": "twins", "title": "Twins",
    "story": ["Two equal runs."], "base": {"device": "cuda", "model": "tiny_cnn", "batch_size": 125, "images": 2000,
    "epochs": 5, "num_workers": 2},
    "runs": [{"id": "first", "label": "first", "knobs": {}}, {"id": "second", "label": "second", "knobs": {}}],
    "expect": [{"outcome": "completes", "run": "first"}]})");
  const RunnerResult r = run_runner_split("--lesson " + file.string() + " --lesson-dir " + (d / "out").string() +
                                          " --data " + runner_sample_dir() + " --json");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("lesson twins: warm-up step of run first (untimed)"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "out" / ".warm-up.tsession")) << "the warm-up's scratch session is removed";
  rapidjson::Document doc;
  doc.Parse(r.out.c_str());
  ASSERT_FALSE(doc.HasParseError()) << r.out;
  const double first = doc["runs"][0]["figures"]["images_per_s"].GetDouble();
  const double second = doc["runs"][1]["figures"]["images_per_s"].GetDouble();
  EXPECT_GT(first, 0.7 * second) << "first " << first << " img/s, second " << second << " img/s\n" << r.err;
  fs::remove_all(d);
}

}  // namespace
}  // namespace ts::test
