// libFuzzer target for the trace importer (profiling/import): any bytes, plain or gzip, must end in a
// store or a one-line InputError, never a crash, a sanitizer report or another exception; the
// analysis then runs on whatever was imported. Built by the `fuzz` preset (tests/fuzz/fuzz.cmake);
// run by `scripts/bootstrap.sh fuzz [SECONDS]` with the fixtures of tests/data/traces as seeds.
#include <cstddef>
#include <cstdint>

#include "base/errors.h"
#include "profiling/import/trace_analysis.h"
#include "profiling/import/trace_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto t = ts::prof::import::import_trace_bytes(data, size, "fuzz-input.json");
    (void)t.summary.warnings_text();
    (void)ts::prof::import::analyze_imported(*t.store);
  } catch (const ts::InputError&) {
    // bad input, reported as one line: expected
  }
  return 0;
}
