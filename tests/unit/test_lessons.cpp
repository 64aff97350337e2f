// Lesson files: the built-in lessons parse and round-trip, bad lessons are refused with the field
// named, lesson folders' manifests round-trip, and every built-in lesson ships a recording that
// opens, analyses and shows what the lesson promises.
#include <gtest/gtest.h>

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

#include "base/errors.h"
#include "base/format_bytes.h"
#include "base/format_number.h"
#include "engine/model_spec.h"
#include "lessons/lesson.h"
#include "lessons/lesson_eval.h"
#include "lessons/lesson_where.h"
#include "lessons/session_pack.h"
#include "profiling/analysis/analysis.h"
#include "profiling/compare/compare.h"
#include "profiling/event_source.h"
#include "profiling/session/session_file.h"

namespace ts::lessons {
namespace {

namespace fs = std::filesystem;

const char* kGood = R"({"trainscope_lesson": 1, "name": "tiny", "title": "Tiny",
  "story": ["One paragraph."],
  "base": {"device": "cpu", "batch_size": 32, "images": 640},
  "runs": [{"id": "before", "label": "nw0", "knobs": {"num_workers": 0}},
           {"id": "after", "label": "nw2", "knobs": {"num_workers": 2, "batch_size": 64}}],
  "expect": [{"verdict": "input_bound", "fires_on": "before", "gone_on": "after", "min_margin": 2},
             {"figure": "images_per_s", "from": "before", "to": "after", "at_least": 1.5},
             {"outcome": "completes", "run": "after"}],
  "show": {"align_step": 3, "panel": "memory"}})";

