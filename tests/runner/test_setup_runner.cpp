// trainscope-run --save-setup and --setup as a user runs them (docs/setups.md): the command line's
// knobs written as a file and one line; the line trains the same run on another machine (a model
// spec file travels inline, so it need not be there); options beside --setup win; a lesson's line
// runs (here: opens the recording of) that lesson; damaged, foreign and newer setups exit 2 naming
// the field or character.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>

#include "runner_test_util.h"
#include "setups/setup.h"

namespace ts::test {
namespace {

namespace fs = std::filesystem;

std::string last_line(const std::string& out) {
  std::string s = out;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s.substr(s.rfind('\n') == std::string::npos ? 0 : s.rfind('\n') + 1);
}

TEST(RunnerSetup, SaveSetupWritesTheFileAndPrintsTheLineWithoutTraining) {
  const fs::path d = fresh_temp_dir("ts_setup_save");
  const RunnerResult r = run_runner_split("--model vgg_small_bn --batch-size 96 --amp bf16 --num-workers 3 --epochs 4 "
                                          "--save-setup " + (d / "run.tsetup").string());
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string line = last_line(r.out);
  ASSERT_TRUE(line.starts_with("trainscope:")) << r.out;
  EXPECT_EQ(r.out.find("epoch"), std::string::npos) << "nothing trains: " << r.out;
  const setups::Setup from_file = setups::read_setup((d / "run.tsetup").string());
  EXPECT_EQ(setups::parse_setup(line, "line"), from_file);
  EXPECT_EQ(from_file.knob("model"), "vgg_small_bn");
  EXPECT_EQ(from_file.knob("batch_size"), "96");
  EXPECT_EQ(from_file.knob("amp"), "bf16");
  EXPECT_EQ(from_file.knob("num_workers"), "3");
  EXPECT_EQ(from_file.knob("epochs"), "4");
  EXPECT_EQ(from_file.knob("device"), "") << "--device auto is not written: the reader's machine picks";
  fs::remove_all(d);
}

TEST(RunnerSetup, ALineTrainsTheSameRunAndAModelFileTravelsInline) {
  if (!have_cpu_backend()) GTEST_SKIP() << "no CPU backend in this build";
  const fs::path d = fresh_temp_dir("ts_setup_line");
  fs::copy_file(fs::path(TRAINSCOPE_SOURCE_DIR) / "resources/models/tiny_cnn.json", d / "mine.json");
  const RunnerResult saved = run_runner_split("--model " + (d / "mine.json").string() +
                                              " --device cpu --batch-size 32 --limit-train 128 --num-workers 0 --seed 5 "
                                              "--save-setup " + (d / "mine.tsetup").string());
  ASSERT_EQ(saved.code, 0) << saved.err;
  const std::string line = last_line(saved.out);
  fs::remove(d / "mine.json");  // the reader's machine has no such file
  const RunnerResult r = run_runner_split("--setup " + line + " --data " + runner_sample_dir() + " --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = summary(r.out);
  ASSERT_TRUE(s.IsObject()) << r.out;
  EXPECT_STREQ(s["device"].GetString(), "cpu");
  EXPECT_EQ(s["batch_size"].GetInt(), 32);
  EXPECT_EQ(s["seed"].GetInt(), 5);
  EXPECT_STREQ(s["model"].GetString(), "TinyCNN");
  // An option beside --setup wins over the setup's.
  const RunnerResult over = run_runner_split("--setup " + (d / "mine.tsetup").string() + " --batch-size 64 --data " +
                                             runner_sample_dir() + " --quiet");
  ASSERT_EQ(over.code, 0) << over.err;
  EXPECT_EQ(summary(over.out)["batch_size"].GetInt(), 64);
  fs::remove_all(d);
}

TEST(RunnerSetup, ALessonLineOpensThatLesson) {
  // A file, not /dev/null: no writer replaces a device (docs/output-paths.md).
  const fs::path d = fresh_temp_dir("ts_setup_lesson");
  const RunnerResult saved = run_runner_split("--lesson dataloader_workers --save-setup " + (d / "l.tsetup").string());
  ASSERT_EQ(saved.code, 0) << saved.err;
  fs::remove_all(d);
  const RunnerResult r = run_runner_split("--setup " + last_line(saved.out) + " --recorded --json");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  rapidjson::Document doc;
  doc.Parse(r.out.c_str());
  ASSERT_TRUE(doc.IsObject()) << r.out;
  EXPECT_STREQ(doc["lesson"].GetString(), "dataloader_workers");
  EXPECT_TRUE(doc["showed"].GetBool());
}

TEST(RunnerSetup, DamagedForeignAndNewerSetupsExit2NamingTheField) {
  const fs::path d = fresh_temp_dir("ts_setup_bad");
  std::ofstream(d / "trace.tsetup") << R"({"traceEvents": []})";
  const auto line = [](const std::string& json) { return "trainscope:" + setups::base64url_encode(json); };
  const std::pair<std::string, std::string> cases[] = {
      {"trainscope:eyJ0cmFpbnNjb3!", "character 26: '!' is not base64url"},
      {line(R"({"trainscope_setup": 2, "knobs": {}})"), "format 2 is from a newer TrainScope (this one reads 1)"},
      {line(R"({"trainscope_setup": 1, "knobs": {"amp": "fp8"}})"), "knobs.amp: must be one of off, fp16, bf16"},
      {(d / "trace.tsetup").string(), "not a TrainScope setup"},
  };
  for (const auto& [setup, says] : cases) {
    const RunnerResult r = run_runner_split("--setup '" + setup + "'");
    EXPECT_EQ(r.code, 2) << setup;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }
  fs::remove_all(d);
}

}  // namespace
}  // namespace ts::test
