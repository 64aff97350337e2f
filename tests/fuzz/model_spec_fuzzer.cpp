// libFuzzer target for the model-spec JSON reader (engine/model_spec.cpp): any bytes must end in a
// ModelSpec or a one-line InputError / ModelSpecError, never a crash or a sanitizer report. A spec that
// parses also goes through shape inference (for any number of classes) and must survive the round
// trip to_json -> parse_model_spec unchanged. Seeds: resources/models/*.json, tests/data/fuzz/model_spec.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/errors.h"
#include "engine/model_spec.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  ts::ModelSpec spec;
  try {
    spec = ts::parse_model_spec(json, "fuzz.json");
  } catch (const ts::InputError& e) {  // ModelSpecError derives from it
    ts::fuzz::require_one_line(e.what());
    return 0;
  }
  try {
    (void)ts::infer_shapes(spec, 0);
    (void)ts::infer_shapes(spec, 10);
  } catch (const ts::InputError& e) {
    ts::fuzz::require_one_line(e.what());
  }
  const std::string back = ts::to_json(spec);
  try {
    if (ts::to_json(ts::parse_model_spec(back, "fuzz-roundtrip.json")) != back) std::abort();
  } catch (const ts::InputError& e) {
    std::fprintf(stderr, "to_json wrote a spec that does not parse: %s\n%s\n", e.what(), back.c_str());
    std::abort();
  }
  return 0;
}
