// Compare's figures as text (profiling/compare/compare_text.h), the writers the runner's --compare
// and the window's Compare share: grouped images/s with the heavy-first-step mark, ms and percent
// cells, and the --compare text and JSON built on them from hand-built sessions (exact numbers).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "profiling/compare/compare_text.h"

namespace ts::prof::compare {
namespace {

/// Fills `s` (empty): its epochs table says `img_per_s` over 1 s of training, its steps are one
/// warm-up step of `first_ns` then four of 50 ms (the median), 100 images each.
void fill(EventStore& s, double img_per_s, std::int64_t first_ns) {
  std::int64_t t = 0;
  for (int i = 1; i <= 5; ++i) {
    StepRecord r;
    r.global_step = i, r.epoch = 1, r.step = i, r.start = t, r.images = 100;
    r.end = t + (i == 1 ? first_ns : 50'000'000);
    t = r.end + 1000;
    s.append(s.steps, r);
  }
  EpochRecord e;
  e.epoch = 1, e.train_ns = 1'000'000'000, e.images_per_s = img_per_s;
  s.append(s.epochs, e);
}

TEST(CompareText, OneWriterPerFigure) {
  EventStore a, b;
  fill(a, 472658.4, 1'000'000'000);  // 20x the median
  fill(b, 1234.4, 250'000'000);      // 5x: not over the rule
  const Throughput heavy = throughput(a, 1), light = throughput(b, 1);
  EXPECT_TRUE(first_steps_heavy(heavy));
  EXPECT_FALSE(first_steps_heavy(light));
  EXPECT_EQ(training_rate_text(heavy), "472,658 ⚠");
  EXPECT_EQ(training_rate_text(light), "1,234");
  EXPECT_EQ(training_rate_text(Throughput{}), "");  // no rate: the caller says "absent"
  EXPECT_EQ(ms_text(613'000), "0.613");
  EXPECT_EQ(ms_text(1'234'500'000), "1,234.500");
  EXPECT_EQ(percent_text(0.8734), "87.3 %");
  EXPECT_EQ(percent_text(0.456, 2), "45.60 %");
  EXPECT_EQ(first_steps_note("A", heavy), "A ⚠ " + describe_first_steps(heavy));
  EXPECT_EQ(first_steps_note("B", light), "");
}

// The runner's --compare text writes images/s as the window does (grouped, marked) and says under the
// table why a rate is marked; its JSON carries the first steps' time and the finding as fields.
TEST(CompareText, TextAndJsonSayTheHeavyFirstStep) {
  EventStore a, b;
  fill(a, 472658.4, 1'000'000'000);
  fill(b, 1234.4, 250'000'000);
  const Comparison c = compare({&a, &b}, {"a", "b"});
  const std::string text = to_text(c);
  EXPECT_NE(text.find("472,658 ⚠"), std::string::npos) << text;
  EXPECT_NE(text.find("1,234"), std::string::npos) << text;
  EXPECT_EQ(text.find("472658"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  A ⚠ the first step took 1000 ms (20x the median 50 ms"), std::string::npos) << text;
  EXPECT_EQ(text.find("B ⚠"), std::string::npos) << text;
  EXPECT_NE(text.find("50.000"), std::string::npos) << "host step, mean ms\n" << text;

  rapidjson::Document j;
  j.Parse(to_json(c).c_str());
  ASSERT_FALSE(j.HasParseError());
  const auto& ta = j["sessions"][0]["throughput"];
  const auto& tb = j["sessions"][1]["throughput"];
  EXPECT_EQ(ta["first_steps_ns"].GetInt64(), 1'000'000'000);
  EXPECT_DOUBLE_EQ(ta["median_step_ns"].GetDouble(), 50'000'000);
  EXPECT_DOUBLE_EQ(ta["first_steps_over_median"].GetDouble(), 20.0);
  EXPECT_TRUE(ta["first_steps_outlier"].GetBool());
  EXPECT_EQ(tb["first_steps_ns"].GetInt64(), 250'000'000);
  EXPECT_DOUBLE_EQ(tb["first_steps_over_median"].GetDouble(), 5.0);
  EXPECT_FALSE(tb["first_steps_outlier"].GetBool());
}

// A session of one step leaves nothing out: no first steps, no median to weigh them by (null).
TEST(CompareText, NoFirstStepsWithoutWarmUp) {
  EventStore a, one;
  fill(a, 1000, 1'000'000'000);
  StepRecord r;
  r.global_step = 1, r.start = 0, r.end = 0, r.images = 10;  // zero length: no median step
  one.append(one.steps, r);
  const Comparison c = compare({&a, &one}, {"a", "one"});
  rapidjson::Document j;
  j.Parse(to_json(c).c_str());
  ASSERT_FALSE(j.HasParseError());
  const auto& t = j["sessions"][1]["throughput"];
  EXPECT_EQ(t["first_steps_ns"].GetInt64(), 0);
  EXPECT_TRUE(t["first_steps_over_median"].IsNull());
  EXPECT_FALSE(t["first_steps_outlier"].GetBool());
}

}  // namespace
}  // namespace ts::prof::compare