/// The InputError message parse_lesson gives for `json`, or "" when it parses.
std::string refusal(const std::string& json) {
  try {
    parse_lesson(json, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

/// The bytes of a fuzzer's input kept under tests/data/fuzz/lesson.
std::string fuzz_seed(const char* name) {
  std::ifstream in(fs::path(TRAINSCOPE_SOURCE_DIR) / "tests/data/fuzz/lesson" / name, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// kGood with `from` replaced by `to` (once).
std::string good_with(const std::string& from, const std::string& to) {
  std::string s = kGood;
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

TEST(Lessons, ParsesKnobsExpectationsAndShow) {
  const Lesson l = parse_lesson(kGood, "t.json");
  EXPECT_EQ(l.name, "tiny");
  ASSERT_EQ(l.runs.size(), 2u);
  EXPECT_EQ(l.knob(0, "batch_size"), "32");
  EXPECT_EQ(l.knob(1, "batch_size"), "64") << "a run's knob replaces the base's";
  EXPECT_EQ(l.knob(1, "num_workers"), "2");
  EXPECT_EQ(l.knob(0, "amp"), "");
  EXPECT_EQ(l.devices(), std::vector<std::string>{"cpu"});
  ASSERT_EQ(l.expect.size(), 3u);
  EXPECT_EQ(l.expect[0].kind, "verdict");
  EXPECT_DOUBLE_EQ(l.expect[0].min_margin, 2);
  EXPECT_EQ(l.expect[1].at_least, 1.5);
  EXPECT_EQ(l.expect[2].outcome, "completes");
  EXPECT_EQ(l.align_step, 3);
  EXPECT_EQ(l.panel, "memory");
}

TEST(Lessons, RoundTripsPrettyAndCompact) {
  const Lesson l = parse_lesson(kGood, "t.json");
  EXPECT_EQ(parse_lesson(to_json(l, true), "pretty"), l);
  EXPECT_EQ(parse_lesson(to_json(l, false), "compact"), l);
}

TEST(Lessons, BuiltinsParseRoundTripAndNameTheirDevices) {
  const auto& all = builtin_lessons();
  ASSERT_EQ(all.size(), 7u);
  const std::vector<std::string> names = {"cpu_vs_gpu",      "dataloader_workers", "sync_points", "batch_size",
                                          "mixed_precision", "out_of_memory",      "pinned_memory"};
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].name, names[i]);
    EXPECT_EQ(parse_lesson(to_json(all[i]), all[i].name), all[i]) << all[i].name;
    EXPECT_GE(all[i].story.size(), 2u) << all[i].name << ": a story a teacher can read aloud";
    EXPECT_EQ(resolve_lesson(all[i].name), all[i]);
  }
  EXPECT_EQ(all[0].devices(), (std::vector<std::string>{"cpu", "cuda"}));
  EXPECT_EQ(all[1].devices(), std::vector<std::string>{"cuda"});
}

TEST(Lessons, BadLessonsAreRefusedWithTheFieldNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {good_with("\"num_workers\": 0", "\"num_wrkers\": 0"), "runs[0].knobs.num_wrkers: unknown knob"},
      {good_with("\"batch_size\": 64", "\"batch_size\": \"big\""), "runs[1].knobs.batch_size: must be an integer from 1 to 65536, got \"big\""},
      {good_with("\"batch_size\": 32", "\"batch_size\": 0"), "base.batch_size: must be an integer from 1 to 65536, got 0"},
      {good_with("\"device\": \"cpu\"", "\"device\": \"tpu\""), "base.device: must be one of cuda, cpu"},
      {good_with("\"id\": \"after\"", "\"id\": \"before\""), "runs[1].id: \"before\" is used by another run"},
      {good_with("\"gone_on\": \"after\"", "\"gone_on\": \"later\""), "expect[0].gone_on: no run \"later\" (runs: before, after)"},
      {good_with("\"at_least\": 1.5", "\"at_least\": -1"), "expect[1].at_least: must be a number > 0"},
      {good_with(", \"at_least\": 1.5", ""), "expect[1]: needs one of at_least, at_most"},
      {good_with("\"at_least\": 1.5", "\"at_least\": 1.5, \"at_most\": 9"), "expect[1]: takes one of at_least, at_most, not both"},
      {good_with("\"story\": [\"One paragraph.\"]", "\"story\": []"), "story: must be an array of 1 to 20 paragraphs"},
      {good_with("\"trainscope_lesson\": 1", "\"trainscope_lesson\": 7"), "trainscope_lesson: schema 7 is from a newer TrainScope"},
      {good_with("\"panel\": \"memory\"", "\"panel\": \"sidebar\""), "show.panel: must be one of timeline"},
      {good_with("\"title\": \"Tiny\",", "\"title\": \"Tiny\", \"colour\": 1,"), "colour: unknown field"},
      {good_with("\"name\": \"tiny\"", "\"name\": \"Tiny Lesson\""), "name: only lowercase letters"},
      {good_with("{\"outcome\": \"completes\", \"run\": \"after\"}", "{\"run\": \"after\"}"), "expect[2]: needs \"verdict\", \"figure\" or \"outcome\""},
      {"{\"trainscope_lesson\": 1, \"name\": \"x\"", "lesson t.json: offset "},
      {"[1, 2]", "file: must hold a JSON object"},
      {good_with("\"label\": \"nw0\"", "\"label\": \"a\\nb\""), ""},  // a newline in a label is allowed...
  };
  for (const auto& [json, expected] : cases) {
    const std::string msg = refusal(json);
    if (expected.empty()) {
      EXPECT_EQ(msg, "") << json;
      continue;
    }
    EXPECT_NE(msg.find(expected), std::string::npos) << "got: " << msg << "\nwanted: " << expected;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
  }
  // ...but a key holding one is quoted escaped, on one line.
  const std::string msg = refusal(good_with("\"num_workers\": 0", "\"num\\nworkers\": 0"));
  EXPECT_NE(msg.find("runs[0].knobs.num\\nworkers"), std::string::npos) << msg;
}

TEST(Lessons, UnknownNameListsTheBuiltins) {
  try {
    resolve_lesson("no_such_lesson");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("built-in: cpu_vs_gpu, dataloader_workers"), std::string::npos) << e.what();
  }
}

TEST(Lessons, ManifestRoundTripsAndRefusesDamage) {
  const fs::path dir = fs::temp_directory_path() / ("ts_lesson_manifest_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  LessonRecord rec{parse_lesson(kGood, "t.json"), {}};
  RecordedRun a("before");
  a.session = "before.tsession";
  a.outcome = "out_of_memory";
  a.error = "CUDA out of memory (simulated 8 GiB card)";
  a.device_name = "NVIDIA H200";
  a.recorded_at = "2026-12-01";
  a.summary_json = R"({"images_per_s":123.5})";
  rec.runs = {a, RecordedRun("after")};
  write_record(dir.string(), rec);
  const LessonRecord back = read_record(dir.string());
  EXPECT_EQ(back.lesson, rec.lesson);
  ASSERT_EQ(back.runs.size(), 2u);
  EXPECT_EQ(back.runs[0].outcome, "out_of_memory");
  EXPECT_EQ(back.runs[0].error, a.error);
  EXPECT_EQ(back.runs[0].summary_json, a.summary_json);
  EXPECT_EQ(back.runs[1].outcome, "missing");
  // The sessions are missing: evaluate says so per check instead of throwing.
  const LessonResult r = evaluate(dir.string(), back);
  EXPECT_FALSE(r.showed());
  EXPECT_NE(r.runs[0].analysis_error.find("missing"), std::string::npos) << r.runs[0].analysis_error;
  {
    std::ofstream(dir / "manifest.json") << R"({"trainscope_lesson_record": 1, "lesson": {}, "runs": []})";
  }
  EXPECT_THROW(read_record(dir.string()), InputError);
  {
    std::ofstream(dir / "manifest.json") << R"({"trainscope_lesson_record": 9})";
  }
  try {
    read_record(dir.string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("newer TrainScope"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

/// A recording is found by its lesson, not its name alone: the built-in's recording for the built-in
/// (a changed story or title does not matter), none for a user's lesson that shares the name but
/// trains other runs (the window must not show the built-in's figures as the user's).
TEST(Lessons, ARecordingBelongsToTheLessonThatTrainsItsRuns) {
  const Lesson& builtin = builtin_lessons().front();
  std::string tried;
  EXPECT_FALSE(find_recording("", builtin, &tried).empty()) << tried;
  Lesson retold = builtin;
  retold.title = "Another title";
  retold.story = {"Told differently."};
  retold.runs[0].label = "relabelled";
  EXPECT_FALSE(find_recording("", retold).empty());
  Lesson mine = builtin;
  mine.runs[0].knobs.push_back({"seed", "7"});
  EXPECT_TRUE(find_recording("", mine, &tried).empty());
  EXPECT_NE(tried.find("another lesson named " + builtin.name), std::string::npos) << tried;
  EXPECT_FALSE(find_recording("", builtin.name).empty());  // by name alone, as before
}

/// Every built-in lesson ships a recording (resources/lessons/recorded/NAME) that opens, analyses
/// and shows what it promises: a laptop without a GPU opens the lessons from these.
TEST(Lessons, EveryRecordingOpensAnalysesAndShowsItsChange) {
  const fs::path root = fs::path(TRAINSCOPE_SOURCE_DIR) / "resources" / "lessons" / "recorded";
  for (const Lesson& l : builtin_lessons()) {
    SCOPED_TRACE(l.name);
    const fs::path dir = root / l.name;
    ASSERT_TRUE(fs::exists(dir / "manifest.json")) << dir;
    const LessonRecord rec = read_record(dir.string());
    EXPECT_EQ(rec.lesson, l) << "the recording is of the lesson as it is now";
    const LessonResult r = evaluate(dir.string(), rec);
    for (const RunResult& run : r.runs) {
      EXPECT_NE(run.run.outcome, "missing") << run.run.id;
      EXPECT_FALSE(run.run.device_name.empty()) << run.run.id;
      if (!run.run.session.empty()) {
        EXPECT_EQ(fs::path(run.run.session).extension(), ".zst") << run.run.id << ": recordings are compressed";
      }
      if (run.run.outcome == "completes") {
        EXPECT_TRUE(run.analysed) << run.run.id << ": " << run.analysis_error;
        EXPECT_GE(run.steps, 1) << run.run.id;
      }
    }
    for (const Check& c : r.checks) {
      EXPECT_TRUE(c.met) << c.what << ": " << c.detail;
      EXPECT_FALSE(c.change.empty()) << c.what;  // what the window shows: "fired → gone", "a → b (×r)"
    }
  }
  std::uintmax_t bytes = 0;
  if (fs::exists(root))
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.is_regular_file()) bytes += e.file_size();
  EXPECT_LE(bytes, 4u << 20) << "every file of the checkout travels with each device call";
}

// Found by ts_lesson_fuzzer: RapidJSON 1.1's full-precision parser reads out of bounds (SEGV in
// StrtodDiyFp) or returns garbage for a number of more than 19 digits below the smallest normal double,
// though under 100 characters. Every reader of outside JSON refuses a number outside 1e-300..1e300.
TEST(Lessons, ANumberBeyondRapidJsonsRangeIsRefusedNotParsed) {
  const std::string bytes = fuzz_seed("crash_subnormal_number.json");
  ASSERT_GT(bytes.size(), 300u);
  const std::string msg = refusal(bytes);
  EXPECT_NE(msg.find("offset 11: a number outside 1e-300..1e300 in magnitude"), std::string::npos) << msg;
  // 1.23456789012345678901234567890e-325 read back as -2.2e+307 before.
  const std::string tiny = refusal(good_with("\"at_least\": 1.5", "\"at_least\": 1.23456789012345678901234567890e-325"));
  EXPECT_NE(tiny.find("a number outside 1e-300..1e300"), std::string::npos) << tiny;
  EXPECT_NE(refusal(good_with("\"at_least\": 1.5", "\"at_least\": 2e301")).find("outside"), std::string::npos);
  EXPECT_EQ(refusal(good_with("\"at_least\": 1.5", "\"at_least\": 1.5e-300")), "") << "the edge is fine";
  EXPECT_EQ(refusal(good_with("\"label\": \"nw0\"", "\"label\": \"1e-999\"")), "") << "a string is not a number";
  try {
    parse_model_spec("[{\"type\": \"Dropout\", \"p\": 1.23456789012345678901234567890e-325}]", "spec.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a number outside 1e-300..1e300"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ts::lessons

namespace ts::lessons {
namespace {

// Found by ts_lesson_fuzzer: a 725-digit number crashed RapidJSON's full-precision parser (SEGV in
// StrtodDiyFp). The lesson and model-spec readers refuse numbers over 100 characters first.
TEST(Lessons, AnOverlongNumberIsRefusedNotParsed) {
  const std::string bytes = fuzz_seed("crash_overlong_number.json");
  ASSERT_GT(bytes.size(), 700u);
  const std::string msg = refusal(bytes);
  EXPECT_NE(msg.find("a number of more than 100 characters"), std::string::npos) << msg;
  const std::string digits(725, '8');
  EXPECT_NE(refusal(good_with("\"at_least\": 1.5", "\"at_least\": 1." + digits)).find("offset "), std::string::npos);
  // Found by ts_lesson_fuzzer: a lone low-surrogate escape decodes to bytes that are not UTF-8, and the
  // lesson written back did not parse. Refused with the field named.
  const std::string sur = refusal(good_with("\"label\": \"nw0\"", "\"label\": \"a\\udDAA b\""));
  EXPECT_NE(sur.find("runs[0].label: holds a lone UTF-16 surrogate"), std::string::npos) << sur;
  EXPECT_EQ(refusal(good_with("\"label\": \"nw0\"", "\"label\": \"\\ud83d\\ude00\"")), "") << "a pair is fine";
  try {  // the model-spec reader had the same hole
    parse_model_spec("[{\"type\": \"ReLU\", \"name\": \"a\\udc00\"}]", "spec.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("lone UTF-16 surrogate"), std::string::npos) << e.what();
  }
  // A long string of digits is not a number.
  EXPECT_EQ(refusal(good_with("\"label\": \"nw0\"", "\"label\": \"" + std::string(150, '7') + "\"")), "");
  try {
    parse_model_spec("[{\"type\": \"Dropout\", \"p\": 0." + digits + "}]", "spec.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a number of more than 100 characters"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ts::lessons

namespace ts::lessons {
namespace {

// Recordings keep their sessions zstd-compressed: measured through a plain copy that is removed
// afterwards; a cut or corrupted .zst is refused with the file named. Older .gz recordings still read.
TEST(Lessons, CompressedSessionsMeasureAsPlainOnesAndDamagedOnesAreRefused) {
  fs::path plain;
  for (const auto& e : fs::directory_iterator(fs::path(TRAINSCOPE_SOURCE_DIR) / "tests/data"))
    if (e.path().extension() == ".tsession") { plain = e.path(); break; }
  ASSERT_FALSE(plain.empty());
  const std::string stem = "ts_lesson_pack_" + std::to_string(::getpid());
  const fs::path zst = fs::temp_directory_path() / (stem + ".tsession.zst");
  const fs::path gz = fs::temp_directory_path() / (stem + ".tsession.gz");
  compress_session(plain.string(), zst.string());
  EXPECT_LT(fs::file_size(zst), fs::file_size(plain) / 2);
  {
    std::ifstream in(plain, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    gzFile out = gzopen(gz.c_str(), "wb9");
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
    ASSERT_EQ(gzclose(out), Z_OK);
  }
  const RunResult a = measure_session(plain.string()), b = measure_session(zst.string()),
                  g = measure_session(gz.string());
  ASSERT_TRUE(a.analysed) << a.analysis_error;
  ASSERT_TRUE(b.analysed) << b.analysis_error;
  ASSERT_TRUE(g.analysed) << g.analysis_error;
  EXPECT_EQ(a.figures, b.figures);
  EXPECT_EQ(a.verdicts, b.verdicts);
  EXPECT_EQ(a.figures, g.figures);
  fs::path copied;
  {
    const PlainSession copy(zst.string());
    EXPECT_TRUE(fs::exists(copy.path()));
    EXPECT_NE(copy.path(), zst.string());
    copied = copy.path();
  }
  EXPECT_FALSE(fs::exists(copied)) << "the plain copy is removed";
  const auto refused = [](const fs::path& p, const char* what) {
    try {
      PlainSession bad(p.string());
      ADD_FAILURE() << what << " was read";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    }
  };
  {  // one byte flipped in the middle: zstd's content checksum (or the frame itself) catches it
    std::fstream f(zst, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(zst) / 2));
    f.put('\x5a');
  }
  refused(zst, "a corrupted zstd stream");
  compress_session(plain.string(), zst.string());
  fs::resize_file(zst, fs::file_size(zst) / 2);
  refused(zst, "a cut zstd stream");
  const RunResult c = measure_session(zst.string());
  EXPECT_FALSE(c.analysed);
  EXPECT_NE(c.analysis_error.find("zstd"), std::string::npos) << c.analysis_error;
  fs::resize_file(gz, fs::file_size(gz) / 2);
  refused(gz, "a cut gzip stream");
  {  // a whole stream of something that is no session: the error names the .zst, not its temporary copy
    const fs::path text = fs::temp_directory_path() / (stem + ".txt");
    std::ofstream(text) << std::string(4096, 'x');
    compress_session(text.string(), zst.string());
    fs::remove(text);
    const RunResult d = measure_session(zst.string());
    EXPECT_FALSE(d.analysed);
    EXPECT_NE(d.analysis_error.find(zst.string()), std::string::npos) << d.analysis_error;
    EXPECT_EQ(d.analysis_error.find("ts-lesson-"), std::string::npos) << d.analysis_error;
  }
  fs::remove(zst);
  fs::remove(gz);
}

}  // namespace
}  // namespace ts::lessons
namespace ts::lessons {
namespace {

// Every verdict the analysis can give has a rule (measure, threshold) that lessons judge it by.
TEST(Lessons, EveryVerdictIdHasARule) {
  ASSERT_EQ(prof::analysis::verdict_ids().size(), 12u);
  for (const std::string& id : prof::analysis::verdict_ids()) EXPECT_TRUE(prof::analysis::verdict_rule(id)) << id;
  EXPECT_FALSE(prof::analysis::verdict_rule("no_such_verdict"));
  EXPECT_EQ(knob_json_type("batch_size"), 'i');
  EXPECT_EQ(knob_json_type("pin_memory"), 'b');
  EXPECT_EQ(knob_json_type("memory_limit_gib"), 'n');
  EXPECT_EQ(knob_json_type("model"), 's');
}

}  // namespace
}  // namespace ts::lessons

namespace ts::lessons {
namespace {

// A single stalled step (a plan built inside the run) moves the mean host step and the training time
// alike and is named as an outlier, never hidden by a median.
TEST(Lessons, OneStalledStepMovesStepAndThroughputAlikeAndIsNamed) {
  const fs::path path = fs::temp_directory_path() / ("ts_lesson_outlier_" + std::to_string(::getpid()) + ".tsession");
  prof::EventStore s;
  std::int64_t t = 0;
  for (std::int64_t i = 1; i <= 20; ++i) {
    const std::int64_t wall = i == 12 ? 2'000'000'000 : 2'000'000;  // 2 ms steps; step 12 takes 2 s
    s.append(s.steps, prof::StepRecord{i, 1, i, t, t + wall, 512, 0});
    t += wall;
  }
  prof::SessionWriter(path.string(), s).close();
  const RunResult r = measure_session(path.string(), 1);
  fs::remove(path);
  ASSERT_TRUE(r.analysed) << r.analysis_error;
  ASSERT_EQ(r.steps, 19);
  const double wall_ms = 18 * 2.0 + 2000.0;
  EXPECT_NEAR(r.figures.at("step_ms"), wall_ms / 19, 1e-9);
  // No epoch rows here: images per second of training time from the steps, the warm-up step in it.
  EXPECT_NEAR(r.figures.at("images_per_s"), 20 * 512 / ((wall_ms + 2.0) / 1e3), 1e-6);
  EXPECT_NEAR(r.figures.at("slowest_step_ms"), 2000, 1e-9);
  EXPECT_NEAR(r.median_step_ms, 2, 1e-9);
  ASSERT_EQ(r.outliers.size(), 1u);
  EXPECT_EQ(r.outliers[0].first, 12);
  EXPECT_NE(describe_outliers(r).find("step 12: 2000 ms (1000x the median 2 ms)"), std::string::npos)
      << describe_outliers(r);
  LessonResult lr;
  lr.runs.push_back(r);
  EXPECT_NE(to_text(lr).find("1 outlier step (counted in its figures)"), std::string::npos) << to_text(lr);
  EXPECT_NE(to_json(lr, "").find("\"outliers\":[{\"step\":12"), std::string::npos);
}

// A first step that outweighs the others is said where it counts: out_of_memory's bf16 run read
// 21,046 img/s (training time: its 202 ms first step and each epoch's start in it) beside a 9.6 ms
// host step at batch 8192, and nothing said why. The lesson's text names the first step; ordinary
// first steps are not named: sync_points', and out_of_memory's since its warm-up takes the convolution
// search the run then reuses (the search is kept per process).
TEST(Lessons, AHeavyFirstStepIsSaidBesideImagesPerSecond) {
  RunResult heavy;
  heavy.run.id = "bf16";
  heavy.run.outcome = "completes";
  heavy.analysed = true;
  heavy.steps = 2;
  heavy.first_steps_ms = 202;
  heavy.median_step_ms = 9.6;
  heavy.figures["images_per_s"] = 21046;
  const std::string said = describe_first_steps(heavy);
  EXPECT_NE(said.find("the first step took"), std::string::npos) << said;
  LessonResult r;
  r.runs.push_back(heavy);
  EXPECT_NE(to_text(r).find(said), std::string::npos) << to_text(r);
  EXPECT_NE(to_json(r, "").find("\"first_steps_ms\""), std::string::npos);
  const fs::path root = fs::path(TRAINSCOPE_SOURCE_DIR) / "resources" / "lessons" / "recorded";
  for (const char* name : {"sync_points", "out_of_memory"}) {
    const LessonResult s = evaluate((root / name).string(), read_record((root / name).string()));
    for (const RunResult& run : s.runs)
      EXPECT_EQ(describe_first_steps(run), "") << name << " " << run.run.id << " " << run.first_steps_ms;
  }
}

// One number per quantity: a lesson's images/s, host step and data wait are the numbers Compare shows
// for the same sessions (profiling/compare), and its images/s is the trainer's images per second of
// training time. out_of_memory's accumulate run (micro-batch 2048, accumulate 4) read 188,596 img/s
// from host steps beside Compare's 69,555 and the trainer's 51,374; cpu_vs_gpu's CPU data wait read
// 0.031 ms (the loader's counter) beside Compare's 0.248 ms (the trainer's data-wait ranges).
TEST(Lessons, KeyNumbersAreComparesNumbers) {
  const fs::path root = fs::path(TRAINSCOPE_SOURCE_DIR) / "resources" / "lessons" / "recorded";
  for (const char* name : {"out_of_memory", "cpu_vs_gpu"}) {
    SCOPED_TRACE(name);
    const LessonRecord rec = read_record((root / name).string());
    const LessonResult r = evaluate((root / name).string(), rec);
    const std::vector<std::string> paths = session_paths((root / name).string(), rec);
    std::vector<std::unique_ptr<PlainSession>> plain;
    std::vector<std::unique_ptr<prof::EventSource>> sources;
    std::vector<const prof::EventStore*> stores;
    std::vector<std::string> labels;
    std::vector<const RunResult*> runs;
    for (std::size_t i = 0; i < r.runs.size(); ++i) {
      if (!r.runs[i].analysed || r.runs[i].steps == 0) continue;  // as the window hands runs to Compare
      plain.push_back(std::make_unique<PlainSession>(paths[i]));
      sources.push_back(prof::open_session(plain.back()->path()));
      stores.push_back(&sources.back()->store());
      labels.push_back(r.runs[i].run.id);
      runs.push_back(&r.runs[i]);
    }
    ASSERT_EQ(stores.size(), 2u);
    using prof::compare::data_wait_ns_per_step;
    const prof::compare::Comparison c = prof::compare::compare(stores, labels);
    for (std::size_t i = 0; i < runs.size(); ++i) {
      SCOPED_TRACE(runs[i]->run.id);
      const auto& s = c.sessions[i];
      ASSERT_TRUE(s.throughput.training.img_per_s && s.throughput.mean_step_ns && data_wait_ns_per_step(s.report));
      EXPECT_DOUBLE_EQ(runs[i]->figures.at("images_per_s"), *s.throughput.training.img_per_s);
      EXPECT_DOUBLE_EQ(runs[i]->figures.at("step_ms"), *s.throughput.mean_step_ns / 1e6);
      EXPECT_DOUBLE_EQ(runs[i]->figures.at("data_wait_ms"), *data_wait_ns_per_step(s.report) / 1e6);
      EXPECT_EQ(runs[i]->steps, s.throughput.steps);
    }
  }
  // The trainer's figure (the run's JSON summary): 24,576 images in 0.359 s of training.
  const LessonRecord oom = read_record((root / "out_of_memory").string());
  const LessonResult oom_result = evaluate((root / "out_of_memory").string(), oom);
  const RunResult& acc = oom_result.runs[1];
  ASSERT_EQ(acc.run.id, "accumulate");
  ASSERT_NE(acc.run.summary_json.find("\"images_per_s\":68444.20"), std::string::npos) << acc.run.summary_json;
  EXPECT_NEAR(acc.figures.at("images_per_s"), 68444.205, 0.01);
}

// pin_memory is never left to a default in a built-in lesson that trains on CUDA (the window's and the
// runner's defaults once differed), and where the runs record it differently (a CPU run records it
// off), every run's label says so.
TEST(Lessons, EveryLessonSaysItsPinMemory) {
  for (const Lesson& l : builtin_lessons()) {
    SCOPED_TRACE(l.name);
    std::vector<bool> pinned;
    for (std::size_t i = 0; i < l.runs.size(); ++i) {
      const bool cuda = l.knob(i, "device") != "cpu";
      if (cuda) { EXPECT_FALSE(l.knob(i, "pin_memory").empty()) << l.runs[i].id << ": pin_memory left to a default"; }
      pinned.push_back(cuda && l.knob(i, "pin_memory") == "true");
    }
    if (std::all_of(pinned.begin(), pinned.end(), [&](bool p) { return p == pinned.front(); })) continue;
    for (const LessonRun& run : l.runs)
      EXPECT_TRUE(run.label.find("pin_memory") != std::string::npos || run.label.find("pageable") != std::string::npos)
          << run.id << ": \"" << run.label << "\" does not say its pin_memory";
  }
}

// A lesson's byte figures are written by the one formatter the window uses (base/format_bytes.h), so
// "peak allocated" reads the same in the lesson table and on the memory track.
TEST(LessonFigures, BytesUseTheWindowsFormatter) {
  EXPECT_EQ(format_figure("peak_memory_bytes", 144.0e6), "144.0 MB");
  EXPECT_EQ(format_figure("activation_bytes", 1.5e9), "1.5 GB");
  EXPECT_EQ(format_figure("peak_memory_bytes", 512), "512 B");
  EXPECT_EQ(format_figure("activation_bytes", 2.5e6), ts::format_bytes(2.5e6, 1));
  EXPECT_EQ(ts::format_bytes(799.87e6), "799.87 MB");
  EXPECT_EQ(ts::format_bytes(-2e3, 1), "-2.0 kB");
}

// images/s grouped as Compare writes it (base/format_number.h: "472,658", not "472658"), and a row of
// times at one precision: "0.930 ms" beside "0.816 ms", never "0.93 ms".
TEST(LessonFigures, OneFormatterAndOnePrecisionPerRow) {
  EXPECT_EQ(format_figure("images_per_s", 472658.4), "472,658 img/s");
  EXPECT_EQ(ts::format_grouped(999.5), "1,000");
  EXPECT_EQ(ts::format_grouped(-1234.5, 1), "-1,234.5");
  EXPECT_EQ(ts::format_grouped(12), "12");
  EXPECT_EQ(ts::format_grouped(1234567), "1,234,567");
  const std::vector<std::string> row = format_figure_row("step_ms", {0.93, std::nullopt, 0.8164});
  EXPECT_EQ(row, (std::vector<std::string>{"0.930 ms", "-", "0.816 ms"}));
  EXPECT_EQ(format_figure_row("step_ms", {12.34, 250.0}), (std::vector<std::string>{"12.3 ms", "250.0 ms"}));
  EXPECT_EQ(format_figure("slowest_step_ms", 2300.4), "2300 ms");  // not "2.3e+03 ms"
  EXPECT_EQ(format_figure("step_ms", 1.39), "1.39 ms");
  EXPECT_EQ(format_figure_row("gpu_utilization_pct", {85.84, 9.0}), (std::vector<std::string>{"85.8 %", "9.0 %"}));
}

}  // namespace
}  // namespace ts::lessons
