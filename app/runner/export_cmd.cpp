// --export (being written in this session; until then it says so).
#include "app/runner/runner.h"
#include "engine/errors.h"

namespace ts {

int run_export(const RunnerOptions&) { throw InputError("--export is not available in this build yet"); }

}  // namespace ts
