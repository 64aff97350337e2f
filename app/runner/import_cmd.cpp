// --import (being written in this session; until then it says so).
#include "app/runner/runner.h"
#include "engine/errors.h"

namespace ts {

int run_import(const RunnerOptions&) { throw InputError("--import is not available in this build yet"); }

}  // namespace ts
