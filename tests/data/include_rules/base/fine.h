// A fixture of scripts/check-includes.sh: base/ including itself and the standard library is fine.
#pragma once
#include <string>
#include "base/errors.h"
