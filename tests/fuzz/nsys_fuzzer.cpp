// libFuzzer target for the Nsight Systems export reader (profiling/import/nsys): any bytes, read as
// a SQLite database in memory, must end in a store or a one-line InputError, never a crash, a
// sanitizer report or another exception; the analysis then runs on whatever was imported. Built by
// the `fuzz` preset (tests/fuzz/fuzz.cmake); run by `scripts/bootstrap.sh fuzz [SECONDS] nsys`
// with the seeds of tests/data/fuzz/nsys: the schema fixtures of tests/data/nsys/*.sql built with
// `(echo 'PRAGMA page_size=512;'; cat F.sql; echo 'VACUUM;') | sqlite3 F.sqlite` (small pages, so
// the mutator reaches the cells: wrong types, missing tables and columns, huge values).
#include <cstddef>
#include <cstdint>

#include "base/errors.h"
#include "profiling/import/nsys/nsys_import.h"
#include "profiling/import/trace_analysis.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto t = ts::prof::import::nsys::import_export_bytes(data, size, "fuzz-input.sqlite");
    (void)t.summary.warnings_text();
    (void)ts::prof::import::analyze_imported(*t.store);
  } catch (const ts::InputError&) {
    // bad input, reported as one line: expected
  }
  return 0;
}
