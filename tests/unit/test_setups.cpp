// Setups (setups/setup.h): a run's setup and a lesson's round-trip through the file and the line;
// damaged, foreign and newer setups are refused with the field or character named; an inline
// model is checked; base64url is RFC 4648's (its test vectors).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/errors.h"
#include "engine/model_spec.h"
#include "lessons/lesson.h"
#include "setups/setup.h"

namespace ts::setups {
namespace {

namespace fs = std::filesystem;
using TsSetup = Setup;  // inside a TEST, "Setup" is gtest's trap for a misspelt SetUp

std::string refusal(const std::string& text) {
  try {
    (void)parse_setup(text, "t");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TsSetup run_setup() {
  TsSetup s;
  s.title = "SimpleCNN, batch 256, bf16";
  s.knobs = {{"model", "simple_cnn"}, {"device", "cuda"}, {"batch_size", "256"}, {"num_workers", "4"},
             {"pin_memory", "true"}, {"amp", "bf16"}, {"lr", "0.003"}, {"momentum", "0.9"}, {"weight_decay", "0.0005"}};
  return s;
}

TEST(Setups, Base64urlMatchesRfc4648WithoutPadding) {
  // RFC 4648 §10's vectors, padding dropped; '-' and '_' where base64 has '+' and '/'.
  const std::pair<const char*, const char*> vectors[] = {{"", ""}, {"f", "Zg"}, {"fo", "Zm8"}, {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg"}, {"fooba", "Zm9vYmE"}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : vectors) {
    EXPECT_EQ(base64url_encode(plain), coded);
    if (*coded) {
      EXPECT_EQ(base64url_decode(coded, "t"), plain);
    }
  }
  EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8");
  EXPECT_EQ(base64url_decode("-_8", "t"), "\xfb\xff");
}

TEST(Setups, ARunSetupRoundTripsThroughJsonAndTheLine) {
  const TsSetup s = run_setup();
  EXPECT_EQ(parse_setup(to_json(s), "t"), s);
  EXPECT_EQ(parse_setup(to_json(s, true), "t"), s);
  const std::string line = to_line(s);
  EXPECT_TRUE(line.starts_with("trainscope:"));
  EXPECT_EQ(line.find_first_of("+/= \n"), std::string::npos) << line;
  EXPECT_TRUE(is_setup_line("  " + line + "\r\n"));
  EXPECT_EQ(parse_setup("\n " + line + " \n", "t"), s);  // pasted with white space around it
  EXPECT_EQ(s.knob("amp"), "bf16");
  EXPECT_EQ(s.knob("epochs"), "");
}

TEST(Setups, ALessonSetupRoundTripsAndALessonFileIsOne) {
  const lessons::Lesson& l = lessons::builtin_lessons().front();
  TsSetup s;
  s.title = l.title;
  s.lesson = l;
  EXPECT_EQ(parse_setup(to_line(s), "t"), s);
  const TsSetup from_file = parse_setup(lessons::to_json(l), "lesson.json");
  ASSERT_TRUE(from_file.is_lesson());
  EXPECT_EQ(*from_file.lesson, l);
}

TEST(Setups, FilesAndLinesAreReadAlike) {
  const fs::path dir = fs::temp_directory_path() / ("ts_setups." + std::to_string(getpid()));
  fs::create_directories(dir);
  const TsSetup s = run_setup();
  write_setup_file((dir / "a.tsetup").string(), s);
  EXPECT_EQ(read_setup((dir / "a.tsetup").string()), s);
  std::ofstream(dir / "b.txt") << to_line(s) << "\n";  // a line saved in a text file
  EXPECT_EQ(read_setup((dir / "b.txt").string()), s);
  EXPECT_EQ(read_setup(to_line(s)), s);
  EXPECT_THROW(read_setup((dir / "missing.tsetup").string()), InputError);
  fs::remove_all(dir);
}

TEST(Setups, DamagedLinesNameTheCharacter) {
  const std::string line = to_line(run_setup());
  std::string bad = line;
  bad[40] = '!';
  EXPECT_EQ(refusal(bad).rfind("setup t: character 41: '!' is not base64url", 0), 0u) << refusal(bad);
  bad = line;
  bad[30] = '+';  // standard base64, not base64url
  EXPECT_NE(refusal(bad).find("character 31"), std::string::npos) << refusal(bad);
  EXPECT_NE(refusal("trainscope:").find("nothing after"), std::string::npos);
  EXPECT_NE(refusal(line.substr(0, line.size() - 5)).find("setup t:"), std::string::npos);  // cut: JSON or base64 error
  std::string cut = line.substr(0, 11 + 4 * 20 + 1);  // one character into a 4-character group
  EXPECT_NE(refusal(cut).find("cut short"), std::string::npos) << refusal(cut);
}

TEST(Setups, ForeignNewerAndBadSetupsAreRefusedWithTheFieldNamed) {
  const auto line = [](const std::string& json) { return "trainscope:" + base64url_encode(json); };
  EXPECT_NE(refusal(R"({"traceEvents": []})").find("trainscope_setup: missing: not a TrainScope setup"), std::string::npos);
  EXPECT_NE(refusal(line("[1,2]")).find("not a TrainScope setup"), std::string::npos);
  EXPECT_NE(refusal(line("{\"trainscope_setup\":1,")).find("not JSON"), std::string::npos);
  EXPECT_EQ(refusal(line(R"({"trainscope_setup": 2, "knobs": {}})")),
            "setup t: trainscope_setup: format 2 is from a newer TrainScope (this one reads 1): update TrainScope");
  EXPECT_EQ(refusal(R"({"trainscope_setup": 1, "knobs": {"batch_size": "big"}})"),
            "setup t: knobs.batch_size: must be an integer from 1 to 65536, got \"big\"");
  EXPECT_NE(refusal(R"({"trainscope_setup": 1, "knobs": {"batch": 3}})").find("knobs.batch: unknown knob"), std::string::npos);
  EXPECT_NE(refusal(R"({"trainscope_setup": 1, "knobs": {}, "extra": 1})").find("extra: unknown field"), std::string::npos);
  EXPECT_NE(refusal(R"({"trainscope_setup": 1})").find("knobs: missing"), std::string::npos);
  EXPECT_NE(refusal(R"({"trainscope_setup": 1, "knobs": {}, "lesson": {}})").find("not both"), std::string::npos);
  EXPECT_NE(refusal(R"({"trainscope_setup": 1, "lesson": {"trainscope_lesson": 1, "name": "x"}})").find("setup t: lesson.title: missing"),
            std::string::npos)
      << refusal(R"({"trainscope_setup": 1, "lesson": {"trainscope_lesson": 1, "name": "x"}})");
  EXPECT_NE(refusal(R"({"trainscope_setup": 1, "knobs": {"momentum": -1}})").find("knobs.momentum: must be a number from 0 to 0.999"),
            std::string::npos);
  EXPECT_NE(refusal(std::string(kMaxSetupBytes + 1, ' ')).find("larger than"), std::string::npos);
  // A byte order mark is taken, a stray byte of one is not (rapidjson alone skips either).
  EXPECT_EQ(refusal("\xEF\xBB\xBF{\"trainscope_setup\": 1, \"knobs\": {}}"), "(accepted)");
  EXPECT_NE(refusal("\xEF{\"trainscope_setup\": 1, \"knobs\": {}}").find("offset 0: not JSON"), std::string::npos);
  EXPECT_NE(refusal(line("\n\xEF{\"trainscope_setup\": 1, \"knobs\": {}}")).find("offset 0: not JSON"), std::string::npos);
}

TEST(Setups, ValuesBeyondAKnobsRangeAreRefusedNotWrapped) {
  // From a new user's try: these reached std::stoi / std::stof (an internal error, a crash in the
  // window) or the form's spin boxes (silently wrapped or clamped).
  const std::pair<const char*, const char*> cases[] = {
      {R"("num_workers": 1099511627776)", "knobs.num_workers: must be an integer from 0 to 64"},
      {R"("epochs": 4294967296)", "knobs.epochs: must be an integer from 1 to 1000"},
      {R"("batch_size": 1099511627776)", "knobs.batch_size: must be an integer from 1 to 65536"},
      {R"("lr": 1e300)", "knobs.lr: must be a number from 1e-06 to 10"},
      {R"("lr": 1e-300)", "knobs.lr: must be a number from 1e-06 to 10"},
      {R"("weight_decay": 1e40)", "knobs.weight_decay: must be a number from 0 to 1"},
      {R"("momentum": 5)", "knobs.momentum: must be a number from 0 to 0.999"},
      {R"("memory_limit_gib": 1e300)", "knobs.memory_limit_gib: must be a number > 0 and <= 4096"},
      {R"("batch_size": 64.5)", "knobs.batch_size: must be an integer"},
      {R"("profile_schedule": "garbage")", "knobs.profile_schedule: "},
  };
  for (const auto& [knob, says] : cases) {
    const std::string why = refusal(std::string(R"({"trainscope_setup": 1, "knobs": {)") + knob + "}}");
    EXPECT_NE(why.find(says), std::string::npos) << knob << ": " << why;
  }
  EXPECT_EQ(parse_setup(R"({"trainscope_setup": 1.0, "knobs": {"batch_size": 64.0}})", "t").knob("batch_size"), "64");
  EXPECT_EQ(parse_setup(R"({"trainscope_setup": 1, "knobs": {"nesterov": true}})", "t").knob("nesterov"), "true");
}

TEST(Setups, PastedLinesAreFoundInQuotesAndSentencesAndForeignCharactersNamed) {
  const TsSetup s = run_setup();
  const std::string line = to_line(s);
  for (const std::string& pasted : {"\"" + line + "\"", "'" + line + "'", "`" + line + "`.", "Here is the line: " + line,
                                    "TrainScope:" + line.substr(11), "\xC2\xA0" + line})
    EXPECT_EQ(parse_setup(pasted, "t"), s) << pasted.substr(0, 40);
  std::string accent = line;
  accent.replace(30, 1, "\xC3\xA9");  // é
  EXPECT_NE(refusal(accent).find("character 31: byte 0xc3 is not base64url"), std::string::npos) << refusal(accent);
  EXPECT_NE(refusal(line + "\xFF").find("is not base64url"), std::string::npos) << refusal(line + "\xFF");
  EXPECT_NE(refusal(R"({"trainscope_setup": 99999999999, "knobs": {}})").find("format 99999999999 is from a newer TrainScope"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"trainscope_setup": 1, "trainscope_setup": 2, "knobs": {}})").find("trainscope_setup: set twice"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"trainscope_setup": 1, "knobs": {}, "knobs": {"lr": -1}})").find("knobs: set twice"), std::string::npos);
  EXPECT_NE(refusal("{\"trainscope_setup\": 1, \"title\": \"a\\u001bb\", \"knobs\": {}}").find("title: holds a control character"),
            std::string::npos);
  EXPECT_THROW(read_setup(""), InputError);
  try {
    (void)read_setup(fs::temp_directory_path().string());
    ADD_FAILURE() << "a folder was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a folder, not a setup file"), std::string::npos) << e.what();
  }
}

TEST(Setups, AnInlineModelIsCheckedAndKeptAndFilesTravelInline) {
  const std::string spec = to_json(simple_cnn_spec());
  const std::string json = R"({"trainscope_setup": 1, "knobs": {"model": )" + spec + "}}";
  const TsSetup s = parse_setup(json, "t");
  ASSERT_EQ(s.knobs.size(), 1u);
  EXPECT_EQ(s.knobs[0].value.front(), '{');
  EXPECT_EQ(parse_model_spec(s.knobs[0].value, "x").layers.size(), simple_cnn_spec().layers.size());
  EXPECT_EQ(parse_setup(to_line(s), "t"), s);
  std::string broken = json;
  broken.replace(broken.find("\"Linear\""), 8, "\"Lineal\"");
  EXPECT_NE(refusal(broken).find("setup t: knobs.model: "), std::string::npos) << refusal(broken);
  EXPECT_NE(refusal(R"({"trainscope_setup": 1, "knobs": {"model": 3}})").find("knobs.model: must be a preset name"), std::string::npos);

  const fs::path file = fs::temp_directory_path() / ("ts_setups_model." + std::to_string(getpid()) + ".json");
  std::ofstream(file) << spec;
  TsSetup named;
  named.knobs = {{"model", file.string()}, {"batch_size", "8"}};
  const TsSetup p = portable(named, [](const std::string& n) { return n == "simple_cnn"; });
  EXPECT_EQ(p.knobs[0].value.front(), '{');
  EXPECT_EQ(parse_setup(to_line(p), "t"), p);
  TsSetup preset;
  preset.knobs = {{"model", "simple_cnn"}};
  EXPECT_EQ(portable(preset, [](const std::string& n) { return n == "simple_cnn"; }), preset);
  fs::remove(file);
  EXPECT_THROW(portable(named, [](const std::string&) { return false; }), InputError);
}

}  // namespace
}  // namespace ts::setups
