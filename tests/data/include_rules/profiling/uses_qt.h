// A fixture of scripts/check-includes.sh (IncludeRules.CatchesForbiddenIncludes): profiling/ is
// Qt-free. Never compiled.
#pragma once
#include <vector>
#include <QString>
