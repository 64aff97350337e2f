// A fixture of scripts/check-includes.sh (IncludeRules.CatchesForbiddenIncludes): the engine may not
// include profiling/, which sits above it. Never compiled.
#include "engine/tensor.h"
#include "profiling/event_store.h"
