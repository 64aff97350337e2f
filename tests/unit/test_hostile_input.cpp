// Hostile but fair input to the core readers: JSON nested far deeper than any TrainScope file
// (RapidJSON's DOM parser and its Accept() recurse once per level: ~160,000 levels overflowed the
// stack) is refused with one line naming the source and the byte; the trace importer (a SAX reader
// with kParseIterativeFlag) reads it without recursing; a session whose run.config is nested so
// reads as one without a config; thread counts past 4 per hardware thread are refused before a
// thread is made.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "base/errors.h"
#include "base/json_guard.h"
#include "engine/model_spec.h"
#include "engine/synthetic_data.h"
#include "engine/trainer.h"
#include "lessons/lesson.h"
#include "lessons/lesson_eval.h"
#include "profiling/compare/compare.h"
#include "profiling/import/trace_import.h"
#include "setups/setup.h"

namespace ts {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kHostileDepth = 160'000;

/// `depth` opening brackets, then as many closing ones: ~320 KB at 160,000 levels.
std::string nested(std::size_t depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

/// The message of the InputError `f` throws ("" when it throws none).
template <typename F>
std::string input_error(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(HostileInput, NestingDepthIsFoundOutsideStringsOnly) {
  EXPECT_EQ(overdeep_nesting(nested(kMaxJsonDepth)), std::string::npos);
  EXPECT_EQ(overdeep_nesting(nested(kMaxJsonDepth + 1)), kMaxJsonDepth);
  EXPECT_EQ(overdeep_nesting("{\"a\": \"" + std::string(1000, '[') + "\"}"), std::string::npos);
  EXPECT_EQ(overdeep_nesting("[\"\\\"[[[\"]", 1), std::string::npos) << "an escaped quote does not end the string";
  EXPECT_EQ(overdeep_nesting("[[]]", 1), 1u);
  // Closing brackets past the top never let a later run go deeper unseen.
  EXPECT_EQ(overdeep_nesting("]]]]" + nested(3), 2), 6u);
}

TEST(HostileInput, NumberMagnitudesBeyondRapidJsonsSafeRangeAreFound) {
  EXPECT_EQ(number_magnitude("1.5e3"), 3);
  EXPECT_EQ(number_magnitude("0.002"), -3);
  EXPECT_EQ(number_magnitude("-40"), 1);
  EXPECT_EQ(number_magnitude("0.1e-299"), -300);
  EXPECT_FALSE(number_magnitude("0.0e999").has_value()) << "zero has no magnitude";
  EXPECT_GT(*number_magnitude("1e99999999999999999999"), 100000) << "a huge exponent clamps, never overflows";
  EXPECT_LT(*number_magnitude("1e-99999999999999999999"), -100000);
  EXPECT_EQ(out_of_range_number("[1e300, 9.99e300, 1e-300, 0e-999, 0.0]"), std::string::npos);
  EXPECT_EQ(out_of_range_number("[1, 1e301]"), 4u);
  EXPECT_EQ(out_of_range_number("{\"a\": 1.23456789012345678901234567890e-325}"), 6u);
  EXPECT_EQ(out_of_range_number("{\"a\": \"1e-999\"}"), std::string::npos) << "inside a string";
  EXPECT_EQ(out_of_range_number("-1e-400"), 0u) << "a number at the very end";
  const auto p = outside_json_problem("[4.888888888888888840888737778888888888888888888888888888888888888898880e-334]");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->offset, 1u);
  EXPECT_EQ(p->what, "a number outside 1e-300..1e300 in magnitude");
}

TEST(HostileInput, DeepModelSpecLessonAndSetupAreOneLineErrors) {
  const std::string deep = nested(kHostileDepth);
  const std::string spec = input_error([&] { parse_model_spec(deep, "deep.json"); });
  EXPECT_EQ(spec, "deep.json: invalid JSON at byte 256: nested more than 256 levels deep");
  const std::string inside = "{\"name\": \"x\", \"layers\": " + nested(kHostileDepth, '{', '}') + "}";
  EXPECT_NE(input_error([&] { parse_model_spec(inside, "obj.json"); }).find("obj.json: invalid JSON at byte "),
            std::string::npos);
  const std::string lesson = input_error([&] { lessons::parse_lesson("{\"lesson\": " + deep + "}", "deep.lesson.json"); });
  EXPECT_NE(lesson.find("deep.lesson.json"), std::string::npos) << lesson;
  EXPECT_NE(lesson.find("nested more than 256 levels deep"), std::string::npos) << lesson;
  EXPECT_EQ(lesson.find('\n'), std::string::npos) << lesson;
  const std::string setup = input_error([&] { setups::parse_setup("{\"knobs\": " + deep + "}", "deep.tsetup"); });
  EXPECT_NE(setup.find("deep.tsetup"), std::string::npos) << setup;
  EXPECT_NE(setup.find("nested more than 256 levels deep"), std::string::npos) << setup;
  // A file on disk is named too.
  const fs::path file = fs::temp_directory_path() / ("ts_deep_spec." + std::to_string(::getpid()) + ".json");
  std::ofstream(file, std::ios::binary) << deep;
  const std::string loaded = input_error([&] { load_model_spec(file.string()); });
  EXPECT_NE(loaded.find(file.string()), std::string::npos) << loaded;
  EXPECT_NE(loaded.find("nested more than 256 levels deep"), std::string::npos) << loaded;
  fs::remove(file);
}

TEST(HostileInput, DeepLessonRecordManifestIsRefused) {
  const fs::path dir = fs::temp_directory_path() / ("ts_deep_record." + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "manifest.json", std::ios::binary) << "{\"lesson\": " << nested(kHostileDepth) << "}";
  const std::string msg = input_error([&] { lessons::read_record(dir.string()); });
  EXPECT_NE(msg.find("manifest.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nested more than 256 levels deep"), std::string::npos) << msg;
  fs::remove_all(dir);
}

TEST(HostileInput, DeepTraceArgsDoNotRecurse) {
  const std::string json = "{\"traceEvents\": [{\"ph\":\"X\",\"name\":\"step\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5,\"args\":" +
                           nested(kHostileDepth) + "}]}";
  try {
    const auto t = prof::import::import_trace_bytes(json.data(), json.size(), "deep.json");
    EXPECT_TRUE(t.store != nullptr);
  } catch (const InputError& e) {  // refused is fine too: one line naming the file
    EXPECT_NE(std::string(e.what()).find("deep.json"), std::string::npos) << e.what();
  }
}

TEST(HostileInput, ADeepRunConfigInASessionReadsAsNoConfig) {
  std::map<std::string, std::string> a{{"run.config", "{\"batch_size\": 64, \"x\": " + nested(kHostileDepth) + "}"},
                                       {"run.model_spec", nested(kHostileDepth, '{', '}')}};
  std::map<std::string, std::string> b{{"run.config", "{\"batch_size\": 128}"}};
  const auto diff = prof::compare::config_diff({a, b});
  bool batch = false;
  for (const auto& d : diff)
    if (d.key == "batch_size") {
      batch = true;
      ASSERT_EQ(d.values.size(), 2u);
      EXPECT_FALSE(d.values[0].has_value()) << "a config that is not read is unknown";
    }
  EXPECT_TRUE(batch);
}

TEST(HostileInput, ThreadCountsPastFourPerHardwareThreadAreRefused) {
  const int cap = max_run_threads();
  EXPECT_GE(cap, 4);
  EXPECT_EQ(cap % 4, 0);
  SyntheticOptions so;
  so.train_images = 64;
  so.test_images = 32;
  const Cifar10 data = make_synthetic_cifar(so);
  TrainConfig c;
  c.model = simple_cnn_spec();
  c.batch_size = 32;
  c.cpu_threads = 100'000;
  EXPECT_EQ(input_error([&] { Trainer t(c, data, {}); }),
            "--cpu-threads 100000: at most " + std::to_string(cap) + " on this machine (4 per hardware thread, " +
                std::to_string(cap / 4) + " here)");
  c.cpu_threads = 0;
  c.num_workers = 30'000;
  EXPECT_NE(input_error([&] { Trainer t(c, data, {}); }).find("--num-workers 30000: at most "), std::string::npos);
  c.num_workers = cap + 1;
  EXPECT_NE(input_error([&] { Trainer t(c, data, {}); }), "");
}

// Every front end's optimizer numbers meet the trainer's one check, NaN included (it compares false
// with every bound; the window's spin boxes and a setup's knob table cannot hand one over, a program
// using the engine can), and so does an unwritable checkpoint folder, before any epoch.
TEST(HostileInput, TrainerRefusesNonFiniteOptimizerNumbersAndAnUnwritableCheckpointFolder) {
  SyntheticOptions so;
  so.train_images = 64;
  so.test_images = 32;
  const Cifar10 data = make_synthetic_cifar(so);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  TrainConfig c;
  c.model = simple_cnn_spec();
  c.batch_size = 32;
  c.optimizer.type = OptimizerType::sgd;
  c.optimizer.momentum = nan;
  EXPECT_EQ(input_error([&] { Trainer t(c, data, {}); }), "--momentum must be a number from 0 to 1, got nan");
  c.optimizer.momentum = 1.5f;
  EXPECT_NE(input_error([&] { Trainer t(c, data, {}); }).find("--momentum must be a number from 0 to 1, got 1.5"),
            std::string::npos);
  c.optimizer.momentum = 0.9f;
  c.optimizer.weight_decay = nan;
  EXPECT_EQ(input_error([&] { Trainer t(c, data, {}); }), "--weight-decay must be a finite number >= 0, got nan");
  c.optimizer.weight_decay = -1;  // the optimizer's default, as the window and the runner mean it
  c.optimizer.lr = std::numeric_limits<float>::infinity();
  EXPECT_NE(input_error([&] { Trainer t(c, data, {}); }).find("--lr must be a finite number > 0"), std::string::npos);
  c.optimizer.lr = 0.01f;
  c.checkpoint_every = 1;
  c.checkpoint_path = "/proc/";
  EXPECT_EQ(input_error([&] { Trainer t(c, data, {}); }).rfind("--checkpoint /proc/: cannot write in the folder /proc/", 0),
            0u);
}

}  // namespace
}  // namespace ts
