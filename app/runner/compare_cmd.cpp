// --compare (being written in this session; until then it says so).
#include "app/runner/runner.h"
#include "engine/errors.h"

namespace ts {

int run_compare(const RunnerOptions&) { throw InputError("--compare is not available in this build yet"); }

}  // namespace ts
