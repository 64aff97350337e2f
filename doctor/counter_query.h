// The doctor's hardware-counter line from an actual counter query: CUPTI's PM sampling is enabled on
// a GPU and a one-metric config is set and started (what a profiled run does first), through the
// CUPTI library the doctor opened at run time. The driver parameter (RmProfilingAdminOnly) only says
// what the driver was told; the query says what this process may do now (root, a container's
// capabilities, another profiler holding the counters, a GPU without PM sampling).
#pragma once
#include <string>

#include "doctor/environment.h"

namespace ts::doctor {

/// What a counter query did: whether it ran (CUPTI and a GPU were there), the step that failed
/// ("" when it started), CUPTI's result code and its error text, and the chip.
struct CounterQuery {
  bool ran = false;
  std::string why_not_run;  // when !ran
  std::string step;
  int result = 0;           // CUptiResult; 0 = CUPTI_SUCCESS
  std::string error;        // CUPTI's name for `result`
  std::string chip;
};

/// The counters Reading from a query, falling back to the driver parameter's reading (`from_params`,
/// `params_detail`) when the query could not run. A refusal for privileges (CUPTI_ERROR_INSUFFICIENT_
/// PRIVILEGES = 35, its virtualized twin 40) is false; another failure (another profiler holding the
/// counters, an unsupported GPU) is unreadable with CUPTI's words, since it says nothing of permission.
Reading<bool> counters_from_query(const CounterQuery& q, const Reading<bool>& from_params,
                                  const std::string& params_detail, std::string* detail);

/// Runs the query on CUDA device `device` through `cupti` (a dlopen handle; null: not run). CUDA builds
/// only; elsewhere it says it did not run.
CounterQuery query_counters(void* cupti, int device);

}  // namespace ts::doctor
