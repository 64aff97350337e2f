// libFuzzer target for the lesson reader (lessons/lesson.cpp): any bytes must end in a Lesson or a
// one-line InputError, never a crash or a sanitizer report. A lesson that parses must survive the
// round trip to_json -> parse_lesson unchanged (pretty and compact), and its knob lookups and
// device list must work. Seeds: resources/lessons/*.json (tests/data/fuzz/lesson).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/errors.h"
#include "fuzz_util.h"
#include "lessons/lesson.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string json(reinterpret_cast<const char*>(data), size);
  ts::lessons::Lesson lesson;
  try {
    lesson = ts::lessons::parse_lesson(json, "fuzz.json");
  } catch (const ts::InputError& e) {
    ts::fuzz::require_one_line(e.what());
    return 0;
  }
  for (std::size_t i = 0; i <= lesson.runs.size(); ++i) (void)lesson.knob(i, "batch_size");
  (void)lesson.devices();
  for (const bool pretty : {true, false}) {
    const std::string back = ts::lessons::to_json(lesson, pretty);
    try {
      if (!(ts::lessons::parse_lesson(back, "fuzz-roundtrip.json") == lesson)) {
        std::fprintf(stderr, "the round trip changed the lesson:\n%s\n", back.c_str());
        std::abort();
      }
    } catch (const ts::InputError& e) {
      std::fprintf(stderr, "to_json wrote a lesson that does not parse: %s\n%s\n", e.what(), back.c_str());
      std::abort();
    }
  }
  return 0;
}
